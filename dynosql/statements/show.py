"""DESCRIBE table and SHOW TABLES results: what a table is, as rows like any other result."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.plan.schema import TableInfo
from dynosql.result import Result, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context


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


def _describe(ctx: Context, statement: ast.Describe) -> Result:
    return describe_result(ctx.table(statement.table))


def _show_tables(ctx: Context, _statement: ast.ShowTables) -> Result:
    return Result(["table"], iter([{"table": n} for n in ctx.table_names()]))


KINDS: dict[type, Kind[Any]] = {
    ast.Describe: Kind(named("DESCRIBE"), unplanned(_describe), example=("DESCRIBE {t}",)),
    ast.ShowTables: Kind(named("SHOW TABLES"), unplanned(_show_tables), example=("SHOW TABLES",)),
}
