"""moto's Scan and Query without the work that changes nothing in their answers.

The embedded server's time goes mostly to moto's table code. Two of its habits cost the most on
every read, profiled over the test suite and ``--local``'s example tables:

- ``Table.all_items`` sorts every item of the table on each Scan page and each Query of the
  base table (a Query then keeps one key's items), comparing ``DynamoType`` objects: each
  comparison computes both values again in Python, O(n log n) times. Sorted here by each
  item's key values, computed once an item; the same order, as a key attribute has one type in
  a table and ``DynamoType`` compares exactly those values (``cast_value``, equal when type and
  value are).
- ``Table.scan`` and ``Table.query`` deep-copy every item they read before they project and
  filter it (recursive Python: a third of a full Scan's time). What follows only reads the
  copies: ``Item.project`` and an index's projection build new items, a filter evaluates, the
  answer is written from them. So here a copy of an item is a new item with a new dict of the
  same attribute values: the stored item's dict is never handed out, and nothing downstream
  changes a value. Only those copies of items (one, or a list of them) change; every other
  deep copy of moto's table module (backups, restores, a table's description) stays deep.

A Scan of the 1,300 sensors items in one process: 144 → 108 ms with the copies alone. Installed
once per process on moto's own classes (moto runs in this process only as dynosql's embedded
DynamoDB); a moto whose internals differ is left as it is. ``tests/test_moto_reads.py``.
"""

from __future__ import annotations

import copy
import functools
from typing import Any


@functools.cache
def read_items_cheaply() -> None:
    """Install both (once per process)."""
    try:
        from moto.dynamodb.models import table as table_module
        from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict
    except ImportError:  # pragma: no cover - another moto layout
        return
    if getattr(table_module, "copy", None) is copy:
        table_module.copy = _ReadCopies(Item, LimitedSizeDict)  # type: ignore[assignment]
    table_class = getattr(table_module, "Table", None)
    if table_class is not None and callable(getattr(table_class, "all_items", None)):
        table_class.all_items = _all_items


def _all_items(self: Any) -> list[Any]:
    """``Table.all_items`` as moto writes it, sorted by key values computed once an item."""
    items: list[Any] = []
    for hash_set in self.items.values():
        if self.range_key_attr:
            items.extend(hash_set.values())
        else:
            items.append(hash_set)

    def key(item: Any) -> Any:
        value = item.hash_key.cast_value
        return (value, item.range_key.cast_value) if item.range_key else value

    return sorted(items, key=key)


class _ReadCopies:
    """``copy`` as moto's table module sees it: deep, except for items (module docstring)."""

    def __init__(self, item_class: Any, attrs_class: Any):
        self._item = item_class
        self._attrs = attrs_class

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        if type(value) is self._item:
            return self._copy(value)
        if type(value) is list and value and all(type(v) is self._item for v in value):
            return [self._copy(v) for v in value]
        return copy.deepcopy(value, memo)

    def _copy(self, item: Any) -> Any:
        out: Any = self._item.__new__(self._item)
        out.__dict__.update(item.__dict__)
        attrs = self._attrs.__new__(self._attrs)
        dict.update(attrs, item.attrs)  # no size check: the stored item passed it
        out.attrs = attrs
        return out
