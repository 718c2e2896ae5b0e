"""EXPLAIN's text for a read plan, shared by EXPLAIN of a SELECT (``session``) and EXPLAIN of a
write (``write_explain``, for the read that finds its keys). Its own module so that neither
imports the other's module: the import graph stays a tree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dynosql.plan.model import Plan
    from dynosql.result import Stats


def explain_lines(plan: Plan) -> list[str]:
    """EXPLAIN for people: the operation, the exact requests, the client's steps, the cost."""
    lines = [f"{plan.label}"]
    lines.append(
        f"estimate: {plan.estimate.text()}"
        + (f" ({plan.estimate.bound} stops it)" if plan.estimate.bound else "")
        + (" (strongly consistent)" if plan.consistent else "")
        + (
            f"; based on {plan.estimate.basis}"
            if plan.estimate.basis and plan.estimate.known
            else ""
        )
        + (f"; {plan.estimate.paced}" if plan.estimate.paced else "")
    )
    shown = plan.requests[:5]
    for i, request in enumerate(shown, 1):
        title = "request" if len(plan.requests) == 1 else f"request {i} of {len(plan.requests)}"
        if request.operation == "Scan" and plan.sample is not None:
            from dynosql.evaluate.sample_stats import sample_text  # (statistics: ~5 ms to load)

            title += " " + sample_text(plan.sample)
        elif request.operation == "Scan" and plan.segments > 1:
            title += f" (sent as Segment 0..{plan.segments - 1} of TotalSegments {plan.segments})"
        lines.append(f"{title}:")
        lines.extend("  " + line for line in request.code().splitlines())
    if len(plan.requests) > len(shown):
        lines.append(f"… and {len(plan.requests) - len(shown)} more requests like these")
    if plan.fetch is not None:
        lines.append("then, for the items found (keys filled in, 100 a call):")
        lines.extend("  " + line for line in plan.fetch.code().splitlines())
    if plan.then is not None:
        lines.append("then, only if fewer rows than LIMIT came back:")
        lines.extend("  " + line for line in explain_lines(plan.then))
    if plan.fallback is not None:
        lines.append(f"instead, if the index holds more than {plan.fallback.keys:,} keys:")
        lines.extend("  " + line for line in explain_lines(plan.fallback.plan))
    if plan.steps:
        lines.append("client-side:")
        lines.extend(f"  - {step}" for step in plan.steps)
    for warning in plan.warnings:
        lines.append(f"warning: {warning}")
    return lines


def actual_document(stats: Stats) -> dict[str, Any]:
    """EXPLAIN ANALYZE's "actual": what the read did, for a SELECT's plan and a join's alike."""
    return {
        "requests": stats.requests,
        "items_scanned": stats.items_scanned,
        "rows": stats.rows,
        "consumed_capacity": str(stats.capacity.normalize()),
        "bytes_read": stats.bytes_read if stats.bytes_exact else None,
        "capacity_estimated": stats.capacity_estimated,
        "seconds": round(stats.elapsed, 6),
    }
