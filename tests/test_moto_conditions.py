"""Conditions and SET copies as DynamoDB evaluates them, sent as raw requests to each backend.

dynosql checks most typed comparisons client-side on moto (capabilities.py), so these requests
go straight to the server: they test the embedded server's patches of moto
(dynamo/moto_conditions.py), and on dynalite and DynamoDB Local that the patches state the same
rules. Each filter below got a different answer (or an HTTP 500) from moto 5.2 unpatched.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name

ITEMS: list[dict[str, Any]] = [
    {"pk": "a", "b": b"\xff\x01", "n": Decimal(5), "flag": True, "l": [True]},
    {"pk": "z", "b": b"\x01", "n": Decimal(6)},
    {"pk": "q", "nul": None},
]


_tables: dict[str, str] = {}  # one table per backend (the servers live for the session)


@pytest.fixture
def table(backend: Backend) -> str:
    if backend.name not in _tables:
        name = unique_name("mc")
        backend.create_keyed_table(name, pk=("pk", "S"), sk=None)
        backend.put_items(name, ITEMS)
        _tables[backend.name] = name
    return _tables[backend.name]


def _matching(backend: Backend, table: str, condition: str, values: dict[str, Any]) -> set[str]:
    scanned = backend.client().scan(
        TableName=table, FilterExpression=condition, ExpressionAttributeValues=values
    )
    return {item["pk"]["S"] for item in scanned["Items"]}


@pytest.mark.parametrize(
    ("condition", "values", "expected"),
    [
        # begins_with and contains take Binary too (moto: false for any Binary)
        ("begins_with(b, :p)", {":p": {"B": b"\xff"}}, {"a"}),
        ("contains(b, :p)", {":p": {"B": b"\x01"}}, {"a", "z"}),
        # an item without b has no size(b): the comparison is false there (moto: a 500)
        ("size(b) = :two", {":two": {"N": "2"}}, {"a"}),
        # values of different types are never equal, and not ordered (moto: True == 1; a 500)
        ("flag = :one", {":one": {"N": "1"}}, set()),
        ("contains(l, :one)", {":one": {"N": "1"}}, set()),
        ("n < :s", {":s": {"S": "x"}}, set()),
        # a missing attribute is not NULL (moto: None == None)
        ("nul = :null", {":null": {"NULL": True}}, {"q"}),
        ("nul IN (:null, :s)", {":null": {"NULL": True}, ":s": {"S": "x"}}, {"q"}),
        # a number has no size: compared, it is as a missing value (moto: a 500)
        ("size(n) > :zero", {":zero": {"N": "0"}}, set()),
    ],
)
def test_a_filter_compares_typed_values(
    backend: Backend, table: str, condition: str, values: dict[str, Any], expected: set[str]
) -> None:
    assert _matching(backend, table, condition, values) == expected


def test_set_copies_a_list(backend: Backend) -> None:
    """`SET c = l` then `SET c[0] = :x` leaves l alone (moto stored l's own object under c)."""
    table = unique_name("mc")
    backend.create_keyed_table(table, pk=("pk", "S"), sk=None)
    backend.put_items(table, ITEMS[:1])
    client = backend.client()
    key = {"pk": {"S": "a"}}
    client.update_item(TableName=table, Key=key, UpdateExpression="SET c = l")
    client.update_item(
        TableName=table,
        Key=key,
        UpdateExpression="SET c[0] = :x",
        ExpressionAttributeValues={":x": {"S": "x"}},
    )
    item = client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert (item["l"], item["c"]) == ({"L": [{"BOOL": True}]}, {"L": [{"S": "x"}]})
