"""DESCRIBE table and SHOW TABLES results: what a table is, as rows like any other result."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.errors import SqlError
from dynosql.plan.schema import TableInfo
from dynosql.position import NOWHERE, Pos
from dynosql.result import Result, plural
from dynosql.sql import ast
from dynosql.sql.keywords import Starter, show_refused
from dynosql.sql.split import QUALIFIED, Chunk, unquote
from dynosql.statements.kind import Kind, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context


@dataclass(frozen=True)
class ShowTables(ast.Statement):
    pass


@dataclass(frozen=True)
class Describe(ast.Statement):
    table: str
    pos: Pos = field(default=NOWHERE, compare=False)


_SHOW_TABLES = re.compile(r"\s*SHOW\s+TABLES\s*$", re.I)
_DESCRIBE = re.compile(rf"\s*(?:DESCRIBE|DESC)\s+(?:TABLE\s+)?{QUALIFIED}\s*$", re.I)


def parse_show_tables(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ShowTables:
    """``SHOW TABLES``, and nothing after it."""
    if not _SHOW_TABLES.match(code):
        raise show_refused(code, position)
    return ShowTables()


def parse_describe(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ast.Statement:
    """``DESCRIBE [TABLE] t`` (or DESC); any other DESCRIBE is read as the parser reads text
    no statement claims."""
    m = _DESCRIBE.match(code)
    if m is None:
        from dynosql.sql.select_parse import parse_query

        return parse_query(chunk)
    if m.group(2):
        at = position(m.start(2))
        raise SqlError("DESCRIBE takes a table name, not an index", at.line, at.col)
    return Describe(unquote(m.group(1)), position(m.start(1)))


def _key_text(name: str | None, type_code: str | None) -> str:
    return "" if name is None else f"{name} ({type_code})"


def describe_result(table: TableInfo) -> Result:
    """One row for the table and one per index: keys with types, projection, size."""
    rows = []
    for path in table.access_paths:
        projection = path.projection
        if projection == "INCLUDE":
            projection += " " + ", ".join(path.included)
        rows.append(
            {
                "name": table.name if path.name is None else path.name,
                "kind": {"table": "TABLE", "lsi": "LSI", "gsi": "GSI"}[path.kind],
                "partition key": _key_text(path.keys.pk, path.keys.pk_type),
                "sort key": _key_text(path.keys.sk, path.keys.sk_type),
                "projection": projection,
                "items": Decimal(path.item_count),
                "bytes": Decimal(path.size_bytes),
            }
        )
    capacity = table.billing_mode
    if table.provisioned_rcu:
        capacity += f" ({table.provisioned_rcu} RCU, {table.provisioned_wcu} WCU)"
    title = (
        f"table {table.name}: {table.item_count} {plural(table.item_count, 'item')}, "
        f"{table.size_bytes} {plural(table.size_bytes, 'byte')}, "
        f"{capacity}, {table.status}"
    )
    columns = ["name", "kind", "partition key", "sort key", "projection", "items", "bytes"]
    return Result(columns, iter(rows), title=title)


# --- the kinds -----------------------------------------------------------------------------


def _describe(ctx: Context, statement: Describe) -> Result:
    """The table as DescribeTable says it is now (fresh, as SHOW CREATE TABLE): its status and
    counts, and any change made elsewhere; the next statements plan on what it read."""
    return describe_result(ctx.table(statement.table, fresh=True))


def _show_tables(ctx: Context, _statement: ShowTables) -> Result:
    return Result(["table"], iter([{"table": n} for n in ctx.table_names()]))


STARTERS = (
    Starter("SHOW TABLES", "SHOW TABLES", parser=parse_show_tables),
    Starter("DESCRIBE", "DESCRIBE", aliases=("DESC",), parser=parse_describe),
)
KINDS: dict[type, Kind[Any]] = {
    Describe: Kind(named("DESCRIBE"), unplanned(_describe), example=("DESCRIBE {t}",)),
    ShowTables: Kind(named("SHOW TABLES"), unplanned(_show_tables), example=("SHOW TABLES",)),
}
