"""The client's side of a join: the rows of one source matched to the rows before it. Pure.

A joined row maps each source's alias to that source's row (``{"o": {...}, "s": {...}}``), so
a qualified path is a document path into it and every evaluator works on joined rows as on
items. The rows of a source are found by the values of its join keys (a dictionary of them:
DynamoDB equality, ``1 = 1.0``, a missing value equal to nothing), then each pair is checked
against the rest of the ON; a LEFT JOIN keeps a row that found no partner, without the
source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from dynosql import values
from dynosql.evaluate.predicate import matches

Row = dict[str, Any]
Key = tuple[Any, ...]


def hashed(key: Iterable[Any]) -> Key:
    """A key's values as one dictionary key, equal exactly when DynamoDB's ``=`` holds for
    each value (numbers by value, sets as sets)."""
    return tuple(values.hashable(v) for v in key)


def indexed(rows: Iterable[Row], key: Callable[[Row], Key | None]) -> dict[Key, list[Row]]:
    """A source's rows by the values of their join keys (a row missing one joins nothing)."""
    found: dict[Key, list[Row]] = {}
    for row in rows:
        k = key(row)
        if k is not None:
            found.setdefault(hashed(k), []).append(row)
    return found


def matched(
    rows: Iterable[Row],
    alias: str,
    partners: Mapping[Key, list[Row]],
    key: Callable[[Row], Key | None],
    residual: Any = None,
    left: bool = False,
) -> Iterator[Row]:
    """Each joined row with each row of `alias` whose keys equal its own and for which the
    rest of the ON (`residual`) holds, in the order of `rows`; with `left`, a row that found
    none is kept as it is."""
    for row in rows:
        k = key(row)
        found = False
        for partner in partners.get(hashed(k), ()) if k is not None else ():
            joined = {**row, alias: partner}
            if residual is None or matches(residual, joined):
                found = True
                yield joined
        if left and not found:
            yield row


def runs(
    rows: Iterable[Row], key: Callable[[Row], Key | None], first: int, most: int
) -> Iterator[tuple[list[Row], list[Key]]]:
    """The rows in runs, each with the keys first seen in it: a run ends once it holds
    `first` new distinct keys, then twice as many each time up to `most` (a lookup reads a
    run's keys together: the first rows come soon, later reads go many keys at a time)."""
    seen: set[Key] = set()
    size = first
    run: list[Row] = []
    fresh: list[Key] = []
    for row in rows:
        run.append(row)
        k = key(row)
        if k is not None and (h := hashed(k)) not in seen:
            seen.add(h)
            fresh.append(k)
            if len(fresh) >= size:
                yield run, fresh
                run, fresh = [], []
                size = min(most, size * 2)
    if run:
        yield run, fresh
