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

MAX_SORT_KEYS = 10_000  # sort keys kept per table or index (a partition beyond it: none kept)


@dataclass(frozen=True)
class Partition:
    """One item collection as a whole read found it."""

    items: int  # items evaluated (before any filter)
    size_bytes: int | None = None  # their DynamoDB size, when they came back whole
    sort_keys: tuple[Any, ...] | None = None  # every sort-key value, when every item came back


@dataclass
class Observed:
    """The partitions read whole this session, per table and index (thread-safe)."""

    _paths: dict[tuple[str, str | None], dict[Any, Partition]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, table: str, index: str | None, pk_value: Any, partition: Partition) -> None:
        with self._lock:
            path = self._paths.setdefault((table, index), {})
            kept = sum(len(p.sort_keys or ()) for k, p in path.items() if k != pk_value)
            if partition.sort_keys is not None and kept + len(partition.sort_keys) > MAX_SORT_KEYS:
                partition = Partition(partition.items, partition.size_bytes, None)
            path[pk_value] = partition

    def partitions(self, table: str, index: str | None) -> dict[Any, Partition]:
        with self._lock:
            return dict(self._paths.get((table, index), {}))

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
    seen = observed.partitions(table, index) if observed is not None else {}
    where = f"{table}.{index}" if index else table
    own = seen.get(pk_value)
    if own is not None:
        items, how = _selected([own], condition, prior_fraction)
        return Guess(
            items,
            own.size_bytes / own.items if own.size_bytes and own.items else None,
            f"{pk_text}, read whole earlier this session: {own.items} items{how}",
            True,
        )
    if seen:
        parts = list(seen.values())
        mean = sum(p.items for p in parts) / len(parts)
        fraction, how = _fraction(parts, condition, prior_fraction)
        sized = [p for p in parts if p.size_bytes is not None and p.items]
        item_bytes = (
            sum(p.size_bytes or 0 for p in sized) / sum(p.items for p in sized) if sized else None
        )
        many = f"{len(parts)} partitions" if len(parts) > 1 else "1 partition"
        return Guess(
            mean * fraction,
            item_bytes,
            f"{many} of {where} read whole this session: {_number(mean)} items a key{how}",
            True,
        )
    return Guess(prior_items * prior_fraction, None, f"a guess: {prior_text}", False)


def _selected(
    parts: list[Partition], condition: SortKeyCondition | None, prior: float
) -> tuple[float, str]:
    """The items of one partition the condition selects, and how that was counted."""
    (part,) = parts
    if condition is None:
        return float(part.items), ""
    if part.sort_keys is not None:
        hits = sum(1 for v in part.sort_keys if in_range(v, condition))
        return float(hits), f", {hits} of them in the key range"
    return part.items * prior, f" (its sort keys not seen: {_share(prior)} of them guessed)"


def _fraction(
    parts: list[Partition], condition: SortKeyCondition | None, prior: float
) -> tuple[float, str]:
    """The share of a partition the condition selects, from the sort keys seen."""
    if condition is None:
        return 1.0, ""
    keys = [v for p in parts if p.sort_keys is not None for v in p.sort_keys]
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
