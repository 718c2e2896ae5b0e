"""The bottom toolbar: where the session points, how it reads, and what it has cost so far."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from dynosql.result import format_capacity


def where(session: Any) -> str:
    """``local``, a custom endpoint's host, or ``aws``; then the region."""
    region = session.region or "?"
    if getattr(session, "local", None) is not None:
        return f"local (embedded) · {region}"
    endpoint = session.endpoint
    host = urlparse(endpoint).netloc if endpoint else ""
    if host and not host.endswith(".amazonaws.com"):
        return f"{host} · {region}"
    return f"aws · {region}"


def capacity(session: Any) -> str:
    value = format_capacity(session.total_capacity)
    if getattr(session, "estimate_capacity", False):
        return f"~{value} RCU est. used"
    return f"{value} RCU used"


def toolbar_parts(repl: Any) -> list[str]:
    session = repl.session
    s = session.settings
    parts = [
        where(session),
        "consistent" if s.consistent else "eventual",
        s.format,
        capacity(session),
    ]
    if s.fail_on_scan:
        parts.append("no Scans")
    if s.max_rcu is not None:
        parts.append(f"max {format_capacity(s.max_rcu)} RCU")
    if s.rate_limit is not None:
        parts.append(f"≤ {format_capacity(s.rate_limit)} RCU/s")
    if repl.timing:
        parts.append("timing")
    if repl.output_path:
        parts.append(f"→ {repl.output_path}")
    return parts


def toolbar(repl: Any) -> list[tuple[str, str]]:
    text = " " + " │ ".join(toolbar_parts(repl)) + "   \\? help "
    return [("class:bottom-toolbar", text)]
