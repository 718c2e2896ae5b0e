"""moto's Scan and Query without the work that changes nothing in their answers.

The embedded server's time goes mostly to moto's table code. Its habits that cost the most on
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

- ``Table.query`` of the base table goes through all of the table's items (sorted, as above)
  to keep one partition's, then sizes each item of that partition, also those its sort key
  condition rejects. Here it is given only that partition's items that meet the condition,
  in order (`_partition`): a keyed Query of the examples' drive table (675 items), 7.4 → 4.3 ms
  a statement through dynosql.
- ``Table.scan`` and ``Table.query`` size each item they read twice (``Item.size``, recursive
  Python over every value): once to see whether it still fits the page's 1 MB, once to add it
  to the page. Here an item read is sized once per read: within one Scan or Query call each
  item's size is remembered, so both uses see the same figure (an item another request changes
  meanwhile is sized as it was first seen).

And where moto cuts a page, DynamoDB's cut (`_PageCut`). moto ends a page before the item
that would take it past 1,000,000 bytes by its own measure of items (a number's digits as
text, no overhead for a list or map element). DynamoDB reads a page until what it read exceeds
1 MB, the item that crossed included ("If the total size of scanned items exceeds the maximum
dataset size limit of 1 MB, the scan completes and results are returned", the Scan API
reference; "if the processed dataset size exceeds 1 MB ... it stops the operation", its and
Query's Limit), by the sizes it bills: items, index entries through an index. Measured on
DynamoDB Local, every page of a Scan or Query of a table ends on the item that brings its items
to 1,048,576 bytes or more (a table of 2,346,693 bytes: pages of 1,048,878 and 1,048,865 bytes,
where moto's were 999,490 and 999,707), so a large table's Scan was cut into pages that rounded
differently (1,200 items of 1,000 bytes: 143 RCU here, 142.5 on DynamoDB Local). dynalite ends
a page on the item that reaches 1 MiB too, by a size of its own, undocumented; DynamoDB Local
cuts (and bills) an index read by its whole items, a departure tests/test_capacity.py lists.
So within a read moto's items are sized by DynamoDB's rules (`dynosql.dynamo.wiresize`), the
page ends after the one that reaches 1 MiB, and moto's own limit is raised past any page
DynamoDB could return, so that only this cut applies. Items a legacy ScanFilter or QueryFilter
drops (moto applies those while it reads) do not count towards the 1 MiB, as before.

And the items a Scan meets, in their order (`_scan_items`): moto read a Scan in the order of
the key values and split a parallel Scan's segments by an MD5 of its own, so the pages of a
large table held other items than DynamoDB Local's and were billed differently. Here a
``Table.scan`` call is handed its segment's items after its ExclusiveStartKey, in DynamoDB
Local's order (`dynosql.local.scan_order`), through ``all_items``, ``has_idx_items`` and
``sorted_items``, and moto reads them as one stream from the start.

And one thing more, for the metering (`dynosql.local.metering`): a page is billed for the items
it evaluated, before the filter and the projection. ``evaluated_items()`` records them as the
request itself reads them: moto evaluates a page (key condition, Limit, the 1 MB cut, index
projection) and only then filters and projects the page's items, so here it is called without
filter and projection, the items kept, and both applied after, as moto's own last lines do.
Without it the metering sent each filtered or projected request a second time.

A Scan of the 1,300 sensors items in one process: 144 → 108 ms with the copies alone. Installed
once per process on moto's own classes (moto runs in this process only as dynosql's embedded
DynamoDB); a moto whose internals differ is left as it is. ``tests/test_moto_reads.py``.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from dynosql.dynamo import wiresize
from dynosql.local import scan_order
from dynosql.plan.cost import PAGE_BYTES

_state = threading.local()  # .cut: a read's _PageCut; .partition; .scan; .seen: evaluated pages
# moto's own methods this module replaced, by "Class.method" (tests compare the two)
REPLACED: dict[str, Callable[..., Any]] = {}


@functools.cache
def read_items_cheaply() -> None:
    """Install them (once per process)."""
    try:
        from moto.dynamodb.models import table as table_module
        from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict
    except ImportError:  # pragma: no cover - another moto layout
        return
    if getattr(table_module, "copy", None) is copy:
        table_module.copy = _ReadCopies(Item, LimitedSizeDict)  # type: ignore[assignment]
    table_class = getattr(table_module, "Table", None)
    if table_class is None:  # pragma: no cover - another moto layout
        return
    if callable(getattr(table_class, "all_items", None)):
        REPLACED["Table.all_items"] = table_class.all_items
        table_class.all_items = _all_items
    for name, replacement in (("has_idx_items", _index_items), ("sorted_items", _sorted_items)):
        if callable(getattr(table_class, name, None)):
            REPLACED[f"Table.{name}"] = getattr(table_class, name)
            setattr(table_class, name, replacement)
    if callable(getattr(Item, "size", None)):
        REPLACED["Item.size"] = Item.size
        setattr(Item, "size", _sized_once(Item.size))  # noqa: B010 - a method, replaced
        if isinstance(getattr(table_module, "RESULT_SIZE_LIMIT", None), int):
            table_module.RESULT_SIZE_LIMIT = _PAST_ANY_PAGE  # only _PageCut's cut applies
    for method, projection in (
        ("scan", "projection_expression"),
        ("query", "projection_expressions"),
    ):
        read: Any = getattr(table_class, method, None)
        parameters = inspect.signature(read).parameters if callable(read) else {}
        if "filter_expression" in parameters and projection in parameters:
            REPLACED[f"Table.{method}"] = read
            setattr(table_class, method, _read(read, projection))


@contextlib.contextmanager
def evaluated_items() -> Iterator[list[list[Any]]]:
    """Within the block, each Scan or Query page moto's tables read in this thread: the list of
    the items it evaluated (index entries through an index), before filter and projection. Stays
    empty where the reads are not installed (another moto)."""
    seen: list[list[Any]] = []
    outer = getattr(_state, "seen", None)
    _state.seen = seen
    try:
        yield seen
    finally:
        _state.seen = outer


def _read(original: Callable[..., Any], projection: str) -> Callable[..., Any]:
    """``Table.scan``/``Table.query``: each item sized once, by DynamoDB's rules, and the page
    cut where DynamoDB cuts it (`_PageCut`); a base-table Query reads its own partition's
    matching items only; the page recorded when asked."""
    signature = inspect.signature(original)
    keyed = "hash_key" in signature.parameters
    ordered = {"segments", "exclusive_start_key"} <= set(signature.parameters)

    @functools.wraps(original)
    def read(*args: Any, **kwargs: Any) -> Any:
        outer = tuple(getattr(_state, name, None) for name in ("cut", "partition", "scan"))
        bound = signature.bind(*args, **kwargs)
        _state.cut = _PageCut(bound.arguments)
        _state.partition = _partition(bound.arguments) if keyed else None
        _state.scan = None
        if not keyed and ordered:
            _state.scan = _scan_items(bound.arguments)
            bound.arguments["segments"] = (None, None)
            bound.arguments["exclusive_start_key"] = None
        try:
            seen = getattr(_state, "seen", None)
            if seen is None:
                return original(*bound.args, **bound.kwargs)
            shaping = bound.arguments.get("filter_expression")
            projecting = bound.arguments.get(projection)
            bound.arguments["filter_expression"] = bound.arguments[projection] = None
            items, scanned, last = original(*bound.args, **bound.kwargs)
            seen.append(items)
        finally:
            _state.cut, _state.partition, _state.scan = outer
        if shaping is not None:  # moto's own last lines: filter, then project
            items = [item for item in items if shaping.expr(item)]
        if projecting:
            items = [item.project(projecting) for item in items]
        return items, scanned, last

    return read


def _sized_once(original: Callable[[Any], int]) -> Callable[[Any], int]:
    """``Item.size``: within a Scan or Query call, `_PageCut`'s figure; elsewhere moto's own."""

    @functools.wraps(original)
    def size(self: Any) -> int:
        cut = getattr(_state, "cut", None)
        return original(self) if cut is None else cut.size(self)

    return size


# a page holds at most 1 MiB of items read, and the item that crossed it (at most 400 KB);
# moto's own limit is set past that, and a size past it ends moto's page where _PageCut says
_PAST_ANY_PAGE = 2 * PAGE_BYTES
_END_OF_PAGE = _PAST_ANY_PAGE + 1


class _PageCut:
    """The sizes moto sees within one Scan or Query call (`_read`): each item's DynamoDB size
    (`wiresize.item_size`; its index entry's through an index) computed once, and the end of
    the page where DynamoDB ends it.

    moto asks an item's size first to decide whether the page has room for it, then, once it
    has put the item in the page, again to add it up: the second ask counts the item as read.
    Once what was read reaches 1 MiB, the next item's first ask answers a size no page has room
    for, and moto ends the page there, with its LastEvaluatedKey after the last item read."""

    def __init__(self, arguments: dict[str, Any]):
        table, index = arguments["self"], arguments.get("index_name")
        self.entry = table.get_index(index).project if index else None
        self.sizes: dict[int, tuple[Any, int]] = {}  # id: (item, size): held, so not reused
        self.read = 0

    def size(self, item: Any) -> int:
        known = self.sizes.get(id(item))
        if known is not None and known[0] is item:  # asked again: moto put it in the page
            self.read += known[1]
            return known[1]
        if self.read >= PAGE_BYTES:
            return _END_OF_PAGE
        read = item if self.entry is None else self.entry(item)
        figure = wiresize.item_size(read.to_json()["Attributes"])
        self.sizes[id(item)] = (item, figure)
        return figure


def _partition(arguments: dict[str, Any]) -> tuple[Any, ...] | None:
    """What a ``Table.query`` reads when it is of the base table: one partition (its hash key)
    and the sort key condition its items must meet. None for an index, a legacy QueryFilter
    (moto adds its matches whatever the sort key) or a condition on another attribute."""
    table = arguments["self"]
    if arguments.get("index_name") or arguments.get("filter_kwargs"):
        return None
    conditions = arguments.get("range_key_conditions")
    if arguments.get("hash_key") is None or (
        conditions and conditions[-1][0] != table.range_key_attr
    ):
        return None
    return (
        table,
        arguments["hash_key"],
        arguments.get("range_comparison"),
        arguments.get("range_objs"),
    )


def _all_items(self: Any) -> list[Any]:
    """``Table.all_items`` as moto writes it, sorted by key values computed once an item.

    Within a base-table Query (`_partition`), only that partition's items that meet the sort
    key condition: moto's query keeps exactly those (it compares each item's hash key, then its
    sort key), and sized every item of the partition on the way (a Query of one item in a
    partition of 400 sized 400)."""
    scanned = _scanned(self)
    if scanned is not None:
        return scanned
    partition = getattr(_state, "partition", None)
    if partition is not None and partition[0] is self:
        _, hash_key, comparison, operands = partition
        held = self.items.get(hash_key)
        if held is None:
            return []
        if not self.range_key_attr:
            return [held]
        meeting = [
            item
            for item in held.values()
            if not comparison or item.range_key.compare(comparison, operands)
        ]
        return sorted(meeting, key=lambda item: item.range_key.cast_value)
    items = _every_item(self)

    def key(item: Any) -> Any:
        value = item.hash_key.cast_value
        return (value, item.range_key.cast_value) if item.range_key else value

    return sorted(items, key=key)


def _scan_items(arguments: dict[str, Any]) -> tuple[Any, list[Any]]:
    """What a ``Table.scan`` call reads, in DynamoDB Local's order (`scan_order`): the table's
    items (or the index's), those of its segment only, after its ExclusiveStartKey. moto then
    reads them as one stream from the start (it would skip what sorts before the start key by
    the key values, and split segments by an MD5 of its own)."""
    table, index_name = arguments["self"], arguments.get("index_name")
    keys = scan_order.ScanKeys(table.hash_key_attr, table.range_key_attr)
    if index_name:
        index = table.get_index(index_name)
        schema = {key["KeyType"]: key["AttributeName"] for key in index.schema}
        local = index in getattr(table, "indexes", ())
        keys = replace(
            keys, index_hash=schema["HASH"], index_range=schema.get("RANGE"), local=local
        )
        items = REPLACED["Table.has_idx_items"](table, index_name)
    else:
        items = _every_item(table)
    place = keys.place
    placed = [(place(item.attrs.get), item) for item in items]
    segment, total = arguments.get("segments") or (None, None)
    if total:
        placed = [p for p in placed if scan_order.segment(p[0][0], total) == segment]
    placed.sort(key=lambda p: p[0][1])
    start = arguments.get("exclusive_start_key")
    if start:
        from moto.dynamodb.models.dynamo_type import DynamoType

        _, after = place(lambda name: DynamoType(start[name]) if name in start else None)
        placed = [p for p in placed if p[0][1] > after]
    return table, [item for _, item in placed]


def _every_item(table: Any) -> list[Any]:
    """A moto table's items, in no particular order."""
    if not table.range_key_attr:
        return list(table.items.values())
    return [item for hash_set in table.items.values() for item in hash_set.values()]


def _index_items(self: Any, index_name: str) -> list[Any]:
    """``Table.has_idx_items``: within a Scan, the items `_scan_items` put in order."""
    scanned = _scanned(self)
    return REPLACED["Table.has_idx_items"](self, index_name) if scanned is None else scanned


def _sorted_items(self: Any, *args: Any, **kwargs: Any) -> list[Any]:
    """``Table.sorted_items``: within a Scan, left in `_scan_items`'s order."""
    scanned = _scanned(self)
    return REPLACED["Table.sorted_items"](self, *args, **kwargs) if scanned is None else scanned


def _scanned(table: Any) -> list[Any] | None:
    """Within a Scan of `table`, the items `_scan_items` put in order (a new list)."""
    scan = getattr(_state, "scan", None)
    return list(scan[1]) if scan is not None and scan[0] is table else None


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
