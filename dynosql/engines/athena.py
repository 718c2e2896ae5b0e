"""``--engine athena``: the distributed path. The statement runs in Amazon Athena over a table
export: an external table over the export's DynamoDB JSON (``CREATE EXTERNAL TABLE IF NOT
EXISTS``, the DDL shown by EXPLAIN), then the statement, written by ``dynosql.engines.sqlgen``
in sqlglot's Athena dialect, through boto3's athena client (workgroup, output location), its
results paged back and turned into DynamoDB values.

Verified against the API contract only (botocore's Stubber checks every request's shape in
tests/test_athena_engine.py), not against a live service.

Typing: the export holds each value as ``{"S": …}``, ``{"N": …}``, …; the table declares each
attribute the statement uses as ``struct<s:string,n:string,bool:boolean>`` and the query reads
the field the attribute's type names. The type comes from the table's key definitions, the
literals the statement compares it with, or SUM/AVG (numbers); otherwise it is read as a
string. Numbers are cast to DECIMAL(38, s), s the most decimal places of the statement's
literals or ``NUMBER_SCALE`` (Athena's DECIMAL has 38 digits: larger sums fail there, loudly).
Hive lower-cases column and field names: two attributes differing only in case collide.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dynosql import values
from dynosql.engines import sqlgen
from dynosql.engines.export import Export, data_files, locate, parse_s3
from dynosql.errors import ExecutionError
from dynosql.evaluate.aggregate import AVG_CONTEXT
from dynosql.result import Result, Stats
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

DATABASE = "default"
NUMBER_SCALE = 10
FIELDS = {"S": "s", "N": "n", "BOOL": "bool", "B": "b"}


def kinds_of(statement: ast.Select, table: TableInfo | None) -> dict[str, str]:
    """Each attribute's type, as far as the keys and the statement say (else a string); for
    the export engine's EXPLAIN, its expressions' columns too (their types are known only
    once computed)."""
    from dynosql.engines.export import expression_columns, used_attributes

    kinds: dict[str, str] = {}
    if table is not None:
        for path in table.access_paths:
            kinds[path.keys.pk] = path.keys.pk_type or "S"
            if path.keys.sk:
                kinds[path.keys.sk] = path.keys.sk_type or "S"
    for name, literals in sqlgen.number_literals(statement).items():
        if literals:
            kinds.setdefault(name, "N")
    for agg in [i.expr for i in statement.items or () if isinstance(i.expr, ast.Aggregate)]:
        if agg.func in ("SUM", "AVG") and agg.path is not None:
            kinds.setdefault(agg.path.root, "N")
    computed = expression_columns(statement)
    for name, expression in computed.items():
        kinds.setdefault(name, sqlgen.result_kind(expression))
    names = sorted(used_attributes(statement) or kinds) + list(computed)
    return {a: kinds.get(a, "S") for a in names}


def _scale(statement: ast.Select) -> int:
    scales = [
        -int(v.as_tuple().exponent) for vs in sqlgen.number_literals(statement).values() for v in vs
    ]
    return max([NUMBER_SCALE, *scales])


def table_name(location: str) -> str:
    return "dynosql_" + hashlib.sha256(location.encode()).hexdigest()[:16]


def ddl(name: str, location: str, kinds: dict[str, str]) -> str:
    """The external table over the export's data files."""
    fields = ",\n    ".join(
        f"`{a.lower()}`: struct<s: string, n: string, bool: boolean, b: string>" for a in kinds
    )
    return (
        f"CREATE EXTERNAL TABLE IF NOT EXISTS `{DATABASE}`.`{name}` (\n"
        f"  `item` struct<\n    {fields}\n  >\n)\n"
        "ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n"
        "WITH SERDEPROPERTIES ('case.insensitive' = 'true')\n"
        f"LOCATION '{location}'"
    )


def target(kinds: dict[str, str], scale: int) -> sqlgen.Target:
    def column(attribute: str) -> exp.Expression:
        kind = kinds.get(attribute, "S")
        path = exp.Dot.build(
            [
                exp.column("item", quoted=False),
                exp.to_identifier(attribute.lower(), quoted=True),
                exp.to_identifier(FIELDS.get(kind, "s")),
            ]
        )
        if kind == "N":
            return exp.cast(path, exp.DataType.build(f"DECIMAL(38, {scale})"))
        return path

    def number(_attribute: str, value: Decimal) -> exp.Expression:
        return exp.cast(
            exp.Literal.string(values.format_number(value)),
            exp.DataType.build(f"DECIMAL(38, {scale})"),
        )

    return sqlgen.Target("athena", kinds, column, number)


def query(statement: ast.Select, kinds: dict[str, str], name: str) -> tuple[str, list[Any]]:
    source = exp.to_table(f"{DATABASE}.{name}")
    select, columns = sqlgen.select(statement, target(kinds, _scale(statement)), source)
    return select.sql(dialect="athena"), columns


def data_location(ctx: Context, export: Export) -> str:
    """The S3 folder of the export's data files (Athena's LOCATION)."""
    if "/AWSDynamoDB/" in export.prefix and export.prefix.endswith("/data"):
        return f"s3://{export.bucket}/{export.prefix}/"
    if export.arn is not None:
        export_id = export.arn.rsplit("/", 1)[-1]
        return f"s3://{export.bucket}/{export.prefix}/AWSDynamoDB/{export_id}/data/"
    keys = data_files(ctx.port, export)
    folders = {k.rsplit("/", 1)[0] for k in keys}
    if len(folders) != 1:
        raise ExecutionError(
            f"{export.uri} holds data files in {len(folders)} folders: name one export "
            "(s3://…/AWSDynamoDB/<id>/data/) for Athena"
        )
    return f"s3://{export.bucket}/{folders.pop()}/"


def _start(ctx: Context, sql: str) -> str:
    output = ctx.settings.athena_output
    if output:
        parse_s3(output)  # checked: an s3:// location
    workgroup = ctx.settings.athena_workgroup or "primary"
    return ctx.port.athena_start(sql, DATABASE, workgroup, output or None)


def _wait(ctx: Context, query_id: str) -> dict[str, Any]:
    """GetQueryExecution until the query succeeds (each poll's wait the port's: cancellable)."""
    for execution in ctx.port.watch_athena(query_id):
        state = execution["Status"]["State"]
        if state == "SUCCEEDED":
            return dict(execution)
        if state in ("FAILED", "CANCELLED"):
            reason = execution["Status"].get("StateChangeReason", "")
            raise ExecutionError(f"Athena query {query_id} {state.lower()}: {reason}")
    raise AssertionError("unreachable: polls without a timeout never end")


def convert(
    row: list[str | None], columns: list[sqlgen.OutColumn], kinds: dict[str, str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    raw = dict(zip([c.name for c in columns], row, strict=True))
    for c, text in zip(columns, row, strict=True):
        if c.hidden:
            continue
        kind = kinds.get(c.attribute or "", "S")
        if c.func == "AVG":
            total, count = raw[sqlgen.HIDDEN_SUM + c.name], raw[sqlgen.HIDDEN_COUNT + c.name]
            out[c.name] = (
                None
                if total is None or not count or count == "0"
                else AVG_CONTEXT.divide(values.number(total), Decimal(count))
            )
        elif c.func == "COUNT":
            out[c.name] = Decimal(text or "0")
        elif text is None:
            if c.func is not None:
                out[c.name] = None
        elif kind == "N":
            out[c.name] = Decimal(values.format_number(Decimal(text)))
        elif kind == "BOOL":
            out[c.name] = text == "true"
        else:
            out[c.name] = text
    return out


def plan_text(
    ctx: Context, statement: ast.Select, location: str
) -> tuple[str, str, list[Any], dict[str, Any]]:
    table = None
    if statement.export is None:
        table = ctx.table(statement.table)
    kinds = kinds_of(statement, table)
    name = table_name(location)
    sql, columns = query(statement, kinds, name)
    return ddl(name, location, kinds), sql, columns, kinds


def run(ctx: Context, statement: ast.Select) -> Result:
    stats = Stats()
    export = locate(ctx, statement, stats)
    location = data_location(ctx, export)
    create, sql, columns, kinds = plan_text(ctx, statement, location)
    _wait(ctx, _start(ctx, create))
    query_id = _start(ctx, sql)
    execution = _wait(ctx, query_id)
    scanned = execution.get("Statistics", {}).get("DataScannedInBytes")
    stats.operations.append(f"Athena over {location}")
    notes = list(export.notes)
    notes.append(
        f"Athena query {query_id}: {scanned if scanned is not None else '?'} bytes scanned"
    )
    rows = (convert(r, columns, kinds) for r in ctx.port.athena_rows(query_id))
    return Result([c.name for c in columns if not c.hidden], rows, stats, notes=notes)
