"""SQLAlchemy DDL to dynosql's table statements: ``metadata.create_all()`` and ``drop_all()``.

A DynamoDB table declares its key and nothing else, so ``CREATE TABLE`` names the primary key
columns only (one: a partition key; two, in the Table's primary key order: partition key and
sort key), typed S, N or B from their SQLAlchemy types (strings, dates and times as ISO 8601
strings are S; numbers N; binary B). The other columns need no declaration: each item holds
what is written. An ``Index`` of one or two columns is a GSI (``CREATE INDEX … ON t (a S)``:
UpdateTable, backfilled). ``nullable=False`` on a column that is not a key is not enforced
(DynamoDB checks key attributes only); what would silently mean something else is a
CompileError naming it: a table without a primary key, a key of another type, FOREIGN KEY,
UNIQUE and CHECK constraints, server-side defaults and sequences, and ``IF NOT EXISTS``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import exc
from sqlalchemy import types as sqltypes
from sqlalchemy.sql import compiler
from sqlalchemy.sql.schema import (
    CheckConstraint,
    ForeignKeyConstraint,
    PrimaryKeyConstraint,
    UniqueConstraint,
)


def _refuse(what: str, why: str) -> exc.CompileError:
    return exc.CompileError(f"dynosql cannot create {what}: {why}")


def key_type(column: Any) -> str:
    """The DynamoDB type code (S, N, B) of a key column's SQLAlchemy type."""
    kind = column.type
    if isinstance(kind, sqltypes.LargeBinary):
        return "B"
    if isinstance(kind, sqltypes.Boolean):
        raise _refuse(f"the key {column.name}", "a key is a string, number or binary")
    if isinstance(kind, sqltypes.Numeric | sqltypes.Integer):
        return "N"
    if isinstance(kind, sqltypes.String | sqltypes.Date | sqltypes.DateTime | sqltypes.Time):
        return "S"  # Enum, Text, Unicode are Strings; dates travel as ISO 8601 strings
    if isinstance(kind, sqltypes.Uuid):
        return "S"
    raise _refuse(f"the key {column.name} of type {kind}", "a key is a string, number or binary")


class DynosqlDDLCompiler(compiler.DDLCompiler):
    """CREATE TABLE / CREATE INDEX in dynosql's grammar (grammar/README.md, Tables)."""

    def visit_create_table(self, create: Any, **kw: Any) -> str:
        table = create.element
        if create.if_not_exists:
            raise _refuse(f"table {table.name} IF NOT EXISTS", "CREATE TABLE has no such clause")
        keys = list(table.primary_key.columns)
        if not keys or len(keys) > 2:
            raise _refuse(
                f"table {table.name}",
                "a DynamoDB table's primary key is one column (partition key) or two "
                f"(partition and sort key), found {len(keys)}",
            )
        for column in table.columns:
            if column.server_default is not None or column.identity is not None:
                raise _refuse(
                    f"the default of {table.name}.{column.name}",
                    "DynamoDB fills in no values (a Python-side default= still works)",
                )
        for constraint in table.constraints:
            if isinstance(constraint, PrimaryKeyConstraint):
                continue
            kind = {
                ForeignKeyConstraint: "FOREIGN KEY",
                UniqueConstraint: "UNIQUE",
                CheckConstraint: "CHECK",
            }.get(type(constraint), type(constraint).__name__)
            raise _refuse(f"a {kind} constraint on {table.name}", "DynamoDB enforces only the key")
        quote = self.preparer.quote
        declared = ", ".join(f"{quote(c.name)} {key_type(c)}" for c in keys)
        named = ", ".join(quote(c.name) for c in keys)
        return (
            f"CREATE TABLE {self.preparer.format_table(table)} ({declared}, PRIMARY KEY ({named}))"
        )

    def visit_create_index(self, create: Any, **kw: Any) -> str:
        index = create.element
        self._verify_index_table(index)
        if index.name is None:
            raise _refuse("an index without a name", "a GSI needs one")
        columns = list(index.columns)
        if create.if_not_exists or index.unique or not columns or len(columns) > 2:
            raise _refuse(
                f"index {index.name}",
                "a GSI is one or two columns (partition and sort key), not unique, "
                "no expressions, no IF NOT EXISTS",
            )
        quote = self.preparer.quote
        keys = ", ".join(f"{quote(c.name)} {key_type(c)}" for c in columns)
        return (
            f"CREATE INDEX {quote(index.name)} ON "
            f"{self.preparer.format_table(index.table)} ({keys})"
        )

    def visit_drop_index(self, drop: Any, **kw: Any) -> str:
        index = drop.element
        if drop.if_exists or index.name is None:
            raise _refuse(f"DROP INDEX {index.name}", "name the index, without IF EXISTS")
        return (
            f"DROP INDEX {self.preparer.quote(index.name)} ON "
            f"{self.preparer.format_table(index.table)}"
        )

    def visit_drop_table(self, drop: Any, **kw: Any) -> str:
        if drop.if_exists:
            raise _refuse(f"DROP TABLE IF EXISTS {drop.element.name}", "no such clause")
        return f"DROP TABLE {self.preparer.format_table(drop.element)}"
