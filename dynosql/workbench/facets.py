"""A facet as an entity: the entity that reads a facet's items by its key aliases. Pure.

A facet names a kind of item of a table, gives its keys aliases (``PartitionKeyAlias``,
``SortKeyAlias``) and holds its items (its TableData). Its entity (`facet_entities`) is named as
the facet, on the facet's table, with a template for each key of the table read from the alias:

- an alias written as a template (``TENANT#{tenantId}``, ``USER#<id>``: braces or angle
  brackets around each column, the rest literal; what EXPORT MODEL writes) is that template;
- any other alias names a column, and the template is the prefix every item of the facet shares
  (cut after a delimiter: ``c#`` of ``c#12345`` and ``c#23456``; of one item, its key up to its
  last delimiter) then that column; with no shared prefix, the column alone; a sort key that
  every item holds whole (two items or more, or one whose key ends at a delimiter) is a
  constant (``PROFILE``: sample data of one partition says nothing of a partition key);
- the column is the alias; an alias with delimiters names the part after the shared prefix
  (``ITEMS#ItemID`` → ``ItemID``), else its last word; an alias that is a key attribute's own
  name (``PK``) cannot name a column of a composed key: the prefix's word does (``c#`` → ``c``),
  and a sort key's column that would take another value than the partition key's column of the
  same name is numbered (``c2``);
- a number or binary key is its column alone.

Where two facets' entities can hold the same item, an entity-type attribute (EntityType,
type, …) that holds one value on every item of each becomes a constant of each. The CREATE
ENTITY that EXPORT MODEL writes beside a facet (``"Dynosql": {"Entity": …}``) is the entity as
it was, with what a facet has no place for: index templates, their WHERE, constants.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from typing import Any

from dynosql import values
from dynosql.entities.check import check
from dynosql.entities.discover import TYPE_NAMES
from dynosql.entities.keyshape import DELIMITERS, is_delimiter, tokens
from dynosql.entity_model import Access, Column, Entity, Part, Template, collision
from dynosql.errors import DynosqlError, PlanError
from dynosql.plan.schema import TableInfo
from dynosql.sql import ast
from dynosql.workbench.read import Facet, ModelTable

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}|<([^<>]+)>")
_SPLIT = re.compile("[" + re.escape("".join(sorted(DELIMITERS))) + "]")


def facet_entities(table: ModelTable) -> tuple[list[Entity], list[str]]:
    """The entities of the table's facets, checked as CREATE ENTITY checks them, and notes: a
    facet that cannot be one, two that can hold the same item."""
    notes: list[str] = []
    entities = []
    for facet in table.facets:
        declared = _declared(facet, table.name, notes)
        entities.append(declared if declared is not None else _derived(facet, table.info))
    entities = _told_apart(entities, table.facets, table.info)
    checked: list[Entity] = []
    for entity in entities:
        try:
            done, warnings = check(entity, table.info, checked)
        except PlanError as err:
            notes.append(f"facet {entity.name} of {table.name} is no entity: {err.message}")
            continue
        notes.extend(warnings)
        checked.append(done)
    return checked, notes


def alias(template: Template) -> str:
    """The key alias that reads back as `template` (EXPORT MODEL): the column of a key that is
    one column, else the template with each column in braces (``TENANT#{tenantId}``)."""
    if template.single is not None:
        return template.single
    return "".join(p if isinstance(p, str) else "{" + p.name + "}" for p in template.parts)


def _declared(facet: Facet, table: str, notes: list[str]) -> Entity | None:
    """The entity written beside the facet (EXPORT MODEL's), when it is this facet's."""
    if facet.definition is None:
        return None
    from dynosql.sql import parse

    try:
        statement = parse(facet.definition)
    except DynosqlError as err:
        notes.append(f"facet {facet.name} of {table}: its Dynosql entity does not parse ({err})")
        return None
    if (
        not isinstance(statement, ast.CreateEntity)
        or statement.entity.name != facet.name
        or statement.entity.table != table
    ):
        notes.append(
            f"facet {facet.name} of {table}: its Dynosql entity is not CREATE ENTITY "
            f"{facet.name} ON {table}: its aliases are read instead"
        )
        return None
    entity: Entity = statement.entity
    return entity


def _derived(facet: Facet, info: TableInfo) -> Entity:
    keys = info.keys
    reserved = set(info.key_types)
    pk = _template(keys.pk, keys.pk_type, facet.pk_alias, _keys(facet, keys.pk), reserved)
    sk = None
    if keys.sk is not None:
        given = facet.sk_alias or keys.sk
        found = _keys(facet, keys.sk)
        sk = _template(keys.sk, keys.sk_type or "S", given, found, reserved, constant=True)
        sk = _apart(pk, sk, facet.items)
    return Entity(facet.name, info.name, Access(None, pk, sk))


def _keys(facet: Facet, attribute: str) -> list[Any]:
    return [item[attribute] for item in facet.items if attribute in item]


def _template(
    attribute: str,
    key_type: str,
    given: str,
    found: Sequence[Any],
    reserved: set[str],
    constant: bool = False,
) -> Template:
    """A key's template from its alias and the facet's keys; `constant`: the key may be one
    value for every item (a sort key: ``PROFILE``; sample data of one partition says nothing
    of a partition key)."""
    written = _placeholders(given)
    if written is not None and (key_type == "S" or _single(written)):
        return Template(attribute, written, key_type)
    if key_type != "S":
        column = given if given == attribute or given not in reserved else attribute
        return Template(attribute, (Column(column),), key_type)
    strings = [v for v in found if isinstance(v, str)]
    prefix = _shared_prefix(strings)
    whole = len(set(strings)) == 1 and (len(strings) > 1 or strings[0] == prefix)
    if constant and whole:
        return Template(attribute, (strings[0],), key_type)  # every item's key is this value
    name = _column(given, prefix, attribute, reserved)
    parts: tuple[Part, ...] = (prefix, Column(name)) if prefix else (Column(name),)
    return Template(attribute, parts, key_type)


def _placeholders(given: str) -> tuple[Part, ...] | None:
    """An alias written as a template (``TENANT#{tenantId}``), or None: two columns with no
    literal between them cannot be read back, so such an alias is a name."""
    if not _PLACEHOLDER.search(given):
        return None
    parts: list[Part] = []
    at = 0
    for m in _PLACEHOLDER.finditer(given):
        if m.start() > at:
            parts.append(given[at : m.start()])
        elif parts and isinstance(parts[-1], Column):
            return None
        parts.append(Column((m.group(1) or m.group(2)).strip()))
        at = m.end()
    if at < len(given):
        parts.append(given[at:])
    return tuple(parts)


def _single(parts: tuple[Part, ...]) -> bool:
    return len(parts) == 1 and isinstance(parts[0], Column)


def _shared_prefix(strings: Sequence[str]) -> str:
    """The leading tokens every value has, cut after the last delimiter among them."""
    if not strings:
        return ""
    common: list[str] = []
    for group in zip(*(tokens(s) for s in strings), strict=False):
        if len(set(group)) != 1:
            break
        common.append(group[0])
    while common and not is_delimiter(common[-1]):
        common.pop()
    return "".join(common)


def _column(given: str, prefix: str, attribute: str, reserved: set[str]) -> str:
    name = given
    if _SPLIT.search(given):
        if prefix and given.lower().startswith(prefix.lower()) and len(given) > len(prefix):
            name = given[len(prefix) :]
        else:
            words = [w for w in _SPLIT.split(given) if w.strip()]
            name = words[-1].strip() if words else attribute
    if prefix and name in reserved:  # a composed key's column cannot be named as a key
        words = [t for t in tokens(prefix) if t and not is_delimiter(t)]
        name = words[-1] if words else f"{attribute}_value"
    return name


def _apart(pk: Template, sk: Template, items: Iterable[dict[str, Any]]) -> Template:
    """The sort key's template, its column renamed where it has the partition key column's
    name but another value on some item (``c`` in both, two different ids)."""
    shared = set(pk.columns) & set(sk.columns)
    if not shared:
        return sk
    differ = set()
    for item in items:
        a = pk.decode(item.get(pk.attribute)) or {}
        b = sk.decode(item.get(sk.attribute)) or {}
        differ |= {c for c in shared if c in a and c in b and a[c] != b[c]}
    if not differ:
        return sk
    taken = set(pk.columns) | set(sk.columns)
    renamed: dict[str, str] = {}
    for name in sorted(differ):
        n = 2
        while f"{name}{n}" in taken:
            n += 1
        renamed[name] = f"{name}{n}"
        taken.add(renamed[name])
    parts = tuple(
        Column(renamed.get(p.name, p.name)) if isinstance(p, Column) else p for p in sk.parts
    )
    return dataclasses.replace(sk, parts=parts)


def _told_apart(entities: list[Entity], facets: Sequence[Facet], info: TableInfo) -> list[Entity]:
    """Entities that can hold one item, told apart by an entity-type attribute's value where
    each facet's items all hold one (a constant of each); unchanged where none does."""
    pairs = [
        (a, b)
        for i, a in enumerate(entities)
        for b in entities[i + 1 :]
        if not a.constants and not b.constants and collision(a, b) is not None
    ]
    if not pairs:
        return entities
    items = {f.name: f.items for f in facets}
    held = {e.name: _one_value(items.get(e.name, ()), set(info.key_types)) for e in entities}
    for attribute in sorted({a for h in held.values() for a in h}):
        if attribute.lower() not in TYPE_NAMES:
            continue
        if all(
            attribute in held[a.name]
            and attribute in held[b.name]
            and not values.values_equal(held[a.name][attribute], held[b.name][attribute])
            for a, b in pairs
        ):
            return [
                dataclasses.replace(e, constants=((attribute, held[e.name][attribute]),))
                if attribute in held[e.name] and not e.constants
                else e
                for e in entities
            ]
    return entities


def _one_value(items: Sequence[dict[str, Any]], keys: set[str]) -> dict[str, Any]:
    """The attributes (not keys) that hold one string value on every item."""
    if not items:
        return {}
    first = items[0]
    return {
        name: value
        for name, value in first.items()
        if name not in keys
        and isinstance(value, str)
        and all(values.values_equal(item.get(name, values.MISSING), value) for item in items)
    }
