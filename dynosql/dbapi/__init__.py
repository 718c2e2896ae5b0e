"""dynosql as a PEP 249 (DB-API 2.0) driver: ``dynosql.connect(...)``.

A thin layer over `dynosql.session.Session`: the same parser, planner, guards, journal and
capacity ledger as the command line, with PEP 249's names on them::

    import dynosql

    conn = dynosql.connect(local=True)            # or region=, profile=, endpoint_url=
    cur = conn.cursor()
    cur.execute("SELECT SK, name FROM drive WHERE PK = :pk", {"pk": "DRIVE#alice"})
    cur.fetchmany(10)                             # rows stream, page by page
    cur.consumed                                  # Consumed(rcu=…, wcu=…, estimated=…)

Guards without a terminal: ``confirm=False`` (the default) refuses what a script without
``--yes`` is refused (an UPDATE/DELETE without WHERE or over a Scan, more than confirm_over
items, DROP TABLE); ``confirm=True`` is ``--yes``; a callable gets the question and answers
yes or no. ``read_only=True`` refuses every change. Any other setting of the settings table
(``fail_on_scan=True``, ``max_rcu=50``, ``consistent=True``, ``journal_dir="off"`` …) is a
keyword argument; its limits are pinned as on the command line (SET may only tighten them).
The config file is not read. Warnings (a Scan, a hint, a note after the rows) come through
Python's `warnings` as `dynosql.dbapi.Warning`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from dynosql.dbapi.connection import Confirm, Connection
from dynosql.dbapi.cursor import Consumed, Cursor, warn
from dynosql.dbapi.exceptions import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    RefusedError,
    Warning,
    translate,
)
from dynosql.dbapi.types import (
    BINARY,
    BOOLEAN,
    DATETIME,
    LIST,
    MAP,
    NUMBER,
    ROWID,
    SET,
    STRING,
    Binary,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
)
from dynosql.errors import DynosqlError
from dynosql.settings import SettingError, Settings, lookup

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections (a Session is not thread-safe)
paramstyle = "named"  # and qmark beside it: a sequence of values binds PartiQL's ``?`` in order


def connect(
    region: str | None = None,
    profile: str | None = None,
    endpoint_url: str | None = None,
    local: bool = False,
    *,
    transactions: bool = False,
    confirm: Confirm = False,
    read_only: bool = False,
    journal: str | None = None,
    **settings: Any,
) -> Connection:
    """A connection to DynamoDB (`region`, `profile`, `endpoint_url` as on the command line)
    or, with ``local=True``, to a new embedded DynamoDB (moto, in-process) loaded with the
    example tables, stopped by `Connection.close`. See the module's notes for `confirm`,
    `read_only`, `transactions` and the settings; `journal` appends every write's undo
    journal to one file (``--journal``)."""
    if local and endpoint_url:
        raise InterfaceError("local=True and endpoint_url exclude each other")
    chosen = _settings({**settings, **({"read_only": True} if read_only else {})})
    from dynosql.session import Session

    try:
        if local:
            session = Session.local(settings=chosen)
        else:
            session = Session(
                endpoint_url=endpoint_url, region=region, profile=profile, settings=chosen
            )
    except DynosqlError as err:
        raise translate(err) from err
    session.assume_yes = confirm is True
    session.confirm = confirm if callable(confirm) else None
    session.journal_file = journal
    session.notice = _notice
    return Connection(session, transactions=transactions)


def _settings(given: dict[str, Any]) -> Settings:
    """The settings table's defaults with `given` applied; a limit given here is pinned, as a
    command-line flag is."""
    settings = Settings()
    for name, value in given.items():
        try:
            setting = lookup(name)
            text = str(value) if isinstance(value, Decimal) else value
            parsed = setting.kind.from_config(text)  # a str, bool or number, read as text is
        except (SettingError, ValueError) as err:
            raise InterfaceError(f"connect({name}=…): {err}") from None
        settings.give(setting.name, parsed, "to dynosql.connect()")
    return settings


def _notice(text: str) -> None:
    """What a statement says before it ends (CREATE INDEX's backfill cost), as a warning."""
    warn(text)


__all__ = [
    "BINARY",
    "BOOLEAN",
    "DATETIME",
    "LIST",
    "MAP",
    "NUMBER",
    "ROWID",
    "SET",
    "STRING",
    "Binary",
    "Consumed",
    "Connection",
    "Cursor",
    "DataError",
    "DatabaseError",
    "Date",
    "DateFromTicks",
    "Error",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NotSupportedError",
    "OperationalError",
    "ProgrammingError",
    "RefusedError",
    "Time",
    "TimeFromTicks",
    "Timestamp",
    "TimestampFromTicks",
    "Warning",
    "apilevel",
    "connect",
    "paramstyle",
    "threadsafety",
]
