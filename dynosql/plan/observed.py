"""What a session has seen of its tables' item collections, for the size of a keyed read.

DynamoDB says how many items a table holds (DescribeTable's ItemCount and TableSizeBytes,
refreshed about every six hours: developerguide/HowItWorks.CoreComponents.html and the
DescribeTable reference) but not how many partition-key values it has, nor how the sort keys of
a partition spread: how many items `pk = 'x' AND begins_with(sk, 'INVOICE#')` reads cannot be
known without reading. EXPLAIN reads nothing, so its estimate of a Query stands on, in order:

1. that partition, read whole earlier in the session: its items (evaluated, before any
   filter), its bytes when the items came back whole, its sort keys when every item did;
2. the other partitions of the same table or index read whole this session: their mean size,
   and the share of their sort keys that the key condition would select;
3. nothing but DescribeTable: a guess (`prior_items`, the planner's), said to be one.

The figures come only from statements the user ran (a Query that read a whole partition, a
Select=COUNT of one, SHOW HOT KEYS's count of every key); nothing is read for them. `Guess.basis` says which one an estimate used,
and EXPLAIN prints it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from dynosql.plan.keys import SortKeyCondition
from dynosql.result import counted, plural

MAX_SORT_KEYS = 10_000  # sort keys kept per table or index (a partition beyond it: none kept)
MAX_PARTITIONS = 10_000  # partitions kept per table or index (SHOW HOT KEYS: its hottest)


@dataclass(frozen=True)
class Partition:
    """One item collection as a whole read found it."""

    items: int  # items evaluated (before any filter)
    size_bytes: int | None = None  # their DynamoDB size, when they came back whole
    sort_keys: tuple[Any, ...] | None = None  # every sort-key value, when every item came back


@dataclass(frozen=True)
class Found:
    """What one statement found of a table's or index's item collections, for the session to
    remember (`Observed.add`): one partition read whole (`key`, `partition`), or a count of
    every key's items and bytes, hottest first (`every`: SHOW HOT KEYS)."""

    table: str
    index: str | None
    key: Any = None
    partition: Partition | None = None
    every: tuple[tuple[Any, int, int | None], ...] | None = None


@dataclass
class _Path:
    """What is known of one table or index."""

    partitions: dict[Any, Partition] = field(default_factory=dict)
    sort_keys: int = 0  # kept, over every partition
    # (keys, items, bytes) of a count of every key (SHOW HOT KEYS), when one was made; bytes
    # None when it was not sized
    everything: tuple[int, int, int | None] | None = None


@dataclass(frozen=True)
class Seen:
    """What `Observed.seen` hands the estimate: the key's own partition, if read whole, and
    what the others say (their count, mean items, bytes an item, pooled sort keys)."""

    own: Partition | None
    partitions: int
    mean_items: float
    item_bytes: float | None
    sort_keys: list[Any]
    all_keys: bool  # the mean is of every key of the table or index (SHOW HOT KEYS)


@dataclass
class Observed:
    """The partitions read whole this session, per table and index (thread-safe, bounded:
    `MAX_PARTITIONS` partitions and `MAX_SORT_KEYS` sort keys a table or index)."""

    _paths: dict[tuple[str, str | None], _Path] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, found: Found) -> None:
        """Remember what a statement found (its `Changes.observed`, applied by the Session)."""
        if found.every is not None:
            self.record_every_key(found.table, found.index, list(found.every))
        elif found.partition is not None:
            self.record(found.table, found.index, found.key, found.partition)

    def record(self, table: str, index: str | None, pk_value: Any, partition: Partition) -> None:
        with self._lock:
            self._record(self._paths.setdefault((table, index), _Path()), pk_value, partition)

    def record_every_key(
        self, table: str, index: str | None, counts: list[tuple[Any, int, int | None]]
    ) -> None:
        """A count of every key's items and bytes (SHOW HOT KEYS; bytes None where it did not
        size them), hottest first: the mean of all of them, and the first `MAX_PARTITIONS` as
        partitions of their own."""
        with self._lock:
            path = self._paths.setdefault((table, index), _Path())
            keys = [c for c in counts if c[0] is not None]
            sizes = [c[2] for c in keys]
            size = None if None in sizes else sum(s for s in sizes if s is not None)
            path.everything = (len(keys), sum(c[1] for c in keys), size)
            for key, items, size in keys[:MAX_PARTITIONS]:
                self._record(path, key, Partition(items, size))

    @staticmethod
    def _record(path: _Path, pk_value: Any, partition: Partition) -> None:
        old = path.partitions.get(pk_value)
        if old is None and len(path.partitions) >= MAX_PARTITIONS:
            return
        path.sort_keys -= len(old.sort_keys or ()) if old is not None else 0
        if partition.sort_keys is not None:
            if path.sort_keys + len(partition.sort_keys) > MAX_SORT_KEYS:
                partition = Partition(partition.items, partition.size_bytes, None)
            path.sort_keys += len(partition.sort_keys or ())
        path.partitions[pk_value] = partition

    def seen(self, table: str, index: str | None, pk_value: Any) -> Seen | None:
        """What is known for a read of `pk_value` through this table or index; None: nothing."""
        with self._lock:
            path = self._paths.get((table, index))
            if path is None or not path.partitions:
                return None
            parts = list(path.partitions.values())
            sized = [p for p in parts if p.size_bytes is not None and p.items]
            if path.everything is not None and path.everything[0]:
                keys, items, size = path.everything
                item_bytes = size / items if items and size is not None else None
                mean, count = items / keys, keys
            else:
                mean = sum(p.items for p in parts) / len(parts)
                sized_items = sum(p.items for p in sized)
                item_bytes = sum(p.size_bytes or 0 for p in sized) / sized_items if sized else None
                count = len(parts)
            return Seen(
                path.partitions.get(pk_value),
                count,
                mean,
                item_bytes,
                [v for p in parts if p.sort_keys is not None for v in p.sort_keys],
                path.everything is not None,
            )

    def clear(self) -> None:
        with self._lock:
            self._paths.clear()


@dataclass(frozen=True)
class Guess:
    """Items a keyed read evaluates, their size where seen, and what the figure stands on."""

    items: float
    item_bytes: float | None  # None: the table's (or index's) average from DescribeTable
    basis: str
    observed: bool  # False: a guess from DescribeTable alone


def partition_guess(
    observed: Observed | None,
    table: str,
    index: str | None,
    pk_text: str,
    pk_value: Any,
    condition: SortKeyCondition | None,
    prior_items: float,
    prior_fraction: float,
    prior_text: str,
) -> Guess:
    """How many items `pk = pk_value [AND condition]` evaluates (see the module docstring).
    `prior_items`/`prior_fraction`/`prior_text`: the planner's guess when nothing was seen."""
    seen = observed.seen(table, index, pk_value) if observed is not None else None
    if seen is None:
        return Guess(prior_items * prior_fraction, None, f"a guess: {prior_text}", False)
    own = seen.own
    if own is not None:
        items, how = _selected(own, condition, prior_fraction)
        return Guess(
            items,
            own.size_bytes / own.items if own.size_bytes and own.items else None,
            f"{pk_text}, read whole earlier this session: {counted(own.items, 'item')}{how}",
            True,
        )
    fraction, how = _fraction(seen.sort_keys, condition, prior_fraction)
    where = f"{table}.{index}" if index else table
    if seen.all_keys:
        source = f"SHOW HOT KEYS's count of all {seen.partitions:,} keys of {where}"
    else:
        source = f"{counted(seen.partitions, 'partition')} of {where} read whole this session"
    mean = _number(seen.mean_items)
    noun = plural(1 if mean == "1" else 0, "item")  # as shown: 1.04 items is "1 item"
    return Guess(
        seen.mean_items * fraction, seen.item_bytes, f"{source}: {mean} {noun} a key{how}", True
    )


def _selected(
    part: Partition, condition: SortKeyCondition | None, prior: float
) -> tuple[float, str]:
    """The items of one partition the condition selects, and how that was counted."""
    if condition is None:
        return float(part.items), ""
    if part.sort_keys is not None:
        hits = sum(1 for v in part.sort_keys if in_range(v, condition))
        return float(hits), f", {hits} of them in the key range"
    return part.items * prior, f" (its sort keys not seen: {_share(prior)} of them guessed)"


def _fraction(
    keys: list[Any], condition: SortKeyCondition | None, prior: float
) -> tuple[float, str]:
    """The share of a partition the condition selects, from the sort keys seen."""
    if condition is None:
        return 1.0, ""
    if not keys:
        return prior, f" (no sort keys seen: {_share(prior)} of them guessed in the key range)"
    hits = sum(1 for v in keys if in_range(v, condition))
    # another partition's share: (hits + ½) / (seen + 1), so that none seen is not "none"
    share = (hits + 0.5) / (len(keys) + 1)
    return share, f", {hits} of the {len(keys)} sort keys seen in the key range"


def in_range(value: Any, condition: SortKeyCondition) -> bool:
    """Whether a sort-key value satisfies the key condition (same-typed values: strings in code
    point order, which is UTF-8 byte order; numbers by value; binary by unsigned bytes)."""
    if condition.op == "begins_with":
        prefix = condition.values[0]
        return isinstance(value, type(prefix)) and value[: len(prefix)] == prefix
    try:
        lower, upper = condition.lower(), condition.upper()
        if lower is not None and (
            value < lower.value or (value == lower.value and not lower.inclusive)
        ):
            return False
        if upper is not None and (
            value > upper.value or (value == upper.value and not upper.inclusive)
        ):
            return False
    except TypeError:  # another type: DynamoDB's key condition never selects it
        return False
    return True


def _share(fraction: float) -> str:
    return "all" if fraction >= 1 else f"1/{round(1 / fraction)}" if fraction > 0 else "none"


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:,.1f}".rstrip("0").rstrip(".")
