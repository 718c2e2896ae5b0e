"""A PEP 249 connection: one `dynosql.session.Session`, its settings and its front door.

Transactions: DynamoDB has no session transactions, only all-or-nothing TransactWriteItems,
which dynosql sends for BEGIN … COMMIT. A connection opened with ``transactions=True`` sends
BEGIN before the first write (INSERT, UPSERT, UPDATE, DELETE) after it opened, committed or
rolled back: the writes are queued, sent as one transaction by `commit` (at most 100 items,
no two on one item) and dropped by `rollback`; reads and table changes run at once, as they
would outside BEGIN. Without it (the default) every statement takes effect when it runs,
and `commit`/`rollback` are no-ops, unless the program sent BEGIN itself: then they send
COMMIT/ROLLBACK. `close` rolls back what is still queued.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from dynosql.dbapi import exceptions
from dynosql.dbapi.cursor import Cursor, translated, warn
from dynosql.dbapi.exceptions import InterfaceError, ProgrammingError
from dynosql.dbapi.types import declared_types
from dynosql.result import Result
from dynosql.sql import ast, parse_script

if TYPE_CHECKING:
    from dynosql.session import Session

# executemany's INSERT/UPSERT rows per statement: a batch is written concurrently and
# journaled as one statement; the bound rows of one batch are all that is held at once
BATCH_ROWS = 1000


class Connection:
    """PEP 249's connection; `session` is the dynosql Session under it. The exceptions are
    its attributes too (PEP 249's optional extension: ``conn.Error``), for code that holds
    connections to several drivers."""

    Warning = exceptions.Warning
    Error = exceptions.Error
    InterfaceError = exceptions.InterfaceError
    DatabaseError = exceptions.DatabaseError
    DataError = exceptions.DataError
    OperationalError = exceptions.OperationalError
    IntegrityError = exceptions.IntegrityError
    InternalError = exceptions.InternalError
    ProgrammingError = exceptions.ProgrammingError
    NotSupportedError = exceptions.NotSupportedError

    def __init__(self, session: Session, transactions: bool = False):
        self.session = session
        self.transactions = transactions
        self._closed = False

    def cursor(self) -> Cursor:
        self._check()
        return Cursor(self)

    def commit(self) -> None:
        """Send the queued writes as one transaction (COMMIT), if BEGIN is open."""
        self._check()
        if self.session.in_transaction:
            self._end("COMMIT")

    def rollback(self) -> None:
        """Drop the queued writes (ROLLBACK), if BEGIN is open: nothing of them was sent."""
        self._check()
        if self.session.in_transaction:
            self._end("ROLLBACK")

    def close(self) -> None:
        """Roll back what is queued and stop the session (and its embedded server, if any).
        A closed connection is unusable, closing it again included (InterfaceError, as PEP
        249 has every operation on it raise)."""
        self._check()
        try:
            if self.session.in_transaction:
                self._end("ROLLBACK")
        finally:
            self._closed = True
            self.session.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        """Commit on success, roll back on an error, then close (unless the block did)."""
        if self._closed:
            return
        try:
            if kind is None:
                self.commit()
        finally:
            self.close()

    # --- for the cursors -----------------------------------------------------------------------

    def _check(self) -> None:
        if self._closed:
            raise InterfaceError("the connection is closed")

    def _end(self, word: str) -> None:
        with translated():
            self.session.execute(word)

    def _parse(self, sql: str) -> ast.Statement:
        with translated():
            statements = parse_script(sql)
        if len(statements) != 1:
            raise ProgrammingError(
                f"execute takes one statement, found {len(statements)} (run them one by one)"
            )
        return statements[0]

    def _run(self, sql: str, params: dict[str, Any]) -> tuple[ast.Statement, Result]:
        statement = self._parse(sql)
        return statement, self._run_parsed(statement, params)

    def _declared_types(self, statement: ast.Statement) -> dict[str, str]:
        """The declared type (``S``, ``N``, ``B``) of each column of a SELECT that is a key
        attribute of its table or of one of its indexes (DescribeTable, cached): what
        `description` gives for a column no row has shown a value of (an empty result)."""
        if not isinstance(statement, ast.Select) or statement.export is not None:
            return {}
        with translated():
            table = self.session.table(statement.table)
        return declared_types(statement, table.key_types)

    def _run_parsed(self, statement: ast.Statement, params: dict[str, Any]) -> Result:
        session = self.session
        with translated():
            if (
                self.transactions
                and not session.in_transaction
                and session.transactional(statement)
            ):
                session.execute("BEGIN")
            result = session.run_statement(statement, params)
        for text in result.warnings:
            warn(text)
        return result

    def _batches(self, sql: str, parameter_sets: Iterable[dict[str, Any]]) -> Iterator[Result]:
        """executemany's statements: INSERT/UPSERT … VALUES of one row as one statement per
        `BATCH_ROWS` parameter sets, anything else once per set."""
        statement = self._parse(sql)
        if not _one_row_insert(statement):
            for params in parameter_sets:
                yield self._run_parsed(statement, params)
            return
        assert isinstance(statement, ast.Insert)
        sets = iter(parameter_sets)
        while batch := list(itertools.islice(sets, BATCH_ROWS)):
            with translated():
                rows = tuple(self.session.bind(statement, p).rows[0] for p in batch)
            yield self._run_parsed(dataclasses.replace(statement, rows=rows), {})


def _one_row_insert(statement: ast.Statement) -> bool:
    return (
        isinstance(statement, ast.Insert)
        and statement.select is None
        and statement.returning is None
        and len(statement.rows) == 1
    )


Confirm = bool | Callable[[str], bool]
