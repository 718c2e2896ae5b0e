"""Cost test: for each access pattern, dynosql consumes exactly what the best hand-written
boto3 requests consume, in the fewest calls.

On dynalite and on DynamoDB Local: both compute ConsumedCapacity from item sizes the way
DynamoDB bills (moto reports constants). For each statement we

- check the plan dynosql chooses (operation, index, Limit, ScanIndexForward, Select=COUNT,
  fetch-back) with ``session.plan`` — no reads;
- run it (the server reports capacity, so the Session sums what the server reported);
- send the optimal requests ourselves with ReturnConsumedCapacity=TOTAL, summing every page and
  every call, and compare: the same capacity and the same number of calls.

The items have realistic sizes: most are tiny, some are over 4 KB (a 4 KB read unit each is
where the per-item rounding of GetItem/BatchGetItem differs from a Query's rounding of the page
total), and a few large ones make the table span several 1 MB Scan pages.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name

from dynosql import values
from dynosql.session import Session, Settings
from dynosql.sql import parse


def _schema(pk: str, sk: str | None = None) -> list[dict[str, str]]:
    out = [{"AttributeName": pk, "KeyType": "HASH"}]
    if sk:
        out.append({"AttributeName": sk, "KeyType": "RANGE"})
    return out


def _text(rng: random.Random, size: int) -> str:
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "invoice", "draft", "photo", "notes"]
    out: list[str] = []
    length = 0
    while length < size:
        out.append(rng.choice(words))
        length += len(out[-1]) + 1
    return " ".join(out)[:size]


def doc_items() -> list[dict[str, Any]]:
    rng = random.Random(4096)
    items = []
    for account, count in (("acct#1", 40), ("acct#2", 30), ("acct#3", 5)):
        for n in range(1, count + 1):
            prefix = "img" if account == "acct#2" and n % 2 else "doc"
            item: dict[str, Any] = {
                "PK": account,
                "SK": f"{prefix}#{n:03d}",
                "title": f"{prefix} {n}",
                "kind": "photo" if prefix == "img" or n % 7 == 0 else "note",
                "updated": f"2026-{1 + n % 6:02d}-{1 + n % 28:02d}T10:00:00Z",
                "status": rng.choice(["open", "closed"]),
                "views": Decimal(rng.randint(0, 10**6)),
            }
            if n % 5 == 0:
                item["body"] = _text(rng, rng.randint(5000, 9000))  # over 4 KB
            elif n % 3 == 0:
                item["body"] = _text(rng, rng.randint(10, 60))  # tiny
            if n % 3:  # sparse: the KEYS_ONLY LSI by_edited holds two items in three
                item["edited"] = f"2026-07-{1 + n % 28:02d}T{n % 24:02d}:00:00Z"
            if n % 4 == 0:
                item["owner"] = "bob"
            elif n % 4 == 1:
                item["owner"] = "ann"
            items.append(item)
    for n in range(1, 21):  # big archive items: the table spans several 1 MB Scan pages
        items.append(
            {
                "PK": "archive",
                "SK": f"blob#{n:03d}",
                "kind": "archive",
                "updated": f"2025-12-{n:02d}T00:00:00Z",
                "body": _text(rng, 80_000),
            }
        )
    return items


def user_items() -> list[dict[str, Any]]:
    rng = random.Random(7)
    return [
        {
            "id": f"u{n:02d}",
            "name": f"User {n}",
            **({"bio": _text(rng, 4500 + 100 * n)} if n % 3 == 0 else {}),
        }
        for n in range(1, 31)
    ]


@dataclass
class Tables:
    client: Any
    docs: str
    users: str
    server: str  # the backend's name


@pytest.fixture(scope="module", params=["dynalite", "ddblocal"])
def tables(request: pytest.FixtureRequest) -> Iterator[Tables]:
    backend: Backend = request.getfixturevalue(f"{request.param}_backend")
    docs, users = unique_name("docs"), unique_name("users")
    backend.create_table(
        TableName=docs,
        KeySchema=_schema("PK", "SK"),
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": "S"}
            for n in ("PK", "SK", "updated", "status", "owner", "edited")
        ],
        BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=[
            {
                "IndexName": "by_updated",
                "KeySchema": _schema("PK", "updated"),
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "by_edited",
                "KeySchema": _schema("PK", "edited"),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_status",
                "KeySchema": _schema("status", "updated"),
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "by_owner",
                "KeySchema": _schema("owner"),
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            },
        ],
    )
    backend.create_table(
        TableName=users,
        KeySchema=_schema("id"),
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    backend.put_items(docs, doc_items())
    backend.put_items(users, user_items())
    yield Tables(backend.client(), docs, users, backend.name)
    backend.delete_table(docs)
    backend.delete_table(users)


# --- the hand-written requests -----------------------------------------------------------------


@dataclass
class Spent:
    capacity: Decimal = Decimal(0)
    calls: int = 0
    items: list[dict] = field(default_factory=list)
    count: int = 0  # Count summed over Query/Scan pages

    def add(self, response: dict) -> None:
        self.calls += 1
        consumed = response.get("ConsumedCapacity")
        for c in consumed if isinstance(consumed, list) else [consumed]:
            assert c is not None, "the server reported no ConsumedCapacity"
            self.capacity += Decimal(str(c["CapacityUnits"]))


def get_item(client: Any, spent: Spent, **kwargs: Any) -> None:
    response = client.get_item(ReturnConsumedCapacity="TOTAL", **kwargs)
    spent.add(response)
    if "Item" in response:
        spent.items.append(response["Item"])


def pages(client: Any, spent: Spent, method: str, stop_after: int | None = None, **kw: Any) -> None:
    """Every page of a Query or Scan (or until `stop_after` items)."""
    while True:
        response = getattr(client, method)(ReturnConsumedCapacity="TOTAL", **kw)
        spent.add(response)
        spent.items.extend(response.get("Items", []))
        spent.count += response["Count"]
        if stop_after is not None and len(spent.items) >= stop_after:
            return
        if "LastEvaluatedKey" not in response:
            return
        kw["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def batch_get(client: Any, spent: Spent, table: str, keys: list[dict], **spec: Any) -> None:
    """BatchGetItem, 100 keys a call, UnprocessedKeys retried."""
    for start in range(0, len(keys), 100):
        request = {table: {"Keys": keys[start : start + 100], **spec}}
        while request:
            response = client.batch_get_item(RequestItems=request, ReturnConsumedCapacity="TOTAL")
            spent.add(response)
            spent.items.extend(response["Responses"].get(table, []))
            request = response.get("UnprocessedKeys") or {}


def S(text: str) -> dict:  # noqa: N802 - DynamoDB's own type letter
    return {"S": text}


# --- the corpus ----------------------------------------------------------------------------------


KEYS_ONLY_LSIS = {"by_edited"}  # the local index that projects only the keys


@dataclass
class Pattern:
    """One access pattern: the SQL, the plan it must get, and the optimal requests by hand."""

    name: str
    sql: str
    operation: str
    by_hand: Callable[[Tables, Spent], None]
    index: str | None = None
    request: dict[str, Any] = field(default_factory=dict)  # params the first request must carry
    fetch: bool = False
    consistent: bool = False
    rows: int | None = None  # rows expected, when they are not the items read (GROUP BY)


def _newest(t: Tables, s: Spent) -> None:
    pages(
        t.client,
        s,
        "query",
        TableName=t.docs,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": S("acct#1")},
        ScanIndexForward=False,
        Limit=5,
        stop_after=5,
    )


def _keys_only_fetch(t: Tables, s: Spent) -> None:
    found = Spent()
    pages(
        t.client,
        found,
        "query",
        TableName=t.docs,
        IndexName="by_owner",
        KeyConditionExpression="#o = :o",
        ExpressionAttributeNames={"#o": "owner"},
        ExpressionAttributeValues={":o": S("bob")},
    )
    s.capacity, s.calls = found.capacity, found.calls
    keys = [{"PK": i["PK"], "SK": i["SK"]} for i in found.items]
    batch_get(t.client, s, t.docs, keys)


def _newest_edited(t: Tables, s: Spent) -> None:
    """The KEYS_ONLY LSI in descending order with Limit 5, then one BatchGetItem of the five."""
    found = Spent()
    pages(
        t.client,
        found,
        "query",
        TableName=t.docs,
        IndexName="by_edited",
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": S("acct#1")},
        ScanIndexForward=False,
        Limit=5,
        stop_after=5,
    )
    s.capacity, s.calls = found.capacity, found.calls
    batch_get(t.client, s, t.docs, [{"PK": i["PK"], "SK": i["SK"]} for i in found.items])


PATTERNS = [
    Pattern(
        "key lookup of a large item",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' AND SK = 'doc#005'",
        "GetItem",
        lambda t, s: get_item(
            t.client, s, TableName=t.docs, Key={"PK": S("acct#1"), "SK": S("doc#005")}
        ),
    ),
    Pattern(
        "key lookup, strongly consistent",
        "SELECT title, body FROM {docs} WHERE SK = 'doc#010' AND PK = 'acct#1'",
        "GetItem",
        lambda t, s: get_item(
            t.client,
            s,
            TableName=t.docs,
            Key={"PK": S("acct#1"), "SK": S("doc#010")},
            ConsistentRead=True,
        ),
        consistent=True,
    ),
    Pattern(
        "key lookup that misses",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' AND SK = 'doc#999'",
        "GetItem",
        lambda t, s: get_item(
            t.client, s, TableName=t.docs, Key={"PK": S("acct#1"), "SK": S("doc#999")}
        ),
    ),
    Pattern(
        "several full keys",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' AND SK IN ('doc#001', 'doc#005', 'doc#010', 'doc#999')",
        "BatchGetItem",
        lambda t, s: batch_get(
            t.client,
            s,
            t.docs,
            [{"PK": S("acct#1"), "SK": S(k)} for k in ("doc#001", "doc#005", "doc#010", "doc#999")],
        ),
    ),
    Pattern(
        "full keys as OR of pairs",
        "SELECT * FROM {docs} WHERE (PK = 'acct#1' AND SK = 'doc#020') OR (PK = 'acct#3' AND SK = 'doc#002')",
        "BatchGetItem",
        lambda t, s: batch_get(
            t.client,
            s,
            t.docs,
            [{"PK": S("acct#1"), "SK": S("doc#020")}, {"PK": S("acct#3"), "SK": S("doc#002")}],
        ),
    ),
    Pattern(
        "120 full keys: two BatchGetItem calls",
        "SELECT PK, SK, title FROM {docs} WHERE PK IN ('acct#1', 'acct#2') AND SK IN ("
        + ", ".join(f"'doc#{n:03d}'" for n in range(1, 61))
        + ")",
        "BatchGetItem",
        lambda t, s: batch_get(
            t.client,
            s,
            t.docs,
            [
                {"PK": S(p), "SK": S(f"doc#{n:03d}")}
                for p in ("acct#1", "acct#2")
                for n in range(1, 61)
            ],
            ProjectionExpression="PK, SK, title",
        ),
    ),
    Pattern(
        "pk IN on a hash-only table",
        "SELECT * FROM {users} WHERE id IN ('u03', 'u04', 'u09', 'u30', 'u99')",
        "BatchGetItem",
        lambda t, s: batch_get(
            t.client, s, t.users, [{"id": S(k)} for k in ("u03", "u04", "u09", "u30", "u99")]
        ),
    ),
    Pattern(
        "subtree by begins_with",
        "SELECT * FROM {docs} WHERE PK = 'acct#2' AND begins_with(SK, 'img#')",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
            ExpressionAttributeValues={":p": S("acct#2"), ":s": S("img#")},
        ),
    ),
    Pattern(
        "subtree by LIKE prefix",
        "SELECT SK, title FROM {docs} WHERE PK = 'acct#2' AND SK LIKE 'doc#%'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
            ExpressionAttributeValues={":p": S("acct#2"), ":s": S("doc#")},
        ),
    ),
    Pattern(
        "newest N",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' ORDER BY SK DESC LIMIT 5",
        "Query",
        _newest,
        request={"ScanIndexForward": False, "Limit": 5},
    ),
    Pattern(
        "BETWEEN window",
        "SELECT SK FROM {docs} WHERE PK = 'acct#1' AND SK BETWEEN 'doc#010' AND 'doc#020'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p AND SK BETWEEN :a AND :b",
            ExpressionAttributeValues={":p": S("acct#1"), ":a": S("doc#010"), ":b": S("doc#020")},
        ),
    ),
    Pattern(
        "GSI query",
        "SELECT PK, SK, updated FROM {docs} WHERE status = 'open' AND updated >= '2026-04'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_status",
            KeyConditionExpression="#s = :s AND updated >= :u",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": S("open"), ":u": S("2026-04")},
        ),
        index="by_status",
    ),
    Pattern(
        "newest N through a GSI",
        "SELECT PK, SK FROM {docs} WHERE status = 'closed' AND updated > '2026' "
        "ORDER BY updated DESC LIMIT 3",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_status",
            KeyConditionExpression="#s = :s AND updated > :u",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": S("closed"), ":u": S("2026")},
            ScanIndexForward=False,
            Limit=3,
            stop_after=3,
        ),
        index="by_status",
        request={"ScanIndexForward": False, "Limit": 3},
    ),
    Pattern(
        "LSI query",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' AND updated > '2026-05'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_updated",
            KeyConditionExpression="PK = :p AND updated > :u",
            ExpressionAttributeValues={":p": S("acct#1"), ":u": S("2026-05")},
        ),
        index="by_updated",
    ),
    Pattern(
        "pk IN on a hash+range table",
        "SELECT SK FROM {docs} WHERE PK IN ('acct#2', 'acct#3')",
        "Query",
        lambda t, s: [
            pages(
                t.client,
                s,
                "query",
                TableName=t.docs,
                KeyConditionExpression="PK = :p",
                ExpressionAttributeValues={":p": S(p)},
            )
            for p in ("acct#2", "acct#3")
        ],
    ),
    Pattern(
        "keys-only index, keys only",
        "SELECT PK, SK FROM {docs} WHERE owner = 'bob'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_owner",
            KeyConditionExpression="#o = :o",
            ExpressionAttributeNames={"#o": "owner"},
            ExpressionAttributeValues={":o": S("bob")},
        ),
        index="by_owner",
    ),
    Pattern(
        "keys-only index with fetch-back",
        "SELECT * FROM {docs} WHERE owner = 'bob'",
        "Query",
        _keys_only_fetch,
        index="by_owner",
        fetch=True,
    ),
    Pattern(
        "scan with a filter",
        "SELECT PK, SK FROM {docs} WHERE kind = 'photo'",
        "Scan",
        lambda t, s: pages(
            t.client,
            s,
            "scan",
            TableName=t.docs,
            FilterExpression="kind = :k",
            ExpressionAttributeValues={":k": S("photo")},
        ),
    ),
    Pattern(
        "COUNT(*) of a partition",
        "SELECT COUNT(*) FROM {docs} WHERE PK = 'acct#1'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": S("acct#1")},
            Select="COUNT",
        ),
        request={"Select": "COUNT"},
    ),
    Pattern(
        "MAX of the sort key: one item",
        "SELECT MAX(SK) FROM {docs} WHERE PK = 'acct#1'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": S("acct#1")},
            ProjectionExpression="SK",
            ScanIndexForward=False,
            Limit=1,
            stop_after=1,
        ),
        request={"ScanIndexForward": False, "Limit": 1},
    ),
    Pattern(
        "MIN of an LSI's sort key: one index entry",
        "SELECT MIN(updated) FROM {docs} WHERE PK = 'acct#1'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_updated",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": S("acct#1")},
            ProjectionExpression="updated",
            ScanIndexForward=True,
            Limit=1,
            stop_after=1,
        ),
        index="by_updated",
        request={"ScanIndexForward": True, "Limit": 1},
    ),
    Pattern(
        "attribute_exists of the index key is implied: Limit stays",
        "SELECT PK, SK FROM {docs} WHERE status = 'open' AND attribute_exists(updated) LIMIT 3",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_status",
            KeyConditionExpression="#s = :s",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": S("open")},
            ProjectionExpression="PK, SK",
            Limit=3,
            stop_after=3,
        ),
        index="by_status",
        request={"Limit": 3},
    ),
    Pattern(
        "COUNT(*) of a key range",
        "SELECT COUNT(*) FROM {docs} WHERE PK = 'archive' AND SK >= 'blob#005'",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            KeyConditionExpression="PK = :p AND SK >= :s",
            ExpressionAttributeValues={":p": S("archive"), ":s": S("blob#005")},
            Select="COUNT",
        ),
        request={"Select": "COUNT"},
    ),
    Pattern(
        "newest N through a sparse KEYS_ONLY LSI: Limit, then fetch",
        "SELECT * FROM {docs} WHERE PK = 'acct#1' AND attribute_exists(edited) "
        "ORDER BY edited DESC LIMIT 5",
        "Query",
        _newest_edited,
        index="by_edited",
        fetch=True,
        request={"ScanIndexForward": False, "Limit": 5},
    ),
    Pattern(
        "NULLS LAST through a sparse KEYS_ONLY LSI: Limit, the rest never read",
        "SELECT PK, SK, edited FROM {docs} WHERE PK = 'acct#1' "
        "ORDER BY edited DESC NULLS LAST LIMIT 5",
        "Query",
        lambda t, s: pages(
            t.client,
            s,
            "query",
            TableName=t.docs,
            IndexName="by_edited",
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": S("acct#1")},
            ScanIndexForward=False,
            Limit=5,
            stop_after=5,
        ),
        index="by_edited",
        request={"ScanIndexForward": False, "Limit": 5},
    ),
    Pattern(
        "COUNT(*) over a KEYS_ONLY GSI the WHERE implies",
        "SELECT COUNT(*) FROM {docs} WHERE attribute_exists(owner)",
        "Scan",
        lambda t, s: pages(
            t.client, s, "scan", TableName=t.docs, IndexName="by_owner", Select="COUNT"
        ),
        index="by_owner",
        request={"Select": "COUNT"},
    ),
    Pattern(
        "GROUP BY over a KEYS_ONLY GSI the WHERE implies",
        "SELECT owner, COUNT(*) AS n FROM {docs} WHERE owner >= 'a' GROUP BY owner",
        "Scan",
        lambda t, s: pages(
            t.client,
            s,
            "scan",
            TableName=t.docs,
            IndexName="by_owner",
            FilterExpression="#o >= :a",
            ExpressionAttributeNames={"#o": "owner"},
            ExpressionAttributeValues={":a": S("a")},
            ProjectionExpression="#o",
        ),
        index="by_owner",
        rows=2,
    ),
]


@pytest.mark.parametrize("pattern", PATTERNS, ids=[p.name for p in PATTERNS])
def test_capacity_equals_hand_written(tables: Tables, pattern: Pattern) -> None:
    session = Session(
        tables.client,
        settings=Settings(consistent=pattern.consistent),
    )
    sql = pattern.sql.format(docs=tables.docs, users=tables.users)

    plan = session.planned(parse(sql)).plan
    assert plan.operation == pattern.operation, plan.label
    assert plan.access.name == pattern.index, plan.label
    assert (plan.fetch is not None) == pattern.fetch, plan.label
    first = plan.requests[0].params
    for name, value in pattern.request.items():
        assert first.get(name) == value, (name, first)
    assert plan.consistent == pattern.consistent

    result = session.execute(sql)
    rows = result.all()
    assert not result.stats.capacity_estimated

    spent = Spent()
    pattern.by_hand(tables, spent)
    if (
        tables.server == "ddblocal"
        and pattern.index in KEYS_ONLY_LSIS
        and "ProjectionExpression" in first
    ):
        # DynamoDB Local charges a fetch of the whole item from the table for every item of a
        # Query through a KEYS_ONLY local index that carries any ProjectionExpression, even one
        # of projected attributes only. AWS's Query reference (Select): "If you query or scan a
        # local secondary index and request only attributes that are projected into that
        # index, the operation will read only the index and not the table." dynosql's request
        # follows the documentation, so its capacity is compared on dynalite only (the calls
        # and the rows are compared here too). Should DynamoDB Local ever charge as
        # documented, this fails: then drop the exception.
        assert result.stats.capacity > spent.capacity
    else:
        assert result.stats.capacity == spent.capacity, (result.stats.capacity, spent.capacity)
    assert result.stats.requests == spent.calls, (result.stats.requests, spent.calls)
    assert spent.capacity > 0
    if pattern.sql.startswith("SELECT COUNT(*)"):
        assert spent.count > 0
        assert rows == [{"COUNT(*)": Decimal(spent.count)}]
    elif pattern.rows is not None:
        assert len(rows) == pattern.rows
    else:
        assert len(rows) == len(spent.items), "dynosql read other items than the hand-written"


def test_the_corpus_spans_pages_and_units(tables: Tables) -> None:
    """The data does what the corpus relies on: items over 4 KB and a multi-page Scan."""
    spent = Spent()
    pages(tables.client, spent, "scan", TableName=tables.docs)
    assert spent.calls >= 2, "the table fits one Scan page: the pagination goes untested"
    sizes = [values.item_size(values.decode_item(i)) for i in spent.items]
    assert any(s > 4096 for s in sizes) and any(s < 400 for s in sizes)


def test_index_plans_cost_less_than_the_table_reads_they_replace(tables: Tables) -> None:
    """The new plans pay: the bounded LSI read (with its fetches) costs less than the whole
    partition it replaces, and the KEYS_ONLY GSI Scan less than the table Scan."""
    session = Session(tables.client)
    newest = session.execute(
        f"SELECT * FROM {tables.docs} WHERE PK = 'acct#1' AND attribute_exists(edited) "
        "ORDER BY edited DESC LIMIT 5"
    )
    assert len(newest.all()) == 5
    partition = Spent()
    pages(
        tables.client,
        partition,
        "query",
        TableName=tables.docs,
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": S("acct#1")},
    )
    assert newest.stats.capacity < partition.capacity, (newest.stats.capacity, partition)

    count = session.execute(f"SELECT COUNT(*) FROM {tables.docs} WHERE attribute_exists(owner)")
    assert count.all()
    table = Spent()
    pages(tables.client, table, "scan", TableName=tables.docs, Select="COUNT")
    assert count.stats.capacity < table.capacity, (count.stats.capacity, table.capacity)
