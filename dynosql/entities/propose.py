"""SHOW ENTITIES … AS CREATE: what discovery found, written as CREATE ENTITY statements (pure).

Each entity type becomes ``CREATE ENTITY name ON table (KEY (pk = …, sk = …), INDEX …,
type = 'value')`` with its templates' holes named as columns, ready to edit and save as a
schema file. A hole's column is, in order:

1. a stored attribute that holds the same value on every sampled item (``State#Date`` =
   ``State || '#' || Date``; ElectroDB's lower-cased keys are matched without case);
2. a hole of another key of the same entity with the same values (``c#`` customer ids in both
   PK and SK, a GSI key copying the sort key);
3. for a whole key of one hole, the attribute itself (``deviceId = deviceId``), or for a
   generic name (``PK``) the id of the partition's own entity (the one with a constant sort key
   living in the same partitions: ``patientId``);
4. the tag before it: ``c#`` names ``customerId`` after the entity that owns the tag (where the
   type attribute named the entities), ``TENANT#`` names ``tenantId``; a label (``team_``)
   names ``team``; else the shape (``timestamp``, ``email``, ``path``).

An index goes into the entity when every item of it carries the index's keys, or with a
``WHERE`` when a stored attribute says which do (``WHERE status <> 'void'``); another sparse one
is written as a comment to uncomment. The type attribute becomes a constant.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from dynosql.entities.discover import (
    Discovery,
    FoundEntity,
    condition_text,
    constant,
    tag_of,
)
from dynosql.entities.keyshape import Hole, Part, is_delimiter, is_word, matcher
from dynosql.plan.schema import TableInfo
from dynosql.result import counted
from dynosql.sql import keywords

# key attribute names that say nothing about what they hold
_GENERIC = re.compile(r"^(gsi|lsi)?\d*[-_]?(pk|sk|hk|rk|hash|range|key)\d*$", re.I)
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SHAPED = frozenset({"timestamp", "date", "email", "uuid", "path", "file"})


def propose(table: TableInfo, found: Discovery, sample: int | None) -> list[str]:
    """The CREATE ENTITY statements (with comments), one text per entity, a header first."""
    entities = [_readable(_unlabelled(e)) for e in found.entities if e.templates]
    owners = _owners(entities) if found.type_attribute else {}
    namer = _Namer(table, entities, owners)
    read = (
        f"a sample of {counted(found.total, 'item')}"
        if sample is not None
        else counted(found.total, "item")
    )
    typed = (
        f"; entity types from the attribute {found.type_attribute}" if found.type_attribute else ""
    )
    header = [
        f"-- SHOW ENTITIES FROM {table.name} AS CREATE: {len(entities)} entity "
        f"type{'s' if len(entities) != 1 else ''} in {read}{typed}.",
        "-- Names and columns are guesses: rename them, then save this as a schema file.",
    ]
    out = ["\n".join(header)]
    for e in entities:
        out.append(_statement(table, e, namer.columns(e)))
    return out


def _unlabelled(e: FoundEntity) -> FoundEntity:
    """A key that is one labelled value under a name of its own (``deviceId`` of
    ``dev-0001``) is that attribute as it is, not its label and a column."""
    templates = dict(e.templates)
    for attr, parts in templates.items():
        if len(parts) == 2 and isinstance(parts[0], str) and not _GENERIC.match(attr):
            if isinstance(parts[1], Hole) and not is_delimiter(parts[0]):
                templates[attr] = (parts[1],)
    return dataclasses.replace(e, templates=templates)


def _readable(e: FoundEntity) -> FoundEntity:
    """A key whose hole holds the delimiter after it (a path's ``/`` before the file name)
    would not read back into its columns (a column ends at its delimiter's first occurrence):
    the template ends at that hole, which takes the rest of the key (``SK = path``)."""
    templates = dict(e.templates)
    for attr, parts in templates.items():
        holes = [i for i, p in enumerate(parts) if isinstance(p, Hole)]
        per_item = [v for v in _hole_values(parts, (i.get(attr) for i in e.sample)) if v]
        for j, at in enumerate(holes):
            closing = at + 2 >= len(parts)
            after = parts[at + 1] if at + 1 < len(parts) else None
            if closing or not isinstance(after, str):
                continue
            if any(after in values[j] for values in per_item):
                templates[attr] = parts[: at + 1]
                break
    return dataclasses.replace(e, templates=templates)


Columns = dict[str, list[str]]  # an entity's holes named: key attribute -> a name per hole


class _Namer:
    def __init__(self, table: TableInfo, entities: list[FoundEntity], owners: dict[str, str]):
        self.table = table
        self.owners = owners
        self.pk = table.keys.pk
        # the partition's own entity (a constant sort key): its pk values and its entity
        self.roots: list[tuple[FoundEntity, set[Any]]] = [
            (e, {item.get(self.pk) for item in e.sample})
            for e in entities
            if len(table.keys.names) > 1 and constant(e.templates.get(table.keys.names[1], ()))
        ]
        self.named: dict[int, Columns] = {}

    def columns(self, e: FoundEntity) -> Columns:
        if id(e) in self.named:
            return self.named[id(e)]
        found: Columns = {}
        self.named[id(e)] = found
        taken: dict[str, tuple[str, list[Any]]] = {}  # column -> (tag before, values)
        for attr, parts in e.templates.items():
            holes = [p for p in parts if isinstance(p, Hole)]
            if not holes:
                continue
            per_item = _hole_values(parts, [item.get(attr) for item in e.sample])
            names = []
            for j, hole in enumerate(holes):
                got = [v[j] if v is not None else None for v in per_item]
                name = self._name(e, attr, parts, hole, j, got, taken)
                names.append(name)
            found[attr] = names
        return found

    def _name(
        self,
        e: FoundEntity,
        attr: str,
        parts: tuple[Part, ...],
        hole: Hole,
        j: int,
        got: list[Any],
        taken: dict[str, tuple[str, list[Any]]],
    ) -> str:
        before = _literal_before(parts, hole)
        stored = self._stored(e, got)
        if stored is not None and stored in taken and _same(got, taken[stored][1]):
            return stored  # the attribute again (a GSI key that copies the sort key's part)
        for name, (tag, seen) in taken.items():
            if tag == before and _same(got, seen):
                return name  # the same tag and values: the same column (c#… in PK and SK)
        name = stored or self._guess(e, attr, parts, hole, j, got)
        base, n = name, 1
        while name in taken or (name in self.table.keys.names and name != attr):
            n += 1
            name = f"{base}{n}"
        taken[name] = (before, got)
        return name

    def _stored(self, e: FoundEntity, got: list[Any]) -> str | None:
        """An attribute holding the hole's value on every sampled item (or all ignoring case,
        where keys are written lower-case): not a primary key attribute, nor one whose name
        says nothing (``GSI1SK``)."""
        pairs = [(item, v) for item, v in zip(e.sample, got, strict=True) if v is not None]
        if not pairs:
            return None
        first = pairs[0][0]
        for fold in (False, True):
            for name, value in first.items():
                if name in self.table.keys.names or _GENERIC.match(name):
                    continue
                if not isinstance(value, str):
                    continue
                if all(_equal(item.get(name), v, fold) for item, v in pairs):
                    return name
        return None

    def _guess(
        self, e: FoundEntity, attr: str, parts: tuple[Part, ...], hole: Hole, j: int, got: list[Any]
    ) -> str:
        whole = len(parts) == 1 or (len(parts) == 2 and isinstance(parts[0], str) and j == 0)
        if whole:
            if attr == self.pk and _GENERIC.match(attr):
                root = self._root(e, got)
                if root is not None:
                    return root
                return _camel(e.name) + "Id"
            if not _GENERIC.match(attr):
                return attr
        before = _literal_before(parts, hole)
        holes = [p for p in parts if isinstance(p, Hole)]
        if len(holes) == 1 and not _GENERIC.match(attr) and hole.shape not in _SHAPED:
            return _camel(re.sub(r"ID$", "Id", attr))  # DeviceID = 'd#' || deviceId
        if hole.shape in _SHAPED:
            return hole.shape
        if before:
            word = before.strip('"$').rstrip("_-")
            if is_word(before.strip('"')) and word:
                owner = self.owners.get(before, word)
                if before.endswith(("_", "-")):
                    return _camel(word)  # an ElectroDB label: team_ → team
                return _camel(owner) + ("" if owner.lower() == "id" else "Id")
        if _GENERIC.match(attr):
            return f"{_camel(attr)}{j + 1}"  # pk1, pk2: nothing says more
        return _camel(e.name) + "Id"

    def _root(self, e: FoundEntity, got: list[Any]) -> str | None:
        """The pk column of the entity with a constant sort key in the same partitions."""
        values = {v for v in got if v is not None}
        for root, keys in self.roots:
            if root is e or not (values & {str(k) for k in keys}):
                continue
            named = self.columns(root).get(self.pk)
            if named:
                return named[0]
        return None


def _literal_before(parts: tuple[Part, ...], hole: Hole) -> str:
    """The literal right before `hole` (through one delimiter): ``c`` of ``c#{…}``."""
    at = next(i for i, p in enumerate(parts) if p is hole)
    i = at - 1
    if i >= 0 and isinstance(parts[i], str) and is_delimiter(str(parts[i])):
        i -= 1
    if i >= 0 and isinstance(parts[i], str):
        return str(parts[i])
    return ""


def _hole_values(parts: tuple[Part, ...], keys: Iterable[Any]) -> list[tuple[str, ...] | None]:
    pattern = matcher(parts)
    out: list[tuple[str, ...] | None] = []
    for key in keys:
        m = pattern.match(key) if isinstance(key, str) else None
        out.append(m.groups() if m else None)
    return out


def _same(a: list[Any], b: list[Any]) -> bool:
    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return bool(both) and all(x == y for x, y in both)


def _equal(stored: Any, value: str, fold: bool) -> bool:
    if not isinstance(stored, str):
        return False
    return stored.lower() == value.lower() if fold else stored == value


def _camel(name: str) -> str:
    """``TENANT`` → ``tenant``, ``warehouseItem`` stays, ``Room`` → ``room``."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "entity"
    if name.isupper():
        return name.lower()
    return name[0].lower() + name[1:]


def _owners(entities: list[FoundEntity]) -> dict[str, str]:
    """Which entity a tag stands for, where a type attribute named the entities: the one
    keyed on it alone (``c#`` / ``c#``: customer), else the only one whose sort key starts
    with it, else the shortest name that starts with it."""
    owners: dict[str, str] = {}
    by_sk: dict[str, list[str]] = {}
    for e in entities:
        keys = list(e.templates.values())
        for pk, sk in zip(keys[::2], keys[1::2], strict=False):
            t = tag_of(pk)
            if t and t == tag_of(sk):
                owners.setdefault(t, e.name)
        if len(keys) > 1:
            t = tag_of(keys[1])
            if t:
                by_sk.setdefault(t, []).append(e.name)
    for t, names in by_sk.items():
        if t not in owners and len(names) == 1:
            owners[t] = names[0]
    tags = {t for e in entities for parts in e.templates.values() if (t := tag_of(parts))}
    for t in tags - set(owners):
        starting = sorted(
            (e.name for e in entities if e.name.lower().startswith(t.lower())), key=len
        )
        if starting:
            owners[t] = starting[0]
    return owners


# --- writing the statement -------------------------------------------------------------------


def _statement(table: TableInfo, e: FoundEntity, columns: Columns) -> str:
    lines = [f"-- {e.name}: {counted(e.items, 'item')}{_attributes(e, table)}"]
    keys = ", ".join(
        f"{quote(a)} = {_template(e.templates[a], columns.get(a, []))}"
        for a in table.keys.names
        if a in e.templates
    )
    body = [f"KEY ({keys})"]
    commented = []
    for ix in table.indexes:
        names = [a for a in ix.keys.names if a in e.templates]
        if not names or len(names) < len(ix.keys.names):
            continue
        held = e.indexes.get(ix.name or "", 0)
        if held == 0:
            continue
        spec = ", ".join(
            f"{quote(a)} = {_template(e.templates[a], columns.get(a, []))}" for a in names
        )
        clause = f"INDEX {quote(ix.name or '')} ({spec})"
        condition = e.holds.get(ix.name or "")
        if held == e.items:
            body.append(clause)
        elif condition is not None:  # the items it holds, by a stored attribute
            body.append(f"{clause} WHERE {condition_text(condition, quote)}")
        else:
            commented.append(f"  -- , {clause}  -- sparse: {held} of {e.items} items have its keys")
    if e.type_attribute is not None and e.type_value is not None:
        body.append(f"{quote(e.type_attribute)} = {_string(e.type_value)}")
    lines.append(f"CREATE ENTITY {quote(e.name)} ON {quote(table.name)} (")
    lines.append(",\n".join(f"  {b}" for b in body))
    lines.extend(commented)
    lines.append(");")
    return "\n".join(lines)


def _template(parts: tuple[Part, ...], names: list[str]) -> str:
    """A template as SQL: literals merged and quoted, holes by column, joined with ``||``."""
    pieces: list[str] = []
    literal = ""
    holes = iter(names)
    for p in parts:
        if isinstance(p, str):
            literal += p
            continue
        if literal:
            pieces.append(_string(literal))
            literal = ""
        pieces.append(quote(next(holes, "value")))
    if literal:
        pieces.append(_string(literal))
    return " || ".join(pieces)


def _attributes(e: FoundEntity, table: TableInfo) -> str:
    keys = set(table.keys.names) | {n for ix in table.indexes for n in ix.keys.names}
    names = sorted(a for a in e.attributes if a not in keys and a != e.type_attribute)
    return f"; other attributes: {', '.join(names)}" if names else ""


def _string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def quote(name: str) -> str:
    """A name as SQL reads it back: bare when it is a plain word and no keyword."""
    if _PLAIN.match(name) and name.upper() not in keywords.KEYWORDS:
        return name
    return '"' + name.replace('"', '""') + '"'
