"""SELECT without FROM (``SELECT 1 + 1``): one row computed client-side from values. It reads
nothing and changes nothing (no effects, no Scan for the guards to weigh), and EXPLAIN says
that no request is sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynosql.evaluate.pipeline import inexact_columns
from dynosql.evaluate.tableless import values_rows
from dynosql.result import Result, Stats, plural
from dynosql.sql import ast
from dynosql.sql.text import sql_text
from dynosql.statements.kind import Kind, Planned, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context

OPERATION = "no request (no table: values only)"


def run(ctx: Context, statement: ast.SelectValues) -> Result:
    result = Result([item.name for item in statement.items], values_rows(statement))
    result.inexact = inexact_columns(statement)
    result.digits = ctx.settings.numeric_digits
    return result


def explain(ctx: Context, planned: Planned[ast.SelectValues], analyze: bool) -> Result:
    statement = planned.statement
    steps = ["compute one row from the select list's values"]
    if statement.where is not None:
        steps.append(f"check the WHERE: {sql_text(statement.where)}")
    if statement.limit == 0:
        steps.append("stop after 0 rows")
    lines = [OPERATION, "estimate: ~0 items, ~0 RCU", "client-side:"]
    lines.extend(f"  - {step}" for step in steps)
    document = {
        "operation": "Values",
        "table": None,
        "index": None,
        "requests": [],
        "client_steps": steps,
        "warnings": [],
        "estimate": {"items": 0, "rcu": "0"},
    }
    if not analyze:
        return Result.plan(lines, document)
    stats = Stats()
    stats.rows = sum(1 for _row in values_rows(statement))
    stats.finish()
    document["actual"] = {"requests": 0, "rows": stats.rows, "consumed_capacity": "0"}
    rows = f"{stats.rows} {plural(stats.rows, 'row')}"
    lines.append(f"actual: 0 requests, {rows}, 0 RCU, {stats.elapsed:.3f}s")
    return Result.plan(lines, document, stats)


KINDS = {
    ast.SelectValues: Kind(
        named("SELECT"),
        unplanned(run),
        explain=explain,
        example=("SELECT 1 + 1 AS two WHERE 2 > 1",),
    )
}
