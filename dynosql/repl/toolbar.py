"""The bottom toolbar: where the session points, how it reads, and what it has cost so far."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from prompt_toolkit.formatted_text import StyleAndTextTuples

from dynosql.result import format_capacity

if TYPE_CHECKING:
    from dynosql.repl.state import ReplState as Repl
    from dynosql.session import Session


def where(session: Session) -> str:
    """``local``, a custom endpoint's host, or ``aws``; then the region."""
    region = session.region or "?"
    if session.embedded is not None:
        return f"local (embedded) · {region}"
    endpoint = session.endpoint
    host = urlparse(endpoint).netloc if endpoint else ""
    if host and not host.endswith(".amazonaws.com"):
        return f"{host} · {region}"
    return f"aws · {region}"


def capacity(session: Session) -> str:
    """What the session has consumed, from its one ledger: reads, and writes once there are."""
    ledger = session.ledger
    parts = [(ledger.rcu, "RCU")] + ([(ledger.wcu, "WCU")] if ledger.wcu else [])
    if session.estimating:
        return " · ".join(f"~{format_capacity(v)} {unit} est." for v, unit in parts) + " used"
    return " · ".join(f"{format_capacity(v)} {unit}" for v, unit in parts) + " used"


def toolbar_parts(repl: Repl) -> list[str]:
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
    if s.timing:
        parts.append("timing")
    if repl.output_path:
        parts.append(f"→ {repl.output_path}")
    return parts


def toolbar(repl: Repl) -> StyleAndTextTuples:
    text = " " + " │ ".join(toolbar_parts(repl)) + "   \\? help "
    return [("class:bottom-toolbar", text)]
