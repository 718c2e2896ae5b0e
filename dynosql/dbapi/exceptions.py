"""PEP 249's exception hierarchy, and the one mapping from dynosql's errors onto it.

Every error a DB-API call raises is one of these, with the dynosql error it came from as its
``__cause__`` and its one-line message (``line 1, column 8: …`` for SQL) as its text, so a
program can catch the standard classes and a person still reads dynosql's sentence.

=====================================  =======================================================
dynosql error                          DB-API class
=====================================  =======================================================
SqlError (syntax, unbound :name)       ProgrammingError (``line``/``col`` attributes)
PlanError (unknown table, bad index)   ProgrammingError
GuardError (read_only, fail_on_scan,   RefusedError, an OperationalError: a limit the
max_rcu, a write that needs a yes)     connection was opened with refused it; nothing was sent
ConditionError (INSERT of an existing  IntegrityError
key, a transaction's failed condition)
ExecutionError after a throttle, a     OperationalError
timeout, a dropped connection, a 5xx,
bad credentials or setup
ExecutionError: ResourceNotFound       ProgrammingError (the table or index does not exist)
ExecutionError: ValidationException    ProgrammingError (DynamoDB refused the request's shape)
ExecutionError: UnknownOperation       NotSupportedError (the backend lacks the operation,
                                       e.g. transactions on dynalite)
UsageError (a malformed region or      InterfaceError
endpoint given to connect)
anything else from dynosql             DatabaseError
=====================================  =======================================================
"""

from __future__ import annotations

import builtins

from dynosql.errors import (
    ConditionError,
    DynosqlError,
    GuardError,
    PlanError,
    SqlError,
    UsageError,
    classify,
)


class Warning(builtins.Warning):
    """PEP 249's Warning; also the category of what dynosql says through Python's `warnings`
    (a Scan, a hint, a note after the rows). A subclass of Exception, as PEP 249 asks."""


class Error(Exception):
    """PEP 249's base of every error."""

    line: int | None = None
    col: int | None = None


class InterfaceError(Error):
    """The interface was misused: a closed cursor or connection, a bad connect() argument."""


class DatabaseError(Error):
    """An error of the database (dynosql or DynamoDB)."""


class DataError(DatabaseError):
    """A value that cannot be stored (more than 38 digits, NaN, an empty set)."""


class OperationalError(DatabaseError):
    """DynamoDB could not be reached or kept refusing: throttling after retries, a timeout,
    credentials, a server error."""


class IntegrityError(DatabaseError):
    """A write refused by its condition: INSERT of a key that exists, a transaction whose
    condition failed (nothing of the transaction was written)."""


class InternalError(DatabaseError):
    """The database is in a state that cannot go on (not raised by dynosql today)."""


class ProgrammingError(DatabaseError):
    """The SQL is wrong (with `line` and `col`), names an unknown table, or binds wrongly."""


class NotSupportedError(DatabaseError):
    """Something the driver or the backend does not do (callproc, positional parameters,
    transactions on a backend without TransactWriteItems)."""


class RefusedError(OperationalError):
    """A guard the connection was opened with refused the statement before anything was
    changed: read_only, fail_on_scan, max_rcu, max_wcu, or a write that needs a yes
    (``confirm=``)."""


_SERVICE = ("throttle", "server", "connection", "credentials", "setup", "conflict", "in_progress")


def translate(err: DynosqlError) -> Error:
    """The DB-API error for a dynosql error (raise it ``from err``)."""
    cls: type[Error]
    if isinstance(err, UsageError):
        cls = InterfaceError
    elif isinstance(err, SqlError | PlanError):
        cls = ProgrammingError
    elif isinstance(err, GuardError):
        cls = RefusedError
    elif isinstance(err, ConditionError):
        cls = IntegrityError
    else:
        cls = _service_class(err)
    text = str(err)
    if isinstance(err, GuardError) and "--yes" in text:
        text += " (through the DB-API, --yes is connect(confirm=True) or a confirm callable)"
    error = cls(text)
    error.line, error.col = err.line, err.col
    return error


def _service_class(err: DynosqlError) -> type[Error]:
    """The class of an error DynamoDB's answer (the chained cause) decided, by the one
    classifier of dynosql.errors."""
    cause = err.__cause__
    if cause is None or isinstance(cause, DynosqlError):
        return DatabaseError if cause is None else _service_class(cause)
    failure = classify(cause)
    if failure.kind in _SERVICE:
        return OperationalError
    if failure.kind == "not_found":
        return ProgrammingError
    if failure.code == "ValidationException":
        return ProgrammingError
    if failure.code == "UnknownOperationException":
        return NotSupportedError
    return DatabaseError
