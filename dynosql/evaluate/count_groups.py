"""GROUP BY of top-level attributes with COUNT(*) alone, counted a chunk of items at a time in C.

`aggregate.group` spends some 3 µs of Python per item (resolve each path, `values.hashable`,
find the group's states, update each aggregate): for ``SELECT pk, COUNT(*) … GROUP BY pk``, the
hot-keys question, that loop was most of the statement's client CPU. Such a statement needs one
count per distinct key, so here each chunk of items is counted by the (type, value) of each
group-by attribute with `map`, `zip` and `Counter`, all in C, and only the few distinct raw keys
are folded into the ordinary groups by `values.hashable`, the one rule for group identity (so
the numbers 1 and 1.0 are one group, and true and 1 two: the type is part of the raw key).

A chunk whose key holds a list or a map (unhashable) is given back to the general loop, item by
item; so is everything when an aggregate is anything but COUNT(*) or a group-by path is nested.
The raw counts are folded in whenever they pass MAX_RAW distinct keys, so the groups' memory
budget (spilling) sees them as the general loop would.

Where every item the plan reads is counted as it comes (no client-side check, nothing fetched,
no duplicates: `Plan.reads_every_item_once`), items are not decoded at all: each page is
counted by the wire form of its keys where it was read (`count_wire`, ``{"S": "x"}`` counted
as ``(("S", "x"),)``: the type is in the key here too), and only the distinct keys are decoded
when they are folded (`WirePages`). Decoding each item was two thirds of the client CPU of
``SELECT pk, COUNT(*) … GROUP BY pk``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import methodcaller
from typing import Any

from dynosql import values
from dynosql.sql import ast
from dynosql.values import MISSING

CHUNK = 4096  # items counted at once
MAX_RAW = 16384  # distinct raw keys held before they are folded into the groups


def counted_names(aggs: Sequence[ast.Aggregate], paths: Sequence[Any]) -> tuple[str, ...] | None:
    """The group-by attribute names when every aggregate is COUNT(*) and every group-by path
    is one top-level name; else None (the general loop)."""
    names = []
    for path in paths:
        if not isinstance(path, ast.Path) or len(path.elements) != 1:
            return None
        (name,) = path.elements
        if not isinstance(name, str):
            return None
        names.append(name)
    for agg in aggs:
        # COUNT(*): no path, and no expression argument either (a later grammar may add one)
        if agg.func != "COUNT" or agg.distinct or agg.path is not None:
            return None
        if getattr(agg, "arg", None) is not None:
            return None
    return tuple(names) if names else None


def count(
    items: Iterable[dict[str, Any]],
    names: tuple[str, ...],
    fold: Callable[[tuple[Any, ...], int], None],
) -> Iterator[dict[str, Any]]:
    """Count `items` by the values of `names` (MISSING where absent), calling `fold(values,
    n)` once per distinct raw key; yields the items it could not count (a chunk with a list or
    map key), for the caller's general loop."""
    getters = [methodcaller("get", name, MISSING) for name in names]
    raw: Counter[tuple[Any, ...]] = Counter()
    source = iter(items)
    while chunk := list(itertools.islice(source, CHUNK)):
        columns: list[Iterable[Any]] = []
        for get in getters:
            column = list(map(get, chunk))
            columns += (map(type, column), column)
        try:
            counted = Counter(zip(*columns, strict=True))
        except TypeError:  # an unhashable value (list, map): the general loop
            yield from chunk
            continue
        if raw:
            raw.update(counted)
        else:
            raw = counted
        if len(raw) > MAX_RAW:
            _fold(raw, fold)
            raw = Counter()
    _fold(raw, fold)


def _fold(raw: Counter[tuple[Any, ...]], fold: Callable[[tuple[Any, ...], int], None]) -> None:
    for key, n in raw.items():
        fold(key[1::2], n)  # the values, without their types


# --- counted off the wire form ---------------------------------------------------------------

_ABSENT: dict[str, Any] = {}  # what an item without the attribute gives (never changed)

WireKey = tuple[tuple[tuple[str, Any], ...], ...]  # per name: () or ((type, wire value),)


@dataclass(frozen=True)
class WirePages:
    """What `count_wire` made of each page: its counts by wire key, or its items decoded
    (a page whose key holds a list, a map or a set: for the general loop)."""

    pages: Iterable[Counter[WireKey] | list[dict[str, Any]]]


def count_wire(
    names: tuple[str, ...],
) -> Callable[[list[dict[str, Any]], list[int] | None], Counter[WireKey] | list[dict[str, Any]]]:
    """The reducer of a page of wire-form items: their counts by the wire form of `names`, or,
    when a key holds a list, map or set, the page's items decoded."""
    getters = [methodcaller("get", name, _ABSENT) for name in names]

    def count(items: list[dict[str, Any]], _sizes: list[int] | None) -> Any:
        try:
            if len(getters) == 1:  # no per-item tuple of one: re-keyed per distinct key
                counted = Counter(map(tuple, map(dict.items, map(getters[0], items))))
                return Counter({(key,): n for key, n in counted.items()})
            columns = [list(map(tuple, map(dict.items, map(get, items)))) for get in getters]
            return Counter(zip(*columns, strict=True))
        except TypeError:  # an L, M or set value: unhashable
            return [values.decode_item(item) for item in items]

    return count


def count_pages(
    source: WirePages, fold: Callable[[tuple[Any, ...], int], None]
) -> Iterator[dict[str, Any]]:
    """Fold `source`'s counts (decoding each distinct key once, at most MAX_RAW held); yields
    the decoded items of the pages that could not be counted, for the general loop."""
    raw: Counter[WireKey] = Counter()
    for page in source.pages:
        if isinstance(page, Counter):
            raw.update(page)
            if len(raw) > MAX_RAW:
                _fold_wire(raw, fold)
                raw = Counter()
        else:
            yield from page
    _fold_wire(raw, fold)


def _fold_wire(raw: Counter[WireKey], fold: Callable[[tuple[Any, ...], int], None]) -> None:
    for key, n in raw.items():
        fold(tuple(values.decode(dict(k)) if k else MISSING for k in key), n)


def hottest_first(entries: Iterable[list[Any]]) -> list[list[Any]]:
    """[key, items, bytes (None: not sized), …] entries, hottest first: by items, then bytes,
    then key (SHOW HOT KEYS' order, sampled or not)."""
    return sorted(entries, key=lambda e: (-e[1], -(e[2] or 0), values.sort_key(e[0])))
