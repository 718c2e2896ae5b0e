"""A PEP 249 cursor over one `dynosql.result.Result` at a time.

The rows stream as the Session reads them: a fetch takes the next rows of the Result's
generator, which reads the next DynamoDB page only when the rows read so far are used up
(the rows are never all held, except where the statement itself needs them: a client-side
ORDER BY or GROUP BY). `execute` reads ahead a little, so an error in the first request is
raised by `execute`, and so `description` can name the columns and their types:

- named columns (``SELECT a, b``, aggregates, SHOW, EXPLAIN): rows until each column has
  shown a value (its type code), at most 100 (usually the first row);
- ``SELECT *`` and RETURNING, whose items may each have other attributes: the first
  `lookahead` rows (1000 unless set before `execute`); the key attributes come first, then
  every attribute those rows have, first seen first. An attribute that only a later row has
  cannot become a column after `description` was given: it is left out of the tuples and a
  `dynosql.dbapi.Warning` names it (name it in the SELECT list to have it).

Numbers come back as exact Decimals, except a COUNT column's, which are ints (pandas makes
them int64 columns rather than float64). A missing attribute and a stored NULL both come
back as None (name the attribute with ``attribute_exists(a)`` or ``a IS NULL`` in the WHERE
to tell them apart).

A column no row held a value of (an empty result) has the type the table declares when it
is a key attribute of the table or of one of its indexes (``STRING`` for ``SELECT name FROM
t`` keyed on name), else None. ``fetch*()`` after a statement that gives no result set (a
write without RETURNING, DDL, SET) raises `ProgrammingError`. There is no ``callproc`` or
``nextset``: PEP 249's optional methods, left out as it prefers for what the database cannot
do (DynamoDB has no stored procedures; a statement has one result).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from types import FrameType
from typing import Any, Protocol

from dynosql.dbapi import types
from dynosql.dbapi.exceptions import InterfaceError, ProgrammingError, Warning, translate
from dynosql.errors import DynosqlError
from dynosql.result import Result, Row, Stats, all_columns
from dynosql.sql import ast

LOOKAHEAD = 1000
TYPED_LOOKAHEAD = 100  # named columns: rows held at most until each has shown its type

Description = tuple[str, str | None, None, None, None, None, None]


class Connection(Protocol):
    """What a cursor needs of its connection (`dynosql.dbapi.connection.Connection`)."""

    def _check(self) -> None: ...

    def _run(self, sql: str, params: dict[str, Any]) -> tuple[ast.Statement, Result]: ...

    def _declared_types(self, statement: ast.Statement) -> dict[str, str]: ...

    def _batches(self, sql: str, parameter_sets: Iterable[dict[str, Any]]) -> Iterator[Result]: ...


@dataclass(frozen=True)
class Consumed:
    """What a statement consumed: read and write capacity units (``estimated`` where the
    server reports no real figure and dynosql computed them from item sizes: moto)."""

    rcu: Decimal
    wcu: Decimal
    estimated: bool


@contextmanager
def translated() -> Iterator[None]:
    """dynosql's errors as PEP 249's (the original chained as the cause)."""
    try:
        yield
    except DynosqlError as err:
        raise translate(err) from err


_HERE = os.path.dirname(os.path.abspath(__file__))


def warn(text: str) -> None:
    """Say `text` through Python's warnings, pointing at the first caller outside the DB-API
    (the line that called execute or fetch)."""
    level = 2
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        level, frame = level + 1, frame.f_back
    warnings.warn(text, Warning, stacklevel=level)


class Cursor:
    """PEP 249's cursor. ``rowcount`` is the number of items written for a write, the
    number of rows fetched once a read is exhausted, and -1 before that (or for a
    statement without rows or writes)."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self.arraysize = 1
        self.lookahead = LOOKAHEAD
        self.description: list[Description] | None = None
        self._result: Result | None = None
        self._rows: Iterator[Row] = iter(())
        self._ahead: deque[Row] = deque()
        self._columns: list[str] = []
        self._counts: set[int] = set()  # the positions of COUNT columns: ints, not Decimals
        self._known: set[str] = set()  # the columns, and attributes already warned of
        self._rowcount = -1
        self._fetched = 0
        self._done = True
        self._closed = False
        self._executed = False  # a statement has run since the cursor opened
        self._written: list[Stats] = []  # executemany's statements, for consumed

    # --- PEP 249 attributes -------------------------------------------------------------------

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def rownumber(self) -> int | None:
        return self._fetched if self._result is not None else None

    @property
    def consumed(self) -> Consumed | None:
        """The capacity the last statement (or executemany's statements) consumed so far: it
        grows while the rows are fetched. None before the first statement."""
        stats = self._written or self._stats()
        if not stats:
            return None
        return Consumed(
            rcu=sum((s.capacity for s in stats), Decimal(0)),
            wcu=sum((getattr(s, "wcu", Decimal(0)) for s in stats), Decimal(0)),
            estimated=any(
                s.capacity_estimated or getattr(s, "wcu_estimated", False) for s in stats
            ),
        )

    def _stats(self) -> list[Stats]:
        return [self._result.stats] if self._result is not None else []

    @property
    def result(self) -> Result | None:
        """The dynosql Result under the cursor (its stats, notes and footer)."""
        return self._result

    # --- running ---------------------------------------------------------------------------------

    def execute(self, operation: str, parameters: Any = None) -> Cursor:
        self._check()
        self._finish()
        params = types.parameters(parameters)
        statement, result = self.connection._run(operation, params)
        self._start(result, statement)
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Any]) -> Cursor:
        """Run `operation` once per parameter set. ``INSERT``/``UPSERT`` … ``VALUES`` of one
        row (without RETURNING) is sent as one statement per 1000 parameter sets (written
        concurrently, one journal each), not one per row; anything else runs once per set.
        `rowcount` is the items written."""
        self._check()
        self._finish()
        batches = self.connection._batches(operation, map(types.parameters, seq_of_parameters))
        written, stats = 0, []
        for result in batches:
            for _ in result:  # RETURNING rows of a batch are not kept
                pass
            stats.append(result.stats)
            written += _written(result) or 0
        self._written = stats
        self._rowcount = written
        self._executed = True
        return self

    def setinputsizes(self, sizes: Any) -> None:
        """Nothing to prepare: values are typed as they are bound."""

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        """Nothing to prepare: values come back whole."""

    # --- fetching --------------------------------------------------------------------------------

    def fetchone(self) -> tuple[Any, ...] | None:
        self._check()
        if not self._executed:
            raise InterfaceError("fetch before execute: no statement has run on this cursor")
        if self.description is None:
            raise ProgrammingError(
                "the last statement gave no result set (only a SELECT, SHOW, DESCRIBE, EXPLAIN "
                "or RETURNING gives rows): nothing to fetch"
            )
        row = self._next()
        return None if row is None else self._tuple(row)

    def fetchmany(self, size: int | None = None) -> list[tuple[Any, ...]]:
        count = self.arraysize if size is None else size
        rows: list[tuple[Any, ...]] = []
        while len(rows) < count:
            row = self.fetchone()
            if row is None:
                break
            rows.append(row)
        return rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        while (row := self.fetchone()) is not None:
            rows.append(row)
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchone, None)

    def close(self) -> None:
        """Stop the statement's reads (nothing more is requested) and refuse further use;
        `rowcount` and `consumed` keep the last statement's (SQLAlchemy reads them after)."""
        rowcount, written = self._rowcount, self._written or self._stats()
        self._finish()
        self._rowcount, self._written = rowcount, written
        self._closed = True

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- inside ----------------------------------------------------------------------------------

    def _check(self) -> None:
        if self._closed:
            raise InterfaceError("the cursor is closed")
        self.connection._check()

    def _start(self, result: Result, statement: ast.Statement) -> None:
        self._result = result
        self._executed = True
        if result.kind == "status":
            written = _written(result)
            self._rowcount = -1 if written is None else written
            self.description = None
            return
        self._rows = iter(result)
        self._done = False
        columns = list(result.columns)
        if result.open_columns or not columns:
            self._read_ahead(self.lookahead)
            columns = all_columns(columns, self._ahead)
        else:
            self._read_ahead(min(self.lookahead, TYPED_LOOKAHEAD), columns)
        self._columns = columns
        self._known = set(columns)
        counts = types.counted_columns(statement)
        self._counts = {i for i, name in enumerate(columns) if name in counts}
        codes = {name: self._code(name) for name in columns}
        if None in codes.values() and result.kind == "rows":
            declared = self.connection._declared_types(statement)
            codes = {name: code or declared.get(name) for name, code in codes.items()}
        self.description = [(name, codes[name], None, None, None, None, None) for name in columns]

    def _read_ahead(self, count: int, until_typed: list[str] | None = None) -> None:
        """Hold up to `count` rows; with `until_typed`, stop once each of those columns has
        a value in a row held (its type code)."""
        untyped = set(until_typed or ())
        while len(self._ahead) < count and (until_typed is None or untyped):
            row = self._pull()
            if row is None:
                return
            self._ahead.append(row)
            untyped.difference_update(row)

    def _code(self, column: str) -> str | None:
        for row in self._ahead:
            if column in row:
                return types.type_code(row[column])
        return None

    def _pull(self) -> Row | None:
        if self._done:
            return None
        with translated():
            row = next(self._rows, None)
        if row is None:
            self._exhausted()
        return row

    def _next(self) -> Row | None:
        row = self._ahead.popleft() if self._ahead else self._pull()
        if row is not None:
            self._fetched += 1
        return row

    def _exhausted(self) -> None:
        self._done = True
        self._rowcount = self._fetched + len(self._ahead)
        if self._result is not None:
            for note in self._result.notes:
                warn(note)

    def _tuple(self, row: Row) -> tuple[Any, ...]:
        extra = row.keys() - self._known
        for name in sorted(extra):
            self._known.add(name)
            warn(
                f"row {self._fetched} has the attribute {name}, which the first "
                f"{self.lookahead} rows lacked, so it is not in cursor.description and is left "
                f"out: name it in the SELECT list (or raise cursor.lookahead)"
            )
        cells = tuple(row.get(name) for name in self._columns)
        if not self._counts:
            return cells
        return tuple(
            int(v) if i in self._counts and isinstance(v, Decimal) else v
            for i, v in enumerate(cells)
        )

    def _finish(self) -> None:
        """Close the previous statement's rows: a generator stops reading where it is."""
        for rows in (self._rows, self._result.rows if self._result is not None else None):
            close: Callable[[], None] | None = getattr(rows, "close", None)
            if close is not None:
                close()
        self._rows = iter(())
        self._result = None
        self._written = []
        self._ahead.clear()
        self._counts = set()
        self._known = set()
        self._fetched = 0
        self._done = True
        self._rowcount = -1
        self.description = None


def _written(result: Result) -> int | None:
    """Items a write statement wrote (None for a statement that writes nothing)."""
    changed = getattr(result.stats, "changed", None)
    return changed if isinstance(changed, int) else None
