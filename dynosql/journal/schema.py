"""A table's schema as a journal records it, and what undo can no longer restore since.

A journal's header keeps, for each table its statement writes, the key schema, every index's
key attributes with their types, and the table's creation time (`snapshot`). Before its first
write, undo compares them with the table as it is now (`compare`):

- the table is gone: none of its items can be restored;
- it was dropped and recreated (another creation time): it is another table, refused like
  another target unless forced (`Changes.recreated`);
- its key is not the journal's (other names or types): an item cannot be put back under the
  key it had;
- an index keys an attribute with another type than the item to restore holds, or one the
  item holds empty (an index added since, say): DynamoDB refuses the write (`blocked`).

What "changed since" means does not move with the schema: an item is changed since when its
attributes differ from the image the journal's writes left, whatever indexes were added; a
schema change alone changes no item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dynosql import values
from dynosql.plan.schema import KeySchema, TableInfo


def snapshot(info: TableInfo) -> dict[str, Any]:
    """What a journal header records of a table: keys, index keys (with types), creation."""
    recorded: dict[str, Any] = {
        "keys": _pairs(info.keys),
        "indexes": {ix.name: _pairs(ix.keys) for ix in info.indexes if ix.name},
    }
    created = info.raw.get("CreationDateTime")
    if created is not None:
        recorded["created"] = created.isoformat() if hasattr(created, "isoformat") else str(created)
    return recorded


def _pairs(keys: KeySchema) -> list[list[str]]:
    pairs = [[keys.pk, keys.pk_type]]
    if keys.sk is not None:
        pairs.append([keys.sk, keys.sk_type or "S"])
    return pairs


def show_keys(pairs: list[list[str]]) -> str:
    """``(pk S, sk N)``."""
    return "(" + ", ".join(f"{name} {kind}" for name, kind in pairs) + ")"


@dataclass
class Changes:
    """How one table differs from a journal's record of it."""

    table: str
    gone: bool = False
    recreated: str | None = None  # the sentence, when the table was dropped and recreated
    keys: str | None = None  # the sentence, when the key schema is not the journal's
    indexes: list[str] = field(default_factory=list)  # indexes added or changed since
    now: TableInfo | None = None

    def said(self) -> list[str]:
        """The sentences that describe the change."""
        if self.gone:
            return [f"table {self.table} no longer exists"]
        return [s for s in (self.recreated, self.keys) if s] + self.indexes


def compare(recorded: dict[str, Any] | None, table: str, now: TableInfo | None) -> Changes:
    """`now` (None: the table is gone) against the journal's record (None: an older journal
    without one; only the table as it is now can be checked)."""
    changes = Changes(table, gone=now is None, now=now)
    if now is None:
        return changes
    current = snapshot(now)
    if recorded is None:
        return changes
    then, created = recorded.get("created"), current.get("created")
    if then and created and then != created:
        changes.recreated = (
            f"table {table} was dropped and recreated since the statement (created {created}; "
            f"the journal's was created {then})"
        )
    if recorded.get("keys") and recorded["keys"] != current["keys"]:
        changes.keys = (
            f"table {table} is keyed {show_keys(current['keys'])} where the journal's items are "
            f"keyed {show_keys(recorded['keys'])}"
        )
    old_indexes = recorded.get("indexes") or {}
    for name, pairs in current["indexes"].items():
        if name not in old_indexes:
            changes.indexes.append(f"index {name} {show_keys(pairs)} was added since")
        elif old_indexes[name] != pairs:
            changes.indexes.append(
                f"index {name} is now {show_keys(pairs)}, not {show_keys(old_indexes[name])}"
            )
    return changes


def blocked(key: dict[str, Any], image: dict[str, Any] | None, changes: Changes) -> str | None:
    """Why the item under `key` cannot be put back as `image` (None: absent) into the table as
    it is now, or None when it can: the sentence listed for it."""
    if changes.gone:
        return f"not restored: table {changes.table} no longer exists"
    now = changes.now
    assert now is not None
    names = now.keys.names
    types = dict(zip(names, (now.keys.pk_type, now.keys.sk_type), strict=False))
    if set(key) != set(names) or any(values.type_of(key[n]) != types[n] for n in names):
        pairs = _pairs(now.keys)
        return f"not restored: the table is keyed {show_keys(pairs)} now, not as this item"
    if image is None:
        return None  # a delete needs only the key
    for ix in now.indexes:
        for (name, kind), role in zip(_pairs(ix.keys), ("partition", "sort"), strict=False):
            if name in image and values.type_of(image[name]) != kind:
                return (
                    f"not restored: index {ix.name} keys {name} as {kind}, and the item's "
                    f"{name} was {values.type_of(image[name])}"
                )
            if name in image and kind in ("S", "B") and len(image[name]) == 0:
                return (
                    f"not restored: index {ix.name} keys {name}, and the item's {name} was "
                    "empty (an index key cannot be)"
                )
            if name in image:  # over the key's size (a key added since may be short)
                too_long = values.key_size_error(
                    name, image[name], role, f"a key of index {ix.name}"
                )
                if too_long is not None:
                    return f"not restored: {too_long}"
    return None
