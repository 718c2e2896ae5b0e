"""Issue 11: no silent wrong answers — exact numbers everywhere, and the same answer from every
backend for comparisons between values of different types (a number never equals a boolean, a
missing attribute is not NULL), whether DynamoDB or the client evaluates them."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli

from dynosql import values
from dynosql.errors import SqlError
from dynosql.plan.planner import Options, plan_select
from dynosql.session import Session, make_client
from dynosql.sql import ast, parse

NEG = Decimal("-1.2345678901234567890123456789012345678")  # 38 significant digits
BIG = Decimal("12345678901234567890123456789012345678")


@pytest.fixture(scope="module")
def table(backend: Backend) -> tuple[Backend, str]:
    name = unique_name("ex")
    backend.create_keyed_table(name)
    items: list[dict[str, Any]] = [
        {"pk": "n", "sk": NEG, "v": NEG},
        {"pk": "n", "sk": Decimal(1), "v": BIG},
        {"pk": "n", "sk": Decimal(2), "v": Decimal(5)},
        {"pk": "n", "sk": Decimal(3), "v": Decimal("0.1")},
        {"pk": "n", "sk": Decimal(4), "v": Decimal(5)},
        # cross-type: one attribute `x` holding each type, and one item lacking it
        {"pk": "t", "sk": Decimal(1), "x": True},
        {"pk": "t", "sk": Decimal(2), "x": False},
        {"pk": "t", "sk": Decimal(3), "x": Decimal(1)},
        {"pk": "t", "sk": Decimal(4), "x": Decimal(0)},
        {"pk": "t", "sk": Decimal(5), "x": "1"},
        {"pk": "t", "sk": Decimal(6), "x": "true"},
        {"pk": "t", "sk": Decimal(7), "x": None},
        {"pk": "t", "sk": Decimal(8)},
        {"pk": "t", "sk": Decimal(9), "x": [Decimal(1)], "y": [True]},
    ]
    backend.put_items(name, items)
    return backend, name


def run(table: tuple[Backend, str], sql: str) -> list[dict]:
    backend, name = table
    with Session(backend.client()) as session:
        return session.execute(sql.replace("{t}", name)).all()


def sks(rows: list[dict]) -> list[int]:
    return sorted(int(r["sk"]) for r in rows)


def test_negative_literal_keeps_38_digits_in_keys_ranges_filters_and_in(table) -> None:
    key = "SELECT sk FROM {t} WHERE pk = 'n' AND sk = -1.2345678901234567890123456789012345678"
    assert [r["sk"] for r in run(table, key)] == [NEG]
    ranged = "SELECT sk FROM {t} WHERE pk = 'n' AND sk <= -1.2345678901234567890123456789012345678"
    assert [r["sk"] for r in run(table, ranged)] == [NEG]
    filtered = "SELECT sk FROM {t} WHERE pk = 'n' AND v = -1.2345678901234567890123456789012345678"
    assert [r["sk"] for r in run(table, filtered)] == [NEG]
    listed = (
        "SELECT sk FROM {t} WHERE pk = 'n' AND v IN (-1.2345678901234567890123456789012345678, 7)"
    )
    assert [r["sk"] for r in run(table, listed)] == [NEG]


def test_negative_literal_is_sent_exactly() -> None:
    statement = parse(
        "SELECT * FROM t WHERE pk = 'n' AND v = -1.2345678901234567890123456789012345678"
    )
    literal = statement.where.items[1].right  # type: ignore[union-attr]
    assert literal.value == NEG and str(literal.value) == str(NEG)


N38 = "12345678901234567890123456789012345678"  # 38 digits: -N38 under 28 digits is another key
NEG38 = Decimal("-" + N38)


def _numbers(value: Any) -> list[Decimal]:
    """Every number in a value, lists, maps and sets included."""
    if isinstance(value, Decimal):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list | frozenset):
        return [n for v in value for n in _numbers(v)]
    return []


@pytest.mark.parametrize(
    "sql",
    [
        f"INSERT INTO t (pk, v) VALUES ('a', -{N38})",
        f"INSERT INTO t (pk, v) VALUES ('a', -{N38}), ('b', - {N38})",  # the fast VALUES reader
        f"UPSERT INTO t (pk, v) VALUES ('a', [-{N38}, [-{N38}]]), ('b', {{'x': {{'y': -{N38}}}}})",
        f"REPLACE INTO t (pk, v) VALUES ('a', {{-{N38}, 1}})",
        f"UPDATE t SET v = -{N38}, w = [-{N38}], m = {{'x': -{N38}}} WHERE pk = -{N38}",
        f"UPDATE t SET v = if_not_exists(v, -{N38}), l = list_append(l, [-{N38}]) WHERE pk = 'a'",
        f"SELECT * FROM t WHERE pk = 'a' AND v IN (-{N38}, 1) AND w <= -{N38}",
        f"EXPLAIN DELETE FROM t WHERE pk = 'a' AND v = -{N38}",
    ],
)
def test_every_parser_reads_a_negative_38_digit_literal_exactly(sql: str) -> None:
    """INSERT/UPSERT rows (sqlglot's and the fast reader's), lists, maps, sets, UPDATE SET,
    WHERE: one rule (`values.literal_number`), never unary minus under 28 digits."""
    found: list[Decimal] = []

    def walk(node: Any) -> None:
        if isinstance(node, ast.Literal):
            found.extend(_numbers(node.value))
        elif dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, tuple | list):
            for n in node:
                walk(n)

    walk(parse(sql))
    negatives = [n for n in found if n < 0]
    assert negatives and all(str(n) == str(NEG38) for n in negatives), found


@pytest.mark.parametrize(
    "sql, message",
    [
        (f"INSERT INTO t (pk) VALUES (-{N38}9)", f"number -{N38}9 has more than 38 significant digits"),
        (f"INSERT INTO t (pk) VALUES (1), (-{N38}9)", f"number -{N38}9 has more than 38 significant digits"),
        ("UPDATE t SET v = [-1e200] WHERE pk = 'a'", "number -1e200 is out of DynamoDB's range"),
        ("SELECT * FROM t WHERE v = -1e-131", "number -1e-131 is out of DynamoDB's range"),
    ],
)  # fmt: skip
def test_negative_literals_are_refused_like_positive_ones(sql: str, message: str) -> None:
    with pytest.raises(SqlError) as info:
        parse(sql)
    assert info.value.message.startswith(message)


def test_minus_zero_is_zero() -> None:
    (row,) = parse("INSERT INTO t (pk, a, b) VALUES ('a', -0, -0.00)").rows  # type: ignore[attr-defined]
    assert [repr(c.value) for c in row[1:]] == ["Decimal('0')", "Decimal('0.00')"]
    assert values.literal_number("5", negative=True) == Decimal(-5)


def test_negative_38_digit_literals_are_written_and_read_exactly(moto_backend, tmp_path) -> None:
    """Through the real command: what INSERT, UPSERT (top level, lists, maps) and UPDATE SET
    store is exactly the literal, as a key too, and SELECT … WHERE finds it by it."""
    name = unique_name("neg")
    moto_backend.create_keyed_table(name)
    script = f"""
        INSERT INTO {name} (pk, sk, v, l, m)
          VALUES ('a', -{N38}, -{N38}, [-{N38}, 1], {{'x': -{N38}, 'y': [-{N38}]}});
        UPSERT INTO {name} (pk, sk, v, l, m)
          VALUES ('b', -{N38}, -{N38}, [-{N38}], {{'x': {{'y': -{N38}}}}}), ('b', 1, - {N38}, [], {{}});
        INSERT INTO {name} (pk, sk) VALUES ('c', 1);
        UPDATE {name} SET v = -{N38}, l = [-{N38}], m = {{'x': -{N38}}}, w = if_not_exists(w, -{N38})
          WHERE pk = 'c' AND sk = 1;
        UPDATE {name} SET u = -{N38} WHERE pk = 'a' AND sk = -{N38};
    """
    url = ("--endpoint-url", moto_backend.endpoint_url)
    run = run_cli(*url, "-e", script, env=cli_env(tmp_path))
    assert run.returncode == 0, run.stderr
    stored = [
        values.decode_item(raw) for raw in moto_backend.client().scan(TableName=name)["Items"]
    ]
    assert sorted((i["pk"], i["sk"]) for i in stored) == [
        ("a", NEG38), ("b", NEG38), ("b", Decimal(1)), ("c", Decimal(1))
    ]  # fmt: skip
    numbers = [n for item in stored for k, v in item.items() if k != "sk" for n in _numbers(v)]
    assert len(numbers) == 14 and {str(n) for n in numbers} == {str(NEG38), "1"}, numbers
    assert sum(1 for item in stored if item.get("u") is not None) == 1  # the key matched exactly
    queries = {
        f"SELECT pk FROM {name} WHERE pk = 'a' AND sk = -{N38}": ["a"],  # GetItem by the key
        f"SELECT pk FROM {name} WHERE pk = 'b' AND v = -{N38}": ["b", "b"],  # a filter
        f"SELECT pk FROM {name} WHERE pk = 'c' AND m.x IN (-{N38}, 2)": ["c"],
    }
    for sql, expected in queries.items():
        run = run_cli(*url, "--format", "json", "-e", sql, env=cli_env(tmp_path))
        assert run.returncode == 0, run.stderr
        assert [row["pk"] for row in json.loads(run.stdout)] == expected, sql


def test_largest_number_is_in_range() -> None:
    """The range check compares magnitudes exactly (abs() would round to 28 digits)."""
    top = "9.9999999999999999999999999999999999999E+125"
    assert values.number(top) == Decimal(top)
    assert values.number("-" + top) == Decimal("-" + top)
    with pytest.raises(ValueError):
        values.number("1E+126")


def test_sum_and_avg_distinct_are_exact(table) -> None:
    rows = run(
        table,
        "SELECT SUM(DISTINCT v) AS sd, SUM(v) AS s, AVG(DISTINCT v) AS ad FROM {t} "
        "WHERE pk = 'n' AND sk > 0",
    )
    assert rows[0]["s"] == Decimal("12345678901234567890123456789012345688.1")
    assert rows[0]["sd"] == Decimal("12345678901234567890123456789012345683.1")
    # AVG keeps 38 significant digits of the exact sum / 3
    assert rows[0]["ad"] == Decimal("4115226300411522630041152263004115227.7")


def test_count_star_is_named_as_written(table) -> None:
    backend, name = table
    with Session(backend.client()) as session:
        result = session.execute(f"SELECT count(*), Max(v) FROM {name} WHERE pk = 'n'")
        assert result.columns == ["count(*)", "Max(v)"]
        assert result.all() == [{"count(*)": Decimal(5), "Max(v)": BIG}]
        upper = session.execute(f"SELECT COUNT(*) FROM {name} WHERE pk = 'n'")
        assert upper.columns == ["COUNT(*)"]


def test_size_of_a_number_compares_like_a_missing_attribute(table) -> None:
    """size() of a number has no value: comparisons are false, `<>` true (grammar/README.md)."""
    assert sks(run(table, "SELECT sk FROM {t} WHERE pk = 'n' AND size(v) = 3")) == []
    assert sks(run(table, "SELECT sk FROM {t} WHERE pk = 'n' AND size(v) > 0")) == []
    assert len(run(table, "SELECT sk FROM {t} WHERE pk = 'n' AND size(v) <> 3")) == 5


# --- cross-type comparisons: the same answer on every backend -------------------------------------

CROSS_TYPE = {
    "x = 1": [3],
    "x = 0": [4],
    "x <> 1": [1, 2, 4, 5, 6, 7, 8, 9],
    "x = true": [1],
    "x = false": [2],
    "x <> true": [2, 3, 4, 5, 6, 7, 8, 9],
    "x = 'true'": [6],
    "x = '1'": [5],
    "x IN (1, true)": [1, 3],
    "x IN (0, '1')": [4, 5],
    "x = NULL": [7],
    "x <> NULL": [1, 2, 3, 4, 5, 6, 8, 9],
    "x IS NULL": [7],
    "NOT (x = 1)": [1, 2, 4, 5, 6, 7, 8, 9],
    "x > 0": [3],
    "x >= false": [],
    "contains(x, 1)": [9],
    "contains(y, 1)": [],
    "x = sk": [],
}


@pytest.mark.parametrize("condition", list(CROSS_TYPE))
def test_cross_type_comparisons_agree_with_dynamodb(table, condition: str) -> None:
    rows = run(table, f"SELECT sk FROM {{t}} WHERE pk = 't' AND {condition}")
    assert sks(rows) == CROSS_TYPE[condition], condition


def test_moto_checks_loose_equalities_client_side() -> None:
    """On moto (typed_filters off) only string/binary equalities go into the FilterExpression."""
    from dynosql.plan.schema import table_info

    info = table_info(
        {
            "TableName": "t",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "ItemCount": 10,
            "TableSizeBytes": 1000,
        }
    )
    moto = Options(typed_filters=False, projections=False)
    for condition, sent in [("ok = 1", False), ("ok = true", False), ("ok = 'a'", True)]:
        plan = plan_select(parse(f"SELECT * FROM t WHERE {condition}"), info, moto)
        assert ("FilterExpression" in plan.requests[0].params) is sent, condition
        typed = plan_select(parse(f"SELECT * FROM t WHERE {condition}"), info)
        assert "FilterExpression" in typed.requests[0].params, condition


def test_aws_region_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    assert make_client(credentials=("a", "b")).meta.region_name == "eu-west-3"
    assert make_client(region="ap-south-1", credentials=("a", "b")).meta.region_name == "ap-south-1"


# --- ORDER BY and missing values --------------------------------------------------------------------


def test_nulls_first_and_last_place_missing_and_null(table) -> None:
    first = run(table, "SELECT sk FROM {t} WHERE pk = 't' ORDER BY x NULLS FIRST")
    assert sorted(int(r["sk"]) for r in first[:2]) == [7, 8]
    last = run(table, "SELECT sk FROM {t} WHERE pk = 't' ORDER BY x DESC NULLS LAST")
    assert sorted(int(r["sk"]) for r in last[-2:]) == [7, 8]
    # numbers first (the stated order of types), ascending: 0 (sk 4) then 1 (sk 3)
    assert [int(r["sk"]) for r in run(table, "SELECT sk FROM {t} WHERE pk = 't' ORDER BY x")][
        :2
    ] == [4, 3]


def test_missing_values_leading_a_desc_result_are_counted_in_a_note(table) -> None:
    backend, name = table
    with Session(backend.client()) as session:
        result = session.execute(f"SELECT sk, y FROM {name} WHERE pk = 't' ORDER BY y DESC LIMIT 3")
        rows = result.all()
        assert [int(r["sk"]) for r in rows[:1]] != [9]  # the one y holder comes after the gaps
        assert result.notes == [
            "3 of 3 rows have no y: missing values come first in ORDER BY y DESC "
            "(add NULLS LAST to put them last)"
        ]
        result = session.execute(
            f"SELECT sk, y FROM {name} WHERE pk = 't' ORDER BY y DESC NULLS LAST LIMIT 3"
        )
        assert int(result.all()[0]["sk"]) == 9 and result.notes == []
