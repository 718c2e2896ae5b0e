"""What CREATE ENTITY checks against the table's description (DescribeTable), before the
entity is declared: pure, the table and the other entities given.

Refused: a template of an attribute that is not the key it claims to be (the table's key, an
index's key); a table or index key left without a template; a template of several parts for a
number or binary key (a template composes a string: such a key can only be one column alone);
a column named after an attribute some other template composes; a constant on a key attribute
or on a column. Said but accepted: another entity of the table whose key templates can compose
the same key (the two could read each other's items; a constant tells them apart).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from dynosql.entity_model import Access, Entity, Template, collisions
from dynosql.errors import PlanError
from dynosql.plan.expressions import paths_in
from dynosql.plan.schema import KeySchema, TableInfo
from dynosql.sql import ast

_TYPE_WORDS = {"N": "a number", "B": "binary"}


def _at(pos: ast.Pos, message: str) -> PlanError:
    return PlanError(message, pos.line, pos.col) if pos.line else PlanError(message)


def check(
    entity: Entity, table: TableInfo, others: Iterable[Entity] = ()
) -> tuple[Entity, list[str]]:
    """The entity with its key types filled in from the table, and the warnings to show; a
    PlanError (with the line and column of the template) when the table refuses it."""
    key = _checked(entity.key, table.keys, table, f"the key of {table.name}")
    indexes = []
    for access in entity.indexes:
        assert access.index is not None
        try:
            index = table.index(access.index)
        except PlanError as err:
            raise _at(access.pos, err.message) from None
        indexes.append(_checked(access, index.keys, table, f"index {access.index}"))
    if key.pk.parts != entity.key.pk.parts:  # cannot happen: _checked keeps the parts
        raise AssertionError("a template changed")
    checked = dataclasses.replace(entity, key=key, indexes=tuple(indexes))
    _check_names(checked, table)
    return checked, collisions(checked, [o for o in others if o.name != entity.name])


def _checked(access: Access, keys: KeySchema, table: TableInfo, what: str) -> Access:
    """The access with each template typed by its key attribute; refused when its attributes
    are not `keys`."""
    given = access.templates
    wanted = keys.names
    names = tuple(t.attribute for t in given)
    if names != wanted:
        shown = " and ".join(wanted)
        if len(given) < len(wanted):
            missing = wanted[len(given)]
            raise _at(
                access.pos,
                f"{access.text().split(' (')[0]} needs a template for {missing}: {what} is {shown}",
            )
        for template, name in zip(given, (*wanted, None, None), strict=False):
            if template.attribute != name:
                role = "partition" if template is given[0] else "sort"
                expected = f"its {role} key is {name}" if name else f"it has no {role} key"
                raise _at(
                    template.pos,
                    f"{template.attribute} is not a key of {what.removeprefix('the key of ')}: "
                    f"{expected} ({what} is {shown})",
                )
    typed = []
    for template, key_type in zip(given, (keys.pk_type, keys.sk_type), strict=False):
        typed.append(_typed(template, key_type or "S"))
    return dataclasses.replace(access, pk=typed[0], sk=typed[1] if len(typed) > 1 else None)


def _typed(template: Template, key_type: str) -> Template:
    if key_type != "S" and template.single is None:
        raise _at(
            template.pos,
            f"{template.attribute} is a key of type {key_type}: a template composes a string, so "
            f"{template.attribute} can only be one column alone, which then takes "
            f"{_TYPE_WORDS[key_type]} ({template.attribute} = column)",
        )
    return dataclasses.replace(template, key_type=key_type)


def _check_names(entity: Entity, table: TableInfo) -> None:
    composed = {t.attribute: t for a in entity.accesses for t in a.templates}
    for access in entity.accesses:
        for template in access.templates:
            for column in template.columns:
                other = composed.get(column)
                if other is not None and other.single != column:
                    raise _at(
                        template.pos,
                        f"column {column} has the name of {column}, an attribute {other.text()} "
                        "composes: give the column a name of its own",
                    )
        if access.where is not None:
            for path in paths_in(access.where):
                if path.root in composed and composed[path.root].single != path.root:
                    raise _at(
                        path.pos,
                        f"the WHERE of {access.label} names {path.root}, a composed key: name "
                        "the entity's columns",
                    )
    keys = {name for ix in table.access_paths for name in ix.keys.names}
    for name, _value in entity.constants:
        if name in keys:
            raise PlanError(
                f"{name} is a key attribute of {table.name}: compose it with a template "
                f"(KEY (…) or INDEX … (…)), not a constant"
            )
        if name in entity.columns:
            raise PlanError(
                f"{name} is a column of {entity.name}: a constant needs a name of its own"
            )
