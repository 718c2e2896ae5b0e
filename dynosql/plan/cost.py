"""The cost model: how DynamoDB bills reads and writes, in one place. The planner's estimates
(EXPLAIN, the --fail-on-scan / --max-rcu / --max-wcu guards), the executor's figures on a
backend that reports none, SHOW HOT KEYS and the embedded backend's computed ConsumedCapacity
(`dynosql.local.metering`) all price through these functions, so they cannot disagree.

The rules, from AWS's documentation:

- Reads (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
  and .../developerguide/Query.Other.html#Query.CapacityUnits): 4 KB units, rounded up, at least
  one (a read of a missing item is billed too); an eventually consistent read costs half.
  GetItem and BatchGetItem round each item on its own; a Query or Scan page rounds the total
  size of the items it evaluated (before any filter; projections and Select=COUNT do not lower
  it) once. Reads through an index are billed by the size of the index entries.
- Local secondary indexes (.../developerguide/LSI.html#LSI.ThroughputConsiderations): a read of
  attributes the index does not project fetches the whole item from the table, billed per item.
- Writes (.../developerguide/read-write-operations.html#write-operation-consumption): 1 KB units
  per item, rounded up, at least one, of the larger of the old and the new image (a delete: the
  deleted item, or one unit when there was none).
- Index writes (.../developerguide/GSI.html#GSI.ThroughputConsiderations.Writes and
  .../developerguide/LSI.html#LSI.ThroughputConsiderations.Writes): a write that puts an item
  into an index (it now has the index's keys) costs one index write; one that changes an index
  key value costs two (delete the old entry, put the new); one that takes the item out of an
  index costs one; one that only changes attributes the index projects costs one; an item in
  no index before or after, or whose index entry does not change, costs none there. Each index
  write is billed in 1 KB units of the index entry (keys plus projected attributes).
- Transactions (.../developerguide/transaction-apis.html#transaction-capacity-handling): every
  item is read or written twice (prepare and commit), so it costs twice its units.

The units of one size (`read_units`, `write_units`, `transactional_read_units`: 4 KB and 1 KB
rounding) are `dynosql.values`'s, beside the item sizes they price; everything built on them is
here. Items are plain mappings from attribute name to value; ``size`` says how to size one (the
wire form's `dynosql.dynamo.wiresize.item_size`, or `dynosql.values.item_size` for decoded
items), so the same rules serve both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

from dynosql.plan.schema import IndexInfo, TableInfo
from dynosql.values import (
    READ_UNIT_BYTES,
    items_equal,
    read_units,
    write_units,
)

V = TypeVar("V")
Item = Mapping[str, Any]
Sizer = Callable[[Item], int]


def bytes_per_read_unit(consistent: bool = False) -> int:
    """The bytes one RCU reads: 4 KB strongly consistent, 8 KB eventually consistent."""
    return READ_UNIT_BYTES if consistent else READ_UNIT_BYTES * 2


def page_read_units(sizes: Iterable[int], consistent: bool = False) -> Decimal:
    """A Query or Scan page: the items evaluated, summed, rounded up once."""
    return read_units(sum(sizes), consistent)


def item_read_units(sizes: Iterable[int | None], consistent: bool = False) -> Decimal:
    """GetItem / BatchGetItem: each item rounded on its own; a missing item (None) still
    costs one unit."""
    return sum((read_units(size or 0, consistent) for size in sizes), Decimal(0))


PAGE_BYTES = 1024 * 1024  # a Query or Scan page holds at most 1 MB of items evaluated
# the fewest 4 KB units a page read under --rate-limit is cut to span (see paced_page_items)
PACED_PAGE_UNITS = 8


def paced_page_units(rate: Decimal, consistent: bool = False) -> int:
    """The 4 KB units a page read under ``--rate-limit`` `rate` spans (`paced_page_items`)."""
    unit_rcu = read_units(READ_UNIT_BYTES, consistent)  # one unit: 1 RCU, or 0.5
    return max(PACED_PAGE_UNITS, math.floor(rate / unit_rcu))


def paced_page_items(rate: Decimal, item_bytes: float, consistent: bool = False) -> int:
    """The Limit of each Query or Scan page read under ``--rate-limit`` `rate` (RCU a second),
    for items of `item_bytes` on average: the reader and every estimate cut pages by this one
    rule, so the estimate prices the pages the reader sends.

    A page is billed its items' sizes summed and rounded up to a whole 4 KB unit, so each page
    cut short costs up to a unit it does not read: at 1 RCU/s, pages of one second (two units
    of 4 KB) billed the example sensors table's Scan 22 RCU instead of 15. So a page spans the
    whole units one second of the rate buys, and at least `PACED_PAGE_UNITS` (a page of eight
    units wastes at most an eighth; at a low rate it is a few seconds' worth, and the next
    request waits that long), and holds the items that fill those units less room for items
    larger than the average: two standard deviations of the page's size, an item's taken to be
    a quarter of the average. A page then rarely crosses into a unit more than it spans, and
    costs what the estimate says."""
    room = paced_page_units(rate, consistent) * READ_UNIT_BYTES
    size = max(float(item_bytes), 1.0)
    # the most items n with n * size + 2 * (size / 4) * sqrt(n) <= room (a quadratic in sqrt(n))
    root = (-size / 2 + math.sqrt(size * size / 4 + 4 * size * room)) / (2 * size)
    n = math.floor(root * root)
    while n > 1 and n * size + size / 2 * math.sqrt(n) > room:  # float rounding: at most once
        n -= 1
    return max(1, n)


def scan_estimate(
    items: float,
    average_size: float,
    consistent: bool = False,
    streams: int = 1,
    page_items: int | None = None,
) -> Decimal:
    """An estimate of reading `items` items of `average_size` bytes with Query or Scan pages,
    priced as DynamoDB bills them: each page's items evaluated, summed and rounded up to 4 KB
    units on its own (.../developerguide/read-write-operations.html#read-operation-consumption:
    "Query ... the sum of the sizes of all items returned, rounded up to the next 4 KB";
    per page, since each request is billed alone). A page holds at most 1 MB
    (.../developerguide/Query.Pagination.html), or `page_items` items when Limit is sent;
    `streams` parallel Scan segments (or requests) each end on a page of their own. Nothing
    read still costs one unit per stream (a request is billed at least one)."""
    streams = max(1, streams)
    size = max(float(average_size), 1.0)
    per_stream = math.ceil(max(float(items), 0.0) / streams)
    if per_stream <= 0:
        return read_units(0, consistent) * streams
    per_page = max(1, int(PAGE_BYTES // size))
    if page_items is not None:
        per_page = max(1, min(per_page, page_items))
    full, rest = divmod(per_stream, per_page)
    units = read_units(per_page * size, consistent) * full
    if rest:
        units += read_units(rest * size, consistent)
    return units * streams


# --- index entries and index writes ------------------------------------------------------------


def index_entry(item: Mapping[str, V] | None, index: IndexInfo, table: TableInfo) -> dict[str, V]:
    """The entry `item` has in `index` (its keys and the projected attributes), or {} when the
    item lacks one of the index's keys and so is not in the index (a sparse index)."""
    if item is None or any(name not in item for name in index.keys.names):
        return {}
    if index.projection == "ALL":
        return dict(item)
    return {k: v for k, v in item.items() if index.holds(k, table.keys)}


@dataclass
class Charge:
    """Capacity of one request, as DynamoDB's INDEXES detail splits it."""

    table: Decimal = Decimal(0)
    gsi: dict[str, Decimal] = field(default_factory=dict)
    lsi: dict[str, Decimal] = field(default_factory=dict)

    @property
    def total(self) -> Decimal:
        return self.table + sum(self.gsi.values(), Decimal(0)) + sum(self.lsi.values(), Decimal(0))

    def add_index(self, index: IndexInfo, units: Decimal) -> None:
        if index.name is None:
            self.table += units
            return
        into = self.gsi if index.kind == "gsi" else self.lsi
        into[index.name] = into.get(index.name, Decimal(0)) + units

    def add(self, other: Charge) -> None:
        self.table += other.table
        for name, units in other.gsi.items():
            self.gsi[name] = self.gsi.get(name, Decimal(0)) + units
        for name, units in other.lsi.items():
            self.lsi[name] = self.lsi.get(name, Decimal(0)) + units


def index_write_units(
    old: Item | None,
    new: Item | None,
    index: IndexInfo,
    table: TableInfo,
    size: Sizer,
    transactional: bool = False,
) -> Decimal:
    """What writing `new` over `old` (either None: an insert or a delete) costs on `index`."""
    before, after = index_entry(old, index, table), index_entry(new, index, table)
    if not before and not after:
        return Decimal(0)
    if not before:
        return write_units(size(after), transactional)
    if not after:
        return write_units(size(before), transactional)
    if any(before[k] != after[k] for k in index.keys.names):  # a new key: delete + put
        return write_units(size(before), transactional) + write_units(size(after), transactional)
    if items_equal(before, after):
        return Decimal(0)
    return write_units(max(size(before), size(after)), transactional)


def item_write(
    old: Item | None,
    new: Item | None,
    table: TableInfo,
    size: Sizer,
    transactional: bool = False,
) -> Charge:
    """One item written (put, update or delete): the table's units and each index's."""
    sizes = [size(i) for i in (old, new) if i is not None]
    charge = Charge(table=write_units(max(sizes, default=0), transactional))
    for index in table.indexes:
        units = index_write_units(old, new, index, table, size, transactional)
        if units:
            charge.add_index(index, units)
    return charge


def estimated_write_units(
    table: TableInfo,
    item_size: float,
    changed: Collection[str] | None,
    transactional: bool = False,
) -> Decimal:
    """WCU per item of a write whose images are not known yet: the table's units and the
    index writes (`estimated_index_writes`)."""
    units = write_units(item_size, transactional)
    return units + estimated_index_writes(table, item_size, changed, transactional)


def estimated_index_writes(
    table: TableInfo,
    item_size: float,
    changed: Collection[str] | None,
    transactional: bool = False,
) -> Decimal:
    """Index write units per item for a write whose images are not known yet (EXPLAIN, the
    --max-wcu guard): `changed` is the set of attributes an UPDATE sets or removes, None for a
    write that puts or deletes whole items. Every index is assumed to hold the item (an upper
    bound for sparse indexes); an UPDATE that sets an index key is priced as a key change."""
    units = Decimal(0)
    for index in table.indexes:
        # a KEYS_ONLY / INCLUDE entry is the keys and a few attributes: one 1 KB unit
        entry = item_size if index.projection == "ALL" else 1
        if changed is None:
            units += write_units(entry, transactional)
        elif any(name in index.keys.names for name in changed):
            units += write_units(entry, transactional) * 2
        elif any(index.holds(name, table.keys) for name in changed):
            units += write_units(entry, transactional)
    return units
