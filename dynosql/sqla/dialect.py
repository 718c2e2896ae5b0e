"""The SQLAlchemy 2 dialect: ``dynosql://`` over AWS, ``dynosql+local://`` over the embedded
backend, both on the DB-API driver module `dynosql` (so on `dynosql.session.Session`).

URLs: ``dynosql://?region=eu-west-1&profile=prod``, ``dynosql://?endpoint_url=http://127.0.0.1:8000``
and ``dynosql+local://`` (a new embedded DynamoDB with the example tables, one per engine:
the engine keeps a single connection, as SQLite's in-memory databases do, so every
connection of the engine sees the same data). Every other query parameter is a
`dynosql.connect` argument: a setting (``fail_on_scan=on``, ``max_rcu=50``, ``read_only=on``,
``journal_dir=off``), ``transactions=on`` or ``confirm=yes``.

Reflection (`sqlalchemy.inspect(engine)`): the tables; a table's columns are its key
attributes (typed by the key schema, not nullable), its indexes' key attributes, then the
attributes of a bounded sample (one Scan page of at most 100 items, read once per connection
and counted in its capacity; none under ``fail_on_scan``), nullable, typed when the sample
saw one type (`NullType` when several); the primary key (partition key, then sort key);
the GSIs and LSIs as indexes (``dialect_options``: ``dynosql_kind`` gsi/lsi and
``dynosql_projection``). DynamoDB has no foreign keys, views, schemas or unique constraints
beyond the key.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import Index, exc, pool
from sqlalchemy import types as sqltypes
from sqlalchemy.engine import default, reflection

from dynosql import values
from dynosql.settings import Switch
from dynosql.sqla.compiler import DynosqlCompiler, DynosqlIdentifierPreparer
from dynosql.sqla.ddl import DynosqlDDLCompiler


class Document(sqltypes.TypeEngine[Any]):
    """A list, map or set attribute: the decoded value as it is (list, dict, frozenset)."""

    __visit_name__ = "document"

    def __init__(self, code: str = "M"):
        self.code = code


class _Integer(sqltypes.Integer):
    """DynamoDB numbers arrive as Decimal: an Integer column's are ints."""

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return lambda value: int(value) if value is not None else None


class _Temporal:
    """A date, datetime or time, stored as its ISO 8601 string (the DB-API binds them so):
    read back as the Python value."""

    parse: Any

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        parse = type(self).parse

        def process(value: Any) -> Any:
            return parse(value) if isinstance(value, str) else value

        return process


class _DateTime(_Temporal, sqltypes.DateTime):
    parse = staticmethod(datetime.datetime.fromisoformat)


class _Date(_Temporal, sqltypes.Date):
    @staticmethod
    def parse(text: str) -> datetime.date:
        return datetime.datetime.fromisoformat(text).date()


class _Time(_Temporal, sqltypes.Time):
    parse = staticmethod(datetime.time.fromisoformat)


def column_type(code: str | None) -> sqltypes.TypeEngine[Any]:
    """The SQLAlchemy type of a DynamoDB type code (None: several, or only NULL)."""
    if code == "S":
        return sqltypes.String()
    if code == "N":
        return sqltypes.Numeric(asdecimal=True)
    if code == "B":
        return sqltypes.LargeBinary()
    if code == "BOOL":
        return sqltypes.Boolean()
    if code in ("L", "M", "SS", "NS", "BS"):
        return Document(code)
    return sqltypes.NullType()


def _session(connection: Any) -> Any:
    """The dynosql Session under a SQLAlchemy connection."""
    return connection.connection.dbapi_connection.session


class DynosqlDialect(default.DefaultDialect):
    name = "dynosql"
    driver = "dynosql"
    supports_statement_cache = True
    default_paramstyle = "named"
    supports_native_decimal = True
    supports_native_boolean = True
    returns_native_bytes = True
    supports_alter = False
    supports_schemas = False  # DynamoDB has none: tables of one account and region
    supports_sequences = False
    supports_default_values = False
    supports_empty_insert = False
    supports_multivalues_insert = True
    supports_comments = False
    postfetch_lastrowid = False
    insert_returning = False
    update_returning = False
    delete_returning = False
    supports_sane_rowcount = True
    supports_sane_multi_rowcount = True
    div_is_floordiv = False  # dynosql's / divides exactly (Decimals); // is FLOOR(a / b)
    max_identifier_length = 255  # DynamoDB attribute names: up to 64 KB; tables 255
    statement_compiler = DynosqlCompiler
    ddl_compiler = DynosqlDDLCompiler
    preparer = DynosqlIdentifierPreparer
    construct_arguments = [(Index, {"kind": None, "projection": None})]
    colspecs = {
        sqltypes.Integer: _Integer,
        sqltypes.DateTime: _DateTime,
        sqltypes.Date: _Date,
        sqltypes.Time: _Time,
    }
    local = False

    @classmethod
    def import_dbapi(cls) -> Any:
        import dynosql  # the PEP 249 module itself (its names come from dynosql.dbapi)

        return dynosql

    def create_connect_args(self, url: Any) -> tuple[list[Any], dict[str, Any]]:
        if url.host or url.username or url.database:
            raise ValueError(
                f"{url.drivername}:// takes its options as query parameters "
                "(?region=…&profile=…&endpoint_url=…), not a host or path"
            )
        options: dict[str, Any] = {}
        for name, value in url.query.items():
            options[name] = value[-1] if isinstance(value, tuple) else value
        for switch in ("transactions", "local"):
            if switch in options:
                options[switch] = _switch(options[switch])
        if "confirm" in options:
            options["confirm"] = _switch(options["confirm"])
        if self.local:
            options["local"] = True
        return [], options

    def do_rollback(self, dbapi_connection: Any) -> None:
        dbapi_connection.rollback()

    def do_commit(self, dbapi_connection: Any) -> None:
        dbapi_connection.commit()

    def do_ping(self, dbapi_connection: Any) -> bool:
        return not dbapi_connection.closed

    def _get_server_version_info(self, connection: Any) -> tuple[int, ...] | None:
        return None

    def _get_default_schema_name(self, connection: Any) -> str | None:
        return None

    def get_isolation_level(self, dbapi_connection: Any) -> Any:
        raise NotImplementedError("DynamoDB has no isolation levels to choose")

    # --- reflection ----------------------------------------------------------------------------

    @reflection.cache
    def get_table_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return list(_session(connection).tables())

    def has_table(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> bool:
        return table_name in self.get_table_names(connection, schema, **kw)

    def get_view_names(self, connection: Any, schema: str | None = None, **kw: Any) -> list[str]:
        return []

    def get_schema_names(self, connection: Any, **kw: Any) -> list[str]:
        return []

    def _table(self, connection: Any, table_name: str, **kw: Any) -> Any:
        """The table's description as DescribeTable gives it now (reflection reads the table as
        it is, changed by another client or not); NoSuchTableError (SQLAlchemy's) when there is
        none."""
        if not self.has_table(connection, table_name, **kw):
            raise exc.NoSuchTableError(table_name)
        return _session(connection).table(table_name, fresh=True)

    @reflection.cache
    def get_columns(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[dict[str, Any]]:
        session = _session(connection)
        table = self._table(connection, table_name, **kw)
        columns: dict[str, dict[str, Any]] = {}

        def add(name: str, code: str | None, nullable: bool) -> None:
            if name not in columns:  # no "autoincrement": SQLAlchemy's policy for a key
                columns[name] = {
                    "name": name,
                    "type": column_type(code),
                    "nullable": nullable,
                    "default": None,
                }

        keys = table.keys
        add(keys.pk, keys.pk_type, False)
        if keys.sk is not None:
            add(keys.sk, keys.sk_type, False)
        for index in table.indexes:  # an index holds only items with its keys: nullable
            add(index.keys.pk, index.keys.pk_type, True)
            if index.keys.sk is not None:
                add(index.keys.sk, index.keys.sk_type, True)
        seen: dict[str, set[str]] = {}
        for item in session.sample(table_name):
            for name, value in item.items():
                code = values.type_of(value)
                seen.setdefault(name, set()).update({code} if code and code != "NULL" else set())
        for name, codes in seen.items():
            add(name, next(iter(codes)) if len(codes) == 1 else None, True)
        return list(columns.values())

    @reflection.cache
    def get_pk_constraint(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        keys = self._table(connection, table_name, **kw).keys
        return {"constrained_columns": list(keys.names), "name": None}

    def get_foreign_keys(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[Any]:
        self._table(connection, table_name, **kw)
        return []

    @reflection.cache
    def get_indexes(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[dict[str, Any]]:
        table = self._table(connection, table_name, **kw)
        return [
            {
                "name": index.name,
                "column_names": list(index.keys.names),
                "unique": False,  # a GSI's key need not be unique; an LSI's is the table's
                "dialect_options": {
                    "dynosql_kind": index.kind,
                    "dynosql_projection": index.projection,
                },
            }
            for index in table.indexes
        ]

    def get_unique_constraints(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[Any]:
        self._table(connection, table_name, **kw)
        return []

    def get_check_constraints(
        self, connection: Any, table_name: str, schema: str | None = None, **kw: Any
    ) -> list[Any]:
        self._table(connection, table_name, **kw)
        return []


class LocalDialect(DynosqlDialect):
    """``dynosql+local://``: the embedded backend, one per engine (a single shared connection:
    `StaticPool`), stopped by ``engine.dispose()`` or at exit."""

    driver = "local"
    local = True
    supports_statement_cache = True

    @classmethod
    def get_pool_class(cls, url: Any) -> type[pool.Pool]:
        return pool.StaticPool


def _switch(text: Any) -> bool:
    try:
        return bool(Switch().parse(str(text)))
    except ValueError:
        raise ValueError(f"expected on or off, got {text!r}") from None


dialect = DynosqlDialect
