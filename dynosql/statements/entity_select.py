"""SELECT from an entity: the physical SELECT (``dynosql.plan.entity_read``) run by the SELECT
kind itself (the same planner, guards, hints, capacity and engines), its rows given back as
the entity's: ``SELECT *`` decodes each item into the entity's columns; a select list already
names them (the rewrite reads key columns back from the key). EXPLAIN shows the rewrite, how
membership is decided, then the physical plan."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dynosql.guards import READS, Effects
from dynosql.plan.entity_read import EntityRead
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements import select
from dynosql.statements.kind import EXAMPLE_ENTITY, Kind, Planned, named

if TYPE_CHECKING:
    from dynosql.context import Context


def entity_rows(read: EntityRead, result: Result) -> Result:
    """`result` (the physical SELECT's) as the entity's: its columns, its hints first, and
    for SELECT * each item decoded."""
    result.warnings[:0] = [h for h in read.hints if h not in result.warnings]
    if read.whole_rows:
        result.columns = read.columns
        result.rows = _decoded(read, result.rows)
    return result


def _decoded(read: EntityRead, rows: Any) -> Iterator[dict[str, Any]]:
    for row in rows:
        yield read.entity.decode(row)


def _plan(ctx: Context, statement: ast.EntitySelect, explaining: bool) -> Planned[Any]:
    """The physical SELECT planned as the SELECT kind plans it; its Scan's hints after the
    entity's own."""
    read: EntityRead = statement.read
    physical = select.KIND.plan(ctx, read.physical, explaining)
    checks = tuple(dataclasses.replace(c, hints=[*read.hints, *c.hints]) for c in physical.scans)
    return Planned(statement, physical, checks)


def _run(ctx: Context, planned: Planned[ast.EntitySelect]) -> Result:
    read: EntityRead = planned.statement.read
    return entity_rows(read, select.run(ctx, planned.plan))


def explained(
    physical: Result, lines: list[str], entity: dict[str, Any], after: tuple[str, ...] = ()
) -> Result:
    """An entity statement's EXPLAIN: its rewrite (`lines`), then the physical statement's
    (`physical`); for --format json, the rewrite as `entity` beside the physical plan."""
    shown = [*lines, *(row["plan"] for row in physical.rows), *after]
    document = physical.document if isinstance(physical.document, dict) else {}
    stats = physical.stats if physical.stats.requests else None
    return Result.plan(shown, {"entity": entity, **document}, stats)


def _explain(ctx: Context, planned: Planned[ast.EntitySelect], analyze: bool) -> Result:
    read: EntityRead = planned.statement.read
    entity = {
        "name": read.entity.name,
        "table": read.entity.table,
        "rewrites": list(read.rewrites),
        "membership": list(read.membership),
        "hints": list(read.hints),
    }
    lines = [*read.lines(), *(f"hint: {h}" for h in read.hints)]
    return explained(select.explain(ctx, planned.plan, analyze), lines, entity)


def _effects(_statement: ast.EntitySelect) -> Effects:
    return READS


KINDS: dict[type, Kind[Any]] = {
    ast.EntitySelect: Kind(
        named("SELECT"),
        _run,
        _effects,
        _explain,
        plan=_plan,
        example=(EXAMPLE_ENTITY, "SELECT * FROM e_{t} WHERE a = 'x'"),
    ),
}
