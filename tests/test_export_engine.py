"""--engine export and FROM EXPORT on moto: moto implements ExportTableToPointInTime into its own
S3 (served on the same endpoint), so the whole path runs: PITR checked, export started and
waited for, gzip DynamoDB JSON read, DuckDB answering. Every answer is compared with the Scan's.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter
from decimal import Decimal

import pytest
from backends import offline_client, start, unique_name
from cli_runner import cli_env, run_cli

from dynosql.errors import ExecutionError
from dynosql.session import Session
from dynosql.sql import ast

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def exported():
    """A moto server of this module's own (the shared example servers stay untouched): the
    example tables with PITR on, a bucket for exports, and a table of 38-digit numbers."""
    backend = start("moto")
    try:
        backend.load_examples()
        yield _prepare(backend)
    finally:
        backend.stop()


def _prepare(backend):  # noqa: ANN001, ANN202
    """Exports go to the server's own bucket (backend.local.bucket, as --local's); made here,
    not by the first export, so that any test may run first."""
    Session(backend.client()).port.aws_client("s3").create_bucket(Bucket=backend.local.bucket)
    big = unique_name("big")
    backend.create_table(
        TableName=big,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    numbers = [
        "99999999999999999999999999999999999999",
        "12345678901234567890123456789012345678",
        "0.12345678901234567890123456789012345678",
        "-98765432109876543210987654321098765432",
        "1E+125",
        "3.5",
    ]
    items = [
        {
            "id": f"k{i}",
            "grp": "ab"[i % 2],
            "v": Decimal(n),
            "tags": {"x", f"t{i}"},
            "doc": {"a": [Decimal(i)]},
        }
        for i, n in enumerate(numbers)
    ]
    from dynosql import values

    for item in items:
        item["tags"] = values.StringSet(item["tags"])
    backend.put_items(big, items)
    # the bucket and PITR as --local prepares them, for this module's tables too
    backend.local.prepare_exports(["drive", "audit", "sensors", "tenants", "usage", big])
    return backend, big


_EXPORT_SESSIONS: dict[str, Session] = {}


def _both(backend, sql: str) -> tuple[list[dict], list[dict]]:
    """The Scan's answer and the export engine's; one export per table for the module (the
    engine reuses a session's export, as it would for a user)."""
    scan = Session(backend.client()).execute(sql).all()
    session = _EXPORT_SESSIONS.get(backend.endpoint_url)
    if session is None:
        session = _EXPORT_SESSIONS[backend.endpoint_url] = Session(backend.client())
        session.set("engine", "export")
        session.set("export_s3", f"s3://{backend.local.bucket}/t/")
    return scan, session.execute(sql).all()


def _key(row: dict) -> str:
    """Rows compared by value: 253.10 (a Scan's exact sum) equals 253.1."""
    from dynosql.values import format_number

    return json.dumps(
        {k: format_number(v) if isinstance(v, Decimal) else v for k, v in row.items()},
        sort_keys=True,
        default=str,
    )


GROUP_BYS = [
    "SELECT deviceId, COUNT(*), SUM(temperature), AVG(temperature), MIN(humidity), MAX(humidity) FROM sensors GROUP BY deviceId",
    "SELECT region, COUNT(humidity), COUNT(DISTINCT deviceId) FROM sensors WHERE temperature >= 15.25 GROUP BY region",
    "SELECT action, COUNT(*) AS n FROM audit GROUP BY action ORDER BY n DESC, action LIMIT 3",
    "SELECT COUNT(*), MIN(SK), MAX(SK) FROM drive WHERE begins_with(PK, 'DRIVE#')",
    "SELECT region, COUNT(*) FROM sensors WHERE region <> 'eu-west' GROUP BY region HAVING COUNT(*) > 10",
    "SELECT * FROM tenants WHERE pk = 'TENANT#acme' ORDER BY sk DESC LIMIT 4",
    # document paths: each loaded as a column of its own, resolved as the Scan resolves them
    "SELECT meta.artist, COUNT(*) AS n, SUM(meta.durationSec) AS secs, MAX(meta.durationSec) "
    "FROM drive WHERE meta.durationSec > 200 GROUP BY meta.artist ORDER BY n DESC, meta.artist",
    "SELECT SK, meta.iso, meta.geo.country, tags FROM drive WHERE meta.iso >= 800 "
    "AND begins_with(meta.geo.country, 'P') ORDER BY meta.iso DESC, SK LIMIT 5",
    "SELECT SK, meta.geo FROM drive WHERE attribute_exists(meta.geo) AND meta.camera <> 'x' "
    "ORDER BY SK LIMIT 3",
]


@pytest.mark.slow
@pytest.mark.parametrize("sql", GROUP_BYS)
def test_export_engine_equals_the_scan(exported, sql: str) -> None:
    backend, _big = exported
    scan, export = _both(backend, sql)
    assert scan, "the statement should return rows"
    if "ORDER BY" in sql:
        assert export == scan
        assert list(map(_key, export)) == list(map(_key, scan))
    else:
        assert Counter(map(_key, export)) == Counter(map(_key, scan))


@pytest.mark.slow
def test_38_digit_sums_sets_and_maps_are_exact(exported) -> None:
    backend, big = exported
    sql = (
        f"SELECT grp, SUM(v), MIN(v), MAX(v), AVG(v), COUNT(*) FROM {big} GROUP BY grp ORDER BY grp"
    )
    scan, export = _both(backend, sql)
    assert export == scan
    from dynosql.values import format_number

    # group a: 99…9 (38 digits) + 0.1234…78 (38 decimals) + 1E+125, exactly: 164 digits
    digits = format_number(export[0]["SUM(v)"]).replace(".", "")
    assert len(digits) == 164 and digits.startswith("1000") and digits.endswith("12345678")
    rows = _both(backend, f"SELECT id, tags, doc, v FROM {big} WHERE v > 3.4 ORDER BY id")
    assert rows[1] == rows[0]
    assert rows[1][0]["tags"] == {"x", "t0"} and rows[1][0]["doc"] == {"a": [Decimal(0)]}


@pytest.mark.slow
def test_from_export_reads_an_existing_export_by_prefix_and_arn(exported) -> None:
    backend, _big = exported
    session = Session(backend.client())
    session.set("engine", "export")
    session.set("export_s3", f"s3://{backend.local.bucket}/again/")
    expected = [{"COUNT(*)": Decimal(backend.datasets["tenants"])}]
    assert session.execute("SELECT COUNT(*) FROM tenants").all() == expected
    arn = session.context.exports["tenants"]
    plain = Session(backend.client())
    by_arn = plain.execute(f"SELECT COUNT(*) FROM EXPORT '{arn}' AS tenants").all()
    by_prefix = plain.execute(
        f"SELECT COUNT(*) FROM EXPORT 's3://{backend.local.bucket}/again/tenants/' AS tenants"
    ).all()
    assert by_arn == by_prefix == expected


@pytest.mark.slow
def test_an_export_taken_by_an_interrupted_statement_is_reused(exported) -> None:
    """Ctrl-C while the export runs (its first progress report) stops the statement after
    ExportTableToPointInTime: the interrupt carries the ARN to the session, and the next
    statement reads that export instead of starting a second one."""
    backend, _big = exported
    started: list[str] = []

    class CtrlC:
        def __call__(self, stats) -> None:  # noqa: ANN001
            raise KeyboardInterrupt

        def clear(self) -> None:
            pass

    session = Session(backend.client(), progress=CtrlC())
    session.client.meta.events.register(
        "before-call.dynamodb.ExportTableToPointInTime", lambda **_: started.append("export")
    )
    session.set("engine", "export")
    session.set("export_s3", f"s3://{backend.local.bucket}/stopped/")
    with pytest.raises(KeyboardInterrupt):
        session.execute("SELECT COUNT(*) FROM usage").all()
    arn = session.context.exports["usage"]
    assert started == ["export"]
    session.progress = None
    result = session.execute("SELECT COUNT(*) FROM usage")
    assert result.all() == [{"COUNT(*)": Decimal(backend.datasets["usage"])}]
    assert started == ["export"]
    assert f"reuse this export elsewhere with FROM EXPORT '{arn}' AS t" in result.notes


def _put(backend, key: str, body: bytes) -> None:
    Session(backend.client()).port.aws_client("s3").put_object(
        Bucket=backend.local.bucket, Key=key, Body=body
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"bad1/AWSDynamoDB/e1/data/a.json.gz": b"not gzip"}, "is not gzip-compressed"),
        (
            {
                "bad2/AWSDynamoDB/e1/data/a.json.gz": gzip.compress(
                    b'{"Item": {"id": {"S": "a"}}}\n{"oops": 1}\n'
                )
            },
            "line 2",
        ),
        (
            {
                "bad3/AWSDynamoDB/e1/manifest-files.json": json.dumps(
                    {"dataFileS3Key": "bad3/AWSDynamoDB/e1/data/missing.json.gz", "itemCount": 3}
                ).encode(),
            },
            "partial export",
        ),
        ({"bad4/other/file.txt": b"x"}, "no DynamoDB export"),
    ],
)
def test_malformed_or_partial_exports_are_clear_errors(exported, files, message) -> None:
    backend, _big = exported
    prefix = next(iter(files)).split("/")[0]
    for key, body in files.items():
        _put(backend, key, body)
    session = Session(backend.client())
    with pytest.raises(ExecutionError, match=message):
        session.execute(
            f"SELECT COUNT(*) FROM EXPORT 's3://{backend.local.bucket}/{prefix}/' AS t"
        ).all()


def test_pitr_off_says_so_and_what_it_costs(moto_backend, table_name) -> None:
    moto_backend.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    session = Session(moto_backend.client())
    session.set("engine", "export")
    session.set("export_s3", "s3://somewhere/x/")
    with pytest.raises(
        ExecutionError,
        match=rf"point-in-time recovery.*ALTER TABLE {table_name} SET POINT IN TIME RECOVERY ON"
        r".*update-continuous-backups.*per GB-month",
    ):
        session.execute(f"SELECT COUNT(*) FROM {table_name}")


def test_export_engine_needs_a_location(moto_backend) -> None:
    session = Session(moto_backend.client())
    session.set("engine", "export")
    with pytest.raises(ExecutionError, match="--export-s3"):
        session.execute("SELECT COUNT(*) FROM anything")


def test_missing_duckdb_is_one_clear_message(monkeypatch) -> None:
    from dynosql.engines.duck import require_duckdb

    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(ExecutionError, match=r"pip install 'dynosql\[export\]'"):
        require_duckdb()


@pytest.mark.slow
def test_the_command_line_runs_the_export_engine(exported, tmp_path) -> None:
    backend, _big = exported
    run = run_cli(
        "--endpoint-url",
        backend.endpoint_url,
        "--engine",
        "export",
        "--export-s3",
        f"s3://{backend.local.bucket}/cli/",
        "--format",
        "csv",
        "-e",
        "SELECT action, COUNT(*) AS n FROM audit GROUP BY action ORDER BY n DESC, action LIMIT 2",
        env=cli_env(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "action,n"
    assert "→ DuckDB" in run.stderr
    bad = run_cli(
        "--endpoint-url", backend.endpoint_url, "--engine", "export", "-e", "SELECT COUNT(*) FROM audit",
        env=cli_env(tmp_path),
    )  # fmt: skip
    assert bad.returncode == 1 and bad.one_error().startswith("error: --engine export needs")


def test_no_scan_confirmation_for_a_statement_the_export_answers() -> None:
    from dynosql.dynamo.capabilities import DYNAMODB
    from dynosql.sql import parse

    session = Session(offline_client(), capabilities=DYNAMODB)
    exported_statement = parse("SELECT COUNT(*) FROM EXPORT 's3://b/p/' AS t")
    assert session.planned(exported_statement).scans == ()
    session.set("engine", "export")
    assert session.planned(parse("SELECT COUNT(*) FROM t")).scans == ()


def test_tablesample_is_not_dropped_by_the_export_engines() -> None:
    from dynosql.dynamo.capabilities import DYNAMODB
    from dynosql.errors import PlanError

    session = Session(offline_client(), capabilities=DYNAMODB)
    with pytest.raises(PlanError, match="TABLESAMPLE samples a DynamoDB Scan"):
        session.execute("SELECT COUNT(*) FROM EXPORT 's3://b/p/' AS t TABLESAMPLE (5 PERCENT)")


@pytest.mark.slow
def test_local_answers_with_the_export_engine_and_no_setup(moto_examples_backend, tmp_path) -> None:
    """`dynosql --local --engine export -e …`: no --export-s3, no PITR command; the answer is
    the Scan's (of the same example data), and the printed ARN is DynamoDB's shape, not moto's
    nested one."""
    sql = "SELECT action, COUNT(*) AS n FROM audit GROUP BY action ORDER BY n DESC, action"
    export = run_cli(
        "--local", "--engine", "export", "--format", "json", "-e", sql, env=cli_env(tmp_path)
    )
    assert export.returncode == 0, export.stderr
    scan = Session(moto_examples_backend.client()).execute(sql).all()
    assert (
        json.loads(export.stdout) == [{"action": r["action"], "n": int(r["n"])} for r in scan] != []
    )
    assert "→ DuckDB" in export.stderr and "s3://dynosql-local-" in export.stderr
    arns = set(re.findall(r"arn:aws:dynamodb:\S+?(?=[ ']|$)", export.stderr))
    assert len(arns) == 1, export.stderr
    assert re.fullmatch(
        r"arn:aws:dynamodb:us-east-1:\d{12}:table/audit/export/\d{14}-[0-9a-f]{8}", arns.pop()
    )


@pytest.mark.slow
def test_embedded_exports_are_shaped_like_dynamodb(exported) -> None:
    """The export ARN, the folder named by its id, manifest-files.json listing the data file
    (so the engine's partial-export check runs on --local too) and the billed size: the item
    sizes by DynamoDB's rules, as the table's own size would be."""
    backend, _big = exported
    session = Session(backend.client())
    session.set("engine", "export")
    session.set("export_s3", f"s3://{backend.local.bucket}/shape/")
    result = session.execute("SELECT COUNT(*) FROM tenants")
    assert result.all() == [{"COUNT(*)": Decimal(backend.datasets["tenants"])}]
    arn = session.context.exports["tenants"]
    table_arn = backend.client().describe_table(TableName="tenants")["Table"]["TableArn"]
    export_id = arn.removeprefix(table_arn + "/export/")
    assert re.fullmatch(r"\d{14}-[0-9a-f]{8}", export_id), arn
    s3 = session.port.aws_client("s3")
    keys = [
        o["Key"]
        for o in s3.list_objects_v2(Bucket=backend.local.bucket, Prefix="shape/")["Contents"]
    ]
    folder = next(k for k in keys if k.endswith("/manifest-files.json")).rsplit("/", 1)[0]
    assert folder.endswith(f"/AWSDynamoDB/{export_id}")
    manifest = json.loads(
        s3.get_object(Bucket=backend.local.bucket, Key=f"{folder}/manifest-files.json")[
            "Body"
        ].read()
    )
    assert manifest["dataFileS3Key"] in keys and manifest["dataFileS3Key"].endswith(".json.gz")
    assert manifest["itemCount"] == backend.datasets["tenants"]
    from dynosql import values

    items = Session(backend.client()).execute("SELECT * FROM tenants").all()
    described = backend.client().describe_export(ExportArn=arn)["ExportDescription"]
    assert described["BilledSizeBytes"] == sum(values.item_size(i) for i in items)
    assert not any("no manifest" in n for n in result.notes)


@pytest.mark.slow
def test_list_elements_and_paths_next_to_a_dotted_attribute(exported) -> None:
    """`doc.a[0]` reads the list's element (missing where the list is shorter); an attribute
    named "doc.a" would be another column: a path's column is marked as a path."""
    backend, big = exported
    sql = f"SELECT id, doc.a[0] AS first, doc.a[1] FROM {big} WHERE doc.a[0] >= 2 ORDER BY id"
    scan, export = _both(backend, sql)
    assert export == scan == [{"id": f"k{i}", "first": Decimal(i)} for i in range(2, 6)]


def test_a_paths_column_never_meets_an_attribute_named_with_a_dot() -> None:
    from dynosql.engines.sqlgen import key, shown

    dotted = ast.Path(("doc.a",), '"doc.a"')
    nested = ast.Path(("doc", "a", 0), "doc.a[0]")
    assert key(dotted) == "doc.a" and key(nested) != "doc.a[0]"
    assert shown(key(nested)) == "doc.a[0]"


# Expressions under the export engine: each expression of an item's attributes is a DuckDB
# column computed while loading by dynosql's own evaluator; expressions over aggregates are
# computed from DuckDB's groups by dynosql's pipeline. The answers must be the Scan's.
EXPRESSIONS = [  # on usage (300 items): each statement re-reads its export
    "SELECT SUBSTR(sk, 12, 2) AS hour, COUNT(*) AS calls, ROUND(AVG(latencyMs), 2) AS ms "
    "FROM usage GROUP BY hour ORDER BY hour",
    "SELECT SPLIT_PART(pk, '#', 1) AS tenant, CASE WHEN status >= 400 THEN 'fail' ELSE 'ok' END "
    "AS outcome, COUNT(*) AS calls, COUNT(DISTINCT pk) AS shards, SUM(latencyMs * 2) AS twice, "
    "SUM(ITEM_SIZE()) AS bytes "
    "FROM usage GROUP BY tenant, outcome HAVING COUNT(*) * 10 >= 50 "
    "ORDER BY MAX(latencyMs) - MIN(latencyMs) DESC, tenant LIMIT 6",
    # `nope` is on no item: NOT is plain negation (every item), an expression of it is NULL
    # (IS NULL, = NULL hold), and that NULL is shown as a value
    "SELECT pk, sk, endpoint || nope AS e FROM usage WHERE NOT (nope = 1) "
    "AND SUBSTR(nope, 1, 2) IS NULL AND endpoint || nope = NULL ORDER BY pk, sk LIMIT 3",
    # SELECT *: the items' attributes, not the expressions' columns
    "SELECT * FROM usage WHERE LENGTH(endpoint) > 12 AND SUBSTR(sk, 12, 2) = '10' "
    "ORDER BY pk, sk LIMIT 2",
]


@pytest.mark.slow
def test_expressions_on_the_export_engine_equal_the_scan(exported) -> None:
    backend, _big = exported
    for sql in EXPRESSIONS:
        scan, export = _both(backend, sql)
        assert scan, sql
        assert export == scan, sql
        assert list(map(_key, export)) == list(map(_key, scan)), sql


def test_the_export_engines_explain_where_expressions_are_computed() -> None:
    """Offline: the DuckDB SQL reads each expression's column (one spelling for SUBSTR and
    SUBSTRING), NOT keeps a missing attribute's item, and an expression over aggregates is
    left to dynosql after the grouping; Athena refuses expressions in one sentence."""
    from dynosql.dynamo.capabilities import DYNAMODB
    from dynosql.errors import PlanError

    session = Session(offline_client(), capabilities=DYNAMODB)
    sql = (
        "EXPLAIN SELECT SUBSTRING(sk, 1, 3) AS k, ROUND(AVG(n * 2), 1) AS a FROM EXPORT "
        "'s3://b/p/' AS t WHERE NOT (x = 1) GROUP BY SUBSTR(sk, 1, 3)"
    )
    text = "\n".join(line["plan"] for line in session.execute(sql))
    assert "computed by dynosql per item while loading: SUBSTR(sk, 1, 3); n * 2" in text
    assert 'GROUP BY "SUBSTR(sk, 1, 3) (expression)"' in text
    assert 'SUM("n * 2 (expression)")' in text and "NOT COALESCE(" in text
    assert "then dynosql, over those groups" in text
    session.set("engine", "athena")
    with pytest.raises(PlanError, match=r"athena engine does not support expressions such as"):
        session.execute("SELECT UPPER(sk) FROM t")
