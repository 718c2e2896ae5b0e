"""Client-side work that may outgrow memory: sorting every row, and grouping by many keys.

Both keep what they hold under a memory budget (the ``memory_budget`` setting, in MB) and
spill past it to temporary files, which are deleted when the statement ends:

- `external_sort`: rows are sorted in runs that fit the budget; each full run is written to a
  temporary file; the runs are merged lazily (``heapq.merge``, stable: ties keep their input
  order, like ``sorted``).
- `SpillingGroups`: per-group aggregate states live in a dict; when the dict's estimated size
  passes the budget, every state is written to one of `PARTITIONS` files by the hash of its
  group key and the dict starts empty. At the end each partition is read back alone and its
  partial states merged (every state is mergeable: counts and sums add, distinct sets unite,
  MIN/MAX compare), so memory holds one partition's groups at a time.

Sizes are estimates (Python objects are several times the bytes DynamoDB bills): a row costs
`ROW_BYTES` plus `BYTES_PER_ITEM_BYTE` per billed byte, measured on a sample of rows.
"""

from __future__ import annotations

import heapq
import pickle
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from dynosql import values

MB = 1024 * 1024
ROW_BYTES = 400  # a dict and its bookkeeping
BYTES_PER_ITEM_BYTE = 4  # Python objects against DynamoDB's billed size
SAMPLE_EVERY = 64  # rows between two size measurements
GROUP_BYTES = 600  # a group's key, its dict entry and its state objects, per aggregate
DISTINCT_VALUE_BYTES = 120  # one value in a COUNT(DISTINCT …) set
PARTITIONS = 32


def row_bytes(row: Any) -> int:
    """An estimate of the memory a row takes."""
    if isinstance(row, dict):
        return ROW_BYTES + BYTES_PER_ITEM_BYTE * values.item_size(row)
    return ROW_BYTES * 2


class _Spool:
    """A temporary file of pickled objects, written once, read once."""

    def __init__(self) -> None:
        import tempfile  # only a statement that spills loads it

        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="dynosql-")
        self.count = 0

    def write(self, obj: Any) -> None:
        pickle.dump(obj, self.file, protocol=pickle.HIGHEST_PROTOCOL)
        self.count += 1

    def read(self) -> Iterator[Any]:
        self.file.flush()
        self.file.seek(0)
        try:
            for _ in range(self.count):
                yield pickle.load(self.file)
        finally:
            self.file.close()


def external_sort(
    rows: Iterable[Any],
    key: Callable[[Any], Any],
    budget: int | None,
    notes: list[str] | None = None,
) -> Iterator[Any]:
    """`sorted(rows, key=key)`, holding at most about `budget` bytes of rows (None: no bound)."""
    if budget is None:
        yield from sorted(rows, key=key)
        return
    runs: list[_Spool] = []
    chunk: list[Any] = []
    used, per_row, total = 0, ROW_BYTES, 0
    for row in rows:
        if total % SAMPLE_EVERY == 0:
            per_row = row_bytes(row)
        total += 1
        chunk.append(row)
        used += per_row
        if used >= budget:
            runs.append(_write_run(sorted(chunk, key=key)))
            chunk, used = [], 0
    if not runs:
        yield from sorted(chunk, key=key)
        return
    if chunk:
        runs.append(_write_run(sorted(chunk, key=key)))
    del chunk
    if notes is not None:
        notes.append(
            f"sorting {total} rows passed the memory budget ({budget / MB:g} MB): sorted in "
            f"{len(runs)} runs on disk and merged"
        )
    yield from heapq.merge(*(run.read() for run in runs), key=key)


def _write_run(rows: list[Any]) -> _Spool:
    spool = _Spool()
    for row in rows:
        spool.write(row)
    return spool


class SpillingGroups:
    """Group key → (key values, partial states), spilled by key hash past the budget.

    `new_states()` makes a group's fresh states; `merge(into, other)` folds one partial state
    list into another; `size(states)` estimates the bytes a group's states hold beyond
    GROUP_BYTES (distinct sets grow)."""

    def __init__(
        self,
        budget: int | None,
        new_states: Callable[[], list[Any]],
        merge: Callable[[list[Any], list[Any]], None],
        per_group: int,
    ):
        self.budget = budget
        self.new_states = new_states
        self.merge = merge
        self.per_group = per_group
        self.groups: dict[tuple[Any, ...], tuple[Any, list[Any]]] = {}
        self.partitions: list[_Spool] | None = None
        self.extra = 0  # bytes beyond per_group (distinct values)
        self.spills = 0

    def states(self, key: tuple[Any, ...], key_values: Any) -> list[Any]:
        """The states of group `key` (made, with `key_values` kept beside them, if new)."""
        entry = self.groups.get(key)
        if entry is None:
            if self.budget is not None and self._used() >= self.budget:
                self._spill()
            entry = self.groups[key] = (key_values, self.new_states())
        return entry[1]

    def grew(self, n_bytes: int) -> None:
        """A state held `n_bytes` more (a new distinct value)."""
        self.extra += n_bytes

    def _used(self) -> int:
        return len(self.groups) * self.per_group + self.extra

    def _spill(self) -> None:
        if self.partitions is None:
            self.partitions = [_Spool() for _ in range(PARTITIONS)]
        for key, entry in self.groups.items():
            self.partitions[hash(key) % PARTITIONS].write((key, entry))
        self.groups.clear()
        self.extra = 0
        self.spills += 1

    def __iter__(self) -> Iterator[tuple[Any, list[Any]]]:
        """Every group once, its partial states merged."""
        if self.partitions is None:
            yield from self.groups.values()
            return
        self._spill()
        for spool in self.partitions:
            merged: dict[tuple[Any, ...], tuple[Any, list[Any]]] = {}
            for key, (kv, states) in spool.read():
                entry = merged.get(key)
                if entry is None:
                    merged[key] = (kv, states)
                else:
                    self.merge(entry[1], states)
            yield from merged.values()
            merged.clear()
