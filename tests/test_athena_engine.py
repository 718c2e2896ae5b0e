"""--engine athena against the API contract: botocore's Stubber checks the shape of every Athena
request (the DDL over the export, the statement in Athena's dialect, the result paging) and
feeds back responses in the documented shapes. No live Athena service is involved."""

from __future__ import annotations

from decimal import Decimal

import pytest
from backends import offline_client
from botocore.stub import Stubber

from dynosql.dynamo.capabilities import DYNAMODB
from dynosql.engines import athena
from dynosql.engines.prices import compare, parse_prices
from dynosql.session import Session
from dynosql.sql import ast, parse

LOCATION = "s3://exports-bkt/dyno/sensors/AWSDynamoDB/01700000000000-abcdef12/data/"
SQL = (
    f"SELECT region, COUNT(*) AS n, SUM(temperature), AVG(temperature) FROM EXPORT '{LOCATION}' "
    "AS sensors WHERE temperature > 15.5 GROUP BY region ORDER BY n DESC LIMIT 2"
)
NAME = athena.table_name(LOCATION)
DDL = (
    f"CREATE EXTERNAL TABLE IF NOT EXISTS `default`.`{NAME}` (\n"
    "  `item` struct<\n"
    "    `region`: struct<s: string, n: string, bool: boolean, b: string>,\n"
    "    `temperature`: struct<s: string, n: string, bool: boolean, b: string>\n"
    "  >\n)\n"
    "ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n"
    "WITH SERDEPROPERTIES ('case.insensitive' = 'true')\n"
    f"LOCATION '{LOCATION}'"
)
NUM = 'CAST(item."temperature".n AS DECIMAL(38, 10))'
QUERY = (
    f'SELECT item."region".s AS "region", COUNT(*) AS "n", SUM({NUM}) AS "SUM(temperature)", '
    f'SUM({NUM}) AS "__dynosql_sum AVG(temperature)", '
    f'COUNT({NUM}) AS "__dynosql_count AVG(temperature)", NULL AS "AVG(temperature)" '
    f"FROM default.{NAME} WHERE {NUM} > CAST('15.5' AS DECIMAL(38, 10)) "
    'GROUP BY item."region".s ORDER BY COUNT(*) DESC NULLS FIRST LIMIT 2'
)


def _session() -> tuple[Session, Stubber]:
    session = Session(offline_client("dynamodb"), capabilities=DYNAMODB)
    session.set("engine", "athena")
    session.set("athena_workgroup", "analysts")
    session.set("athena_output", "s3://athena-results/dynosql/")
    client = offline_client("athena")
    session.port._aws_clients["athena"] = client
    return session, Stubber(client)


def _start(stub: Stubber, sql: str, query_id: str) -> None:
    stub.add_response(
        "start_query_execution",
        {"QueryExecutionId": query_id},
        {
            "QueryString": sql,
            "QueryExecutionContext": {"Database": "default"},
            "WorkGroup": "analysts",
            "ResultConfiguration": {"OutputLocation": "s3://athena-results/dynosql/"},
        },
    )


def _state(stub: Stubber, query_id: str, state: str, reason: str = "") -> None:
    status = {"State": state, **({"StateChangeReason": reason} if reason else {})}
    stub.add_response(
        "get_query_execution",
        {
            "QueryExecution": {
                "QueryExecutionId": query_id,
                "Status": status,
                "Statistics": {"DataScannedInBytes": 123456},
            }
        },
        {"QueryExecutionId": query_id},
    )


def _row(*cells: str | None) -> dict:
    return {"Data": [{"VarCharValue": c} if c is not None else {} for c in cells]}


def test_athena_requests_and_results_follow_the_api_contract() -> None:
    session, stub = _session()
    _start(stub, DDL, "q-ddl")
    _state(stub, "q-ddl", "SUCCEEDED")
    _start(stub, QUERY, "q-1")
    _state(stub, "q-1", "SUCCEEDED")
    header = _row("region", "n", "SUM(temperature)", "s", "c", "AVG(temperature)")
    stub.add_response(
        "get_query_results",
        {
            "ResultSet": {
                "Rows": [header, _row("eu-west", "3", "50.5000000000", "50.5000000000", "3", None)]
            },
            "NextToken": "t2",
        },
        {"QueryExecutionId": "q-1"},
    )
    stub.add_response(
        "get_query_results",
        {
            "ResultSet": {
                "Rows": [
                    _row(
                        None,
                        "1",
                        "99999999999999999999999999.1234567891",
                        "99999999999999999999999999.1234567891",
                        "1",
                        None,
                    )
                ]
            }
        },
        {"QueryExecutionId": "q-1", "NextToken": "t2"},
    )
    with stub:
        result = session.execute(SQL)
        rows = result.all()
        stub.assert_no_pending_responses()
    assert result.columns == ["region", "n", "SUM(temperature)", "AVG(temperature)"]
    assert rows[0] == {
        "region": "eu-west",
        "n": Decimal(3),
        "SUM(temperature)": Decimal("50.5"),
        "AVG(temperature)": Decimal("16.833333333333333333333333333333333333"),
    }
    assert rows[1]["SUM(temperature)"] == Decimal("99999999999999999999999999.1234567891")
    assert "region" not in rows[1]  # a missing group value is an absent attribute
    assert any("123456 bytes scanned" in n for n in result.notes)


def test_a_failed_athena_query_is_one_clear_error() -> None:
    session, stub = _session()
    _start(stub, DDL, "q-ddl")
    _state(stub, "q-ddl", "FAILED", "HIVE_METASTORE_ERROR: no permission")
    from dynosql.errors import ExecutionError

    with (
        stub,
        pytest.raises(ExecutionError, match="Athena query q-ddl failed: HIVE_METASTORE_ERROR"),
    ):
        session.execute(SQL)


def test_explain_shows_the_ddl_and_the_query_and_sends_nothing() -> None:
    session, stub = _session()
    with stub:  # no response queued: any request would fail the test
        lines = [r["plan"] for r in session.execute("EXPLAIN " + SQL)]
    text = "\n".join(lines)
    assert DDL.splitlines()[0] in text and QUERY in text


def test_kinds_come_from_keys_literals_and_sums() -> None:
    statement = parse("SELECT a, SUM(b) FROM t WHERE c = 'x' AND d > 2 GROUP BY a")
    assert isinstance(statement, ast.Select)
    assert athena.kinds_of(statement, None) == {"a": "S", "b": "N", "c": "S", "d": "N"}


def test_price_comparison_uses_named_constants_and_overrides() -> None:
    lines = compare(Decimal(134_217_728), 5 * 10**9, 10**12, None, parse_prices(""))
    text = "\n".join(lines)
    assert "= $16.78 on-demand" in text  # 1 TB of eventually consistent reads
    assert "1000.000 GB × $0.10/GB = $100.00 once" in text
    assert "500.000 GB scanned × $5.00/TB = $2.50 a query" in text
    assert "~27.8 h from one client" in text
    cheaper = "\n".join(
        compare(Decimal(1000), 10, 10**12, Decimal(100), parse_prices("athena_tb=2.5"))
    )
    assert "× $2.50/TB = $1.25" in cheaper and "~10 s at --rate-limit 100" in cheaper
    with pytest.raises(ValueError, match="unknown price"):
        parse_prices("foo=1")


def test_document_paths_stay_refused_in_athena() -> None:
    """The DuckDB engine loads each path as a column; Athena's table declares top-level
    attributes only, so a path there is a one-line refusal, not a wrong answer."""
    from dynosql.errors import PlanError

    statement = parse("SELECT meta.iso FROM t WHERE meta.iso > 100")
    assert isinstance(statement, ast.Select)
    with pytest.raises(
        PlanError, match=r"athena engine does not support document paths \(meta\.iso\)"
    ):
        athena.query(statement, {"meta": "S"}, "t")
