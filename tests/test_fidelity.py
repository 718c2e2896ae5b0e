"""Issue 22: behave like DynamoDB where moto does not, read nothing nobody asked for, and no
quiet wrong answers. Where the backends differ, AWS's documentation decides."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name

from dynosql.errors import SqlError
from dynosql.plan.planner import plan_select
from dynosql.plan.schema import table_info
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import parse


@pytest.fixture(scope="module")
def table(backend: Backend) -> tuple[Backend, str]:
    name = unique_name("fi")
    backend.create_keyed_table(name)
    items: list[dict[str, Any]] = [
        {"pk": "t", "sk": Decimal(1), "x": Decimal(5)},
        {"pk": "t", "sk": Decimal(2), "x": "five"},
        {"pk": "t", "sk": Decimal(3), "x": True},
        {"pk": "t", "sk": Decimal(4), "x": None},
        {"pk": "t", "sk": Decimal(5), "x": [Decimal(1)]},
        {"pk": "t", "sk": Decimal(6)},
    ]
    backend.put_items(name, items)
    return backend, name


def run(table: tuple[Backend, str], sql: str) -> list[dict[str, Any]]:
    backend, name = table
    with Session(backend.client()) as session:
        return session.execute(sql.replace("{t}", name)).all()


def sks(rows: list[dict[str, Any]]) -> list[int]:
    return sorted(int(r["sk"]) for r in rows)


def _info() -> Any:
    return table_info(
        {
            "TableName": "t",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
            ],
            "ItemCount": 10,
            "TableSizeBytes": 1000,
        }
    )


# --- one path on both sides: DynamoDB refuses the expression, the client decides it ---------

SAME_PATH = {
    # decided by presence and type: = holds for any stored value, ordering only for N/S/B
    "x = x": [1, 2, 3, 4, 5],
    "x <> x": [6],  # a comparison with a missing attribute: only <> is true
    "x > x": [],
    "x >= x": [1, 2],
    "x BETWEEN x AND x": [1, 2],
    "x IN (x, 7)": [1, 2, 3, 4, 5],
    "size(x) = size(x)": [2, 5],
    "NOT (x < x)": [1, 2, 3, 4, 5, 6],
}


@pytest.mark.parametrize("condition", list(SAME_PATH))
def test_a_comparison_of_a_path_with_itself_is_answered_alike_everywhere(
    table, condition: str
) -> None:
    """DynamoDB (and dynalite, DynamoDB Local) refuse ``x > x`` ("The first operand must be
    distinct from the remaining operands"); moto answers it. Never sent: the same rows from
    every backend."""
    rows = run(table, f"SELECT sk FROM {{t}} WHERE pk = 't' AND {condition}")
    assert sks(rows) == SAME_PATH[condition], condition


@pytest.mark.parametrize("condition", ["x > x", "x = x", "begins_with(x, x)", "x IN (x, 1)"])
def test_a_repeated_operand_is_never_in_a_filter_expression(condition: str) -> None:
    plan = plan_select(parse(f"SELECT * FROM t WHERE pk = 't' AND {condition}"), _info())
    assert "FilterExpression" not in plan.requests[0].params
    other = plan_select(parse("SELECT * FROM t WHERE pk = 't' AND x > y"), _info())
    assert "FilterExpression" in other.requests[0].params


def test_an_update_conditioned_on_a_path_compared_with_itself_runs_everywhere(table) -> None:
    backend, name = table
    with Session(backend.client(), settings=Settings(journal_dir="off")) as session:
        session.execute(f"UPDATE {name} SET y = 1 WHERE pk = 't' AND x >= x").all()
    rows = run(table, "SELECT sk FROM {t} WHERE pk = 't' AND y = 1")
    assert sks(rows) == [1, 2]


# --- document paths deeper than DynamoDB's 32 levels ----------------------------------------

DEEP = ".".join(["a"] * 33)
DEEPEST_OK = ".".join(["a"] * 31) + "[0]"  # 32 levels: names and list indexes count alike


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT {DEEP} FROM t WHERE pk = 'x'",
        f"SELECT * FROM t WHERE pk = 'x' AND {DEEP} = 1",
        f"SELECT * FROM t WHERE pk = 'x' AND {DEEPEST_OK}[1] = 1",
        f"UPDATE t SET {DEEP} = 1 WHERE pk = 'x'",
        f"UPDATE t REMOVE {DEEPEST_OK}[2] WHERE pk = 'x'",
        f"DELETE FROM t WHERE pk = 'x' AND size({DEEP}) > 1",
    ],
)
def test_a_path_deeper_than_32_levels_is_a_one_line_error_before_any_request(sql: str) -> None:
    """DynamoDB (and DynamoDB Local) refuse "The document path has too many nesting levels;
    nesting levels: 33"; moto and dynalite answer. Refused while parsing, at the path."""
    with pytest.raises(SqlError) as caught:
        parse(sql)
    message = str(caught.value)
    assert "levels deep" in message and "at most 32" in message and "\n" not in message
    assert caught.value.line == 1 and caught.value.col > 1


def test_a_path_of_32_levels_is_read() -> None:
    parse(f"SELECT {DEEPEST_OK} FROM t WHERE pk = 'x' AND {DEEPEST_OK} = 1")


# --- IS MISSING / IS NOT MISSING (PartiQL's spelling) -----------------------------------------

PRESENCE = {
    "x IS MISSING": [6],
    "x IS NOT MISSING": [1, 2, 3, 4, 5],
    "NOT (x IS MISSING)": [1, 2, 3, 4, 5],
    "x IS NULL": [4],  # a stored NULL only: a missing attribute is not NULL
    "x IS MISSING OR x IS NULL": [4, 6],
}


@pytest.mark.parametrize("condition", list(PRESENCE))
def test_is_missing_tests_presence_on_every_backend(table, condition: str) -> None:
    rows = run(table, f"SELECT sk FROM {{t}} WHERE pk = 't' AND {condition}")
    assert sks(rows) == PRESENCE[condition], condition


def test_is_missing_is_pushed_to_dynamodb_as_attribute_not_exists() -> None:
    missing = plan_select(parse("SELECT * FROM t WHERE pk = 't' AND x IS MISSING"), _info())
    assert missing.requests[0].params["FilterExpression"] == "attribute_not_exists(#x)"
    present = plan_select(parse("SELECT * FROM t WHERE pk = 't' AND x.y IS NOT MISSING"), _info())
    assert present.requests[0].params["FilterExpression"] == "attribute_exists(#x.#y)"


def test_is_takes_only_null_or_missing() -> None:
    with pytest.raises(SqlError, match="IS takes NULL, NOT NULL, MISSING or NOT MISSING"):
        parse("SELECT * FROM t WHERE x IS 'MISSING'")
    parse("SELECT missing FROM t WHERE missing IS MISSING")  # still a name elsewhere
