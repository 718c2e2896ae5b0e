"""dynosql: a SQL workbench over Amazon DynamoDB.

SQL in, the cheapest DynamoDB calls out, and what each statement cost. The library API is
``dynosql.Session``; the command line (``dynosql``) and the REPL are thin layers over it.

``dynosql`` is also the PEP 249 (DB-API 2.0) driver module that generic tools take:
``dynosql.connect``, ``apilevel``, ``threadsafety``, ``paramstyle``, the exceptions
(``dynosql.Error``, ``dynosql.ProgrammingError``, …), the type objects and the constructors
are all here (they live in `dynosql.dbapi`). Importing the package stays cheap: each of them,
and boto3 and moto, load only when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dynosql.dbapi import (
        BINARY,
        DATETIME,
        NUMBER,
        ROWID,
        STRING,
        Binary,
        DatabaseError,
        DataError,
        Date,
        DateFromTicks,
        Error,
        IntegrityError,
        InterfaceError,
        InternalError,
        NotSupportedError,
        OperationalError,
        ProgrammingError,
        Time,
        TimeFromTicks,
        Timestamp,
        TimestampFromTicks,
        Warning,
        apilevel,
        connect,
        paramstyle,
        threadsafety,
    )
    from dynosql.session import Session
    from dynosql.version import __version__

# PEP 249's module interface (`__all__` less the first two), served from dynosql.dbapi on first
# use: importing it costs more than the rest of `import dynosql`
__all__ = [
    "Session",
    "__version__",
    "apilevel",
    "threadsafety",
    "paramstyle",
    "connect",
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "Date",
    "Time",
    "Timestamp",
    "DateFromTicks",
    "TimeFromTicks",
    "TimestampFromTicks",
    "Binary",
    "STRING",
    "BINARY",
    "NUMBER",
    "DATETIME",
    "ROWID",
]
DBAPI_NAMES = frozenset(__all__[2:])


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one place for it: dynosql.version (the parse cache keys on it)
        from dynosql.version import __version__

        return __version__
    if name == "Session":
        from dynosql.session import Session

        return Session
    if name in DBAPI_NAMES:
        from dynosql import dbapi

        return getattr(dbapi, name)
    raise AttributeError(f"module 'dynosql' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
