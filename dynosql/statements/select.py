"""SELECT: plan once, read, evaluate; and EXPLAIN [ANALYZE] of a SELECT.

A SELECT answered from a table export (``--engine export|athena``, ``FROM EXPORT``) goes to
``dynosql.engines``; a sampled one (``TABLESAMPLE``) to ``dynosql.statements.tablesample``.
Planning binds table-qualified columns (``drive.PK``) to the table, plans the read and finds
what the table alone says about the statement (the catalog-only hints, shown first); the
hints that read items (the REPL's sample, a Scan's first page, an empty result) read the plan
as it runs (`dynosql.hints.advisor`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from dynosql.evaluate import count_groups
from dynosql.evaluate.aggregate import collect_aggregates, count_group, group
from dynosql.evaluate.pipeline import aggregate_rows, columns_of, inexact_columns, select_rows
from dynosql.evaluate.reads import FirstPage
from dynosql.guards import READS, Effects
from dynosql.hints import advisor
from dynosql.hints import rules as H
from dynosql.plan.model import Plan
from dynosql.plan.planner import plan_select
from dynosql.plan.qualified import has_qualified_paths, resolve_qualified
from dynosql.result import Result, Stats, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, ScanCheck, named
from dynosql.statements.read_explain import actual_document, explain_lines

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.planner import Options


def _from_export(ctx: Context, statement: ast.Select) -> bool:
    return statement.export is not None or ctx.settings.engine != "dynamodb"


def planned(
    ctx: Context, statement: ast.Select, *, read: bool = True, options: Options | None = None
) -> Planned[ast.Select]:
    """The SELECT planned (no reads beyond the cached DescribeTable, but for the REPL's sample
    when `read` and a column is table-qualified: it says whether ``t.x`` is a path); planned
    with `options`, else the session's. A SELECT an export engine answers plans nothing here."""
    if _from_export(ctx, statement):
        return Planned(statement)
    if statement.sample is not None:
        from dynosql.statements.tablesample import seeded

        statement = seeded(statement)
    table = ctx.table(statement.table)
    reads: list[str] = []
    sampled: Iterable[str] = ()
    if read and has_qualified_paths(statement):
        sample, cost = ctx.hint_sample(statement.table)
        sampled = H.sampled_types(sample or [])
        reads = [cost] if cost is not None else []
    statement = resolve_qualified(statement, table, sampled)
    plan = plan_select(statement, table, options or ctx.options())
    hints = H.hints(statement, table)
    scan_hints = [plan.scan_hint] if plan.scan_hint else []
    checks = (ScanCheck(plan, scan_hints + hints),)
    return Planned(statement, plan, checks, tuple(hints), tuple(reads))


def plan_of(ctx: Context, statement: ast.Select, options: Options | None = None) -> Plan:
    """The plan of a bound SELECT (see `planned`; nothing read for hints)."""
    plan: Plan = planned(ctx, statement, read=False, options=options).plan
    return plan


def run(ctx: Context, planned: Planned[ast.Select]) -> Result:
    statement = planned.statement
    if _from_export(ctx, statement):
        from dynosql.engines.run import run_engine

        return run_engine(ctx, statement)
    plan: Plan = planned.plan
    if statement.sample is not None:
        from dynosql.statements.tablesample import sampled_select

        return sampled_select(ctx, statement, plan)
    spent = list(planned.reads)  # reads made for the hints (the REPL's sample): a note each
    hints = advisor.before_read(ctx, statement, plan, planned.hints, spent)
    stats = Stats(expected_items=plan.estimate.items if plan.is_scan else None)
    warnings = [*hints, *plan.warnings]
    result = Result(columns_of(statement, plan.table.keys.names), iter(()), stats, warnings)
    result.open_columns = statement.items is None
    result.inexact = inexact_columns(statement)
    result.digits = ctx.settings.numeric_digits
    shown = list(hints)  # and what the Scan's first page told on the way
    check = advisor.first_page(ctx, statement, plan, shown, result.notes)
    found = rows(ctx, plan, stats, result.notes, check)
    result.rows = advisor.after_rows(ctx, found, plan, result.notes, shown, stats, spent)
    return result


def rows(
    ctx: Context,
    plan: Plan,
    stats: Stats,
    notes: list[str] | None = None,
    first_page: FirstPage | None = None,
) -> Iterator[dict[str, Any]]:
    """A SELECT plan's rows: read, filtered, grouped or sorted client-side as planned (a
    count off the Select=COUNT pages; a GROUP BY of counts off the wire form where the plan
    reads every item once; else the items, evaluated)."""
    statement = plan.statement
    budget = ctx.memory_budget()
    if plan.count_only:
        count = ctx.count(plan, stats, first_page)
        yield from aggregate_rows(statement, count_group(statement, count))
    elif statement.is_aggregate:
        names = None
        if first_page is None and plan.reads_every_item_once:
            aggs = collect_aggregates(statement)
            names = count_groups.counted_names(aggs, statement.group_by)
        source: Iterable[dict[str, Any]] | count_groups.WirePages
        if names is not None:  # counted off the wire form, a page at a time
            pages = ctx.read_wire_pages(plan, stats, count_groups.count_wire(names))
            source = count_groups.WirePages(pages)
        else:
            source = ctx.read(plan, stats, first_page)
        groups = group(statement, source, budget, notes)
        yield from aggregate_rows(statement, groups, budget, notes)
    else:
        items = ctx.read(plan, stats, first_page)
        keys = plan.table.keys.names
        yield from select_rows(statement, keys, items, plan.sort, notes, budget)


def explain(ctx: Context, planned: Planned[ast.Select], analyze: bool) -> Result:
    statement = planned.statement
    if _from_export(ctx, statement):
        from dynosql.engines.run import explain_engine

        engine_lines = explain_engine(ctx, statement)
        return Result.plan(engine_lines, {"engine": ctx.settings.engine, "plan": engine_lines})
    plan: Plan = planned.plan
    document = plan.document()
    lines = explain_lines(plan)
    lines[2:2] = [f"hint: {h}" for h in planned.hints]
    if plan.is_scan:
        from dynosql.engines.run import price_lines

        lines.extend(price_lines(ctx, plan))
    lines.extend(f"note: {note}" for note in ctx.capabilities.notes())
    if not analyze:
        return Result.plan(lines, document)
    stats = Stats()
    count = 0
    for _row in rows(ctx, plan, stats):
        count += 1
    stats.rows = count
    stats.finish()
    document["actual"] = actual_document(stats)
    read = stats.bytes_text()
    lines.append(
        f"actual: {stats.requests} {plural(stats.requests, 'request')}, "
        f"{stats.items_scanned} {plural(stats.items_scanned, 'item')} scanned, "
        + (f"{read}, " if read else "")
        + f"{count} {plural(count, 'row')}, {stats.capacity_text()}, {stats.elapsed:.3f}s"
    )
    return Result.plan(lines, document, stats)


def effects(statement: ast.Select) -> Effects:
    return READS


def _planned(ctx: Context, statement: ast.Select, explaining: bool) -> Planned[ast.Select]:
    return planned(ctx, statement, read=not explaining)


KIND: Kind[ast.Select] = Kind(
    named("SELECT"),
    run,
    effects,
    explain,
    plan=_planned,
    example=("SELECT * FROM {t} WHERE v = 1",),
)
KINDS = {ast.Select: KIND}
