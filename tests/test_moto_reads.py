"""moto's Scan and Query made cheaper in the embedded server (dynosql/local/moto_reads.py): the
same items in the same order, and nothing stored ever changed by a read."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from backends import Backend, unique_name

from dynosql.dynamo.wiresize import item_size
from dynosql.local import moto_reads
from dynosql.local.embedded import LocalDynamo
from dynosql.local.moto_reads import REPLACED, _all_items


@pytest.mark.parametrize(
    "types, values",
    [
        (("N", "N"), [("-12.5", "3"), ("0", "-1E-5"), ("12345678901234567890", "2"), ("7", "10"), ("7", "9")]),
        (("S", "S"), [("b", "z"), ("a", "é"), ("a", "e"), ("Z", "😀"), ("ä", "x")]),
        (("B", "N"), [("AAE=", "1"), ("AQ==", "0"), ("AA==", "5"), ("/w==", "-1")]),
        (("S", None), [("k2", None), ("k10", None), ("k1", None), ("K", None)]),
    ],
    ids=["numbers", "strings", "binary", "hash-only"],
)  # fmt: skip
def test_all_items_keeps_moto_order_and_pages_read_every_item_once(types, values) -> None:
    from moto.dynamodb.models import dynamodb_backends

    (hash_type, range_type), name = types, unique_name("order")
    schema = [{"AttributeName": "h", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "h", "AttributeType": hash_type}]
    if range_type:
        schema.append({"AttributeName": "r", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "r", "AttributeType": range_type})
    with LocalDynamo() as local:
        client = local.answer_directly(local.client())
        client.create_table(
            TableName=name,
            KeySchema=schema,
            AttributeDefinitions=attributes,
            BillingMode="PAY_PER_REQUEST",
        )
        for h, r in values:
            item = {"h": {hash_type: h}, "v": {"S": f"{h}/{r}"}}
            if range_type:
                item["r"] = {range_type: r}
            client.put_item(TableName=name, Item=item)
        table = dynamodb_backends[local.account_id][local.region].tables[name]
        assert type(table).all_items is _all_items  # installed by the server's start
        assert [id(i) for i in _all_items(table)] == [
            id(i) for i in REPLACED["Table.all_items"](table)
        ]
        whole = client.scan(TableName=name)["Items"]
        paged, start = [], None
        while True:
            page = client.scan(
                TableName=name, Limit=2, **({"ExclusiveStartKey": start} if start else {})
            )
            paged += page["Items"]
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        assert paged == whole and len(whole) == len(values)


def test_reads_copy_items_shallowly_and_leave_the_stored_items_as_they_were() -> None:
    """`moto_reads._ReadCopies`: moto's Scan and Query hand out copies of the stored
    items with dicts of their own (never the stored item's dict), so projecting through an
    INCLUDE index, a ProjectionExpression and a filter change nothing stored; every other deep
    copy of moto's table module stays deep."""
    import copy

    from moto.dynamodb.models import dynamodb_backends
    from moto.dynamodb.models import table as table_module

    with LocalDynamo() as local:
        client = local.answer_directly(local.client())
        name = unique_name("copies")
        client.create_table(
            TableName=name,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "g", "AttributeType": "S"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["m"]},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        wire = [
            {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "x"}, "m": {"M": {"k": {"L": [{"N": "1"}]}}}},
            {"pk": {"S": "a"}, "sk": {"N": "2"}, "g": {"S": "x"}, "s": {"SS": ["p", "q"]}, "v": {"N": "7"}},
        ]  # fmt: skip
        for item in wire:
            client.put_item(TableName=name, Item=item)
        table = dynamodb_backends[local.account_id][local.region].tables[name]
        before = {key: copy.deepcopy(item.to_json()) for key, item in _stored(table)}
        dicts = {id(item.attrs) for _key, item in _stored(table)}

        from moto.dynamodb.models.dynamo_type import DynamoType

        found = table.scan({}, None, None)[0]
        found += table.query(DynamoType({"S": "a"}), None, [], None, None, True, None)[0]
        assert len(found) == 4 and not dicts & {id(item.attrs) for item in found}
        # …and the same attribute values: no deep copy was made
        stored = dict(_stored(table))
        assert all(
            item.attrs["g"] is stored[(item.hash_key, item.range_key)].attrs["g"] for item in found
        )
        client.scan(TableName=name, IndexName="byG")
        client.scan(TableName=name, ProjectionExpression="m.k[0], s")
        client.query(
            TableName=name,
            KeyConditionExpression="pk = :a",
            FilterExpression="v > :n",
            ExpressionAttributeValues={":a": {"S": "a"}, ":n": {"N": "1"}},
            ProjectionExpression="sk",
        )
        assert {key: item.to_json() for key, item in _stored(table)} == before

    nested = {"a": [{"b": 1}]}
    deep = table_module.copy.deepcopy(nested)
    assert deep == nested and deep["a"][0] is not nested["a"][0]


def _stored(table: Any) -> Iterator[tuple[Any, Any]]:
    for hash_key, by_range in table.items.items():
        for range_key, item in by_range.items():
            yield (hash_key, range_key), item


def _sized_table(backend: Backend, items: int) -> tuple[Any, str]:
    name = unique_name("sized")
    backend.create_keyed_table(name, pk=("pk", "S"), sk=("sk", "N"))
    client = backend.client()
    for n in range(items):
        client.put_item(
            TableName=name,
            Item={"pk": {"S": "a"}, "sk": {"N": str(n)}, "v": {"S": "x" * (100 * n)}},
        )
    return client, name


def test_a_read_sizes_each_item_once(
    moto_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """moto sizes every item a Scan or Query reads twice (does it still fit the page? then
    add it); within one read the size is now computed once, by DynamoDB's rules
    (`wiresize.item_size`), and moto's own measure is not asked. Outside reads (a put's
    400 KB check) nothing is remembered."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    client, name = _sized_table(moto_backend, 10)
    calls: list[int] = []
    theirs: list[int] = []
    original, measure = DynamoType.size, moto_reads.wiresize.item_size
    monkeypatch.setattr(DynamoType, "size", lambda self: theirs.append(1) or original(self))
    monkeypatch.setattr(
        moto_reads.wiresize, "item_size", lambda item: calls.append(1) or measure(item)
    )
    assert len(client.scan(TableName=name)["Items"]) == 10
    assert len(calls) == 10 and not theirs  # each item once
    calls.clear()
    answer = client.query(
        TableName=name,
        KeyConditionExpression="pk = :a",
        ExpressionAttributeValues={":a": {"S": "a"}},
        Limit=4,
    )
    assert answer["Count"] == 4
    # the four kept and the fifth, which ends the page at Limit, are sized once each
    assert len(calls) == 5 and not theirs
    # the same item put twice is sized again each time (nothing kept between requests)
    for _ in range(2):
        client.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"N": "0"}})
    assert len(theirs) >= 2 * 2


def _mib_table(backend: Backend, items: int) -> str:
    """`items` items of 1,000 bytes each by DynamoDB's rules (a 21-digit number, a map of a
    list: moto's own measure makes them 948 bytes), a GSI of one partition projecting ALL and
    one projecting KEYS_ONLY (entries of 10 bytes)."""
    from decimal import Decimal

    name = unique_name("mib")
    backend.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "g", "k")],
        GlobalSecondaryIndexes=[
            {
                "IndexName": index,
                "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": projection},
            }
            for index, key, projection in (("by_g", "g", "ALL"), ("by_k", "k", "KEYS_ONLY"))
        ],
    )
    rows = [
        {
            "pk": f"p{n:05d}",
            "g": "g",
            "k": "k",
            "n": Decimal(10**20 + n),
            "m": {"a": [Decimal(j) for j in range(20)]},
            "body": "x" * 873,
        }
        for n in range(items)
    ]
    backend.put_items(name, rows)
    return name


def _pages(client: Any, **request: Any) -> list[tuple[list[int], float]]:
    """Each page of a Scan or Query, followed to its end: its items' sizes, its capacity."""
    pages: list[tuple[list[int], float]] = []
    more: dict[str, Any] = {}
    while True:
        page = (
            client.scan(**request, **more)
            if "KeyConditionExpression" not in request
            else (client.query(**request, **more))
        )
        pages.append(
            ([item_size(i) for i in page["Items"]], page["ConsumedCapacity"]["CapacityUnits"])
        )
        if "LastEvaluatedKey" not in page:
            return pages
        more = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


MIB = 1 << 20


@pytest.mark.parametrize(
    "request_",
    [
        {},
        {"IndexName": "by_g"},
        {"KeyConditionExpression": "g = :g", "IndexName": "by_g"},
        {"FilterExpression": "attribute_not_exists(nothing)", "ProjectionExpression": "pk"},
        {"IndexName": "by_k"},
    ],
    ids=["scan", "index-scan", "index-query", "filtered", "keys-only-index"],
)
@pytest.mark.slow  # 5 tables of over 1 MiB: 6 s of CPU
def test_a_page_ends_on_the_item_that_reaches_one_mib(
    moto_backend: Backend, request_: dict[str, Any]
) -> None:
    """As DynamoDB ends a page (`moto_reads._PageCut`): after the item that brings the items
    read (index entries through an index, before any filter) to 1 MiB, the item included;
    moto ended it before the item that would pass 1,000,000 bytes of its own measure. Each page
    is billed its items' bytes in 4 KB units; every item is read once."""
    name = _mib_table(moto_backend, 1_200)
    client = moto_backend.client()
    request = {"TableName": name, "ReturnConsumedCapacity": "TOTAL", **request_}
    if "KeyConditionExpression" in request:
        request["ExpressionAttributeValues"] = {":g": {"S": "g"}}
    pages = _pages(client, **request)
    if "FilterExpression" in request:  # what came back is projected: the whole items' pages
        whole = _pages(client, TableName=name, ReturnConsumedCapacity="TOTAL")
        assert [units for _, units in pages] == [units for _, units in whole]
        assert [len(sizes) for sizes, _ in pages] == [len(sizes) for sizes, _ in whole]
        return
    if request.get("IndexName") == "by_k":  # 1,200 entries of 10 bytes: one page
        assert [len(sizes) for sizes, _ in pages] == [1_200]
    else:
        assert len(pages) > 1 and sum(len(sizes) for sizes, _ in pages) == 1_200
    for sizes, _units in pages[:-1]:
        assert sum(sizes[:-1]) < MIB <= sum(sizes), (len(sizes), sum(sizes))
    for sizes, units in pages:
        assert units == math.ceil(sum(sizes) / 4096) / 2


def test_a_metered_page_is_evaluated_once_and_billed_before_its_filter(
    moto_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The metering bills a filtered or projected page by the items it evaluated, recorded
    as the request itself runs (`moto_reads.evaluated_items`): moto's table reads once per
    request, with the figure and the answer of a read without the recording. A ScanFilter
    (which moto applies while it evaluates) is still sent again, at the same figure."""
    from moto.dynamodb.models import table as table_module

    client, name = _sized_table(moto_backend, 30)  # 30 items of 0 to 2.9 KB
    reads: list[str] = []
    for method in ("scan", "query"):
        original = getattr(table_module.Table, method)

        def counted(*args: Any, _o: Any = original, _m: str = method, **kwargs: Any) -> Any:
            reads.append(_m)
            return _o(*args, **kwargs)

        monkeypatch.setattr(table_module.Table, method, counted)
    filtered = client.scan(
        TableName=name,
        FilterExpression="sk >= :n",
        ProjectionExpression="sk",
        ExpressionAttributeValues={":n": {"N": "28"}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert reads == ["scan"]
    assert [i["sk"]["N"] for i in filtered["Items"]] == ["28", "29"]
    assert filtered["Items"][0] == {"sk": {"N": "28"}}  # projected
    assert filtered["ScannedCount"] == 30
    whole = client.scan(TableName=name, ReturnConsumedCapacity="TOTAL")
    assert filtered["ConsumedCapacity"] == whole["ConsumedCapacity"]
    total = sum(map(item_size, whole["Items"]))  # 43.7 KB: 11 units of 4 KB, halved
    assert whole["ConsumedCapacity"]["CapacityUnits"] == math.ceil(total / 4096) / 2 == 5.5
    reads.clear()
    legacy = client.scan(
        TableName=name,
        ScanFilter={"sk": {"AttributeValueList": [{"N": "28"}], "ComparisonOperator": "GE"}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert reads == ["scan", "scan"] and legacy["Count"] == 2
    assert legacy["ConsumedCapacity"] == whole["ConsumedCapacity"]
    reads.clear()
    page = client.query(
        TableName=name,
        KeyConditionExpression="pk = :a",
        FilterExpression="sk = :none",
        ExpressionAttributeValues={":a": {"S": "a"}, ":none": {"N": "-1"}},
        Limit=3,
        ReturnConsumedCapacity="TOTAL",
    )
    assert reads == ["query"] and page["Count"] == 0 and page["ScannedCount"] == 3
    assert page["ConsumedCapacity"]["CapacityUnits"] == 0.5  # 0.3 KB of three items


@pytest.mark.slow
def test_a_large_table_is_paged_as_on_dynamodb_local(
    moto_backend: Backend, ddblocal_backend: Backend
) -> None:
    """The same 1.2 MB of items (of even sizes, so that the servers' orders do not matter) on
    the embedded server and on DynamoDB Local: the same pages, items and capacity, for a Scan
    of the table, of its ALL index and a Query of that index. (Before, --local's Scan cut its
    first page at 1,060 items, 126 RCU, and cost 143 RCU; DynamoDB Local's held 1,082 items,
    128.5 RCU, of 142.5.)"""
    paged = {}
    for backend in (moto_backend, ddblocal_backend):
        name = _mib_table(backend, 1_200)
        client = backend.client()
        paged[backend.name] = [
            [(len(sizes), sum(sizes), units) for sizes, units in _pages(client, **request)]
            for request in (
                {"TableName": name, "ReturnConsumedCapacity": "TOTAL"},
                {"TableName": name, "IndexName": "by_g", "ReturnConsumedCapacity": "TOTAL"},
                {
                    "TableName": name,
                    "IndexName": "by_g",
                    "KeyConditionExpression": "g = :g",
                    "ExpressionAttributeValues": {":g": {"S": "g"}},
                    "ReturnConsumedCapacity": "TOTAL",
                },
            )
        ]
    assert paged["moto"] == paged["ddblocal"]
    assert all(len(pages) == 2 for pages in paged["moto"])


def _varied_table(backend: Backend, items: int, key_type: str = "S", seed: int = 36) -> str:
    """`items` items of 10 to 4,000 bytes (random, the same on every backend), keyed by
    strings, numbers (negative and fractional) or binaries; with a GSI of five partitions
    sorted by a number, projecting ALL."""
    import random
    from decimal import Decimal

    name = unique_name("varied")
    backend.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": key_type},
            {"AttributeName": "g", "AttributeType": "S"},
            {"AttributeName": "r", "AttributeType": "N"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_g",
                "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "r", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    draw = random.Random(seed)
    keys = {
        "S": lambda n: f"p{n}",
        "N": lambda n: Decimal(n - items // 2) / 8,
        "B": lambda n: n.to_bytes(2, "big"),
    }[key_type]
    rows = [
        {
            "pk": keys(n),
            "g": f"g{draw.randrange(5)}",
            "r": Decimal(draw.randrange(30)),
            "body": "x" * draw.randint(10, 4_000),
        }
        for n in range(items)
    ]
    backend.put_items(name, rows)
    return name


def _segment_pages(client: Any, total: int, **request: Any) -> list[list[Any]]:
    """Each segment's pages (one stream when `total` is 0): each page's keys, bytes and units."""
    segments = []
    for segment in range(max(total, 1)):
        split = {"Segment": segment, "TotalSegments": total} if total else {}
        pages: list[Any] = []
        more: dict[str, Any] = {}
        while True:
            page = client.scan(**request, **split, **more, ReturnConsumedCapacity="TOTAL")
            pages.append(
                (
                    [(i["pk"], i["r"]["N"]) for i in page["Items"]],
                    sum(map(item_size, page["Items"])),
                    page["ConsumedCapacity"]["CapacityUnits"],
                )
            )
            if "LastEvaluatedKey" not in page:
                break
            more = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
        segments.append(pages)
    return segments


@pytest.mark.slow
def test_a_large_table_of_varied_items_is_scanned_as_on_dynamodb_local(
    moto_backend: Backend, ddblocal_backend: Backend
) -> None:
    """2.4 MB of items of 10 to 4,000 bytes on the embedded server and on DynamoDB Local: the
    same items in the same order on every page, so the same pages and capacity, for a Scan in
    one stream, in 4 segments (each one page) and in 2 (each cut in two pages), and for a
    Scan of an index in one stream and in 4 segments (`dynosql.local.scan_order`). Before,
    --local read in key order and split the segments by an MD5 of its own: 290.5 RCU in 4
    segments and 291 in 2 where DynamoDB Local bills 290 and 290.5, and 290.5 for the index
    against 290. Tables keyed by numbers and binaries are split and ordered the same way."""
    scanned: dict[str, list[Any]] = {}
    reads = [(0, {}), (4, {}), (2, {}), (0, {"IndexName": "by_g"}), (4, {"IndexName": "by_g"})]
    for backend in (moto_backend, ddblocal_backend):
        client = backend.client()
        name = _varied_table(backend, 1_200)
        scanned[backend.name] = [
            _segment_pages(client, total, TableName=name, **index) for total, index in reads
        ]
        for key_type in ("N", "B"):
            name = _varied_table(backend, 200, key_type)
            scanned[backend.name].append(_segment_pages(client, 4, TableName=name))
    assert scanned["moto"] == scanned["ddblocal"]
    pages = [[len(segment) for segment in read] for read in scanned["moto"][:5]]
    assert pages == [[3], [1, 1, 1, 1], [2, 2], [3], [1, 1, 1, 1]]
    units = [sum(page[2] for segment in read for page in segment) for read in scanned["moto"][:5]]
    assert units == [290.5, 290, 290.5, 290, 290]


@pytest.mark.parametrize(
    "number, encoded",
    [
        ("0", "80"), ("1", "c102"), ("-1", "3e6466"), ("0.5", "c033"), ("-0.05", "3f6066"),
        ("12.345", "c10d2333"), ("-12.345", "3e59433366"), ("100", "c202"), ("-100", "3d6466"),
        ("0.00100", "bf0b"), ("-00120.50", "3d64513366"), ("1E+30", "d002"), ("1E-130", "8002"),
        ("-1E-130", "7f6466"), ("1E+125", "ff0b"),
        ("12345678901234567890123456789012345678", "d30d23394f5b0d23394f5b0d23394f5b0d23394f"),
        ("-12345678901234567890123456789012345678", "2c59432d170b59432d170b59432d170b59432d1766"),
        ("-9.9999999999999999999999999999999999999E+125", "000202020202020202020202020202020202020266"),
    ],
)  # fmt: skip
def test_a_number_key_is_hashed_from_dynamodb_locals_encoding(number: str, encoded: str) -> None:
    """The bytes DynamoDB Local 3.3.1's own encoder (``LocalDBUtils.encodeBigDecimal``) gives
    each number, 38 digits included (`Decimal.normalize` would round those to 28)."""
    from decimal import Decimal

    from dynosql.local.scan_order import number_bytes

    assert number_bytes(Decimal(number)).hex() == encoded


def test_a_parallel_scan_reads_each_item_once_in_pages_of_any_limit(moto_backend: Backend) -> None:
    """Segments split the table by partition key (whole partitions, every item in one), and a
    segment read a few items a page (each page resuming after its LastEvaluatedKey, in the
    hash order) returns what it returns in one page, for the table and for an index."""
    client = moto_backend.client()
    name = _varied_table(moto_backend, 60)
    for index in ({}, {"IndexName": "by_g"}):
        whole = _segment_pages(client, 0, TableName=name, **index)[0][0][0]
        segments = _segment_pages(client, 3, TableName=name, **index)
        assert sorted(map(str, whole)) == sorted(
            str(key) for segment in segments for page in segment for key in page[0]
        )
        paged = _segment_pages(client, 3, TableName=name, Limit=4, **index)
        for segment, pages in zip(segments, paged, strict=True):
            assert [key for page in pages for key in page[0]] == segment[0][0]
            assert len(pages) == len(segment[0][0]) // 4 + 1


_QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("pk = :p", {}),
    ("pk = :p AND sk = :a", {}),
    ("pk = :p AND sk < :a", {}),
    ("pk = :p AND sk <= :a", {"ScanIndexForward": False}),
    ("pk = :p AND sk > :a", {"Limit": 3}),
    ("pk = :p AND sk >= :a", {"FilterExpression": "v <> :p"}),
    ("pk = :p AND sk BETWEEN :a AND :b", {"ProjectionExpression": "sk"}),
    ("pk = :q AND begins_with(sk, :s)", {}),
    ("pk = :q AND begins_with(sk, :s)", {"ScanIndexForward": False, "Limit": 2}),
]


@pytest.mark.parametrize("key_type", ["N", "S", "B"])
def test_a_base_table_query_reads_its_partition_as_moto_does(
    key_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Query of the base table takes its partition's items that meet the sort key condition
    (`moto_reads._partition`) instead of sorting the whole table and sizing each item of the
    partition: every answer, paged by Limit 2 too, is moto's own (its original query and
    all_items put back), and a Query of one item sizes that item alone."""
    from moto.dynamodb.models import table as table_module

    def sort_value(n: int) -> dict[str, Any]:
        text = f"r{n % 3}/{n:03d}"
        return (
            {"N": str(n - 20)}
            if key_type == "N"
            else {key_type: text.encode() if key_type == "B" else text}
        )

    name = unique_name("part")
    with LocalDynamo() as local:
        client = local.answer_directly(local.client())
        Backend("moto", local.endpoint_url).create_keyed_table(name, sk=("sk", key_type))
        for n in range(60):
            item = {"pk": {"S": f"p{n % 4}"}, "sk": sort_value(n), "v": {"S": f"p{n % 5}"}}
            client.put_item(TableName=name, Item=item)
        values = {
            ":p": {"S": "p1"},
            ":q": {"S": "p2"},
            ":a": sort_value(21),
            ":b": sort_value(45),
            ":s": {key_type: b"r1/" if key_type == "B" else "r1/"} if key_type != "N" else None,
        }

        def answers() -> list[Any]:
            out = []
            for condition, extra in _QUERIES:
                if "begins_with" in condition and key_type == "N":
                    continue
                used = {k: v for k, v in values.items() if k in condition or k in str(extra)}
                request = dict(
                    TableName=name,
                    KeyConditionExpression=condition,
                    ExpressionAttributeValues=used,
                    **extra,
                )
                whole = client.query(**request)
                pages, start = [], None
                while True:
                    more = {"ExclusiveStartKey": start} if start else {}
                    page = client.query(**{**request, "Limit": 2, **more})
                    pages.append((page["Items"], page["Count"], page["ScannedCount"]))
                    start = page.get("LastEvaluatedKey")
                    if not start:
                        break
                out.append((whole["Items"], whole["Count"], whole["ScannedCount"], pages))
            return out

        ours = answers()
        sized: list[int] = []
        measure = moto_reads.wiresize.item_size
        with monkeypatch.context() as patch:
            patch.setattr(
                moto_reads.wiresize, "item_size", lambda item: sized.append(1) or measure(item)
            )
            one = client.query(
                TableName=name,
                KeyConditionExpression="pk = :p AND sk = :a",
                ExpressionAttributeValues={":p": values[":p"], ":a": values[":a"]},
            )
        assert one["Count"] == 1 and len(sized) == 1  # one item, sized once
        with monkeypatch.context() as patch:
            patch.setattr(table_module.Table, "all_items", REPLACED["Table.all_items"])
            patch.setattr(table_module.Table, "query", REPLACED["Table.query"])
            assert answers() == ours
        assert all(items for items, *_ in ours[:2]) and any(len(p) > 1 for *_, p in ours)
