"""A write DynamoDB would refuse is refused before its first write, naming what and where, on
moto (which refuses some of these, or none): an UPDATE that reads an attribute its items lack
(the attribute, how many items, the first one's key), an UPDATE that would take an item past
400 KB (the item); a write by key DynamoDB refuses names its item. ``{}`` is the empty map, as
in PartiQL, and an UPDATE that turns a set into one says so."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from backends import Backend, unique_name
from test_undo_journal import _table
from test_writes import _table as _scan

from dynosql.errors import DynosqlError
from dynosql.session import Session, Settings, make_client
from dynosql.values import StringSet


def _session(backend: Backend, tmp_path: Path) -> Session:
    client = make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "j")))
    session.assume_yes = True
    return session


def test_arithmetic_on_a_missing_attribute_names_it_the_items_and_writes_nothing(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend, items=6)
    client = moto_backend.client()
    for sk in (1, 3):  # two of p1's three items lack n
        client.update_item(TableName=name, Key={"pk": {"S": "p1"}, "sk": {"N": str(sk)}},
                           UpdateExpression="REMOVE n")  # fmt: skip
    before = _scan(moto_backend, name)
    with pytest.raises(DynosqlError) as err:
        _session(moto_backend, tmp_path).execute(f"UPDATE {name} SET n = n + 1 WHERE pk = 'p1'")
    message = str(err.value)
    assert "n is missing in 2 of the 3 items" in message
    assert 'the first: pk = "p1", sk = 1' in message
    assert "if_not_exists(n, 0) + 1" in message and "nothing was written" in message
    assert _scan(moto_backend, name) == before


def test_a_write_by_key_dynamodb_refuses_names_the_item(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend, items=2)
    sql = f"UPDATE {name} SET m = q + 1 WHERE pk = 'p0' AND sk = 0"
    with pytest.raises(DynosqlError) as err:
        _session(moto_backend, tmp_path).execute(sql).all()
    message = str(err.value)
    assert 'pk = "p0", sk = 0' in message and "lacks q" in message
    assert _scan(moto_backend, name) == before


def test_an_update_past_400_kb_names_the_item_and_writes_nothing(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, _ = _table(moto_backend, items=4)
    client = moto_backend.client()
    client.update_item(TableName=name, Key={"pk": {"S": "p1"}, "sk": {"N": "3"}},
                       UpdateExpression="SET big = :b",
                       ExpressionAttributeValues={":b": {"S": "x" * 300_000}})  # fmt: skip
    before = _scan(moto_backend, name)
    sql = f"UPDATE {name} SET big2 = :v WHERE pk = 'p1'"
    with pytest.raises(DynosqlError) as err:
        _session(moto_backend, tmp_path).execute(sql, {"v": "y" * 150_000}).all()
    message = str(err.value)
    assert 'pk = "p1", sk = 3' in message and "400 KB" in message
    assert "nothing was written" in message
    assert _scan(moto_backend, name) == before


def test_an_empty_map_is_a_map_and_replacing_a_set_with_it_is_said(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, _ = _table(moto_backend, items=2, tags=StringSet({"a", "b"}))
    result = _session(moto_backend, tmp_path).execute(
        f"UPDATE {name} SET tags = {{}}, m = {{}} WHERE pk = 'p0' AND sk = 0"
    )
    result.all()
    item = _scan(moto_backend, name)[("p0", Decimal(0))]
    assert item["tags"] == {} and item["m"] == {}
    (said,) = [w for w in result.warnings if "tags" in w]
    assert "string set" in said and "empty map" in said and "REMOVE tags" in said


def test_a_key_value_over_dynamodbs_size_is_refused_before_any_request(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """A partition key value holds at most 2048 bytes (UTF-8), a sort key value 1024, the
    table's and every index's alike: a write past it is refused in one line naming the
    attribute and its size, and nothing is sent but DescribeTable; at the limit it is written."""
    name = unique_name("keysize")
    moto_backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "gp", "gs", "ls")],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_g",
            "KeySchema": [{"AttributeName": "gp", "KeyType": "HASH"}, {"AttributeName": "gs", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        LocalSecondaryIndexes=[{
            "IndexName": "by_l",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "ls", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        BillingMode="PAY_PER_REQUEST",
    )  # fmt: skip
    session = _session(moto_backend, tmp_path)
    sent: list[str] = []
    session.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: sent.append(model.name)
    )
    insert = f"INSERT INTO {name} (pk, sk, {{}}) VALUES ('p', 's', :v)"
    over = {
        "gp": ("x" * 2049, "gp is a key of index by_g: its value is 2,049 bytes, over DynamoDB's 2,048-byte limit for a partition key"),
        "gs": ("é" * 513, "gs is a key of index by_g: its value is 1,026 bytes, over DynamoDB's 1,024-byte limit for a sort key"),
        "ls": ("x" * 1025, "ls is a key of index by_l: its value is 1,025 bytes, over DynamoDB's 1,024-byte limit for a sort key"),
        "sk": ("x" * 1025, f"sk is a key of {name}: its value is 1,025 bytes, over DynamoDB's 1,024-byte limit for a sort key"),
    }  # fmt: skip
    for attribute, (value, message) in over.items():
        session.params = {"v": value}
        sql = (
            insert.format(attribute)
            if attribute != "sk"
            else f"INSERT INTO {name} (pk, sk) VALUES ('p', :v)"
        )
        with pytest.raises(DynosqlError) as err:
            session.execute(sql).all()
        assert message in str(err.value) and "\n" not in str(err.value), attribute
        if attribute != "sk":
            session.params = {"v": value}
            with pytest.raises(DynosqlError) as err:
                session.execute(
                    f"UPDATE {name} SET {attribute} = :v WHERE pk = 'p' AND sk = 's'"
                ).all()
            assert message in str(err.value), attribute
    assert set(sent) <= {"DescribeTable"}
    session.params = {"v": "x" * 2048}
    session.execute(insert.format("gp")).all()
    assert sent[-1] == "PutItem"
    (row,) = session.execute(f"SELECT gp FROM {name} WHERE pk = 'p' AND sk = 's'").all()
    assert row == {"gp": "x" * 2048}
