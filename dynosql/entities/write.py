"""Entity writes rewritten into physical writes, which then run exactly as any write does (the
write planner, the guards, the journal and undo). Pure, no I/O.

- INSERT / UPSERT / REPLACE: each row's item is *composed* (`Composer`, run by the write
  planner on every row, of VALUES and of INSERT … SELECT alike): the table's key attributes,
  every index key whose index holds the row (its WHERE, if any, true for the row) and the
  constants, beside the row's columns, which are all stored by their own names too (as ElectroDB
  stores them: the item reads without the definition, and DynamoDB can filter on them). A row
  missing a column of an index's template is refused naming the index, unless the INSERT ends
  with ``ON MISSING INDEX KEY SKIP``: then it is written without that index's keys, and the
  footer says how many were (entity reads through that index will not find them).
- UPDATE: a column of the table's key is never changed (a key change is DELETE + INSERT). A
  column of an index's templates is set to a value, and every key attribute whose template uses
  it is recomputed in the same UpdateItem, with the template's other columns taken from the SET
  or from the WHERE's equalities; a column the template also needs and neither gives is refused,
  naming it (ElectroDB's rule: a key is never half-recomputed). An index with a WHERE: a change
  of a column that WHERE reads sets every key of the index when it then holds, and REMOVEs them
  when it does not.
- UPDATE / DELETE find their items by the WHERE rewritten as a SELECT's (`read.rewrite_select`):
  by the composed key (no read) when it is complete, membership in the write's condition.
- RETURNING gives the entity's columns: whole images decoded, or the columns named (a key
  column read back from its key).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dynosql import values
from dynosql.entity_model import Entity, Template, TemplateError, literal_text
from dynosql.errors import PlanError
from dynosql.evaluate.predicate import matches
from dynosql.plan.entity_read import rewrite_select
from dynosql.plan.expressions import paths_in
from dynosql.sql import ast
from dynosql.values import MISSING


def _at(pos: ast.Pos, message: str) -> PlanError:
    return PlanError(message, pos.line, pos.col) if pos.line else PlanError(message)


@dataclass
class EntityWrite:
    """An entity write and the physical write it runs as."""

    entity: Entity
    statement: ast.Insert | ast.Update | ast.Delete  # as written (bound)
    physical: ast.Insert | ast.Update | ast.Delete
    rewrites: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    composer: Composer | None = None  # an INSERT's: what it skipped
    # RETURNING a key column: the output column -> the template it is read back from
    decoded: dict[str, tuple[Template, str]] = field(default_factory=dict)

    def returned(self, row: dict[str, Any]) -> dict[str, Any]:
        """A RETURNING row of the physical write as the entity's."""
        returning = self.statement.returning
        if returning is None:
            return row
        if returning.columns is None:
            return self.entity.decode(row)
        out = dict(row)
        for name, (template, column) in self.decoded.items():
            if name in out:
                found = template.decode(out[name])
                if found is None or column not in found:
                    del out[name]
                else:
                    out[name] = found[column]
        return out

    def lines(self) -> list[str]:
        out = [f"entity {self.entity.name} → table {self.entity.table}"]
        out.extend(f"  {line}" for line in self.rewrites)
        return out

    def notes(self) -> list[str]:
        """What the footer says after the write (rows written without an index's keys)."""
        if self.composer is None:
            return []
        return [
            f"{n} row{'s' if n != 1 else ''} written without the keys of index {index} (missing "
            f"{', '.join(sorted(self.composer.missing[index]))}, ON MISSING INDEX KEY SKIP): "
            f"reads of {self.entity.name} through {index} will not find "
            f"{'them' if n != 1 else 'it'}"
            for index, n in sorted(self.composer.skipped.items())
        ]


class Composer:
    """A row of the entity's columns → the item to put (the write planner calls it on each
    row, before the item is checked)."""

    def __init__(self, entity: Entity, skip: bool = False):
        self.entity = entity
        self.skip = skip
        self.skipped: Counter[str] = Counter()
        self.missing: dict[str, set[str]] = {}

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._compose(row)
        except TemplateError as err:
            raise PlanError(str(err)) from None

    def _compose(self, row: dict[str, Any]) -> dict[str, Any]:
        entity = self.entity
        item = {name: value for name, value in row.items() if value is not MISSING}
        for name, value in entity.constants:
            given = row.get(name, MISSING)
            if given is not MISSING and not values.values_equal(given, value):
                raise TemplateError(
                    f"{name} is {literal_text(value)} for every {entity.name} (a constant), "
                    f"not {literal_text(given)}"
                )
            item[name] = value
        for template in entity.key.templates:
            item[template.attribute] = _composed(template, row, f"a key of {entity.table}")
        for access in entity.indexes:
            if access.where is not None and not matches(access.where, row):
                continue  # the index does not hold this row
            composed: dict[str, Any] = {}
            for template in access.templates:
                missing = [c for c in template.columns if row.get(c) in (MISSING, None)]
                if missing and self.skip:
                    self.skipped[str(access.index)] += 1
                    self.missing.setdefault(str(access.index), set()).update(missing)
                    composed = {}
                    break
                if missing:
                    raise TemplateError(
                        f"{missing[0]} is missing: it composes {template.attribute}, a key of "
                        f"index {access.index}; give it (an INSERT ending ON MISSING INDEX KEY "
                        f"SKIP writes such a row without {access.index}'s keys)"
                    )
                composed[template.attribute] = _composed(template, row, "")
            item.update(composed)
        return item


def _composed(template: Template, row: dict[str, Any], what: str) -> Any:
    value = template.compose(row)
    if value is MISSING:
        missing = next(c for c in template.columns if row.get(c) in (MISSING, None))
        raise TemplateError(f"{missing} is missing: it composes {template.attribute}, {what}")
    return value


# --- the statements ------------------------------------------------------------------------------


def rewrite_write(
    statement: ast.Insert | ast.Update | ast.Delete, entity: Entity, skip_missing: bool = False
) -> EntityWrite:
    """The physical write of an entity write (bound)."""
    if isinstance(statement, ast.Insert):
        return _insert(statement, entity, skip_missing)
    read = rewrite_select(
        ast.Select(
            table=entity.name,
            index=None,
            items=None,
            where=statement.where,
            pos=statement.pos,
            table_pos=statement.table_pos,
        ),
        entity,
    )
    out = EntityWrite(entity, statement, statement, list(read.rewrites), list(read.hints))
    returning = _returning(statement.returning, entity, out)
    where = read.physical.where  # without a WHERE: the entity's membership alone
    if isinstance(statement, ast.Delete):
        out.physical = dataclasses.replace(
            statement, table=entity.table, where=where, returning=returning
        )
        return out
    assignments = _assignments(statement, entity, read, out)
    out.physical = dataclasses.replace(
        statement, table=entity.table, where=where, assignments=assignments, returning=returning
    )
    return out


def _insert(statement: ast.Insert, entity: Entity, skip: bool) -> EntityWrite:
    if statement.rows and not statement.columns:  # the table's key in key order: not ours
        raise _at(
            statement.table_pos,
            f"INSERT INTO {entity.name} names its columns: ({', '.join(entity.columns)}, …)",
        )
    composed = {t.attribute: a for a in entity.accesses for t in a.templates if t.single is None}
    for name in statement.columns:
        if name in composed:
            access = composed[name]
            raise _at(
                statement.table_pos,
                f"{name} is composed by {entity.name}'s {access.label} from "
                f"{_columns_of(entity, name)}: give those columns instead",
            )
    composer = Composer(entity, skip)
    out = EntityWrite(entity, statement, statement, composer=composer)
    out.physical = dataclasses.replace(
        statement,
        table=entity.table,
        prepare=composer,
        returning=_returning(statement.returning, entity, out),
    )
    keys = ", ".join(t.text() for t in entity.key.templates)
    out.rewrites.append(f"each row's item composed: {keys}")
    for access in entity.indexes:
        where = f" (rows WHERE {access.where_text})" if access.where_text else ""
        shown = ", ".join(t.text() for t in access.templates)
        out.rewrites.append(f"index {access.index}{where}: {shown}")
    for name, value in entity.constants:
        out.rewrites.append(f"constant: {name} = {literal_text(value)}")
    return out


def _columns_of(entity: Entity, attribute: str) -> str:
    for access in entity.accesses:
        for template in access.templates:
            if template.attribute == attribute:
                return " and ".join(template.columns) or "literals"
    return "?"


def _returning(
    returning: ast.Returning | None, entity: Entity, out: EntityWrite
) -> ast.Returning | None:
    """The physical RETURNING: whole images as they are (decoded after), a key column as the
    key attribute it is read back from."""
    if returning is None or returning.columns is None:
        return returning
    columns = []
    for column in returning.columns:
        root = column.path.root
        if root in entity.key_columns and column.path.is_attribute:
            template = next(t for t in entity.key.templates if root in t.columns)
            path = ast.Path((template.attribute,), template.attribute, column.path.pos)
            columns.append(ast.ReturnColumn(path, column.name, column.old))
            out.decoded[column.name] = (template, str(root))
        else:
            columns.append(ast.ReturnColumn(column.path, column.name, column.old))
    return dataclasses.replace(returning, columns=tuple(columns))


def _assignments(
    statement: ast.Update, entity: Entity, read: Any, out: EntityWrite
) -> tuple[ast.Assignment, ...]:
    """The UPDATE's assignments, and the key attributes they recompute (or remove)."""
    composed = {t.attribute for a in entity.accesses for t in a.templates if t.single is None}
    constants = {name for name, _value in entity.constants}
    index_columns = {c for a in entity.indexes for c in a.columns}
    known: dict[str, Any] = {}  # column -> value: the WHERE's equalities, then the SET's
    for column, (vals, _conjuncts) in read.fixed.items():
        if len(vals) == 1:
            known[column] = vals[0]
    assigned: set[str] = set()
    for a in statement.assignments:
        root = str(a.path.root)
        pos = a.path.pos
        if root in entity.key_columns:
            template = next(t for t in entity.key.templates if root in t.columns)
            raise _at(
                pos,
                f"{root} composes {template.attribute}, the key of {entity.table}: a key never "
                f"changes (DELETE the {entity.name} and INSERT it with the new {root})",
            )
        if root in composed:
            raise _at(
                pos,
                f"{root} is composed from {_columns_of(entity, root)}: SET "
                f"{_columns_of(entity, root)} and it is recomputed",
            )
        if root in constants:
            raise _at(pos, f"{root} is a constant of {entity.name}: it never changes")
        if root in index_columns:
            if a.action != "set" or not isinstance(a.value, ast.Literal) or not a.path.is_attribute:
                raise _at(
                    pos,
                    f"{root} composes a key of an index of {entity.name}: SET it to a value "
                    f"({root} = '…'), so that the key is recomputed with it",
                )
            known[root] = a.value.value
        assigned.add(root)
    extra: list[ast.Assignment] = []
    for access in entity.indexes:
        where_roots = {str(p.root) for p in paths_in(access.where)} if access.where else set()
        touched = assigned & (set(access.columns) | where_roots)
        if not touched:
            continue
        templates = list(access.templates)
        why = ""  # why every template of the index is composed
        if access.where is not None and assigned & where_roots:
            unknown = sorted(where_roots - set(known))
            if unknown:
                raise _at(
                    statement.pos,
                    f"{', '.join(sorted(assigned & where_roots))} decides whether a "
                    f"{entity.name} is in {access.index} (WHERE {access.where_text}): give "
                    f"{' and '.join(unknown)} too (SET, or WHERE … = …)",
                )
            if not matches(access.where, known):
                for template in templates:
                    path = ast.Path((template.attribute,), template.attribute)
                    extra.append(ast.Assignment("remove", path))
                out.rewrites.append(
                    f"{access.index}'s WHERE ({access.where_text}) no longer holds: REMOVE "
                    + ", ".join(t.attribute for t in templates)
                )
                continue
            why = (
                f"{', '.join(sorted(assigned & where_roots))} decides whether a {entity.name} is "
                f"in {access.index} (WHERE {access.where_text}), so all of its keys are composed"
            )
        elif access.where is not None:
            unknown = sorted(where_roots - set(known))
            if unknown:
                raise _at(
                    statement.pos,
                    f"{', '.join(sorted(touched))} composes a key of {access.index}, which holds "
                    f"only the {entity.name}s WHERE {access.where_text}: say which (WHERE "
                    f"{' AND '.join(f'{u} = …' for u in unknown)})",
                )
            if not matches(access.where, known):
                continue  # not in the index: nothing of it to recompute
            templates = [t for t in templates if touched & set(t.columns)]
        else:
            templates = [t for t in templates if touched & set(t.columns)]
        for template in templates:
            if template.single == template.attribute and template.attribute in assigned:
                continue  # the column is the attribute: the SET itself writes it
            missing = [c for c in template.columns if c not in known]
            if missing:
                changed = ", ".join(sorted(touched & set(template.columns)))
                reason = why or f"{template.text()} is recomputed when {changed} changes"
                raise _at(
                    statement.pos,
                    f"{reason}: give {' and '.join(missing)} too (SET {missing[0]} = …, or "
                    f"WHERE {missing[0]} = …)",
                )
            try:
                value = template.compose(known)
            except TemplateError as err:
                raise _at(statement.pos, str(err)) from None
            path = ast.Path((template.attribute,), template.attribute)
            extra.append(ast.Assignment("set", path, ast.Literal(value)))
            out.rewrites.append(
                f"SET {template.attribute} = {literal_text(value)} ({access.label})"
            )
    return (*statement.assignments, *extra)
