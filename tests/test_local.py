"""The embedded backend (dynosql.local.embedded) and the example datasets (dynosql.examples.datasets)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend

from dynosql.dynamo import loader
from dynosql.examples.datasets import DATASETS
from dynosql.local.embedded import LocalDynamo, start_local
from dynosql.values import SET_TYPES, decode_item, encode_item, item_size

EXPECTED_COUNTS = {"drive": 675, "audit": 1000, "sensors": 1300, "tenants": 479, "usage": 300}


@pytest.fixture(scope="module")
def local() -> Any:
    server = start_local()
    yield server
    server.stop()


def _all_items() -> dict[str, list[dict[str, Any]]]:
    return {name: list(dataset.items()) for name, dataset in DATASETS.items()}


# --- the server --------------------------------------------------------------------------------


@pytest.mark.slow
def test_start_local_loads_all_four_tables(local: LocalDynamo) -> None:
    client = local.client()
    assert sorted(client.list_tables()["TableNames"]) == sorted(DATASETS)
    assert local.examples == list(DATASETS)
    for name, expected in EXPECTED_COUNTS.items():
        counted, start = 0, None
        while True:  # Select=COUNT still pages at 1 MB
            kwargs = {"TableName": name, "Select": "COUNT"}
            if start:
                kwargs["ExclusiveStartKey"] = start
            page = client.scan(**kwargs)
            counted += page["Count"]
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        assert counted == expected, name
    assert local.loaded == EXPECTED_COUNTS


def test_start_local_is_fast(local: LocalDynamo) -> None:
    # Measured at about 1.5 s on 2 CPUs; the bound leaves room for slow CI machines.
    assert 0 < local.load_seconds < 15


def test_endpoint_and_client(local: LocalDynamo) -> None:
    assert local.endpoint_url.startswith("http://127.0.0.1:")
    assert local.port > 0
    client = local.client()
    assert client.meta.region_name == "us-east-1"
    assert client.meta.endpoint_url == local.endpoint_url


def test_credentials_are_not_put_in_the_environment(local: LocalDynamo) -> None:
    import os

    assert os.environ.get("AWS_ACCESS_KEY_ID") != "dynosql-local"
    assert os.environ.get("AWS_SECRET_ACCESS_KEY") != "dynosql-local"


def test_loaded_item_reads_back_equal(local: LocalDynamo) -> None:
    beach = next(i for i in DATASETS["drive"].items() if i["SK"] == "root/photos/2026/beach.jpg")
    got = local.client().get_item(
        TableName="drive", Key=encode_item({"PK": beach["PK"], "SK": beach["SK"]})
    )
    assert decode_item(got["Item"]) == beach


def test_indexes_and_projections(local: LocalDynamo) -> None:
    client = local.client()
    drive = client.describe_table(TableName="drive")["Table"]
    (lsi,) = drive["LocalSecondaryIndexes"]
    assert lsi["IndexName"] == "by_modified"
    assert lsi["Projection"]["ProjectionType"] == "KEYS_ONLY"
    assert [k["AttributeName"] for k in lsi["KeySchema"]] == ["PK", "modified"]

    sensors = client.describe_table(TableName="sensors")["Table"]
    (gsi,) = sensors["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "by_region"
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["temperature"]}
    assert [k["AttributeName"] for k in gsi["KeySchema"]] == ["region", "readingTs"]

    tenants = client.describe_table(TableName="tenants")["Table"]
    (gsi1,) = tenants["GlobalSecondaryIndexes"]
    assert gsi1["IndexName"] == "gsi1"
    assert gsi1["Projection"]["ProjectionType"] == "ALL"
    assert [k["AttributeName"] for k in gsi1["KeySchema"]] == ["gsi1pk", "gsi1sk"]

    audit = client.describe_table(TableName="audit")["Table"]
    # moto answers empty lists where AWS (and dynalite) omit the keys.
    assert not audit.get("GlobalSecondaryIndexes") and not audit.get("LocalSecondaryIndexes")


def test_sparse_indexes_hold_only_items_with_their_keys(local: LocalDynamo) -> None:
    client = local.client()
    page = client.query(
        TableName="drive",
        IndexName="by_modified",
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "DRIVE#carol"}},
    )
    files = [i for i in DATASETS["drive"].items() if i["PK"] == "DRIVE#carol" and "modified" in i]
    assert page["Count"] == len(files)
    assert all(set(i) == {"PK", "SK", "modified"} for i in page["Items"])  # KEYS_ONLY

    page = client.query(
        TableName="tenants",
        IndexName="gsi1",
        KeyConditionExpression="gsi1pk = :s",
        ExpressionAttributeValues={":s": {"S": "STATUS#open"}},
    )
    open_invoices = [i for i in DATASETS["tenants"].items() if i.get("status") == "open"]
    assert page["Count"] == len(open_invoices) > 0


_PER_TABLE = {"TableArn", "TableId", "CreationDateTime", "ItemCount", "TableSizeBytes"}
_PER_TABLE |= {"IndexArn", "IndexSizeBytes", "LatestStreamArn", "LatestStreamLabel"}


def _shape(description: Any) -> Any:
    """A DescribeTable answer without what differs from table to table (ARNs, times, counts)."""
    if isinstance(description, dict):
        return {k: _shape(v) for k, v in description.items() if k not in _PER_TABLE}
    if isinstance(description, list):
        return [_shape(v) for v in description]
    return description


def test_example_tables_describe_as_if_created_over_http(local: LocalDynamo) -> None:
    # start_local makes the tables in moto's backend, not with CreateTable requests
    with LocalDynamo() as other:
        client = other.client()
        for dataset in DATASETS.values():
            loader.create_table(client, dataset.table)
        for name in DATASETS:
            made = local.client().describe_table(TableName=name)["Table"]
            created = client.describe_table(TableName=name)["Table"]
            assert made["ItemCount"] == EXPECTED_COUNTS[name] and created["ItemCount"] == 0
            assert _shape(made) == _shape(created), name


@pytest.mark.slow
def test_example_tables_are_filled_by_the_first_request_that_names_them() -> None:
    local = start_local()
    try:
        client = local.client()
        assert sorted(client.list_tables()["TableNames"]) == sorted(DATASETS)
        assert local.loaded == {}  # ListTables needs no items
        table = client.describe_table(TableName="tenants")["Table"]
        assert table["ItemCount"] == EXPECTED_COUNTS["tenants"]
        assert local.loaded == {"tenants": EXPECTED_COUNTS["tenants"]}
        keys = [
            {"PK": {"S": "DRIVE#alice"}, "SK": {"S": "x"}},
        ]
        client.batch_get_item(RequestItems={"drive": {"Keys": keys}})
        assert set(local.loaded) == {"tenants", "drive"}
        got = client.get_item(TableName="usage", Key=_first_key(local, "usage"))
        assert "Item" in got and set(local.loaded) == {"tenants", "drive", "usage"}
        # a statement that names its table only in PartiQL: every table is filled first
        client.execute_statement(Statement='SELECT * FROM "audit"', Limit=1)
        assert local.loaded == EXPECTED_COUNTS
    finally:
        local.stop()


def _first_key(local: LocalDynamo, name: str) -> dict[str, Any]:
    dataset = DATASETS[name]
    item = next(iter(dataset.items()))
    return encode_item({k: item[k] for k in dataset.key_names})


def test_two_servers_do_not_share_tables(local: LocalDynamo) -> None:
    with LocalDynamo() as other:
        assert other.endpoint_url != local.endpoint_url
        assert other.client().list_tables()["TableNames"] == []
    assert not other.running
    with pytest.raises(RuntimeError):
        _ = other.endpoint_url


def test_items_put_directly_read_back_as_items_written_by_batch_write_item(
    local: LocalDynamo,
) -> None:
    items = [
        {"pk": f"p{i % 3}", "sk": Decimal(i), "m": {"l": [Decimal("1.5"), "x", b"\x00"]}}
        for i in range(60)
    ]
    client = local.client()
    for name in ("direct_put", "batch_put"):
        Backend("moto", local.endpoint_url).create_keyed_table(name)
    assert local.put_items("direct_put", items) == 60
    assert loader.write_items(client, "batch_put", items) == 60
    direct, batch = (client.scan(TableName=n)["Items"] for n in ("direct_put", "batch_put"))
    assert len(direct) == 60 and direct == batch
    answer = client.query(
        TableName="direct_put",
        KeyConditionExpression="pk = :p AND sk > :s",
        ExpressionAttributeValues={":p": {"S": "p1"}, ":s": {"N": "50"}},
    )
    assert [decode_item(i)["sk"] for i in answer["Items"]] == [52, 55, 58]
    for name in ("direct_put", "batch_put"):
        client.delete_table(TableName=name)


def test_importing_local_does_not_import_boto3_or_moto() -> None:
    code = "import sys, dynosql.local.embedded, dynosql.examples.datasets; print(sorted(m for m in ('boto3', 'botocore', 'moto') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --- the datasets ------------------------------------------------------------------------------


def test_generation_is_deterministic() -> None:
    first, second = _all_items(), _all_items()
    assert first == second
    assert {n: len(v) for n, v in first.items()} == EXPECTED_COUNTS


def test_total_size_and_shape() -> None:
    items = _all_items()
    assert 3000 <= sum(len(v) for v in items.values()) <= 3800
    assert set(DATASETS) == {"drive", "audit", "sensors", "tenants", "usage"}
    for name, dataset in DATASETS.items():
        assert dataset.name == name == dataset.table_name
        assert dataset.table["BillingMode"] == "PAY_PER_REQUEST"
        assert dataset.description


def test_keys_are_unique_and_fit_dynamodb_limits() -> None:
    for name, items in _all_items().items():
        pk_name, sk_name = DATASETS[name].key_names
        keys = [(i[pk_name], i[sk_name]) for i in items]
        assert len(set(keys)) == len(keys), name
        for pk, sk in keys:
            assert isinstance(pk, str) and isinstance(sk, str)
            assert 1 <= len(pk.encode("utf-8")) <= 2048
            assert 1 <= len(sk.encode("utf-8")) <= 1024
        assert max(item_size(i) for i in items) < 400 * 1024


def _walk(value: Any) -> Any:
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, (list, *SET_TYPES)):
        for v in value:
            yield from _walk(v)


def test_no_float_anywhere() -> None:
    allowed = (str, Decimal, bytes, bool, type(None), list, dict, *SET_TYPES)
    for name, items in _all_items().items():
        for item in items:
            for value in _walk(item):
                assert not isinstance(value, float), (name, item)
                assert isinstance(value, allowed), (name, item)
                assert not (isinstance(value, int) and not isinstance(value, bool)), (name, item)


def test_numbers_are_canonical() -> None:
    """Generated numbers equal what a round trip returns, digit for digit."""
    for items in _all_items().values():
        for item in items:
            ours = [str(v) for v in _walk(item) if isinstance(v, Decimal)]
            back = [str(v) for v in _walk(decode_item(encode_item(item))) if isinstance(v, Decimal)]
            assert sorted(back) == sorted(ours), item


def test_drive_shape() -> None:
    items = list(DATASETS["drive"].items())
    per_account = Counter(i["PK"] for i in items)
    assert set(per_account) == {f"DRIVE#{a}" for a in ("alice", "bob", "carol", "dave", "erin")}
    assert per_account["DRIVE#alice"] > 2 * max(
        n for pk, n in per_account.items() if "alice" not in pk
    )
    for item in items:
        assert item["SK"].startswith("root/")
        assert item["name"] == item["SK"].rstrip("/").rsplit("/", 1)[-1]
        if item["type"] == "folder":
            assert item["SK"].endswith("/") and "modified" not in item and "size" not in item
        else:
            assert item["type"] == "file" and not item["SK"].endswith("/")
            assert item["modified"].startswith("2026-") and item["modified"].endswith("Z")
    paths = {(i["PK"], i["SK"]) for i in items}
    for pk, sk in paths:  # every parent folder exists
        parent = sk.rstrip("/").rsplit("/", 1)[0] + "/"
        assert sk == "root/" or (pk, parent) in paths
    assert any("tags" in i for i in items) and any("meta" in i for i in items)


def test_audit_shape() -> None:
    items = list(DATASETS["audit"].items())
    actors = Counter(i["PK"] for i in items)
    assert len(actors) == 20
    assert actors.most_common(1)[0][1] > 5 * min(actors.values())
    for item in items:
        assert item["SK"].startswith("EVT#2026-") and item["SK"].endswith("Z")
        assert len(item["SK"]) == len("EVT#2026-03-01T00:00:00.000Z")
        assert isinstance(item["ok"], bool)


def test_sensors_shape() -> None:
    items = list(DATASETS["sensors"].items())
    devices = Counter(i["deviceId"] for i in items)
    top3 = sum(n for _, n in devices.most_common(3))
    assert top3 > len(items) / 2  # hot keys
    assert {i["region"] for i in items} == {"eu-west", "us-east", "ap-south", "sa-east"}
    assert any(i["temperature"] < 0 for i in items)
    assert all(-i["temperature"].as_tuple().exponent <= 2 for i in items)
    assert any(i["humidity"] is None for i in items)  # stored NULL
    assert all("humidity" in i for i in items)
    assert {i["status"] for i in items if "status" in i} == {"alarm"}


def test_tenants_shape() -> None:
    items = list(DATASETS["tenants"].items())
    kinds = Counter(i["sk"].split("#", 1)[0] for i in items)
    assert set(kinds) == {"USER", "INVOICE", "EVENT"}
    for item in items:
        if item["sk"].startswith("INVOICE#"):
            assert item["status"] in ("open", "paid", "void")
            assert -item["amount"].as_tuple().exponent <= 2
            if item["status"] == "void":
                assert "gsi1pk" not in item and "gsi1sk" not in item
            else:
                assert item["gsi1pk"] == f"STATUS#{item['status']}"
                assert item["gsi1sk"] == item["dueDate"]
        else:
            assert "gsi1pk" not in item


def test_usage_shape() -> None:
    """A write-sharded key: every tenant's calls under `<tenant>#<shard>`, the busy one widest."""
    items = list(DATASETS["usage"].items())
    shards: dict[str, set[str]] = {}
    for item in items:
        tenant, shard = item["pk"].split("#")
        shards.setdefault(tenant, set()).add(shard)
        assert item["sk"].startswith("2026-05-04T") and item["status"] >= 200
    assert {t: len(s) for t, s in shards.items()} == {
        "acme": 8,
        "globex": 4,
        "initech": 2,
        "umbrella": 2,
        "hooli": 1,
    }
    assert shards["acme"] == {str(n) for n in range(8)}


def test_load_rejects_unknown_names() -> None:
    with pytest.raises(KeyError, match="nope"):
        loader.load(client=None, names=["nope"])
