"""EXPLAIN [ANALYZE] of a write: the read that finds the keys, the writes it would send, the
estimated items, RCU and WCU. EXPLAIN sends nothing but DescribeTable; EXPLAIN ANALYZE runs
the statement (with every guard) and adds what it really did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynosql.result import Result, Stats
from dynosql.sql import ast
from dynosql.statements.read_explain import explain_lines

if TYPE_CHECKING:
    from dynosql.session import Session


def explain_write(session: Session, explain: ast.Explain) -> Result:
    from dynosql.statements.write import plan_of, run_write

    statement = explain.statement
    plan = plan_of(session, statement)
    read = plan.source if plan.source is not None else plan.read
    lines = plan.lines(explain_lines(read) if read is not None else None)
    lines.extend(f"note: {note}" for note in session.capabilities.notes())
    document = plan.document(read.document() if read is not None else None)
    stats: Stats = Stats()
    if explain.analyze:
        result = run_write(session, statement)
        result.all()
        stats = result.stats
        lines.append(f"actual: {stats.footer(rows=False)}")
        document["actual"] = {"summary": stats.footer(rows=False)}
    out = Result(["plan"], iter([{"plan": line} for line in lines]), Stats(), [], kind="plan")
    out.document = document
    if explain.analyze:
        out.stats = stats
    return out
