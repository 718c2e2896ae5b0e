"""SELECT: plan, read, evaluate; and EXPLAIN [ANALYZE] of a SELECT.

A SELECT answered from a table export (``--engine export|athena``, ``FROM EXPORT``) goes to
``dynosql.engines``; a sampled one (``TABLESAMPLE``) to ``dynosql.statements.tablesample``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynosql.evaluate.pipeline import columns_of, inexact_columns
from dynosql.guards import READS, Effects
from dynosql.hints import advisor
from dynosql.plan.model import Plan
from dynosql.result import Result, Stats
from dynosql.sql import ast
from dynosql.statements.kind import Kind, ScanCheck, named
from dynosql.statements.read_explain import explain_lines

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.planner import Options


def _from_export(ctx: Context, statement: ast.Select) -> bool:
    return statement.export is not None or ctx.settings.engine != "dynamodb"


def plan_of(ctx: Context, statement: ast.Select, options: Options | None = None) -> Plan:
    """The plan for a bound SELECT (no reads beyond the cached DescribeTable), with
    table-qualified columns resolved as EXPLAIN and execution resolve them; planned with
    `options`, else the session's."""
    return advisor.prepare(ctx, statement, read=False, options=options)[1]


def run(ctx: Context, statement: ast.Select) -> Result:
    if _from_export(ctx, statement):
        from dynosql.engines.run import run_engine

        return run_engine(ctx, statement)
    if statement.sample is not None:
        from dynosql.statements.tablesample import sampled_select, seeded

        return sampled_select(ctx, seeded(statement))
    spent: list[str] = []  # reads made for the hints (the REPL's sample): a note each
    statement, plan, hints = advisor.prepare(ctx, statement, spent=spent)
    stats = Stats(expected_items=plan.estimate.items if plan.is_scan else None)
    warnings = [*hints, *plan.warnings]
    result = Result(columns_of(statement, plan.table.keys.names), iter(()), stats, warnings)
    result.open_columns = statement.items is None
    result.inexact = inexact_columns(statement)
    result.digits = ctx.settings.numeric_digits
    shown = list(hints)  # and what the Scan's first page told on the way
    check = advisor.first_page(ctx, statement, plan, shown, result.notes)
    rows = ctx.rows(plan, stats, result.notes, check)
    result.rows = advisor.after_rows(ctx, rows, plan, result.notes, shown, stats, spent)
    return result


def explain(ctx: Context, statement: ast.Select, analyze: bool) -> Result:
    if _from_export(ctx, statement):
        from dynosql.engines.run import explain_engine

        engine_lines = explain_engine(ctx, statement)
        return Result.plan(engine_lines, {"engine": ctx.settings.engine, "plan": engine_lines})
    if statement.sample is not None:
        from dynosql.statements.tablesample import seeded

        statement = seeded(statement)
    _statement, plan, hints = advisor.prepare(ctx, statement, read=False)
    document = plan.document()
    lines = explain_lines(plan)
    lines[2:2] = [f"hint: {h}" for h in hints]
    if plan.is_scan:
        from dynosql.engines.run import price_lines

        lines.extend(price_lines(ctx, plan))
    lines.extend(f"note: {note}" for note in ctx.capabilities.notes())
    if not analyze:
        return Result.plan(lines, document)
    stats = Stats()
    rows = 0
    for _row in ctx.rows(plan, stats):
        rows += 1
    stats.rows = rows
    stats.finish()
    document["actual"] = {
        "requests": stats.requests,
        "items_scanned": stats.items_scanned,
        "rows": rows,
        "consumed_capacity": str(stats.capacity.normalize()),
        "bytes_read": stats.bytes_read if stats.bytes_exact else None,
        "capacity_estimated": stats.capacity_estimated,
        "seconds": round(stats.elapsed, 6),
    }
    read = stats.bytes_text()
    lines.append(
        f"actual: {stats.requests} request(s), {stats.items_scanned} items scanned, "
        + (f"{read}, " if read else "")
        + f"{rows} rows, {stats.capacity_text()}, {stats.elapsed:.3f}s"
    )
    return Result.plan(lines, document, stats)


def scan_plan(ctx: Context, statement: ast.Select) -> ScanCheck | None:
    if _from_export(ctx, statement):
        return None  # answered from an export: no Scan
    _statement, plan, hints = advisor.prepare(ctx, statement, read=False)
    return ScanCheck(plan, hints)


def effects(statement: ast.Select) -> Effects:
    return READS


KIND: Kind[ast.Select] = Kind(named("SELECT"), run, effects, explain, scan_plan)
KINDS = {ast.Select: KIND}
