"""Parallel Scan: Segment 0..N-1 of TotalSegments N, merged into the sequential answer.

The requests are captured as sent, with a botocore ``provide-client-params`` hook on the
session's own client; the automatic choice of segments is checked offline with ``table_info``.
"""

from __future__ import annotations

import threading
from collections import Counter
from decimal import Decimal

import aggregate_oracle as O
import pytest
from backends import unique_name

from dynosql.errors import SqlError
from dynosql.plan.planner import MAX_AUTO_SEGMENTS, Options, plan_full_scan, plan_select
from dynosql.plan.schema import table_info
from dynosql.session import Session, Settings
from dynosql.sql import parse_script

N_ITEMS = 300


@pytest.fixture(scope="session")
def scan_table(backend):
    name = unique_name("seg")
    backend.create_keyed_table(name)
    items = [
        {
            "pk": f"p{i % 37:02d}",
            "sk": Decimal(i),
            "amt": Decimal(i % 100).scaleb(-2),
            "pad": "x" * 100,
        }
        for i in range(N_ITEMS)
    ]
    backend.put_items(name, items)
    return name, items


class Recorder:
    """Every Scan/Query the client sends (the parameters as given to botocore)."""

    def __init__(self, client):
        self.calls: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        client.meta.events.register("provide-client-params.dynamodb.Scan", self._scan)
        client.meta.events.register("provide-client-params.dynamodb.Query", self._query)

    def _scan(self, params, **_):
        with self.lock:
            self.calls.append(("Scan", dict(params)))

    def _query(self, params, **_):
        with self.lock:
            self.calls.append(("Query", dict(params)))

    def scans(self) -> list[dict]:
        return [p for op, p in self.calls if op == "Scan"]


def make_session(backend, table: str, segments=None) -> tuple[Session, Recorder]:
    """A session whose DescribeTable (and any sampling read behind it) is already done, so the
    recorder sees only the statements' own requests."""
    client = backend.client()
    recorder = Recorder(client)
    session = Session(
        client,
        settings=Settings(segments=segments),
    )
    session.table(table)
    session.sample(table)  # the sample hints are checked against (issue 11), cached
    recorder.calls.clear()
    return session, recorder


def canon_rows(rows):
    return Counter(O.row_canon(r) for r in rows)


def test_four_segments_send_segment_0_to_3(backend, scan_table):
    table, items = scan_table
    session, rec = make_session(backend, table, segments=4)
    result = session.execute(f"SELECT * FROM {table}")
    rows = result.all()
    scans = rec.scans()
    assert {p["Segment"] for p in scans} == {0, 1, 2, 3}
    assert all(p["TotalSegments"] == 4 for p in scans)
    # each segment starts once (later pages of a segment carry its ExclusiveStartKey)
    firsts = [p for p in scans if "ExclusiveStartKey" not in p]
    assert sorted(p["Segment"] for p in firsts) == [0, 1, 2, 3]
    assert result.stats.operations == [f"Scan {table} (4 segments)"]
    assert result.stats.items_scanned == N_ITEMS
    assert canon_rows(rows) == canon_rows(items)


def test_parallel_equals_sequential(backend, scan_table):
    table, items = scan_table
    sequential, rec1 = make_session(backend, table, segments=1)
    parallel, rec4 = make_session(backend, table, segments=4)
    for sql in (
        f"SELECT pk, sk, amt FROM {table}",
        f"SELECT pk, COUNT(*) AS n, SUM(amt) AS s, MAX(sk) AS hi FROM {table} GROUP BY pk",
        f"SELECT DISTINCT pk FROM {table} WHERE amt >= 0.5",
        f"SELECT pk, sk FROM {table} ORDER BY sk DESC LIMIT 7",
    ):
        one = sequential.execute(sql).all()
        four = parallel.execute(sql).all()
        assert canon_rows(one) == canon_rows(four), sql
        if "ORDER BY" in sql:
            assert one == four
    assert all("Segment" not in p for p in rec1.scans())
    assert {p["Segment"] for p in rec4.scans()} == {0, 1, 2, 3}
    # and the answer is right, not just the same twice
    (total,) = parallel.execute(f"SELECT SUM(amt) AS s, COUNT(*) AS n FROM {table}").all()
    assert total == {"s": sum(i["amt"] for i in items), "n": N_ITEMS}


def test_count_star_scan_in_segments(backend, scan_table):
    table, _ = scan_table
    session, rec = make_session(backend, table, segments=4)
    (row,) = session.execute(f"SELECT COUNT(*) FROM {table}").all()
    assert row == {"COUNT(*)": N_ITEMS}
    scans = rec.scans()
    assert all(p["Select"] == "COUNT" for p in scans)
    assert {p["Segment"] for p in scans} == {0, 1, 2, 3}


def test_set_segments_through_session(backend, scan_table):
    table, items = scan_table
    session, rec = make_session(backend, table)
    status = session.execute("SET segments = 4")
    assert status.kind == "status"
    assert session.settings.segments == 4
    result = session.execute(f"SELECT pk, COUNT(*) AS n FROM {table} GROUP BY pk")
    rows = result.all()
    assert {p["Segment"] for p in rec.scans()} == {0, 1, 2, 3}
    assert {p["TotalSegments"] for p in rec.scans()} == {4}
    assert result.stats.operations == [f"Scan {table} (4 segments)"]
    assert {r["pk"]: r["n"] for r in rows} == dict(Counter(i["pk"] for i in items))

    session.execute("SET segments = auto")
    assert session.settings.segments is None
    before = len(rec.scans())
    session.execute(f"SELECT pk FROM {table} LIMIT 1").all()
    assert all("Segment" not in p for p in rec.scans()[before:])  # small table: one worker


def test_queries_are_not_segmented(backend, scan_table):
    table, _ = scan_table
    session, rec = make_session(backend, table, segments=4)
    session.execute(f"SELECT COUNT(*) FROM {table} WHERE pk = 'p01'").all()
    assert rec.scans() == []
    assert all("Segment" not in p for _op, p in rec.calls)


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_set_segments_rejects_bad_values(value):
    session = Session(client=object())
    with pytest.raises(SqlError, match="bad value"):
        session.execute(f"SET segments = {value}")
    assert session.settings.segments is None


# --- the automatic choice, offline ------------------------------------------------------------

MB = 1024 * 1024


def description(size_bytes: int, index_size: int | None = None) -> dict:
    d = {
        "TableName": "big",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "ItemCount": max(1, size_bytes // 1000),
        "TableSizeBytes": size_bytes,
    }
    if index_size is not None:
        d["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "IndexSizeBytes": index_size,
                "ItemCount": max(1, index_size // 1000),
            }
        ]
    return d


AUTO = Options()


def scan_plan(size_bytes: int, options: Options = AUTO, index_size=None, sql=None):
    info = table_info(description(size_bytes, index_size))
    (statement,) = parse_script(sql or "SELECT * FROM big")
    return plan_select(statement, info, options)


@pytest.mark.parametrize(
    "size, segments",
    [
        (0, 1),
        (10 * MB, 1),
        (255 * MB, 1),
        (600 * MB, 2),
        (1024 * MB, 4),
        (1800 * MB, 7),
        (2048 * MB, 8),
        (500 * 1024 * MB, MAX_AUTO_SEGMENTS),
    ],
)
def test_automatic_segments_from_table_size(size, segments):
    plan = scan_plan(size)
    assert plan.is_scan
    assert plan.segments == segments
    assert MAX_AUTO_SEGMENTS == 8


def test_explicit_segments_win_over_size():
    assert scan_plan(10 * MB, Options(segments=4)).segments == 4
    assert scan_plan(500 * 1024 * MB, Options(segments=2)).segments == 2
    assert scan_plan(500 * 1024 * MB, Options(segments=16)).segments == 16


def test_index_scan_segments_from_index_size():
    plan = scan_plan(10 * MB, index_size=1024 * MB, sql="SELECT * FROM big.byG")
    assert plan.is_scan and plan.access.name == "byG"
    assert plan.segments == 4
    plan = scan_plan(10 * 1024 * MB, index_size=10 * MB, sql="SELECT * FROM big.byG")
    assert plan.segments == 1


def test_keyed_reads_have_one_segment():
    plan = scan_plan(500 * 1024 * MB, sql="SELECT * FROM big WHERE pk = 'a'")
    assert plan.operation == "GetItem" and plan.segments == 1
    plan = scan_plan(500 * 1024 * MB, sql="SELECT * FROM big.byG WHERE g = 'a'", index_size=MB)
    assert plan.operation == "Query" and plan.segments == 1


def test_hot_keys_scan_uses_the_same_rule():
    info = table_info(description(1024 * MB, index_size=600 * MB))
    assert plan_full_scan(info, None).segments == 4
    assert plan_full_scan(info, "byG").segments == 2
    assert plan_full_scan(info, None, Options(segments=3)).segments == 3


def test_explain_names_the_segments():
    info = table_info(description(1024 * MB))
    (statement,) = parse_script("SELECT * FROM big")
    plan = plan_select(statement, info)
    assert plan.label == "Scan big (4 segments)"
    assert plan.document()["segments"] == 4


class Overlap:
    """Holds the first request of each segment until all `n` are in flight at once (or gives up
    after a few seconds and records that they were not): parallel, not one after another."""

    def __init__(self, client, n: int):
        self.barrier = threading.Barrier(n, timeout=3)
        self.sequential = False
        client.meta.events.register("provide-client-params.dynamodb.Scan", self._hold)

    def _hold(self, params, **_):
        if "Segment" in params and "ExclusiveStartKey" not in params:
            try:
                self.barrier.wait()
            except threading.BrokenBarrierError:
                self.sequential = True


def test_segments_run_concurrently(backend, scan_table):
    table, items = scan_table
    session, _rec = make_session(backend, table, segments=4)
    overlap = Overlap(session.client, 4)
    rows = session.execute(f"SELECT pk, sk FROM {table}").all()
    assert len(rows) == len(items)
    assert not overlap.sequential


def test_count_segments_run_concurrently(backend, scan_table):
    table, _ = scan_table
    session, _rec = make_session(backend, table, segments=4)
    overlap = Overlap(session.client, 4)
    (row,) = session.execute(f"SELECT COUNT(*) AS n FROM {table}").all()
    assert row["n"] == N_ITEMS
    assert not overlap.sequential


def test_stopping_early_waits_for_pages_in_flight(backend, scan_table):
    """A LIMIT reached while other segments still read: their pages are paid for, so the
    statement's capacity and requests are final once the rows are (nothing grows later)."""
    table, _ = scan_table
    session, recorder = make_session(backend, table, segments=4)
    before = session.total_capacity  # the sample the hints compare against, read already
    result = session.execute(f"SELECT pk FROM {table} WHERE amt >= 0 LIMIT 1")
    assert len(result.all()) == 1
    requests, capacity = result.stats.requests, result.stats.capacity
    sent = len(recorder.calls)
    threading.Event().wait(0.5)
    assert (result.stats.requests, result.stats.capacity) == (requests, capacity)
    assert len(recorder.calls) == sent == requests
    assert session.total_capacity - before == capacity
    assert {p["Segment"] for p in recorder.scans()} <= {0, 1, 2, 3}
