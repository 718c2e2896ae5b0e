"""SELECT … JOIN: its sources resolved (entities and tables) and its plan made once
(``dynosql.plan.join``), then read through the port: the first read (one source, or an item
collection split by membership), each lookup for the distinct keys of the rows before it,
a run of keys at a time, and the rows joined in the client (``dynosql.evaluate.join``) and
shaped by the same pipeline as any SELECT (WHERE on the joined rows, grouping, order, LIMIT).

Every read shares the statement's `Stats`: ``--max-rcu`` and ``--rate-limit`` count the whole
join, and the footer sums it. The Scan guards see the join's Scan, if it has one (only the
first read can be a Scan: a lookup reads by key), priced with everything the join reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from dynosql.errors import PlanError
from dynosql.evaluate.aggregate import group
from dynosql.evaluate.join import hashed, indexed, matched, runs
from dynosql.evaluate.pipeline import aggregate_rows, inexact_columns, select_rows
from dynosql.evaluate.predicate import matches
from dynosql.guards import READS, Effects, ScanCheck
from dynosql.plan.join import FIRST_CHUNK_KEYS, MAX_CHUNK_KEYS, JoinPlan, Lookup, Read, plan_join
from dynosql.plan.join_sources import resolved
from dynosql.result import Result, Stats, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, named
from dynosql.statements.read_explain import actual_document

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.entity_model import Entity
    from dynosql.plan.schema import TableInfo

Row = dict[str, Any]


# --- planning ------------------------------------------------------------------------------------


def plan_of(ctx: Context, statement: ast.Select) -> JoinPlan:
    """A bound SELECT with joins planned: each source an entity (looked up first) or a table
    (DescribeTable, cached), every name qualified, then `plan_join`."""
    if ctx.settings.engine != "dynamodb":
        raise PlanError(
            f"a join reads DynamoDB by key: --engine {ctx.settings.engine} answers one table "
            "(SET engine = dynamodb)"
        )

    def find(name: str) -> tuple[TableInfo, Entity | None]:
        entity = ctx.entities.get(name)
        return ctx.table(entity.table if entity is not None else name), entity

    qualified, sources = resolved(statement, find)
    return plan_join(qualified, sources, ctx.options())


def _plan(ctx: Context, statement: ast.JoinSelect, _explaining: bool) -> Planned[Any]:
    """Planned once; its Scan (only the first read can be one: a lookup reads by key) is
    priced with the whole join, so that the guards weigh everything the join would read."""
    join = plan_of(ctx, statement.select)
    first = join.first.plan
    if first.is_scan:
        priced = dataclasses.replace(join.estimate, items=first.estimate.items)
        first = dataclasses.replace(first, estimate=priced)
    hints = [*join.hints, *([first.scan_hint] if first.scan_hint else [])]
    return Planned(statement, join, (ScanCheck(first, hints, "join"),), tuple(join.hints))


# --- reading -------------------------------------------------------------------------------------


def joined_rows(ctx: Context, join: JoinPlan, stats: Stats) -> Iterator[Row]:
    """The joined rows that pass the WHERE, as the reads return them."""
    rows = _first_rows(ctx, join.first, stats)
    for lookup in join.lookups:
        rows = _looked_up(ctx, lookup, rows, stats)
    if join.where is not None:
        where = join.where
        rows = (row for row in rows if matches(where, row))
    return rows


def _first_rows(ctx: Context, read: Read, stats: Stats) -> Iterator[Row]:
    items = ctx.read(read.plan, stats)
    if not read.collection:
        side = read.sides[0]
        return ({side.alias: side.source.row(item)} for item in items)
    return iter(_collection_rows(read, items))


def _collection_rows(read: Read, items: Iterable[dict[str, Any]]) -> list[Row]:
    """An item collection's items split by member (each member's predicate: membership and
    its own conditions), then each member joined to the rows before it."""
    split: dict[str, list[Row]] = {side.alias: [] for side in read.sides}
    for item in items:
        for side in read.sides:
            if matches(side.predicate, item):
                split[side.alias].append(side.source.row(item))
    first = read.sides[0].alias
    rows = [{first: row} for row in split[first]]
    for side, match in zip(read.sides[1:], read.matches, strict=True):
        partners = indexed(split[side.alias], match.own_key)
        rows = list(matched(rows, side.alias, partners, match.key, match.residual, match.left))
    return rows


def _looked_up(ctx: Context, lookup: Lookup, rows: Iterable[Row], stats: Stats) -> Iterator[Row]:
    """The rows joined to the source `lookup` reads by key: the keys of each run of rows
    read together (one plan: its requests side by side), each key once."""
    match = lookup.match
    source = lookup.side.source
    found: dict[tuple[Any, ...], list[Row]] = {}
    slot: int | None = None
    requests = 0
    for run, fresh in runs(rows, match.key, FIRST_CHUNK_KEYS, MAX_CHUNK_KEYS):
        plan = lookup.plan(fresh) if fresh else None
        if plan is not None and plan.requests:  # keys no stored item can have: nothing sent
            wanted = {hashed(k) for k in fresh}
            for h in wanted:
                found[h] = []
            before = len(stats.operations)
            for item in ctx.read(plan, stats):
                row = source.row(item)
                own = match.own_key(row)
                if own is not None and (h := hashed(own)) in wanted:
                    found[h].append(row)
            requests += len(plan.requests)
            slot = _operations(stats, before, slot, lookup, requests)
        yield from matched(run, match.alias, found, match.key, match.residual, match.left)


def _operations(stats: Stats, before: int, slot: int | None, lookup: Lookup, n: int) -> int:
    """The footer's operations: one entry per lookup however many runs it read, its
    requests counted (``12× BatchGetItem products``)."""
    del stats.operations[before:]
    operation = "BatchGetItem" if lookup.full else "Query"
    table = lookup.side.source.table.name
    target = table if lookup.keys.index is None or lookup.full else f"{table}.{lookup.keys.index}"
    text = f"{n}× {operation} {target}" if n != 1 else f"{operation} {target}"
    if slot is None:
        stats.operations.append(text)
        return len(stats.operations) - 1
    stats.operations[slot] = text
    return slot


def _result_rows(ctx: Context, join: JoinPlan, stats: Stats, notes: list[str]) -> Iterator[Row]:
    """The result's rows: the joined rows shaped by the select list, grouping, order, LIMIT."""
    shape = dataclasses.replace(join.statement, where=None, joins=())
    rows = joined_rows(ctx, join, stats)
    budget = ctx.memory_budget()
    if shape.is_aggregate:
        return aggregate_rows(shape, group(shape, rows, budget, notes), budget, notes)
    return select_rows(shape, (), rows, shape.order_by, notes, budget)


# --- the kind ------------------------------------------------------------------------------------


def _run(ctx: Context, planned: Planned[ast.JoinSelect]) -> Result:
    join: JoinPlan = planned.plan
    stats = Stats(
        expected_items=join.first.plan.estimate.items if join.first.plan.is_scan else None
    )
    warnings = [*join.hints, *_warnings(join)]
    result = Result(join.columns, iter(()), stats, warnings)
    result.rows = _result_rows(ctx, join, stats, result.notes)
    result.open_columns = join.open_columns
    result.inexact = inexact_columns(join.statement)
    result.digits = ctx.settings.numeric_digits
    return result


def _warnings(join: JoinPlan) -> list[str]:
    found: list[str] = []
    for plan in (join.first.plan, *(x.sample for x in join.lookups)):
        found.extend(w for w in plan.warnings if w not in found)
    return found


def _explain(ctx: Context, planned: Planned[ast.JoinSelect], analyze: bool) -> Result:
    from dynosql.statements.join_explain import explain_document, explain_lines

    join: JoinPlan = planned.plan
    lines = explain_lines(join)
    lines.extend(f"note: {note}" for note in ctx.capabilities.notes())
    document = explain_document(join)
    if not analyze:
        return Result.plan(lines, document)
    stats = Stats()
    rows = sum(1 for _row in _result_rows(ctx, join, stats, []))
    stats.rows = rows
    stats.finish()
    document["actual"] = actual_document(stats)
    lines.append(
        f"actual: {stats.requests} {plural(stats.requests, 'request')} "
        f"({', '.join(stats.operations)}), {stats.items_scanned} "
        f"{plural(stats.items_scanned, 'item')} read, {rows} {plural(rows, 'row')}, "
        f"{stats.capacity_text()}, "
        f"{stats.elapsed:.3f}s"
    )
    return Result.plan(lines, document, stats)


def _effects(_statement: ast.JoinSelect) -> Effects:
    return READS


KINDS: dict[type, Kind[Any]] = {
    ast.JoinSelect: Kind(
        named("SELECT"),
        _run,
        _effects,
        _explain,
        plan=_plan,
        example=("SELECT a.v, b.v FROM {t} a JOIN {t} b ON b.pk = a.pk WHERE a.v = 1",),
    ),
}
