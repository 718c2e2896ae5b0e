"""ORDER BY on the client, in DynamoDB order, with a bounded heap for ``ORDER BY … LIMIT n``
(a true top-n over every row, never "the first n rows, sorted")."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dynosql import values
from dynosql.evaluate.spill import external_sort


class _Desc:
    """Reverses the order of a sort key inside a tuple (for mixed ASC/DESC keys)."""

    __slots__ = ("key",)

    def __init__(self, key: Any):
        self.key = key

    def __lt__(self, other: _Desc) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and other.key == self.key


def row_key(getters: list[tuple[Any, ...]]) -> Callable[[Any], tuple[Any, ...]]:
    """A sort key over several (value getter, descending[, nulls]) entries. ``nulls`` ("FIRST"
    or "LAST") puts missing values and NULLs at that end whatever the direction; without it a
    missing value sorts after every value (last ascending, first descending)."""

    def key(row: Any) -> tuple[Any, ...]:
        parts: list[Any] = []
        for get, desc, *nulls in getters:
            value = get(row)
            if nulls and nulls[0]:
                absent = value is values.MISSING or value is None
                parts.append(absent if nulls[0] == "LAST" else not absent)
            k = values.sort_key(value)
            parts.append(_Desc(k) if desc else k)
        return tuple(parts)

    return key


def sort_rows(
    rows: Iterable[Any],
    key: Callable[[Any], tuple[Any, ...]],
    limit: int | None,
    budget: int | None = None,
    notes: list[str] | None = None,
) -> Iterator[Any]:
    """Sorted rows; with a limit, only the best `limit` are kept in memory (stable on ties);
    without one, past `budget` bytes the sort spills to disk (evaluate/spill.py)."""
    if limit is None:
        yield from external_sort(rows, key, budget, notes)
        return
    if limit <= 0:
        for _ in rows:
            pass
        return
    counter = itertools.count()
    # nsmallest keeps a heap of `limit` entries; the counter keeps it stable and comparable
    best = heapq.nsmallest(limit, ((key(r), next(counter), r) for r in rows))
    for _k, _n, r in best:
        yield r
