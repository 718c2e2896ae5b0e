"""Which entity types a table holds, read from its items: SHOW ENTITIES's inference (pure).

Single-table designs tell their types apart in two ways, and published ones use both:

- **an entity-type attribute** on every item (``EntityType``, ``type``, ``__typename``,
  ElectroDB's ``__edb_e__``, …): an attribute with few values that splits the key templates
  cleanly. A well-known name is taken unless, inside one key template, its values mark items
  of the same attributes (then it is a field, like an invoice's status); any other attribute
  only when each key template holds exactly one of its values;
- **a type prefix** in the keys (``TENANT#``, ``c#``, ``sh#``, ``User:``): a word before a
  delimiter (or a whole constant key, ``meta``), of any case, taken as literal when its values
  recur across items or are few at their position.

Items are grouped by the literal tags of their primary key; then two groups that differ in one
tag only are one type whose key holds a *value* there (a state, a tenant, a customer) when their
items carry the same attributes, or when the token is a stored attribute's value on every item
(``WARNING1#2020-04-24T14:40:00`` is ``State#Date``). Groups of items with no attribute beyond
their keys (follower and following edges) keep their tags apart: the tag is all they say.

Each type's templates (table keys, and index keys where its items carry them) come from its
items: a token that is the same on all of them stays literal when it is a tag, the rest are
holes by shape (``dynosql.entities.keyshape``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dynosql import values
from dynosql.entities.keyshape import (
    Hole,
    Part,
    is_delimiter,
    is_word,
    label,
    matcher,
    path_parts,
    shape,
    template_text,
    tokens,
)
from dynosql.plan.schema import TableInfo

# the names single-table designs and their libraries give an entity-type attribute (lower case)
TYPE_NAMES = frozenset(
    {
        "entitytype",
        "entity_type",
        "entity",
        "type",
        "_type",
        "__type",
        "__typename",
        "typename",
        "__edb_e__",
        "_et",
        "kind",
        "_kind",
        "itemtype",
        "item_type",
        "recordtype",
        "record_type",
        "objecttype",
        "object_type",
        "_t",
    }
)
TYPE_PRESENCE = 0.8  # an entity-type attribute is on at least this share of the items
MAX_TYPES = 64  # and has at most this many values
FEW_TAGS = 12  # at most this many words at one key position can be tags without recurring
MAX_POSITION_VALUES = 64  # a position with more distinct values holds values, never tags
FEW_VALUES = 8  # an attribute that says which items a sparse index holds has at most these
SIMILAR = 0.75  # two groups' attribute sets this alike (shared / all) hold one type
SAMPLE_ITEMS = 50  # items kept per entity for naming its columns
HELD_ITEMS = 20_000  # items inference reads whole; those after are counted into an entity
KEPT_SORT_KEYS = 10_000  # sort keys kept per entity for the sort-key health notes

Signature = tuple[Any, ...]


@dataclass
class FoundEntity:
    """One entity type: its name, templates, and what its items hold."""

    name: str
    templates: dict[str, tuple[Part, ...]]  # key attribute -> template (table keys first)
    type_attribute: str | None = None
    type_value: str | None = None
    items: int = 0
    size: int = 0
    attributes: dict[str, dict[str, int]] = field(default_factory=dict)  # name -> type -> n
    indexes: dict[str, int] = field(default_factory=dict)  # index name -> items it holds
    sample: list[dict[str, Any]] = field(default_factory=list)
    odd: list[str] = field(default_factory=list)  # keys of another shape than the template's
    sk_values: list[str] = field(default_factory=list)
    paths: dict[str, int] = field(default_factory=dict)
    # index -> the condition on a stored attribute that says which items the (sparse) index
    # holds: ("status", "<>", ("void",)) or ("kind", "=", ("open",))
    holds: dict[str, tuple[str, str, tuple[Any, ...]]] = field(default_factory=dict)


@dataclass
class Discovery:
    entities: list[FoundEntity]
    total: int
    type_attribute: str | None = None


def discover(
    table: TableInfo, items: Iterable[dict[str, Any]], held: int = HELD_ITEMS
) -> Discovery:
    """The entity types of `items` (a table's, or a sample of them), most items first.

    The first `held` items are read whole; each later one is only counted into the entity its
    key (or type) says, so memory stays bounded on a table of any size."""
    iterator = iter(items)
    inference = _Inference(table, list(itertools.islice(iterator, held)))
    found = inference.run()
    for item in iterator:
        inference.count(item)
        found.total += 1
    if inference.other.items:
        found.entities.append(inference.other)
    found.entities.sort(key=lambda e: (-e.items, e.name))
    return found


class _Inference:
    def __init__(self, table: TableInfo, items: list[dict[str, Any]]):
        self.table = table
        self.items = items
        self.primary = table.keys.names
        names = list(self.primary)
        for ix in table.indexes:
            names.extend(n for n in ix.keys.names if n not in names)
        self.key_names = tuple(names)
        self.tokens = [self._tokens(item) for item in items]
        self.wildcards: set[tuple[int, int, int]] = set()  # (key, length, position): values
        self.by_signature: dict[Signature, FoundEntity] = {}
        self.by_type: dict[str, FoundEntity] = {}
        self.type_name: str | None = None
        self.other = FoundEntity("other", {})  # items counted after inference that fit no entity
        self._vocabulary()

    def _tokens(self, item: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        return {n: tokens(v) for n in self.key_names if isinstance(v := item.get(n), str)}

    # --- which tokens are tags ------------------------------------------------------------

    def _vocabulary(self) -> None:
        occurs: Counter[str] = Counter()
        positions: dict[tuple[Any, ...], set[str]] = {}
        self.primary_words: set[str] = set()
        for toks in self.tokens:
            seen: set[str] = set()
            for name, parts in toks.items():
                for pos, token in enumerate(parts):
                    if is_delimiter(token):
                        continue
                    if is_word(token):
                        seen.add(token)
                        if name in self.primary:
                            self.primary_words.add(token)
                    found = positions.setdefault(_position(name, parts, pos), set())
                    if len(found) <= MAX_POSITION_VALUES:
                        found.add(token)
            occurs.update(seen)
        self.occurs = occurs
        self.positions = positions

    def tag(self, name: str, parts: tuple[str, ...], pos: int) -> bool:
        """Whether the token at `pos` of key attribute `name` reads as a type tag."""
        token = parts[pos]
        if not is_word(token):
            return False
        found = self.positions.get(_position(name, parts, pos))
        if found is None or len(found) > MAX_POSITION_VALUES:
            return False
        if self.occurs.get(token, 0) >= 2:
            return True
        return len(found) <= FEW_TAGS and all(is_word(t) for t in found)

    # --- grouping ---------------------------------------------------------------------------

    def signature(self, item: dict[str, Any], toks: dict[str, tuple[str, ...]]) -> Signature:
        out: list[Any] = []
        for name in self.primary:
            parts = toks.get(name)
            if parts is None:
                out.append(f"?{values.type_of(item.get(name, values.MISSING))}")
                continue
            if len(parts) == 1 and "/" in parts[0]:
                out.append("folder" if parts[0].endswith("/") else "file")
                continue
            out.append(tuple(self._signed(name, parts, p) for p in range(len(parts))))
        return tuple(out)

    def _signed(self, name: str, parts: tuple[str, ...], pos: int) -> Any:
        """A token in a signature: a tag or delimiter as itself, a labelled value by its
        label (``Invoice-92551``: ``Invoice-``), any other value as None."""
        t = parts[pos]
        if is_delimiter(t) or t == "" or self.tag(name, parts, pos):
            return t
        found = label([t])
        return ("label", found) if found and is_word(found[:-1]) else None

    def final_signature(self, item: dict[str, Any], toks: dict[str, tuple[str, ...]]) -> Signature:
        """An item's signature with every position found to hold values made a hole."""
        s = self.signature(item, toks)
        for k, length, pos in self.wildcards:
            part = s[k]
            if isinstance(part, tuple) and len(part) == length:
                s = _wild(s, k, pos)
        return s

    def prefix_groups(self, members: Iterable[int]) -> dict[Signature, list[int]]:
        """Items grouped by the tags of their primary key, then merged where a tag is a value."""
        groups: dict[Signature, list[int]] = {}
        for i in members:
            groups.setdefault(self.signature(self.items[i], self.tokens[i]), []).append(i)
        changed = True
        while changed:
            changed = False
            for k in range(len(self.primary)):
                positions = {len(s[k]) for s in groups if isinstance(s[k], tuple)}
                for length in sorted(positions):
                    for pos in range(length):
                        merged = self._merge_at(groups, k, length, pos)
                        if merged is not None:
                            groups = merged
                            self.wildcards.add((k, length, pos))
                            changed = True
        return groups

    def _merge_at(
        self, groups: dict[Signature, list[int]], k: int, length: int, pos: int
    ) -> dict[Signature, list[int]] | None:
        """Where one class of groups (alike but for the token at `pos`) holds one type, the
        position holds values in every group: its tags become holes everywhere."""
        classes: dict[Signature, list[Signature]] = {}
        for s in groups:
            part = s[k]
            if not isinstance(part, tuple) or len(part) != length or part[pos] is None:
                continue
            if is_delimiter(part[pos]) or part[pos] == "":
                continue
            classes.setdefault(_wild(s, k, pos), []).append(s)
        for wild, members in classes.items():
            mixed = wild in groups  # some items have a value here, not a tag: all do
            if len(members) + mixed < 2:
                continue
            if not mixed:
                items = [i for s in members for i in groups[s]]
                if not self._one_type([groups[s] for s in members], items, self.primary[k], pos):
                    continue
            out: dict[Signature, list[int]] = {}
            for s, g in groups.items():
                part = s[k]
                if isinstance(part, tuple) and len(part) == length and part[pos] is not None:
                    if not is_delimiter(part[pos]) and part[pos] != "":
                        s = _wild(s, k, pos)
                out.setdefault(s, []).extend(g)
            return out
        return None

    def _one_type(self, groups: list[list[int]], items: list[int], key: str, pos: int) -> bool:
        """Groups that differ in one key token hold one type when the token is a stored
        attribute's value, or when their items carry alike attributes (not none)."""
        if self._stored(items, key, pos) is not None:
            return True
        if not any(set(self.items[i]) - set(self.primary) for i in items):
            return False  # edges with nothing but their keys: the tag is all they say
        return _alike([self.core(g) for g in groups])

    def _stored(self, items: list[int], key: str, pos: int) -> str | None:
        """The non-key attribute that holds the token at `pos` of `key` on every item."""
        first = self.items[items[0]]
        token = self.tokens[items[0]][key][pos]
        for name, value in first.items():
            if name in self.key_names or value != token:
                continue
            if all(self.items[i].get(name) == self.tokens[i][key][pos] for i in items):
                return name
        return None

    def core(self, group: list[int], without: str | None = None) -> frozenset[str]:
        """The attributes on more than half of the group's items, the primary key (and
        `without`) aside: index keys count (an item in an index is of another kind than one
        that is not)."""
        counts: Counter[str] = Counter()
        for i in group:
            counts.update(self.items[i].keys())
        keep = {n for n, c in counts.items() if c * 2 > len(group)}
        return frozenset(keep - set(self.primary) - {without})

    # --- the entity-type attribute --------------------------------------------------------------

    def type_attribute(self, groups: list[list[int]]) -> str | None:
        """The entity-type attribute, if one splits the prefix groups as a type would: a
        well-known name first, then the attribute on the most items."""
        n = len(self.items)
        seen: dict[str, Counter[str]] = {}
        many: set[str] = set()  # more values than types have: counted no further
        for item in self.items:
            for name, value in item.items():
                if name in self.key_names or name in many:
                    continue
                if not isinstance(value, str) or len(value) > 64:
                    continue
                found = seen.setdefault(name, Counter())
                found[value] += 1
                if len(found) > MAX_TYPES:
                    many.add(name)
        candidates = [
            (name.lower() not in TYPE_NAMES, -sum(c.values()), name)
            for name, c in seen.items()
            if name not in many and sum(c.values()) >= TYPE_PRESENCE * n
        ]
        for _unknown, _presence, name in sorted(candidates):
            if self._splits(name, groups, known=name.lower() in TYPE_NAMES):
                return name
        return None

    def _splits(self, name: str, groups: list[list[int]], known: bool) -> bool:
        """A well-known name splits unless, inside one prefix group, its values mark items of
        alike attributes; another name only when each group holds exactly one value."""
        per_group = []
        for g in groups:
            by_value: dict[str, list[int]] = {}
            for i in g:
                value = self.items[i].get(name)
                if isinstance(value, str):
                    by_value.setdefault(value, []).append(i)
            per_group.append(by_value)
        if not known:
            kinds = {v for by in per_group for v in by}
            return len(groups) >= 2 and len(kinds) >= 2 and all(len(by) <= 1 for by in per_group)
        for by in per_group:
            if len(by) < 2:
                continue
            cores = [self.core(members, without=name) for members in by.values()]
            if _alike(cores):
                return False  # a field of one type (an invoice's status), not its type
        return True

    # --- entities ---------------------------------------------------------------------------

    def run(self) -> Discovery:
        prefixed = self.prefix_groups(range(len(self.items)))
        self.type_name = self.type_attribute(list(prefixed.values())) if self.items else None
        entities: list[FoundEntity] = []
        untyped = prefixed
        if self.type_name is not None:
            by_type: dict[str, list[int]] = {}
            rest: list[int] = []
            for i, item in enumerate(self.items):
                value = item.get(self.type_name)
                if isinstance(value, str):
                    by_type.setdefault(value, []).append(i)
                else:
                    rest.append(i)
            for value, group in by_type.items():
                self.by_type[value] = self.entity(group, value)
                entities.append(self.by_type[value])
            untyped = self.prefix_groups(rest)
        for signature, group in untyped.items():
            self.by_signature[signature] = self.entity(group, None)
            entities.append(self.by_signature[signature])
        # in an order of their own (not the items'): a Scan's order does not rename them
        entities.sort(key=lambda e: (-e.items, e.name, _templates_text(e)))
        _name_uniquely(entities)
        entities.sort(key=lambda e: (-e.items, e.name))
        return Discovery(entities, len(self.items), self.type_name)

    def count(self, item: dict[str, Any]) -> None:
        """An item after those inference read: counted into the entity its type or key says."""
        value = item.get(self.type_name) if self.type_name is not None else None
        if isinstance(value, str):
            e = self.by_type.get(value, self.other)
        else:
            e = self.by_signature.get(self.final_signature(item, self._tokens(item)), self.other)
        self._add(e, item)

    def entity(self, group: list[int], type_value: str | None) -> FoundEntity:
        shapes = Counter(self._shape(i) for i in group)
        common = shapes.most_common(1)[0][0]
        regular = [i for i in group if self._shape(i) == common]
        templates: dict[str, tuple[Part, ...]] = {}
        for name in self.key_names:
            with_key = [i for i in regular if name in self.items[i]]
            if name not in self.primary:
                if not with_key:
                    continue
                lengths = Counter(len(self.tokens[i].get(name, ())) for i in with_key)
                length = lengths.most_common(1)[0][0]
                with_key = [i for i in with_key if len(self.tokens[i].get(name, ())) == length]
            templates[name] = self.template(name, with_key)
        typed = self.type_name if type_value is not None else None
        e = FoundEntity("", templates, typed, type_value)
        for i in group:
            item = self.items[i]
            self._add(e, item)
            if len(e.sample) < SAMPLE_ITEMS:
                e.sample.append(item)
            if self._shape(i) != common and len(e.odd) < 3:
                e.odd.append(" / ".join(str(item.get(k)) for k in self.primary))
        for ix in self.table.indexes:
            condition = self._membership(group, ix.keys.names)
            if condition is not None:
                e.holds[ix.name or ""] = condition
        e.name = _entity_name(e, self.primary)
        return e

    def _membership(
        self, group: list[int], keys: tuple[str, ...]
    ) -> tuple[str, str, tuple[Any, ...]] | None:
        """The condition that says which of the group's items a sparse index holds: a stored
        attribute of few values (at most FEW_VALUES), whose values inside and outside the
        index never meet, one side of which is one value seen on two items or more
        (``status <> 'void'``); else None."""
        inside = [self.items[i] for i in group if all(k in self.items[i] for k in keys)]
        outside = [self.items[i] for i in group if not all(k in self.items[i] for k in keys)]
        if not inside or not outside:
            return None
        names = sorted(set(inside[0]) - set(self.key_names))
        # an attribute composed into the index's keys first (status in STATUS#paid)
        used = {
            n
            for n in names
            if all(any(str(item.get(n)) in str(item.get(k, "")) for k in keys) for item in inside)
        }
        for name in sorted(names, key=lambda n: (n not in used, n)):
            a = {values.hashable(i.get(name, values.MISSING)) for i in inside}
            b = {values.hashable(i.get(name, values.MISSING)) for i in outside}
            if a & b or len(a | b) > FEW_VALUES:
                continue
            if not all(v[0] in ("S", "N", "BOOL") for v in a | b):
                continue  # a missing attribute, a list: nothing to compare

            if len(b) == 1 and len(outside) >= 2:
                return name, "<>", tuple(v for _code, v in b)
            if len(a) == 1 and len(inside) >= 2:
                return name, "=", tuple(v for _code, v in a)
        return None

    def _add(self, e: FoundEntity, item: dict[str, Any]) -> None:
        """Count one item into an entity: items, bytes, attributes, indexes, sort keys."""
        e.items += 1
        e.size += values.item_size(item)
        for attr, value in item.items():
            seen = e.attributes.setdefault(attr, {})
            code = values.type_of(value) or ""
            seen[code] = seen.get(code, 0) + 1
        for ix in self.table.indexes:
            if all(k in item for k in ix.keys.names):
                e.indexes[ix.name or ""] = e.indexes.get(ix.name or "", 0) + 1
        sk = self.table.keys.sk
        sk_value = item.get(sk) if sk else None
        if isinstance(sk_value, str):
            if len(e.sk_values) < KEPT_SORT_KEYS:
                e.sk_values.append(sk_value)
            parts = sk_value.split("/")
            if "/" in sk_value and "#" not in sk_value and len(parts) > 2:
                top = "/".join(parts[:2]) + "/"
                e.paths[top] = e.paths.get(top, 0) + 1

    def _shape(self, i: int) -> tuple[int, ...]:
        toks = self.tokens[i]
        return tuple(len(toks.get(n, ())) for n in self.primary)

    def template(self, name: str, members: list[int]) -> tuple[Part, ...]:
        """One key attribute's template over the items of an entity (all of one shape)."""
        if not members:
            return ()
        strings = [self.tokens[i].get(name) for i in members]
        if any(s is None for s in strings):
            code = values.type_of(self.items[members[0]].get(name, values.MISSING))
            return (Hole({"N": "number", "B": "binary"}.get(code or "", "value")),)
        rows: list[tuple[str, ...]] = [s for s in strings if s is not None]
        if len(rows[0]) == 1 and "/" in rows[0][0]:
            return path_parts(r[0] for r in rows)
        parts: list[Part] = []
        for pos in range(len(rows[0])):
            column = [r[pos] for r in rows]
            first = column[0]
            # a whole index key that a couple of items share (AgentB) is a value, not a constant,
            # unless the primary keys use the word as a tag too (Houlihan's `A`)
            lone = (
                len(rows[0]) == 1
                and name not in self.primary
                and len(rows) < 3
                and first not in self.primary_words
            )
            # the partition key's last token after a tag is the tag's value (DRIVE#alice in a
            # sample of one partition), not a constant: every item of a type in one partition
            # is not a design anyone draws
            owned = (
                name == self.primary[0]
                and pos == len(rows[0]) - 1
                and len(parts) >= 2
                and is_delimiter(str(parts[-1]))
                and isinstance(parts[-2], str)
            )
            if all(t == first for t in column) and (
                is_delimiter(first)
                or first == ""
                or (self.tag(name, rows[0], pos) and not lone and not owned)
            ):
                parts.append(first)
                continue
            prefix = label(column)
            if prefix:
                parts.append(prefix)
            parts.append(Hole(shape(t[len(prefix) :] for t in column)))
        return tuple(parts)


def _wild(s: Signature, k: int, pos: int) -> Signature:
    part = s[k]
    return s[:k] + (part[:pos] + (None,) + part[pos + 1 :],) + s[k + 1 :]


def _position(name: str, parts: tuple[str, ...], pos: int) -> tuple[Any, ...]:
    """A token's place: its key attribute, the key's length, where, and the key's first token
    (the values after ``TENANT#`` are counted apart from those after ``EQUIPMENTS#``)."""
    return (name, len(parts), pos, parts[0] if pos else None)


def _alike(cores: list[frozenset[str]]) -> bool:
    shared = frozenset.intersection(*cores)
    every = frozenset.union(*cores)
    if not every:
        return True
    return len(shared) >= SIMILAR * len(every)


_VERSION = re.compile(r"_\d+$")


def condition_text(condition: tuple[str, str, tuple[Any, ...]], quote: Any = str) -> str:
    """``status <> 'void'``: a membership condition as SQL (`quote` writes the name)."""
    from dynosql.sql import ast
    from dynosql.sql.text import sql_text

    name, op, (value, *_) = condition
    return f"{quote(name)} {op} {sql_text(ast.Literal(value))}"


def tag_of(parts: tuple[Part, ...]) -> str | None:
    """A template's leading tag (``INVOICE`` of ``INVOICE#{6 digits}``, ``Invoice`` of
    ``Invoice-{5 digits}``), if it starts with one."""
    for p in parts:
        if isinstance(p, Hole):
            return None
        if p == "" or is_delimiter(p):
            continue
        word = p.rstrip("-_") if p.endswith(("-", "_")) and len(p) > 1 else p
        return _VERSION.sub("", word.lstrip("$").strip('"')) if is_word(word) else None
    return None


def constant(parts: tuple[Part, ...]) -> bool:
    return bool(parts) and all(isinstance(p, str) for p in parts)


def _entity_name(e: FoundEntity, primary: tuple[str, ...]) -> str:
    """The type value; else the tag that ends the partition key (``u#{id}#follower``); for a
    constant sort key (``#META#``) the partition key's tag; else the sort key's, then the
    partition key's; a path is a folder or a file."""
    if e.type_value is not None:
        return e.type_value
    pk = e.templates.get(primary[0], ())
    sk = e.templates.get(primary[1], ()) if len(primary) > 1 else ()
    if sk[:1] == (Hole("path"),):
        return "folder" if sk == (Hole("path"), "/") else "file"
    if (
        any(isinstance(p, Hole) for p in pk)
        and isinstance(pk[-1], str)
        and is_word(pk[-1])
        and is_delimiter(str(pk[-2]))
    ):
        return _VERSION.sub("", pk[-1].strip('"'))
    own = constant(sk) or _same_holes(e, primary, pk, sk)  # the partition's own record
    order = (pk, sk) if own else (sk, pk)
    for parts in order:
        found = tag_of(parts)
        if found:
            return found
    if constant(sk):
        return "".join(p for p in sk if isinstance(p, str)).strip("#|:\"' ") or "item"
    return "item"


def _templates_text(e: FoundEntity) -> tuple[str, ...]:
    return tuple(template_text(parts) for parts in e.templates.values())


def _same_holes(
    e: FoundEntity, primary: tuple[str, ...], pk: tuple[Part, ...], sk: tuple[Part, ...]
) -> bool:
    """Whether the sort key repeats the partition key's values (``ORG#x`` / ``METADATA#x``)."""
    if len(primary) < 2 or not any(isinstance(p, Hole) for p in sk):
        return False
    pk_match, sk_match = matcher(pk), matcher(sk)
    for item in e.sample:
        a, b = item.get(primary[0]), item.get(primary[1])
        ma = pk_match.match(a) if isinstance(a, str) else None
        mb = sk_match.match(b) if isinstance(b, str) else None
        if ma is None or mb is None or ma.groups() != mb.groups():
            return False
    return bool(e.sample)


def _name_uniquely(entities: list[FoundEntity]) -> None:
    """Two entities named alike (``u`` for ``u#{id}`` / ``info`` and ``u#{id}`` / ``count``)
    take their sort key's constant too, then a number."""
    counts = Counter(e.name for e in entities)
    for e in entities:
        if counts[e.name] < 2:
            continue
        pk_tag = tag_of(next(iter(e.templates.values()), ()))
        if pk_tag and pk_tag != e.name:
            e.name = f"{pk_tag}_{e.name}"  # an edge: Invoice_Bill beside Bill
            continue
        sk = list(e.templates.values())[1:2]
        if sk and constant(sk[0]):
            word = "".join(p for p in sk[0] if isinstance(p, str)).strip("#|:\"' ")
            if word and word != e.name:
                e.name = f"{e.name}_{word}"
    taken: set[str] = set()
    for e in entities:
        base, n = e.name, 1
        while e.name in taken:
            n += 1
            e.name = f"{base}_{n}"
        taken.add(e.name)
