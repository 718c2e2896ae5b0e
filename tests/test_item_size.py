"""ITEM_SIZE(), ITEM_RCU() and ITEM_WCU() (issue 24): the item-size calculator over real data.

Each item's size by DynamoDB's rules and what one read or write of it costs, in the select
list and anywhere an expression goes (ORDER BY, WHERE, GROUP BY, inside aggregates). The
sizes are of whole items as stored, so a plan that holds one reads whole items (checked by
the golden fixtures in grammar/plans/12_item_size.txt and here through a KEYS_ONLY index).

The figures are checked against the servers' own ConsumedCapacity for single GetItem,
TransactGetItems and PutItem calls of the same items, with items built exactly on the 1 KB
and 4 KB boundaries, where one byte of error changes the units. AWS's pages decide:
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
(item sizes) and
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
(4 KB read units: eventually consistent half a unit, strongly consistent one, transactional
two; 1 KB write units, transactional two).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name

from dynosql import values
from dynosql.dynamo import loader, wiresize
from dynosql.errors import PlanError, SqlError
from dynosql.session import Session
from dynosql.sql import ast, parse
from dynosql.values import StringSet

D = Decimal


def sized(pk: str, sk: str, size: int, **extra: Any) -> dict[str, Any]:
    """An item of exactly `size` bytes: the keys, `extra`, and a string `pad` filling the rest."""
    item: dict[str, Any] = {"pk": pk, "sk": sk, **extra, "pad": ""}
    item["pad"] = "x" * (size - values.item_size(item))
    assert values.item_size(item) == size
    return item


# every kind of value, multi-byte UTF-8 in names and values: the rules of each type count
MIXED = {
    "n": D("-12345.678"),
    "big": D("12345678901234567890123456789012345678"),
    "ütf": "Äpfel · 日本語 · 🦆",
    "m": {"ü": ["x", D(1), True, None, {"k": b"\x00\x01"}], "e": {}},
    "ss": StringSet({"a", "ß"}),
    "b": b"\x00\x01\xfe",
    "f": False,
}


# --- parsing: one design, refusals with the fix --------------------------------------------------


def test_the_default_mode_is_the_same_measure_and_named_without_it() -> None:
    statement = parse("SELECT ITEM_RCU('eventual') AS a, item_rcu() FROM t")
    assert isinstance(statement, ast.Select) and statement.items is not None
    first, second = (i.expr for i in statement.items)
    assert ast.key_of(first) == ast.key_of(second)  # one group for GROUP BY
    assert [i.name for i in statement.items] == ["a", "item_rcu()"]  # as typed
    grouped = parse("SELECT ITEM_WCU('TRANSACTIONAL'), COUNT(*) FROM t GROUP BY 1")
    assert isinstance(grouped, ast.Select)
    assert grouped.group_by[0] == ast.Scalar("ITEM_WCU", (ast.Literal("transactional"),))


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELECT ITEM_SIZE(pk) FROM t", "line 1, column 8: ITEM_SIZE() takes no arguments"),
        (
            "SELECT ITEM_RCU('fast') FROM t",
            "line 1, column 8: ITEM_RCU() takes no argument or one of 'eventual', 'strong' or 'transactional'",
        ),
        ("SELECT ITEM_WCU(pk) FROM t", "ITEM_WCU() takes no argument or one of 'standard' or"),
        (
            "SELECT pk, ITEM_SIZE() FROM t GROUP BY pk",
            "line 1, column 12: ITEM_SIZE() must appear in GROUP BY or be inside an aggregate: "
            "SUM(ITEM_SIZE())",
        ),
        (
            "SELECT pk FROM t GROUP BY pk HAVING ITEM_SIZE() > 10",
            "ITEM_SIZE() must appear in GROUP BY or be inside an aggregate",
        ),
        ("SELECT pk FROM t WHERE ITEM_SIZE()", "ITEM_SIZE() is not a condition: compare it"),
        (
            "DELETE FROM t WHERE pk = 'a' AND ITEM_SIZE() > 1000",
            "ITEM_SIZE() sizes the whole items a SELECT reads; a write's WHERE cannot use it",
        ),
        (
            "SHOW HOT KEYS FROM t BY ITEM_SIZE()",
            "SHOW HOT KEYS … BY takes an expression of the partition key; WITH SIZES sums "
            "each key's bytes",
        ),
    ],
)
def test_misuse_is_refused_in_one_line_naming_the_fix(sql: str, message: str) -> None:
    with pytest.raises(SqlError) as err:
        parse(sql)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


# --- composition, on the embedded backend ---------------------------------------------------------

SIZES = {("a", "1"): 400, ("a", "2"): 5000, ("a", "3"): 1025, ("b", "1"): 4097, ("b", "2"): 300}


@pytest.fixture(scope="module")
def table(moto_backend: Backend) -> str:
    """Items of known sizes, and a KEYS_ONLY GSI on `g` that two of them have."""
    name = unique_name("isz")
    moto_backend.create_keyed_table(name, sk=("sk", "S"), gsis={"by_g": ("g", "S")})
    items = [
        sized(pk, sk, size, **({"g": "G"} if size in (5000, 300) else MIXED))
        for (pk, sk), size in SIZES.items()
    ]
    moto_backend.put_items(name, items)
    return name


def rows(session: Session, sql: str) -> list[dict[str, Any]]:
    return list(session.execute(sql))


def test_sizes_and_units_of_each_item(moto_backend: Backend, table: str) -> None:
    session = Session(moto_backend.client())
    got = rows(
        session,
        "SELECT pk, sk, ITEM_SIZE() AS bytes, ITEM_RCU() AS rcu, ITEM_RCU('strong') AS strong, "
        "ITEM_RCU('transactional') AS tx, ITEM_WCU() AS wcu, ITEM_WCU('transactional') AS txw "
        f"FROM {table} WHERE pk = 'a'",
    )
    assert [
        (r["sk"], r["bytes"], r["rcu"], r["strong"], r["tx"], r["wcu"], r["txw"]) for r in got
    ] == [
        ("1", 400, D("0.5"), 1, 2, 1, 2),
        ("2", 5000, 1, 2, 4, 5, 10),  # 4 KB units for reads, 1 KB for writes
        ("3", 1025, D("0.5"), 1, 2, 2, 4),
    ]


def test_the_biggest_items_and_the_bytes_per_partition_key(
    moto_backend: Backend, table: str
) -> None:
    session = Session(moto_backend.client())
    biggest = rows(session, f"SELECT pk, sk FROM {table} ORDER BY ITEM_SIZE() DESC LIMIT 2")
    assert biggest == [{"pk": "a", "sk": "2"}, {"pk": "b", "sk": "1"}]
    totals = rows(
        session,
        f"SELECT MAX(ITEM_SIZE()) AS most, SUM(ITEM_SIZE()) AS total, AVG(ITEM_SIZE()) AS mean, "
        f"SUM(ITEM_RCU('strong')) AS gets FROM {table}",
    )
    assert totals == [{"most": 5000, "total": 10822, "mean": D("2164.4"), "gets": 7}]
    per_key = rows(
        session,
        f"SELECT pk, COUNT(*) AS n, SUM(ITEM_SIZE()) AS bytes FROM {table} GROUP BY pk "
        "ORDER BY SUM(ITEM_SIZE()) DESC",
    )
    assert per_key == [{"pk": "a", "n": 3, "bytes": 6425}, {"pk": "b", "n": 2, "bytes": 4397}]
    # how many items cost how much to read: a histogram of the units
    by_units = rows(
        session, f"SELECT ITEM_RCU() AS rcu, COUNT(*) AS n FROM {table} GROUP BY rcu ORDER BY rcu"
    )
    assert by_units == [{"rcu": D("0.5"), "n": 3}, {"rcu": 1, "n": 2}]
    over = rows(session, f"SELECT sk FROM {table} WHERE pk = 'a' AND ITEM_SIZE() > 1024")
    assert over == [{"sk": "2"}, {"sk": "3"}]
    kb = rows(session, f"SELECT ROUND(ITEM_SIZE() / 1024, 2) AS kb FROM {table} WHERE pk = 'b'")
    assert kb == [{"kb": D("4.00")}, {"kb": D("0.29")}]


def test_a_keys_only_index_read_fetches_whole_items(moto_backend: Backend, table: str) -> None:
    session = Session(moto_backend.client())
    sql = f"SELECT pk, sk, ITEM_SIZE() AS bytes FROM {table} WHERE g = 'G'"
    plan = session.execute("EXPLAIN " + sql).document
    assert plan["index"] == "by_g"
    assert plan["fetch"]["params"]["RequestItems"][table] == {"Keys": []}  # no projection
    assert "by_g projects KEYS_ONLY: sizes are of the table's whole items" in " ".join(
        plan["client_steps"]
    )
    got = sorted(rows(session, sql), key=lambda r: r["bytes"])
    assert got == [{"pk": "b", "sk": "2", "bytes": 300}, {"pk": "a", "sk": "2", "bytes": 5000}]
    # a Query of the table itself sends no ProjectionExpression either
    keyed = session.execute(f"EXPLAIN SELECT sk FROM {table} WHERE pk = 'a' AND ITEM_SIZE() > 1")
    assert "ProjectionExpression" not in keyed.document["requests"][0]["params"]


def test_the_doors_that_cannot_size_items_say_so(moto_backend: Backend, table: str) -> None:
    session = Session(moto_backend.client())
    # FORMAT PYTHON writes them (tests/test_program.py); the export engine sizes the export's
    # whole items (tests/test_export_engine.py); Athena computes no expression
    session.execute("SET engine = athena")
    with pytest.raises(PlanError, match=r"does not support expressions such as ITEM_SIZE\(\);"):
        list(session.execute(f"SELECT SUM(ITEM_SIZE()) FROM {table}"))


def test_the_python_program_sizes_items_as_dynosql(moto_backend: Backend, table: str) -> None:
    """EXPLAIN (FORMAT PYTHON) writes ITEM_SIZE(), ITEM_RCU() and ITEM_WCU() out: the program's
    rows are the statement's."""
    from test_program import _canonical, _run

    session = Session(moto_backend.client())
    sql = f"SELECT pk, sk, ITEM_SIZE() AS n, ITEM_RCU('strong') AS r, ITEM_WCU() AS w FROM {table}"
    text = session.execute("EXPLAIN (FORMAT PYTHON) " + sql).document["program"]
    assert "def item_measure(" in text
    theirs, ours = _canonical(_run(text, table, moto_backend)), _canonical(rows(session, sql))
    assert sorted(theirs) == sorted(ours) and ours  # a Scan: no order to compare


def test_sizes_equal_the_wire_sizer_of_the_raw_items(moto_backend: Backend, table: str) -> None:
    """Differential: ITEM_SIZE() (decoded items, `values.item_size`) against the other sizer
    in the house (`wiresize.item_size`, which reads the wire form) over a raw Scan."""
    raw = moto_backend.client().scan(TableName=table)["Items"]
    expected = {(i["pk"]["S"], i["sk"]["S"]): wiresize.item_size(i) for i in raw}
    got = rows(Session(moto_backend.client()), f"SELECT pk, sk, ITEM_SIZE() AS n FROM {table}")
    assert {(r["pk"], r["sk"]): r["n"] for r in got} == expected == SIZES


# --- the servers' own figures -------------------------------------------------------------------


def units(answer: dict[str, Any]) -> Decimal:
    """CapacityUnits of an answer (TransactGetItems gives a list, one per table)."""
    consumed = answer["ConsumedCapacity"]
    (one,) = consumed if isinstance(consumed, list) else [consumed]
    return D(str(one["CapacityUnits"]))


BOUNDARIES = (1024, 1025, 4096, 4097)


# Not on dynalite: it counts names and strings in UTF-16 code units (valSize in
# node_modules/dynalite/db/index.js), where AWS's item-size page counts UTF-8 bytes; DynamoDB
# Local agrees with the page (and with dynosql) on these items, dynalite bills the 1025-byte
# one a single write unit. The page decides.
@pytest.mark.parametrize("server", ["moto", "ddblocal"])
def test_units_equal_the_servers_consumed_capacity(
    server: str, request: pytest.FixtureRequest
) -> None:
    """For items exactly on the 1 KB and 4 KB boundaries, of every type of value: ITEM_RCU()
    and ITEM_RCU('strong') equal a GetItem's ConsumedCapacity, ITEM_RCU('transactional') a
    TransactGetItems', ITEM_WCU() a PutItem's rewriting the same item (the larger of the old
    and new image: the same size). On moto the figures are the embedded backend's metering
    (dynosql.local.metering, sizing the wire form); on DynamoDB Local, AWS's own."""
    backend: Backend = request.getfixturevalue(f"{server}_backend")
    name = unique_name("iszc")
    backend.create_keyed_table(name, sk=("sk", "S"))
    client = backend.client()
    items = [sized("k", f"{size:05}", size, **MIXED) for size in BOUNDARIES]
    loader.write_items(client, name, items)
    got = rows(
        Session(client),
        "SELECT sk, ITEM_SIZE() AS bytes, ITEM_RCU() AS rcu, ITEM_RCU('strong') AS strong, "
        f"ITEM_RCU('transactional') AS tx, ITEM_WCU() AS wcu FROM {name} WHERE pk = 'k'",
    )
    assert [r["bytes"] for r in got] == list(BOUNDARIES)
    for row, item in zip(got, items, strict=True):
        key = {"pk": {"S": "k"}, "sk": {"S": row["sk"]}}
        for consistent, column in ((False, "rcu"), (True, "strong")):
            answer = client.get_item(
                TableName=name, Key=key, ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL"
            )
            assert units(answer) == row[column], (row["bytes"], column)
        answer = client.transact_get_items(
            TransactItems=[{"Get": {"TableName": name, "Key": key}}],
            ReturnConsumedCapacity="TOTAL",
        )
        assert units(answer) == row["tx"], (row["bytes"], "tx")
        answer = client.put_item(
            TableName=name, Item=values.encode_item(item), ReturnConsumedCapacity="TOTAL"
        )
        assert units(answer) == row["wcu"], (row["bytes"], "wcu")
    client.delete_table(TableName=name)
