"""INSERT, UPDATE and DELETE of an entity: the physical write (``dynosql.entities.write``) run
by the write kind itself, so the guards, the journal, undo and the capacity report are the
ones every write has; RETURNING's rows are given back as the entity's, and what the INSERT
wrote without an index's keys (ON MISSING INDEX KEY SKIP) is said after the write. Inside
BEGIN … COMMIT the physical write is queued as it is (entity_resolve)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dynosql.entities.write import EntityWrite
from dynosql.guards import Effects, Steps
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements import write
from dynosql.statements.entity_select import explained
from dynosql.statements.kind import EXAMPLE_ENTITY, Kind, Planned

if TYPE_CHECKING:
    from dynosql.context import Context


def _label(statement: ast.EntityWrite) -> str:
    return write.verb_of(statement.write.physical)


def _plan(ctx: Context, statement: ast.EntityWrite, explaining: bool) -> Planned[Any]:
    """The physical write planned as the write kind plans it."""
    physical = write.planned(ctx, statement.write.physical)
    return Planned(statement, physical, physical.scans, unbounded=physical.unbounded)


def _run(ctx: Context, planned: Planned[ast.EntityWrite]) -> Steps[Result]:
    entity_write: EntityWrite = planned.statement.write
    result = yield from write.run_write(ctx, planned.plan)
    result.warnings[:0] = [h for h in entity_write.hints if h not in result.warnings]
    result.notes.extend(entity_write.notes())
    returning = entity_write.statement.returning
    if returning is not None:
        if returning.columns is None:
            result.columns = list(entity_write.entity.columns)
        result.rows = _returned(entity_write, result.rows)
    return result


def _returned(entity_write: EntityWrite, rows: Any) -> Iterator[dict[str, Any]]:
    for row in rows:
        yield entity_write.returned(row)


def _explain(ctx: Context, planned: Planned[ast.EntityWrite], analyze: bool) -> Steps[Result]:
    entity_write: EntityWrite = planned.statement.write
    entity = {
        "name": entity_write.entity.name,
        "table": entity_write.entity.table,
        "rewrites": list(entity_write.rewrites),
    }
    lines = [*entity_write.lines(), *(f"hint: {h}" for h in entity_write.hints)]
    notes = tuple(f"note: {note}" for note in entity_write.notes())
    physical = yield from write.explain(ctx, planned.plan, analyze)
    return explained(physical, lines, entity, notes)


def _effects(statement: ast.EntityWrite) -> Effects:
    return write.effects(statement.write.physical)


KINDS: dict[type, Kind[Any]] = {
    ast.EntityWrite: Kind(
        _label,
        _run,
        _effects,
        _explain,
        plan=_plan,
        transactional=True,
        example=(EXAMPLE_ENTITY, "DELETE FROM e_{t} WHERE a = 'x' AND n = 1"),
    ),
}
