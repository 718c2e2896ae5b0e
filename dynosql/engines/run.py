"""Which engine answers a SELECT: the export read by DuckDB, or Athena."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynosql.result import Result
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context


def run_engine(ctx: Context, statement: ast.Select) -> Result:
    from dynosql.engines.sqlgen import refuse_expressions

    refuse_expressions(statement, "athena" if ctx.settings.engine == "athena" else "export")
    if statement.sample is not None:
        from dynosql.errors import PlanError

        raise PlanError("TABLESAMPLE samples a DynamoDB Scan: run it with --engine dynamodb")
    if ctx.settings.engine == "athena":
        from dynosql.engines.athena import run

        return run(ctx, statement)
    from dynosql.engines.export import run as run_export

    return run_export(ctx, statement)


def price_lines(ctx: Context, plan: Any) -> list[str]:
    """EXPLAIN's comparison of a Scan with an export and Athena (list prices; --prices)."""
    from dynosql.engines.prices import compare, parse_prices
    from dynosql.errors import PlanError

    try:
        prices = parse_prices(ctx.settings.prices)
    except ValueError as err:
        raise PlanError(f"--prices: {err}") from None
    access, table = plan.access, plan.table
    size = table.size_bytes or table.item_count * table.average_item_size
    rcu = plan.sample.full_scan_rcu if plan.sample is not None else plan.estimate.rcu
    items = access.item_count or table.item_count
    return compare(rcu, items, size, ctx.settings.rate_limit, prices)


def explain_engine(ctx: Context, statement: ast.Select) -> list[str]:
    """EXPLAIN for a statement the export or Athena engine runs: what it sends, in order."""
    from dynosql.engines import athena, export
    from dynosql.engines.sqlgen import refuse_expressions

    refuse_expressions(statement, "athena" if ctx.settings.engine == "athena" else "export")
    table = None if statement.export is not None else ctx.table(statement.table)
    kinds = athena.kinds_of(statement, table)
    if statement.export is not None:
        source = f"read the export {statement.export}"
        location = statement.export
    else:
        where = ctx.settings.export_s3 or "s3://<--export-s3>/"
        source = (
            f"ExportTableToPointInTime of {statement.table} to {where.rstrip('/')}/"
            f"{statement.table}/<time>/ (needs PITR on the table), wait for it"
        )
        location = f"{where.rstrip('/')}/{statement.table}/<time>/AWSDynamoDB/<export id>/data/"
    engine = "athena" if ctx.settings.engine == "athena" else "export"
    lines = [f"engine {engine}: {source}"]
    if engine == "export":
        lines.append("then DuckDB on this machine, over the decoded items:")
        lines.extend("  " + line for line in export.explain_sql(statement, kinds).splitlines())
    else:
        name = athena.table_name(location)
        lines.append(
            "then Athena (StartQueryExecution, workgroup "
            f"{ctx.settings.athena_workgroup or 'primary'}):"
        )
        lines.extend("  " + line for line in athena.ddl(name, location, kinds).splitlines())
        lines.append("and the statement:")
        lines.append("  " + athena.query(statement, kinds, name)[0])
    if table is not None:
        from dynosql.plan.planner import plan_full_scan

        lines.extend(price_lines(ctx, plan_full_scan(table, None, ctx.options())))
    return lines
