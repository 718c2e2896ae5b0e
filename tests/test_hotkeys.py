"""SHOW HOT KEYS on tables we build: items and share per partition key, and with WITH SIZES
bytes and RCU, checked against ``dynosql.values.item_size`` summed over the items written; the
keys-only Scan of the plain form (same RCU, only the key sent back); the notes; the bar column
only in table formats; the index form; parallel segments.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import random
from collections import defaultdict
from decimal import Decimal

import pytest
from backends import unique_name

from dynosql import values
from dynosql.errors import GuardError, SqlError
from dynosql.plan.planner import plan_full_scan
from dynosql.plan.schema import table_info
from dynosql.render import render
from dynosql.session import Session, Settings
from dynosql.sql import parse_script
from dynosql.statements.hot_keys import _notes

SKEW = {"acme": 60, "globex": 25, "initech": 10, "umbrella": 4, "hooli": 1}


def _create(backend, name: str) -> None:
    backend.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "tenant", "KeyType": "HASH"},
            {"AttributeName": "id", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "tenant", "AttributeType": "S"},
            {"AttributeName": "id", "AttributeType": "N"},
            {"AttributeName": "region", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byRegion",
                "KeySchema": [{"AttributeName": "region", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


@pytest.fixture(scope="session")
def skewed(backend):
    """Five tenants, one holding most items; item sizes vary; region only on some items."""
    name = unique_name("hot")
    _create(backend, name)
    rng = random.Random(7)
    items = []
    n = 0
    for tenant, count in SKEW.items():
        for _ in range(count):
            item = {
                "tenant": tenant,
                "id": Decimal(n),
                "payload": "p" * rng.randint(0, 3000),
                "amount": Decimal(rng.randint(-(10**6), 10**6)).scaleb(-3),
                "tags": values.StringSet({"a", "b"}) if n % 3 else values.StringSet({"c"}),
                "doc": {"nested": [Decimal(1), "two", None, True]},
            }
            r = rng.random()
            if r < 0.6:
                item["region"] = "eu"
            elif r < 0.8:
                item["region"] = "us"
            elif r < 0.9:
                item["region"] = "ap"
            items.append(item)
            n += 1
    backend.put_items(name, items)
    return name, items


@pytest.fixture(scope="session")
def uniform(backend):
    """Many tenants, one item each: no skew to report."""
    name = unique_name("flat")
    _create(backend, name)
    items = [{"tenant": f"t{i:04d}", "id": Decimal(i), "v": "x" * (i % 50)} for i in range(250)]
    backend.put_items(name, items)
    return name, items


def make_session(backend, **settings) -> Session:
    return Session(backend.client(), settings=Settings(**settings))


def expected(items, key: str) -> dict:
    """key value -> (items, bytes), over the items that have the key attribute."""
    out: dict = defaultdict(lambda: [0, 0])
    for item in items:
        if key in item:
            out[item[key]][0] += 1
            out[item[key]][1] += values.item_size(item)
    return {k: tuple(v) for k, v in out.items()}


def eventual_rcu(size: int) -> Decimal:
    return Decimal(max(1, math.ceil(size / 4096))) / 2


def check_rows(rows, want: dict, sized: bool = False) -> None:
    total = sum(n for n, _ in want.values())
    for row in rows:
        items, size = want[row["key"]]
        assert row["items"] == items, row["key"]
        assert abs(row["share"] - Decimal(items) / Decimal(total)) <= Decimal("0.00005")
        if sized:
            assert row["bytes"] == size, row["key"]
            assert row["rcu"] == eventual_rcu(size), row["key"]
        else:
            assert "bytes" not in row and "rcu" not in row
    counts = [r["items"] for r in rows]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.parametrize("sized", [False, True], ids=["keys", "sizes"])
def test_skewed_table(backend, skewed, sized):
    table, items = skewed
    session = make_session(backend)
    result = session.execute(f"SHOW HOT KEYS FROM {table}{' WITH SIZES' if sized else ''}")
    rows = result.all()
    assert result.columns == (
        ["key", "items", "bytes", "share", "rcu", "bar"]
        if sized
        else ["key", "items", "share", "bar"]
    )
    want = expected(items, "tenant")
    assert [r["key"] for r in rows] == ["acme", "globex", "initech", "umbrella", "hooli"]
    check_rows(rows, want, sized)
    assert sum(r["share"] for r in rows) == pytest.approx(1, abs=Decimal("0.0005"))
    assert rows[0]["share"] == Decimal("0.6")
    assert any("reads every item" in w for w in result.warnings)


def test_plain_form_reads_the_partition_key_alone_at_the_same_rcu(backend, skewed):
    """Without WITH SIZES the Scan projects the partition key: each item comes back as its key
    alone, and the RCU are those of reading whole items (a Scan is billed by the items read,
    not by what it returns), the figure WITH SIZES reports for the same table."""
    table, items = skewed
    client = backend.client()
    sent, answered = [], []
    client.meta.events.register(
        "provide-client-params.dynamodb.Scan", lambda params, **_: sent.append(dict(params))
    )
    client.meta.events.register(  # the response as sent (dynosql reads the page's bytes)
        "after-call.dynamodb.Scan",
        lambda http_response, **_: answered.extend(json.loads(http_response.content)["Items"]),
    )
    plain = Session(client).execute(f"SHOW HOT KEYS FROM {table}")
    plain.all()
    assert sent and all(
        [p["ExpressionAttributeNames"][n] for n in p["ProjectionExpression"].split(", ")]
        == ["tenant"]
        for p in sent
    )
    assert len(answered) == len(items) and all(set(i) == {"tenant"} for i in answered)
    sized = make_session(backend).execute(f"SHOW HOT KEYS FROM {table} WITH SIZES")
    assert {r["key"]: r["items"] for r in sized.all()} == {
        r["key"]: r["items"] for r in make_session(backend).execute(f"SHOW HOT KEYS FROM {table}")
    }
    assert plain.stats.capacity == sized.stats.capacity > 0
    assert not plain.stats.capacity_estimated


def test_notes_say_stored_skew_and_flag_low_cardinality(backend, skewed):
    table, _ = skewed
    result = make_session(backend).execute(f"SHOW HOT KEYS FROM {table}")
    result.all()  # the notes are known once the rows are
    text = " ".join(result.notes)
    assert "stored skew" in text and "not traffic" in text
    assert "CloudWatch Contributor Insights" in text
    (flag,) = [n for n in result.notes if n.startswith("low cardinality")]
    assert "5 distinct tenant values; the top 1 holds " in flag  # one key: 'holds'


def test_no_low_cardinality_flag_on_uniform_table(backend, uniform):
    table, items = uniform
    result = make_session(backend).execute(f"SHOW HOT KEYS FROM {table}")
    rows = result.all()
    assert len(rows) == 20  # the default limit
    check_rows(rows, expected(items, "tenant"))
    assert all(r["items"] == 1 for r in rows)
    assert any("CloudWatch Contributor Insights" in n for n in result.notes)
    assert not any("low cardinality" in n for n in result.notes)
    (hint,) = [n for n in result.notes if "WITH SIZES" in n]
    assert "10 GB" not in hint  # no LSI on this table


@pytest.mark.parametrize("limit", [0, 1, 2, 5, 50])
@pytest.mark.parametrize("sized", [False, True], ids=["keys", "sizes"])
def test_limit(backend, skewed, limit, sized):
    table, items = skewed
    sql = f"SHOW HOT KEYS FROM {table}{' WITH SIZES' if sized else ''} LIMIT {limit}"
    rows = make_session(backend).execute(sql).all()
    assert [r["key"] for r in rows] == ["acme", "globex", "initech", "umbrella", "hooli"][:limit]
    check_rows(rows, expected(items, "tenant"), sized)


@pytest.mark.parametrize("sized", [False, True], ids=["keys", "sizes"])
def test_index_form_groups_by_index_partition_key(backend, skewed, sized):
    table, items = skewed
    sql = f"SHOW HOT KEYS FROM {table}.byRegion{' WITH SIZES' if sized else ''}"
    result = make_session(backend).execute(sql)
    rows = result.all()
    want = expected(items, "region")  # the index holds only items with a region
    assert {r["key"] for r in rows} == set(want)
    assert [r["key"] for r in rows] == sorted(want, key=lambda k: -want[k][0])
    check_rows(rows, want, sized)
    assert result.stats.operations == [f"Scan {table}.byRegion"]


def test_bar_only_in_table_formats(backend, skewed):
    table, _ = skewed
    session = make_session(backend)
    sql = f"SHOW HOT KEYS FROM {table}"

    out = io.StringIO()
    render(session.execute(sql), "table", out)
    lines = out.getvalue().splitlines()
    header = next(line for line in lines if "key" in line and "items" in line)
    assert "bar" in header
    acme = next(line for line in lines if "acme" in line)
    hooli = next(line for line in lines if "hooli" in line)
    assert acme.count("█") > hooli.count("█") >= 1

    out = io.StringIO()
    render(session.execute(sql), "json", out)
    rows = json.loads(out.getvalue())
    assert rows and all("bar" not in r for r in rows)
    assert rows[0]["key"] == "acme" and rows[0]["items"] == SKEW["acme"]

    out = io.StringIO()
    render(session.execute(sql), "csv", out)
    header, *body = list(csv.reader(io.StringIO(out.getvalue())))
    assert header == ["key", "items", "share"]
    assert body[0] == ["acme", "60", "0.6"]

    out = io.StringIO()
    render(session.execute(f"{sql} WITH SIZES"), "csv", out)
    header, *body = list(csv.reader(io.StringIO(out.getvalue())))
    assert header == ["key", "items", "bytes", "share", "rcu"]
    assert body[0][:2] == ["acme", "60"]

    out = io.StringIO()
    render(session.execute(sql), "jsonl", out)
    assert all("bar" not in json.loads(line) for line in out.getvalue().splitlines())


def test_parallel_segments_same_report(backend, skewed):
    table, items = skewed
    client = backend.client()
    segments = []
    client.meta.events.register(
        "provide-client-params.dynamodb.Scan",
        lambda params, **_: segments.append(params.get("Segment")),
    )
    session = Session(client)
    session.execute("SET segments = 4")
    for sized in (False, True):
        segments.clear()
        sql = f"SHOW HOT KEYS FROM {table}{' WITH SIZES' if sized else ''}"
        rows = session.execute(sql).all()
        assert {0, 1, 2, 3} <= set(segments)
        check_rows(rows, expected(items, "tenant"), sized)
        assert len(rows) == len(SKEW)


def test_consistent_reads_cost_full_units(backend, skewed):
    table, items = skewed
    sql = f"SHOW HOT KEYS FROM {table} WITH SIZES"
    rows = make_session(backend, consistent=True).execute(sql).all()
    want = expected(items, "tenant")
    for row in rows:
        assert row["rcu"] == Decimal(max(1, math.ceil(want[row["key"]][1] / 4096)))


def test_fail_on_scan_refuses(backend, skewed):
    table, _ = skewed
    with pytest.raises(GuardError):
        make_session(backend, fail_on_scan=True).execute(f"SHOW HOT KEYS FROM {table}").all()


def test_parse_forms():
    (s,) = parse_script("show hot keys from orders.byCustomer limit 3")
    assert (s.table, s.index, s.limit) == ("orders", "byCustomer", 3)
    (s,) = parse_script("SHOW HOT KEYS FROM orders")
    assert (s.table, s.index, s.limit, s.sizes) == ("orders", None, None, False)
    (s,) = parse_script("show hot keys from orders with  sizes limit 2")
    assert (s.table, s.limit, s.sizes, s.by) == ("orders", 2, True, None)
    (s,) = parse_script(
        "SHOW HOT KEYS FROM orders BY SPLIT_PART(pk, '#', 1) WITH SIZES SAMPLE 5 PERCENT"
    )
    assert (s.by.text, s.sizes, s.sample.percent) == ("SPLIT_PART(pk, '#', 1)", True, 5)
    (s,) = parse_script("SHOW HOT KEYS FROM orders BY SPLIT_PART(pk, '#', 1) LIMIT 4")
    assert (s.by.text, s.sizes, s.limit) == ("SPLIT_PART(pk, '#', 1)", False, 4)
    with pytest.raises(SqlError):
        parse_script("SHOW HOT KEYS orders")
    with pytest.raises(SqlError):  # WITH SIZES comes before SAMPLE and LIMIT
        parse_script("SHOW HOT KEYS FROM orders LIMIT 3 WITH SIZES")


# --- the partition-limit flags, offline --------------------------------------------------------


def _plan(lsi: bool):
    d = {
        "TableName": "big",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "at", "AttributeType": "S"},
        ],
    }
    if lsi:
        d["LocalSecondaryIndexes"] = [
            {
                "IndexName": "byAt",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ]
    return plan_full_scan(table_info(d), None)


def test_flags_keys_near_partition_limits():
    ranked = [["whale", 10**6, 9 * 1024**3], ["big", 5000, 20 * 1024**2], ["minnow", 3, 900]]
    notes = _notes(_plan(lsi=True), ranked, 10**6 + 5003, sized=True)
    lsi = [n for n in notes if "10 GB" in n]
    assert len(lsi) == 1 and "whale" in lsi[0]
    rcu = [n for n in notes if "3,000 RCU" in n]
    assert {n.split(":")[0] for n in rcu} == {"key whale", "key big"}
    assert not any("minnow" in n for n in notes)
    assert not any("WITH SIZES" in n for n in notes)
    # without an LSI there is no 10 GB item-collection limit
    notes = _notes(_plan(lsi=False), ranked, 10**6 + 5003, sized=True)
    assert not any("10 GB" in n for n in notes)


def test_unsized_report_points_to_with_sizes_for_the_size_limits():
    """Without sizes no key can be checked against the 10 GB or 3,000 RCU limits: the notes say
    how to check them instead (the 10 GB one only where the table has an LSI)."""
    ranked = [["whale", 10**6, None], ["minnow", 3, None]]
    notes = _notes(_plan(lsi=True), ranked, 10**6 + 3, sized=False)
    assert not any(n.startswith("key ") for n in notes)
    assert notes[0].startswith("This measures stored skew (items per partition key)")
    (hint,) = [n for n in notes if "WITH SIZES" in n]
    assert "10 GB" in hint and "the same RCU" in hint
    (hint,) = [n for n in _notes(_plan(lsi=False), ranked, 10**6 + 3, sized=False) if "WITH" in n]
    assert "10 GB" not in hint


def test_flags_keys_whose_share_of_provisioned_throughput_passes_a_partition():
    """Issue 11: with provisioned capacity, a key's measured share of the table's RCU/WCU."""
    plan = _plan(lsi=False)
    table = dataclasses.replace(plan.table, provisioned_rcu=10000, provisioned_wcu=2000)
    plan = dataclasses.replace(plan, table=table)
    ranked = [["whale", 600, 10**4], ["half", 300, 10**4], ["minnow", 100, 10**3]]
    notes = [n for n in _notes(plan, ranked, 1000, sized=True) if "provisioned" in n]
    assert notes == [
        "key whale: at its measured share (60%) of the table's 10000 provisioned RCU it would "
        "receive ~6000 RCU/s, near or above the 3,000 RCU one partition serves",
        "key whale: at its measured share (60%) of the table's 2000 provisioned WCU it would "
        "receive ~1200 WCU/s, near or above the 1,000 WCU one partition serves",
        "key half: at its measured share (30%) of the table's 10000 provisioned RCU it would "
        "receive ~3000 RCU/s, near or above the 3,000 RCU one partition serves",
    ]
    # on-demand tables have no provisioned figure to apply the share to
    assert not any("provisioned" in n for n in _notes(_plan(lsi=False), ranked, 1000, sized=True))
    # the share rule needs items alone: it flags keys of an unsized report too
    unsized = [[k, n, None] for k, n, _ in ranked]
    assert [n for n in _notes(plan, unsized, 1000, sized=False) if "provisioned" in n] == notes
