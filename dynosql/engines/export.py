"""``--engine export`` and ``FROM EXPORT '…' AS t``: a SELECT answered from a DynamoDB table
export (ExportTableToPointInTime → gzip DynamoDB JSON in S3), read into DuckDB on this machine.

Steps: find the export (start one, take an export ARN, or read an S3 prefix), wait for it with
progress, list its data files (checked against the manifest where there is one: a partial
export is an error, never a silent undercount), decode every item exactly (dynosql.values),
load the attributes the statement uses into DuckDB and run the statement there, written by
``dynosql.engines.sqlgen`` in DuckDB's dialect. Numbers stay exact: each number attribute is a
BIGNUM column of the number times 10^s (s: the most decimal places any value or literal of it
has), so sums of 38-digit numbers are exact; rows turn back into DynamoDB values.

DuckDB is optional: ``pip install 'dynosql[export]'``.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dynosql import values
from dynosql.engines import sqlgen
from dynosql.engines.duck import insert_rows, require_duckdb
from dynosql.errors import ExecutionError
from dynosql.evaluate.aggregate import AVG_CONTEXT, Group, collect_aggregates
from dynosql.evaluate.pipeline import aggregate_rows
from dynosql.result import Changes, Result, Stats, carried, counted
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.port import Port

PITR_HINT = (
    "ALTER TABLE {table} SET POINT IN TIME RECOVERY ON (or: aws dynamodb "
    "update-continuous-backups --table-name {table} "
    "--point-in-time-recovery-specification PointInTimeRecoveryEnabled=true)"
)


def parse_s3(uri: str) -> tuple[str, str]:
    """``s3://bucket/prefix/`` → (bucket, prefix without slashes at the ends)."""
    if not uri.startswith("s3://") or len(uri) <= 5:
        raise ExecutionError(f"expected an S3 location s3://bucket/prefix/, got {uri!r}")
    bucket, _, prefix = uri[5:].partition("/")
    return bucket, prefix.strip("/")


# --- finding and waiting for the export ------------------------------------------------------


@dataclass
class Export:
    bucket: str
    prefix: str
    arn: str | None = None
    items: int | None = None  # ItemCount the export reports
    notes: list[str] = field(default_factory=list)

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}/"


def locate(ctx: Context, statement: ast.Select, stats: Stats) -> Export:
    """The export a statement reads: named in FROM EXPORT, or a new one of its table."""
    where = statement.export
    if where is not None and where.startswith("arn:"):
        return wait(ctx, where, stats)
    if where is not None:
        bucket, prefix = parse_s3(where)
        return Export(bucket, prefix)
    # one export per table per session: the next statement reuses it (FROM EXPORT 'arn:…'
    # reuses one across sessions), even when this one is stopped while it waits (the error
    # carries the ARN: `run`)
    arn = ctx.exports.get(statement.table)
    if arn is None:
        arn = start(ctx, statement.table)
        stats.change(Changes(export=(statement.table, arn)))
    export = wait(ctx, arn, stats)
    export.notes.append(f"reuse this export elsewhere with FROM EXPORT '{arn}' AS t")
    return export


def start(ctx: Context, table: str) -> str:
    """Start ExportTableToPointInTime of `table` under --export-s3; its ARN."""
    if not ctx.settings.export_s3:
        raise ExecutionError(
            "--engine export needs an S3 location for the export: --export-s3 s3://bucket/prefix/ "
            "(or SET export_s3 = 's3://…'); or read an existing one with FROM EXPORT 's3://…' AS t"
        )
    bucket, base = parse_s3(ctx.settings.export_s3)
    info = ctx.table(table)
    if not ctx.port.point_in_time_recovery(table):
        raise ExecutionError(
            f"an export needs point-in-time recovery (PITR) on table {table}, and it is off. "
            f"Turn it on with: {PITR_HINT.format(table=table)} (PITR costs about $0.20 per "
            "GB-month of table size while on; the export itself about $0.10 per GB)"
        )
    prefix = "/".join(p for p in (base, table, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())) if p)
    return ctx.port.export_table(info.name, bucket, prefix)


def wait(ctx: Context, arn: str, stats: Stats) -> Export:
    """Poll DescribeExport until the export completes (progress on the session's sink); each
    poll retried and each wait cancelled as every request's (the port's)."""
    for d in ctx.port.watch_export(arn):
        status = d.get("ExportStatus")
        stats.items_scanned = int(d.get("ItemCount") or 0)
        if ctx.doors.progress is not None:
            ctx.doors.progress(stats)
        if status == "COMPLETED":
            export = Export(str(d["S3Bucket"]), str(d.get("S3Prefix") or "").strip("/"), arn)
            export.items = int(d["ItemCount"]) if d.get("ItemCount") is not None else None
            export.notes.append(
                f"export {arn} completed: {export.items} items, "
                f"{d.get('BilledSizeBytes', '?')} bytes billed, in {export.uri}"
            )
            return export
        if status == "FAILED":
            raise ExecutionError(
                f"the export failed ({d.get('FailureCode')}): {d.get('FailureMessage')}"
            )
    raise AssertionError("unreachable: polls without a timeout never end")


# --- reading the data files -------------------------------------------------------------------


def data_files(port: Port, export: Export) -> list[str]:
    """The export's data files, checked against its manifest where it has one."""
    keys = port.s3_keys(export.bucket, export.prefix + "/" if export.prefix else "")
    manifests = [k for k in keys if k.endswith("/manifest-files.json")]
    if len(manifests) > 1:
        listed = ", ".join(m.rsplit("/", 1)[0] for m in manifests[:3])
        raise ExecutionError(
            f"{export.uri} holds {len(manifests)} exports ({listed}, …): name one of them"
        )
    if manifests:
        wanted = _manifest_keys(port, export, manifests[0])
        present = set(keys)
        missing = [k for k in wanted if k not in present]
        if missing:
            raise ExecutionError(
                f"partial export in {export.uri}: {len(missing)} of {len(wanted)} data files "
                f"listed in its manifest are missing (first: {missing[0]})"
            )
        return wanted
    found = [k for k in keys if "/AWSDynamoDB/" in k and "/data/" in k and k.endswith(".gz")]
    if not found:
        raise ExecutionError(
            f"no DynamoDB export in {export.uri}: no AWSDynamoDB/…/data/*.json.gz files there"
        )
    export.notes.append(
        f"{export.uri} has no manifest-files.json (moto writes none): read all "
        f"{counted(len(found), 'data file')} under it"
    )
    return sorted(found)


def _manifest_keys(port: Port, export: Export, key: str) -> list[str]:
    text = port.s3_get(export.bucket, key).decode("utf-8", "replace")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(str(json.loads(line)["dataFileS3Key"]))
        except (ValueError, KeyError, TypeError):
            raise ExecutionError(f"malformed export manifest {key}, line {n}") from None
    return out


def read_items(port: Port, export: Export, keys: list[str]) -> Iterator[dict[str, Any]]:
    """Every item of the data files, decoded exactly; a malformed file is an error naming the
    file and line."""
    for key in keys:
        raw = port.s3_get(export.bucket, key)
        try:
            text = gzip.decompress(raw).decode("utf-8")
        except (OSError, EOFError, zlib.error, UnicodeDecodeError):
            raise ExecutionError(
                f"malformed export: s3://{export.bucket}/{key} is not gzip-compressed UTF-8 "
                "(truncated or not a DynamoDB export file)"
            ) from None
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                wire = record["Item"]
                if not isinstance(wire, dict):
                    raise TypeError
                yield values.decode_item(wire)
            except (ValueError, KeyError, TypeError, AttributeError) as err:
                raise ExecutionError(
                    f"malformed export: s3://{export.bucket}/{key}, line {n}: expected "
                    f'{{"Item": {{…}}}} in DynamoDB JSON ({type(err).__name__})'
                ) from None


# --- DuckDB -----------------------------------------------------------------------------------


@dataclass
class Loaded:
    kinds: dict[str, str]
    scales: dict[str, int]
    items: int


def _paths(statement: ast.Select) -> list[ast.Path]:
    """Every path the statement reads, where it reads it."""
    from dynosql.plan.expressions import paths_in

    found: list[ast.Path] = []
    for item in statement.items or ():
        found.extend(paths_in(item.expr))
    for o in statement.order_by:
        found.extend(paths_in(o.expr))
    found.extend(paths_in(statement.where))
    found.extend(paths_in(statement.having))
    for g in statement.group_by:
        found.extend(paths_in(g))
    return found


def used_attributes(statement: ast.Select) -> set[str] | None:
    """Top-level attributes the statement reads; None for every one (SELECT *)."""
    if statement.items is None:
        return None
    return {p.root for p in _paths(statement)}


def nested_paths(statement: ast.Select) -> dict[str, ast.Path]:
    """The document paths (``doc.x``, ``a[0]``) the statement reads, by their column name:
    each is loaded as a column of its own, its value per item resolved as the DynamoDB
    engine resolves it (dynosql.evaluate.predicate.resolve)."""
    return {sqlgen.key(p): p for p in _paths(statement) if not p.is_attribute}


def expression_columns(statement: ast.Select) -> dict[str, ast.Scalar | ast.Case]:
    """The expressions of an item's attributes the statement reads, by their column name:
    each is loaded as a column of its own, its value per item computed by dynosql's evaluator
    (dynosql.evaluate.predicate.operand_value: NULL where an argument is missing, NULL or of
    another type), so DuckDB compares, groups, sorts and sums what the DynamoDB engine would."""
    found: dict[str, ast.Scalar | ast.Case] = {}
    for node in sqlgen.expressions(statement):
        if sqlgen.is_expression(node):
            found.setdefault(sqlgen.key(node), node)
    return found


def _compared(statement: ast.Select) -> set[str]:
    """Columns the statement compares, groups, orders or aggregates (they need one type): its
    paths outside expressions, and its expressions (a path inside an expression is read by the
    expression's rules, which take any type)."""
    from dynosql.plan.expressions import paths_in

    def columns(node: Any) -> set[str]:
        outer = ast.rewrite(node, lambda n: _CUT if sqlgen.is_expression(n) else None)
        inner = {sqlgen.key(e) for e in sqlgen.expressions(node) if sqlgen.is_expression(e)}
        return {sqlgen.key(p) for p in paths_in(outer)} | inner

    found = columns(statement.where) | columns(statement.having)
    found.update(sqlgen.key(p) for p in statement.group_by)
    for o in statement.order_by:
        found |= columns(o.expr)
    for item in statement.items or ():
        if isinstance(item.expr, ast.Aggregate):
            found |= columns(item.expr)
    return found


_CUT = ast.Literal(None)  # an expression taken out of a condition, for `_compared`


_SQL_TYPES = {"N": "VARCHAR", "S": "VARCHAR", "B": "BLOB", "BOOL": "BOOLEAN", "wire": "VARCHAR"}


def load(con: Any, items: Iterator[dict[str, Any]], statement: ast.Select) -> Loaded:
    """The attributes the statement uses, as a DuckDB table ``items``."""
    from dynosql.evaluate.predicate import operand_value, resolve

    wanted = used_attributes(statement)
    nested = nested_paths(statement)
    computed = expression_columns(statement)
    compared = _compared(statement)
    types: dict[str, set[str]] = {}
    scales: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for item in items:
        row = {k: v for k, v in item.items() if wanted is None or k in wanted}
        for column, path in nested.items():
            value = resolve(item, path)
            if value is not values.MISSING:
                row[column] = value
        for column, expression in computed.items():
            row[column] = operand_value(expression, item)  # never MISSING; NULL is None
        for name, value in row.items():
            code = values.type_of(value)
            if code == "NULL":
                continue
            types.setdefault(name, set()).add(code or "")
            if code == "N":
                scales[name] = max(scales.get(name, 0), -int(value.as_tuple().exponent))
        rows.append(row)
    for name, literals in sqlgen.number_literals(statement).items():
        for v in literals:
            scales[name] = max(scales.get(name, 0), -int(v.as_tuple().exponent))
    kinds: dict[str, str] = {}
    for name in sorted(set(types) | set(wanted or ()) | set(nested) | set(computed)):
        held = types.get(name, set())
        if len(held) > 1 and name in compared:
            what = "expression" if name in computed else "attribute"
            raise ExecutionError(
                f"{what} {sqlgen.shown(name)} holds values of several types in the export "
                f"({', '.join(sorted(held))}): the export engine compares, groups and sums one "
                f"type per {what}; run this statement with --engine dynamodb"
            )
        if not held:
            if name in types or wanted is not None or name in nested or name in computed:
                kinds[name] = "S"  # no item holds it: every value is NULL
            continue
        code = next(iter(held))
        kinds[name] = code if len(held) == 1 and code in ("N", "S", "B", "BOOL") else "wire"
    names = list(kinds)
    columns = ", ".join(f"{_q(n)} {_SQL_TYPES[kinds[n]]}" for n in names) or '"__none" VARCHAR'
    con.execute(f"CREATE TABLE raw ({columns})")
    if names and rows:
        insert_rows(
            con,
            "raw",
            len(names),
            (
                [_cell(row.get(n, values.MISSING), kinds[n], scales.get(n, 0)) for n in names]
                for row in rows
            ),
        )
    elif rows:
        insert_rows(con, "raw", 1, ([None] for _ in rows))
    select = (
        ", ".join(
            f"CAST({_q(n)} AS BIGNUM) AS {_q(n)}" if kinds[n] == "N" else _q(n) for n in names
        )
        or '"__none"'
    )
    con.execute(f"CREATE TABLE items AS SELECT {select} FROM raw")
    return Loaded(kinds, scales, len(rows))


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _cell(value: Any, kind: str, scale: int) -> Any:
    if value is values.MISSING or value is None:
        return None
    if kind == "N":
        return str(int(value.scaleb(scale, values.DECIMAL_CONTEXT)))
    if kind == "wire":
        return json.dumps(values.encode(value), sort_keys=True, ensure_ascii=False)
    return value


def target(loaded: Loaded) -> sqlgen.Target:
    def number(attribute: str, value: Decimal) -> exp.Expression:
        scaled = int(value.scaleb(loaded.scales.get(attribute, 0), values.DECIMAL_CONTEXT))
        return exp.cast(
            exp.Literal.string(str(scaled)), exp.DataType.build("BIGNUM", dialect="duckdb")
        )

    return sqlgen.Target(
        "export", loaded.kinds, lambda n: exp.column(n, quoted=True), number, paths=True
    )


def _number(value: Any, scale: int) -> Decimal:
    d = Decimal(int(value)).scaleb(-scale, values.DECIMAL_CONTEXT)
    return Decimal(values.format_number(d))


def convert(
    row: tuple[Any, ...], columns: list[sqlgen.OutColumn], loaded: Loaded
) -> dict[str, Any]:
    """A DuckDB row → a dynosql row (DynamoDB values; a missing attribute absent)."""
    out: dict[str, Any] = {}
    raw = dict(zip([c.name for c in columns], row, strict=True))
    for c, value in zip(columns, row, strict=True):
        if c.hidden:
            continue
        kind = loaded.kinds.get(c.attribute or "", "S")
        scale = loaded.scales.get(c.attribute or "", 0)
        if c.func == "AVG":
            total, count = raw[sqlgen.HIDDEN_SUM + c.name], raw[sqlgen.HIDDEN_COUNT + c.name]
            out[c.name] = (
                None
                if total is None or not count
                else AVG_CONTEXT.divide(_number(total, scale), Decimal(count))
            )
            continue
        if c.func == "COUNT":
            out[c.name] = Decimal(value)
            continue
        if value is None:
            # an aggregate's or an expression's NULL is a value; a missing attribute is absent
            if c.func is not None or (c.attribute or "").endswith(sqlgen.EXPR_MARK):
                out[c.name] = None
            continue
        if kind == "N":
            out[c.name] = _number(value, scale)
        elif kind == "wire":
            out[c.name] = values.decode(json.loads(value))
        elif kind == "B":
            out[c.name] = bytes(value)
        else:
            out[c.name] = value
    return out


GROUP_COLUMN, AGGREGATE_COLUMN = "__dynosql_group {}", "__dynosql_aggregate {}"


def grouped(statement: ast.Select) -> ast.Select | None:
    """For a statement with an expression over aggregates (``ROUND(AVG(t), 2)``, ``HAVING
    COUNT(*) * 10 > n``, ``ORDER BY MAX(a) - MIN(a)``): the statement DuckDB runs instead, its
    GROUP BY values and every aggregate, one row per group. The rest (the expressions,
    HAVING, ORDER BY, DISTINCT, LIMIT) is dynosql's own evaluation of those groups
    (dynosql.evaluate.pipeline.aggregate_rows), as on the DynamoDB engine. None when DuckDB
    can run the statement as it is."""
    if all(sqlgen.is_expression(e) for e in sqlgen.expressions(statement)):
        return None  # no expression holds an aggregate
    items = [
        ast.SelectItem(g, GROUP_COLUMN.format(n)) for n, g in enumerate(statement.group_by)
    ] + [
        ast.SelectItem(a, AGGREGATE_COLUMN.format(n))
        for n, a in enumerate(collect_aggregates(statement))
    ]
    return dataclasses.replace(
        statement, items=tuple(items), having=None, order_by=(), limit=None, distinct=False
    )


def _groups(statement: ast.Select, rows: list[dict[str, Any]]) -> Iterator[Group]:
    """`grouped`'s rows as the groups dynosql's evaluation takes."""
    aggregates = collect_aggregates(statement)
    for row in rows:
        keys = {
            ast.key_of(g): row.get(GROUP_COLUMN.format(n), values.MISSING)
            for n, g in enumerate(statement.group_by)
        }
        found = {a.text: row.get(AGGREGATE_COLUMN.format(n)) for n, a in enumerate(aggregates)}
        yield Group(keys, found)


def run(ctx: Context, statement: ast.Select) -> Result:
    """The statement answered from an export, by DuckDB."""
    duckdb = require_duckdb()
    stats = Stats()
    with carried(stats):  # Ctrl-C while the export runs, a bad file: the session keeps its ARN
        return _answer(ctx, statement, stats, duckdb)


def _answer(ctx: Context, statement: ast.Select, stats: Stats, duckdb: Any) -> Result:
    export = locate(ctx, statement, stats)
    keys = data_files(ctx.port, export)
    con = duckdb.connect()
    outer = grouped(statement)
    try:
        loaded = load(con, read_items(ctx.port, export, keys), statement)
        query, columns = sqlgen.select(outer or statement, target(loaded), exp.to_table("items"))
        sql = query.sql(dialect="duckdb")
        try:
            fetched = con.execute(sql).fetchall()
        except duckdb.Error as err:
            raise ExecutionError(
                f"DuckDB could not run the statement: {str(err).splitlines()[0]}"
            ) from err
    finally:
        con.close()
    stats.operations.append(f"export {export.uri} ({len(keys)} files) → DuckDB")
    stats.items_scanned = loaded.items
    visible = [c.name for c in columns if not c.hidden]
    rows = [convert(r, columns, loaded) for r in fetched]
    if outer is not None:
        visible = [i.name for i in statement.items or ()]
        rows = list(aggregate_rows(statement, _groups(statement, rows)))
    if statement.items is None:  # SELECT *: the key attributes first, as the Scan path does
        from dynosql.evaluate.pipeline import whole_item_row

        key_names: tuple[str, ...] = ()
        if statement.export is None:
            key_names = ctx.table(statement.table).keys.names
        visible = list(key_names) or sorted(n for n in loaded.kinds if sqlgen.is_attribute(n))
        rows = [whole_item_row(r, key_names) for r in rows]
    result = Result(visible, iter(rows), stats, notes=list(export.notes))
    result.open_columns = statement.items is None
    return result


def explain_sql(statement: ast.Select, kinds: dict[str, str]) -> str:
    """The DuckDB SQL for EXPLAIN. The attributes' types are known only once the export is
    read: here they come from the keys and the statement (see athena.kinds_of)."""
    scales: dict[str, int] = {}
    for name, literals in sqlgen.number_literals(statement).items():
        scales[name] = max([0, *(-int(v.as_tuple().exponent) for v in literals)])
    outer = grouped(statement)
    loaded = Loaded(kinds, scales, 0)
    query, _ = sqlgen.select(outer or statement, target(loaded), exp.to_table("items"))
    sql = query.sql(dialect="duckdb")
    computed = [sqlgen.shown(name) for name in expression_columns(statement)]
    if computed:
        sql = f"-- computed by dynosql per item while loading: {'; '.join(computed)}\n" + sql
    if outer is not None:
        sql += (
            "\n-- then dynosql, over those groups: the expressions over aggregates, HAVING, "
            "ORDER BY, DISTINCT and LIMIT"
        )
    return sql
