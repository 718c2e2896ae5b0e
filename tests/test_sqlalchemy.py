"""The SQLAlchemy 2 dialect through the real libraries: SQLAlchemy's inspector and Core,
pandas.read_sql, and JupySQL's ``%sql`` in an IPython shell.

The dialects are registered from pyproject.toml's ``sqlalchemy.dialects`` entry points (the
installed package's metadata may be an older checkout's), so the test also checks that each
entry point names a class that works."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import tomllib
from backends import Backend
from cli_runner import AWS_VARIABLES, run_cli

sa = pytest.importorskip("sqlalchemy")
from sqlalchemy import exc, func, select, text  # noqa: E402
from sqlalchemy.dialects import registry  # noqa: E402

from dynosql.sqla.dialect import Document, DynosqlDialect, LocalDialect  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def dialects() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    points: dict[str, str] = project["entry-points"]["sqlalchemy.dialects"]
    for name, target in points.items():
        module, _, cls = target.partition(":")
        registry.register(name, module, cls)
    return points


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in AWS_VARIABLES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def engine_for(backend: Backend, **options: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in {"journal_dir": "off", **options}.items())
    return sa.create_engine(f"dynosql://?endpoint_url={backend.endpoint_url}&{query}")


def test_urls_and_entry_points(dialects: dict[str, str]):
    assert set(dialects) == {"dynosql", "dynosql.local"}
    engine = sa.create_engine("dynosql://?region=eu-west-1&profile=prod&fail_on_scan=on")
    assert type(engine.dialect) is DynosqlDialect
    args = engine.dialect.create_connect_args(engine.url)
    assert args == ([], {"region": "eu-west-1", "profile": "prod", "fail_on_scan": "on"})
    local = sa.create_engine("dynosql+local://?transactions=on&confirm=yes")
    assert type(local.dialect) is LocalDialect
    assert local.dialect.create_connect_args(local.url) == (
        [],
        {"transactions": True, "confirm": True, "local": True},
    )
    assert isinstance(local.pool, sa.pool.StaticPool)  # one embedded server per engine
    with pytest.raises(ValueError, match="query parameters"):
        sa.create_engine("dynosql://somehost/db").dialect.create_connect_args(
            sa.engine.make_url("dynosql://somehost/db")
        )


@pytest.mark.slow  # DescribeTable and a sample page of three tables (about 1-2 s)
@pytest.mark.parametrize("name", ["moto", "dynalite"])
def test_the_inspector_lists_tables_columns_keys_and_indexes(
    name: str, request: pytest.FixtureRequest
):
    backend: Backend = request.getfixturevalue(f"{name}_examples_backend")
    engine = engine_for(backend)
    inspector = sa.inspect(engine)
    assert set(inspector.get_table_names()) >= {"audit", "drive", "sensors", "tenants"}
    columns = inspector.get_columns("drive")
    assert [(c["name"], c["nullable"]) for c in columns[:2]] == [("PK", False), ("SK", False)]
    assert all(isinstance(c["type"], sa.String) for c in columns[:2])
    by_name = {c["name"]: c for c in columns}
    assert by_name["modified"]["nullable"]  # the LSI's sort key: not on every item
    assert isinstance(by_name["size"]["type"], sa.Numeric) and by_name["size"]["nullable"]
    assert isinstance(by_name["tags"]["type"], Document) and by_name["tags"]["type"].code == "SS"
    assert inspector.get_pk_constraint("drive")["constrained_columns"] == ["PK", "SK"]
    assert inspector.get_pk_constraint("sensors")["constrained_columns"] == [
        "deviceId",
        "readingTs",
    ]
    (lsi,) = inspector.get_indexes("drive")
    assert (lsi["name"], lsi["column_names"]) == ("by_modified", ["PK", "modified"])
    assert lsi["dialect_options"]["dynosql_kind"] == "lsi"
    (gsi,) = inspector.get_indexes("tenants")
    assert gsi["name"] == "gsi1" and gsi["dialect_options"]["dynosql_kind"] == "gsi"
    assert inspector.get_foreign_keys("drive") == []
    engine.dispose()


def test_the_inspector_reads_a_table_as_it_is_now(moto_backend: Backend, table_name: str):
    """An index another client adds is reflected by the next inspector, on the same pooled
    connection (one Session, which had described the table)."""
    moto_backend.create_keyed_table(table_name)
    engine = engine_for(moto_backend, confirm="yes")
    assert sa.inspect(engine).get_indexes(table_name) == []
    defined = [("pk", "S"), ("sk", "N"), ("v", "N")]
    moto_backend.client().update_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": k} for a, k in defined],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by_v",
                    "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    assert [ix["name"] for ix in sa.inspect(engine).get_indexes(table_name)] == ["by_v"]
    engine.dispose()


def test_core_select_compiles_to_dynosql_and_runs(moto_examples_backend: Backend):
    engine = engine_for(moto_examples_backend)
    metadata = sa.MetaData()
    # declared, not reflected (the inspector test reflects): no sample is read here
    drive = sa.Table(
        "drive",
        metadata,
        sa.Column("PK", sa.String, primary_key=True),
        sa.Column("SK", sa.String, primary_key=True),
        sa.Column("name", sa.String),
        sa.Column("size", sa.Numeric),
    )
    sensors = sa.Table("sensors", metadata, sa.Column("deviceId", sa.String, primary_key=True))
    with engine.connect() as conn:
        query = (
            select(drive.c.SK, drive.c.name, drive.c.size)
            .where(drive.c.PK == "DRIVE#alice", drive.c.size > 1000)
            .order_by(drive.c.SK.desc())
            .limit(3)
        )
        compiled = str(query.compile(engine))
        assert '"drive"."SK"' not in compiled and 'FROM "drive"' in compiled
        rows = conn.execute(query).all()
        expected = conn.execute(
            text(
                "SELECT SK, name, size FROM drive WHERE PK = :pk AND size > 1000 "
                "ORDER BY SK DESC LIMIT 3"
            ),
            {"pk": "DRIVE#alice"},
        ).all()
        assert rows == expected and len(rows) == 3
        assert all(isinstance(r.size, Decimal) for r in rows)
        hot = (
            select(sensors.c.deviceId, func.count().label("n"))
            .where(sensors.c.deviceId.in_(["dev-0007", "dev-0013"]))
            .group_by(sensors.c.deviceId)
            .order_by(sa.desc("n"))
        )
        assert [tuple(r) for r in conn.execute(hot)] == [("dev-0007", 330), ("dev-0013", 260)]
    engine.dispose()


def test_bound_like_between_in_and_limit_read_as_their_literal_forms(
    moto_examples_backend: Backend,
):
    """SQLAlchemy sends every value as a parameter: like(), startswith() (``:p || '%'``),
    endswith(), contains(), autoescape (ESCAPE '/'), between(), expanding in_() and limit()
    give the rows, and read what (RCU), the literal SQL does: ``SK LIKE :p`` with p =
    'root/photos/%' is the begins_with Query, not a Query of the whole partition."""
    engine = engine_for(moto_examples_backend)
    drive = sa.Table(
        "drive",
        sa.MetaData(),
        sa.Column("PK", sa.String, primary_key=True),
        sa.Column("SK", sa.String, primary_key=True),
    )
    sk = drive.c.SK
    cases = [
        (sk.like("root/photos/%"), "SK LIKE 'root/photos/%'"),
        (sk.startswith("root/photos/"), "begins_with(SK, 'root/photos/')"),
        (sk.startswith("root/photos/", autoescape=True), "SK LIKE 'root/photos/%'"),
        (sk.endswith(".jpg"), "SK LIKE '%.jpg'"),
        (sk.contains("photos"), "SK LIKE '%photos%'"),
        (sk.contains("_", autoescape=True), "SK LIKE '%/_%' ESCAPE '/'"),
        (sk.between("root/a", "root/q"), "SK BETWEEN 'root/a' AND 'root/q'"),
        (sk.in_(["root/", "root/photos/"]), "SK IN ('root/', 'root/photos/')"),
    ]
    with engine.connect() as conn:
        for condition, written in cases:
            bound = conn.execute(select(sk).where(drive.c.PK == "DRIVE#alice", condition))
            bound_cursor = bound.cursor
            rows = bound.all()
            literal = conn.exec_driver_sql(
                f"SELECT SK FROM drive WHERE PK = 'DRIVE#alice' AND {written}"
            )
            literal_cursor = literal.cursor
            assert rows == literal.all() and rows, written
            assert bound_cursor.consumed == literal_cursor.consumed, written
        limited = select(sk).where(drive.c.PK == "DRIVE#alice").order_by(sk).limit(2)
        assert [r.SK for r in conn.execute(limited)] == ["root/", "root/archive/"]
        # an expression of values: LIMIT :param_1 + :param_2, folded once bound
        summed = select(sk).where(drive.c.PK == "DRIVE#alice").order_by(sk).limit(sa.literal(1) + 1)
        assert [r.SK for r in conn.execute(summed)] == ["root/", "root/archive/"]
    engine.dispose()


def test_core_case_cast_distinct_from_and_values_alone_run(moto_examples_backend: Backend):
    """What SQLAlchemy's compliance suite found missing, through Core: a select() of values
    alone is one row computed client-side, no request; case(), cast(), lower(),
    is_distinct_from() and a boolean column alone compile to dynosql's SQL and give the rows
    the text SQL gives; a column selected twice is described twice."""
    engine = engine_for(moto_examples_backend)
    drive = sa.Table(
        "drive",
        sa.MetaData(),
        *(sa.Column(k, sa.String, primary_key=True) for k in ("PK", "SK")),
        sa.Column("name", sa.String),
        sa.Column("size", sa.Numeric),
    )
    with engine.connect() as conn:
        values = conn.execute(
            select(sa.literal(7) // 2, sa.cast("2.5", sa.Integer), sa.literal(1) / 4)
        )
        assert values.cursor.consumed.rcu == 0 and values.all() == [(3, 3, Decimal("0.25"))]
        kind = sa.case((drive.c.size > 1000, "big"), else_="small").label("kind")
        query = select(drive.c.SK, kind, sa.cast(drive.c.size, sa.Integer).label("n")).where(
            drive.c.PK == "DRIVE#alice",
            func.lower(drive.c.name).like("%.jpg"),
            drive.c.size.is_distinct_from(None),
        )
        rows = conn.execute(query).all()
        written = conn.exec_driver_sql(
            "SELECT SK, CASE WHEN size > 1000 THEN 'big' ELSE 'small' END AS kind, "
            "CAST(size AS INTEGER) AS n FROM drive WHERE PK = 'DRIVE#alice' "
            "AND LOWER(name) LIKE '%.jpg' AND size IS DISTINCT FROM NULL"
        ).all()
        assert rows == written and rows
        twice = conn.execute(
            select(drive.c.SK, drive.c.SK.label("SK")).where(drive.c.PK == "DRIVE#alice").limit(1)
        )
        assert [d[0] for d in twice.cursor.description] == ["SK", "SK"]
        assert twice.all()[0] == ("root/", "root/")
    engine.dispose()


def test_core_joins_run_as_dynosqls_joins(moto_examples_backend: Backend):
    """join() and outerjoin() with an ON clause, of aliased tables or not, compile to dynosql's
    JOIN and LEFT JOIN with every column qualified by its source (``"u"."email"``), and give
    the rows the same join written as text SQL gives; a join neither form serves reaches the
    engine, whose one-line refusal is the error. Over examples/entities.sql's tenant entities,
    declared on the connection."""
    engine = engine_for(moto_examples_backend)
    metadata = sa.MetaData()
    user = sa.Table(
        "tenant_user",
        metadata,
        *(sa.Column(k, sa.String, primary_key=True) for k in ("tenantId", "email")),
        sa.Column("name", sa.String),
    )
    invoice = sa.Table(
        "invoice",
        metadata,
        *(sa.Column(k, sa.String, primary_key=True) for k in ("tenantId", "invoiceId")),
        sa.Column("status", sa.String),
        sa.Column("amount", sa.Numeric),
    )
    with engine.connect() as conn:
        conn.exec_driver_sql(
            "CREATE ENTITY tenant_user ON tenants "
            "(KEY (pk = 'TENANT#' || tenantId, sk = 'USER#' || email))"
        )
        conn.exec_driver_sql(
            "CREATE ENTITY invoice ON tenants "
            "(KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId))"
        )
        u, i = user.alias("u"), invoice.alias("i")
        collection = (
            select(u.c.email, i.c.invoiceId, i.c.amount)
            .join_from(u, i, i.c.tenantId == u.c.tenantId)
            .where(u.c.tenantId == "hooli", i.c.status == "open")
            .order_by(u.c.email, i.c.invoiceId)
        )
        compiled = str(collection.compile(engine))
        assert 'FROM "tenant_user" AS "u" JOIN "invoice" AS "i" ON "i"."tenantId" = ' in compiled
        rows = conn.execute(collection).all()
        alone = select(u.c.email).where(u.c.tenantId == "hooli")  # one source: bare columns
        assert str(alone.compile(engine)).startswith('SELECT "email" \nFROM "tenant_user" AS "u"')
        assert {r.email for r in rows} == set(conn.execute(alone).scalars())
        written = conn.exec_driver_sql(
            "SELECT u.email, i.invoiceId, i.amount FROM tenant_user u JOIN invoice i "
            "ON i.tenantId = u.tenantId WHERE u.tenantId = 'hooli' AND i.status = 'open' "
            "ORDER BY u.email, i.invoiceId"
        ).all()
        assert rows == written and len({r.email for r in rows}) > 1
        left = (
            select(user.c.email, invoice.c.tenantId, invoice.c.invoiceId)
            .select_from(user.outerjoin(invoice, invoice.c.tenantId == user.c.tenantId))
            .where(user.c.tenantId == "hooli")
            .order_by(invoice.c.invoiceId)
            .limit(2)
        )
        result = conn.execute(left)
        assert list(result.keys()) == ["email", "tenantId", "invoiceId"]
        assert [tuple(r) for r in result] == [
            tuple(r)
            for r in conn.exec_driver_sql(
                "SELECT tenant_user.email, invoice.tenantId, invoice.invoiceId "
                "FROM tenant_user LEFT JOIN invoice ON invoice.tenantId = tenant_user.tenantId "
                "WHERE tenant_user.tenantId = 'hooli' ORDER BY invoice.invoiceId LIMIT 2"
            )
        ]
        with pytest.raises(exc.DBAPIError, match=r"cannot join invoice \(entity invoice\)"):
            conn.execute(select(user.c.email).join(invoice, invoice.c.amount == user.c.name))
        with pytest.raises(exc.DBAPIError, match="FULL JOIN is not supported"):
            conn.execute(
                select(user.c.email).join(invoice, invoice.c.tenantId == user.c.tenantId, full=True)
            )
    engine.dispose()


@pytest.mark.parametrize(
    ("build", "construct"),
    [
        (lambda d, s: select(d.c.PK).limit(3).offset(2), "OFFSET"),
        (lambda d, s: sa.union(select(d.c.PK), select(s.c.deviceId)), "UNION"),
        (lambda d, s: select(d.c.PK).where(d.c.PK.in_(select(s.c.deviceId))), "subquery"),
        (lambda d, s: select(func.md5(d.c.name)), "md5()"),
        (lambda d, s: select(d.c.PK, s.c.deviceId), "FROM of several tables"),
        (lambda d, s: select(func.count().over(order_by=d.c.SK)), "window function"),
        (lambda d, s: select(sa.extract("year", d.c.name)), "EXTRACT"),
        (lambda d, s: select(d.c.PK).where(d.c.name.ilike("a%")), "ILIKE"),
        (lambda d, s: sa.update(d).values(name="x").returning(d.c.PK), "RETURNING"),
        (lambda d, s: sa.delete(d).returning(d.c.PK), "RETURNING"),
        (lambda d, s: select(d.c.PK).with_for_update(), "FOR UPDATE"),
        (lambda d, s: select(select(d.c.PK).cte().c.PK), "WITH"),
    ],
)
def test_constructs_outside_the_subset_raise_compile_error(build: Any, construct: str):
    metadata = sa.MetaData()
    drive = sa.Table(
        "drive",
        metadata,
        sa.Column("PK", sa.String),
        sa.Column("SK", sa.String),
        sa.Column("name", sa.String),
        sa.Column("size", sa.Numeric),
    )
    sensors = sa.Table("sensors", metadata, sa.Column("deviceId", sa.String))
    with pytest.raises(exc.CompileError, match=construct.replace("(", r"\(").replace(")", r"\)")):
        build(drive, sensors).compile(dialect=DynosqlDialect())


def test_create_all_declares_the_key_and_refuses_what_dynamodb_cannot_hold():
    from sqlalchemy.schema import CreateIndex, CreateTable

    metadata = sa.MetaData()
    orders = sa.Table(
        "orders",
        metadata,
        sa.Column("customer", sa.String(40), primary_key=True),
        sa.Column("created", sa.DateTime, primary_key=True),
        sa.Column("total", sa.Numeric, nullable=False),  # not a key: needs no declaration
        sa.Column("status", sa.String),
    )
    by_status = sa.Index("by_status", orders.c.status, orders.c.total)
    dialect = DynosqlDialect()
    assert str(CreateTable(orders).compile(dialect=dialect)) == (
        'CREATE TABLE "orders" ("customer" S, "created" S, PRIMARY KEY ("customer", "created"))'
    )
    assert str(CreateIndex(by_status).compile(dialect=dialect)) == (
        'CREATE INDEX "by_status" ON "orders" ("status" S, "total" N)'
    )
    keyless = sa.Table("keyless", metadata, sa.Column("a", sa.Integer))
    with pytest.raises(exc.CompileError, match="primary key is one column .* found 0"):
        CreateTable(keyless).compile(dialect=dialect)
    child = sa.Table(
        "child",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("order", sa.String, sa.ForeignKey("orders.customer")),
    )
    with pytest.raises(exc.CompileError, match="FOREIGN KEY constraint on child"):
        CreateTable(child).compile(dialect=dialect)
    flagged = sa.Table("flagged", metadata, sa.Column("on", sa.Boolean, primary_key=True))
    with pytest.raises(exc.CompileError, match="a key is a string, number or binary"):
        CreateTable(flagged).compile(dialect=dialect)


def test_core_insert_many_is_one_batched_statement(moto_backend: Backend, table_name: str):
    moto_backend.create_keyed_table(table_name, pk=("pk", "S"), sk=("sk", "N"))
    engine = engine_for(moto_backend)
    with engine.begin() as conn:
        table = sa.Table(table_name, sa.MetaData(), autoload_with=conn)
        result = conn.execute(sa.insert(table), [{"pk": "a", "sk": i} for i in range(12)])
        assert result.rowcount == 12
        count = conn.execute(text(f"SELECT COUNT(*) FROM {table_name} WHERE pk = 'a'"))
        assert count.scalar() == 12
    engine.dispose()


def _cli_json(backend: Backend, sql: str, tmp_path: Path) -> list[dict[str, Any]]:
    from cli_runner import cli_env

    run = run_cli(
        "--endpoint-url", backend.endpoint_url, "--format", "json", "-e", sql, env=cli_env(tmp_path)
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout, parse_float=Decimal, parse_int=Decimal)


@pytest.mark.slow  # pandas's import and the CLI's run (about 1-2 s)
def test_pandas_read_sql_equals_the_clis_json(moto_examples_backend: Backend, tmp_path: Path):
    pd = pytest.importorskip("pandas")
    sql = "SELECT SK, name, size FROM drive WHERE PK = 'DRIVE#alice' AND begins_with(SK, 'root/photos/')"
    expected = _cli_json(moto_examples_backend, sql, tmp_path)
    engine = engine_for(moto_examples_backend)
    exact = pd.read_sql(sql, engine, coerce_float=False)
    assert list(exact.columns) == ["SK", "name", "size"]
    assert exact.to_dict("records") == [
        {"SK": r["SK"], "name": r["name"], "size": r.get("size")} for r in expected
    ]
    # pandas's default (coerce_float=True) turns Decimal into float64, NaN for a missing size
    default = pd.read_sql(sql, engine)
    assert default["size"].dtype == "float64"
    assert pd.api.types.is_string_dtype(default["name"])
    for got, row in zip(default["size"], expected, strict=True):
        assert (math.isnan(got) and "size" not in row) or Decimal(str(got)) == row["size"]
    engine.dispose()


@pytest.mark.slow  # pandas's import (about 1 s)
@pytest.mark.filterwarnings("ignore:Scan of")
def test_pandas_to_sql_read_sql_table_counts_and_chunks(moto_backend: Backend, table_name: str):
    """to_sql(if_exists='append') writes through the dialect's INSERT; read_sql_table reflects
    and reads the table back; COUNT(*) arrives as int64 (not float64); read_sql(chunksize=n)
    streams: its first chunk has cost one Scan page of the two the table takes."""
    pd = pytest.importorskip("pandas")
    moto_backend.create_keyed_table(table_name, pk=("owner", "S"), sk=("n", "N"))
    engine = engine_for(moto_backend)
    frame = pd.DataFrame(
        {"owner": ["ann", "ann", "bo"], "n": [1, 2, 3], "weight": [1.5, None, 2.25]}
    )
    assert frame.to_sql(table_name, engine, if_exists="append", index=False) == 3
    back = pd.read_sql_table(table_name, engine, coerce_float=False)
    assert sorted(back.columns) == ["n", "owner", "weight"]
    assert back.sort_values("n")[["owner", "n"]].values.tolist() == [
        ["ann", Decimal(1)],
        ["ann", Decimal(2)],
        ["bo", Decimal(3)],
    ]
    counts = pd.read_sql(
        f"SELECT owner, COUNT(*) AS items FROM {table_name} GROUP BY owner ORDER BY owner",
        engine,
    )
    assert counts["items"].dtype == "int64" and counts["items"].tolist() == [2, 1]
    pad = "x" * 4000  # 300 items of 4 KB: two 1 MB Scan pages
    moto_backend.put_items(
        table_name, [{"owner": "pad", "n": Decimal(i), "pad": pad} for i in range(300)]
    )
    cursors: list[Any] = []
    sa.event.listen(engine, "after_cursor_execute", lambda *args: cursors.append(args[1]))
    chunks = pd.read_sql(f"SELECT n FROM {table_name}", engine, chunksize=50)
    first = next(chunks)
    assert len(first) == 50 and cursors[-1].result.stats.requests == 1
    assert sum(len(c) for c in chunks) == 253 and cursors[-1].rowcount == 303
    engine.dispose()


@pytest.mark.slow  # the embedded backend loads the example tables (about 2-3 s)
def test_jupysql_magic_in_an_ipython_shell(
    moto_examples_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    pytest.importorskip("sql")
    monkeypatch.setenv("PLOOMBER_STATS_ENABLED", "false")  # no telemetry from the tests
    monkeypatch.setenv("HOME", str(tmp_path))
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "sql")
        shell.run_line_magic("sql", "dynosql+local://?journal_dir=off")
        sql = (
            "SELECT deviceId, COUNT(*) AS n FROM sensors GROUP BY deviceId ORDER BY n DESC LIMIT 3"
        )
        with pytest.warns(Warning, match="Scan of sensors"):
            result = shell.run_line_magic("sql", sql)
        expected = _cli_json(moto_examples_backend, sql, tmp_path)
        assert [tuple(r) for r in result] == [(r["deviceId"], r["n"]) for r in expected]
        frame = result.DataFrame()
        assert list(frame.columns) == ["deviceId", "n"] and len(frame) == 3
        cell = shell.run_cell("%sql SELECT SK FROM drive WHERE PK = 'DRIVE#alice' LIMIT 2")
        assert cell.success and [tuple(r) for r in cell.result] == [("root/",), ("root/archive/",)]
    finally:
        shell.run_line_magic("sql", "--close dynosql+local://?journal_dir=off")
        InteractiveShell.clear_instance()
