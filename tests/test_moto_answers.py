"""The embedded server's direct answers to item reads equal what moto's serializer writes
(dynosql/local/moto_answers.py): every operation, every DynamoDB type, empty and missing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from backends import unique_name

from dynosql.local import moto_answers
from dynosql.local.embedded import LocalDynamo
from dynosql.values import BinarySet, NumberSet, StringSet

ITEMS = [
    {"pk": "a", "sk": Decimal(1), "s": "Äpfel 😀", "n": Decimal("12345678901234567890123456789012345678")},
    {"pk": "a", "sk": Decimal(2), "b": b"\x00\xff", "bs": BinarySet({b"\x01", b"\x02\x03"})},
    {"pk": "a", "sk": Decimal(3), "ss": StringSet({"x", "y"}), "ns": NumberSet({Decimal("-1.5"), Decimal(0)})},
    {"pk": "b", "sk": Decimal("-0.001"), "m": {"l": [None, True, False, "", {"e": {}}, []], "z": {"q": Decimal(1)}}},
    {"pk": "b", "sk": Decimal(5), "g": "x", "empty": ""},
]  # fmt: skip


@pytest.fixture(scope="module")
def compared() -> Iterator[tuple[Any, str, list[tuple[str, Any, Any]]]]:
    """A server whose item reads are answered both ways: (client, table, [(operation,
    serializer's answer, direct answer)])."""
    from moto.core.responses import ActionResult

    pairs: list[tuple[str, Any, Any]] = []
    local = LocalDynamo().start()
    installed = ActionResult.execute_result
    serializer = moto_answers.serializer  # moto's own

    def both(self: Any, context: Any) -> Any:
        name = context.operation_model.name
        if name in moto_answers.ITEM_READS:
            direct = moto_answers.direct_body(self.result)
            if direct is not None:
                _, _, body = serializer(self, context)
                pairs.append((name, json.loads(body), json.loads(direct)))
        return installed(self, context)

    ActionResult.execute_result = both  # type: ignore[method-assign]
    try:
        from backends import Backend

        backend = Backend("moto", local.endpoint_url)
        table = unique_name("ans")
        backend.create_keyed_table(table)
        client = backend.client()
        client.update_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "by_g",
                        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "KEYS_ONLY"},
                    }
                }
            ],
        )
        backend.put_items(table, ITEMS)
        yield client, table, pairs
    finally:
        ActionResult.execute_result = installed  # type: ignore[method-assign]
        local.stop()


def test_every_item_read_answers_as_the_serializer(compared: Any) -> None:
    client, table, pairs = compared
    key = {"pk": {"S": "a"}, "sk": {"N": "2"}}
    client.scan(TableName=table)
    client.scan(TableName=table, Limit=2)  # LastEvaluatedKey
    client.scan(TableName=table, Select="COUNT")
    client.scan(TableName=table, Segment=1, TotalSegments=3)
    client.scan(
        TableName=table, ProjectionExpression="m.l[4], bs, #s", ExpressionAttributeNames={"#s": "s"}
    )
    client.scan(TableName=table, FilterExpression="attribute_exists(nope)")  # no items
    client.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "a"}},
        ScanIndexForward=False,
    )
    client.query(
        TableName=table,
        IndexName="by_g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "x"}},
    )
    client.get_item(TableName=table, Key=key)
    client.get_item(TableName=table, Key={"pk": {"S": "zz"}, "sk": {"N": "9"}})  # no item
    client.get_item(
        TableName=table, Key=key, ProjectionExpression="b", ReturnConsumedCapacity="TOTAL"
    )
    client.batch_get_item(
        RequestItems={
            table: {
                "Keys": [
                    key,
                    {"pk": {"S": "b"}, "sk": {"N": "5"}},
                    {"pk": {"S": "q"}, "sk": {"N": "0"}},
                ]
            }
        }
    )
    client.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": table, "Key": key}},
            {"Get": {"TableName": table, "Key": {"pk": {"S": "q"}, "sk": {"N": "0"}}}},
        ]
    )
    # fmt: skip
    assert {name for name, _, _ in pairs} == moto_answers.ITEM_READS
    assert len(pairs) >= 13
    for name, serialized, direct in pairs:
        assert direct == serialized, name
    whole = [direct for name, _, direct in pairs if name == "Scan" and direct.get("Count") == 5]
    assert whole and whole[0]["Items"] and {"B": "AP8="} in [i.get("b") for i in whole[0]["Items"]]


def test_a_result_that_is_not_plain_json_goes_to_the_serializer() -> None:
    assert (
        moto_answers.direct_body({"Items": [{"b": {"B": b"\x00"}}]})
        == '{"Items": [{"b": {"B": "AA=="}}]}'
    )
    assert moto_answers.direct_body({"Items": [{"d": {"N": Decimal(1)}}]}) is None
    assert moto_answers.direct_body({"Count": float("nan")}) is None
    assert moto_answers.direct_body(["not", "a", "dict"]) is None
    assert moto_answers.direct_body({"Count": 0, "Items": []}) == '{"Count": 0, "Items": []}'
