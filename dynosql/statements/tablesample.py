"""Running sampled statements: ``SELECT … TABLESAMPLE`` and ``SHOW HOT KEYS
… SAMPLE``. The plans come from ``dynosql.plan.sample``, the statistics from
``dynosql.evaluate.sample_stats``; this module only joins them to the context's reads.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.evaluate.pipeline import aggregate_rows, columns_of, select_rows
from dynosql.evaluate.sample_stats import key_sample, sample_notes, sampled_groups, with_intervals
from dynosql.plan.model import Plan
from dynosql.result import Result, Stats
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context

BAR_WIDTH = 30


def seeded(statement: Any) -> Any:
    """The statement with a fresh random seed where its sample names none (EXPLAIN shows the
    seed; REPEATABLE (seed) repeats the run)."""
    sample = getattr(statement, "sample", None)
    if sample is None or sample.seed is not None:
        return statement
    seed = secrets.randbelow(2**31)
    return dataclasses.replace(statement, sample=dataclasses.replace(sample, seed=seed))


def sampled_select(ctx: Context, statement: ast.Select, plan: Plan) -> Result:
    """SELECT … TABLESAMPLE: `plan` reads the seeded sample's segments (select.planned)."""
    assert plan.sample is not None
    spec = plan.sample
    stats = Stats(expected_items=plan.estimate.items)
    shown = with_intervals(statement) if statement.is_aggregate else statement
    result = Result(columns_of(shown, plan.table.keys.names), iter(()), stats, list(plan.warnings))
    result.open_columns = statement.items is None
    result.notes.extend(sample_notes(statement, spec))

    def rows() -> Iterator[dict[str, Any]]:
        pages = ctx.pages(plan, stats)
        if statement.is_aggregate:
            yield from aggregate_rows(shown, sampled_groups(statement, pages, spec))
        else:
            items = (item for _i, _n, page in pages for item in page)
            yield from select_rows(statement, plan.table.keys.names, items, plan.sort, result.notes)

    result.rows = rows()
    return result


def sampled_hot_keys(ctx: Context, plan: Plan, limit: int, sized: bool) -> Result:
    """SHOW HOT KEYS … SAMPLE: `plan` reads the seeded sample's segments (hot_keys.plan_of),
    the `limit` hottest keys shown (`sized`: WITH SIZES, their bytes too)."""
    assert plan.sample is not None
    spec = plan.sample
    stats = Stats(expected_items=plan.estimate.items or None)
    target = plan.target
    result = Result(
        ["key", "items", "bytes", "sample_share", "bar"]
        if sized
        else ["key", "items", "sample_share", "bar"],
        iter(()),
        stats,
        warnings=list(plan.warnings),
        human_only=("bar",),
        title=(
            f"hottest keys OF THE SAMPLE ({spec.k} of {spec.total} segments of {target}, seed "
            f"{spec.seed}): not the table's top keys"
        ),
    )

    def rows() -> Iterator[dict[str, Any]]:
        sample = key_sample(ctx.pages(plan, stats), plan.access.keys.pk, spec, sized)
        result.document = sample.document()
        result.notes.extend(_key_notes(sample, plan.access.keys.pk))
        ranked = sample.ranked
        total = sum(e[1] for e in ranked) or 1
        top = ranked[0][1] if ranked else 1
        for key, items, size in ranked[:limit]:
            row = {"key": key, "items": Decimal(items)}
            if sized:
                row["bytes"] = Decimal(size)
            row["sample_share"] = (Decimal(items) / Decimal(total)).quantize(Decimal("0.0001"))
            row["bar"] = "█" * max(1, round(BAR_WIDTH * items / top))
            yield row

    result.rows = rows()
    return result


def _key_notes(sample: Any, pk: str) -> list[str]:
    spec = sample.spec
    d, n = sample.distinct_keys(), sample.items()
    pct = sample.percentiles()

    def interval(iv: Any) -> str:
        if iv.low is None:
            return f"~{iv.estimate} (one segment read: no interval)"
        return f"~{iv.estimate} (95% interval {iv.low} to {iv.high})"

    return [
        f"a segment holds whole partition keys, so SAMPLE {format(spec.percent.normalize(), 'f')} "
        f"PERCENT samples keys, not items: a key holding 30% of the table is in a "
        f"{format(spec.percent.normalize(), 'f')}% sample only "
        f"{format(spec.percent.normalize(), 'f')}% of the time. The rows are the hottest keys "
        "of the sample, never the table's top keys; for those, run SHOW HOT KEYS without SAMPLE "
        "(a full Scan) or enable CloudWatch Contributor Insights (traffic skew).",
        f"distinct {pk} values in the table: {interval(d)}",
        f"items in the table: {n.estimate} (DescribeTable's ItemCount, refreshed about every "
        "six hours)"
        if spec.table_items
        else f"items in the table: {interval(n)}",
        f"skew of the sample: the top 1% of sampled keys hold {sample.top_share(0.01):.1%} of "
        f"the sampled items, the top 10% hold {sample.top_share(0.10):.1%}; items per key: "
        + ", ".join(f"{k} {v}" for k, v in pct.items()),
    ]
