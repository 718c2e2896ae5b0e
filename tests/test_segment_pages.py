"""Parallel Scan segments hand whole pages to the consumer, not single items (issue 14: the
per-item queue cost a quarter of the CPU of a segmented read)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from backends import unique_name

from dynosql.dynamo import reader as execute
from dynosql.session import Session

ITEMS = 60


@pytest.fixture(scope="module")
def table(moto_backend):
    name = unique_name("pages")
    moto_backend.create_keyed_table(name)
    moto_backend.put_items(
        name, [{"pk": f"k{i % 7}", "sk": Decimal(i), "v": "x" * 50} for i in range(ITEMS)]
    )
    return moto_backend, name


@pytest.mark.parametrize(
    "sql", ["SELECT * FROM {t}", "SHOW HOT KEYS FROM {t}", "SHOW HOT KEYS FROM {t} WITH SIZES"]
)
def test_segments_hand_over_pages(table, monkeypatch, sql):
    backend, name = table
    handed: list = []
    real = execute._concurrent

    def spy(*args, **kwargs):
        for got in real(*args, **kwargs):
            handed.append(got)
            yield got

    monkeypatch.setattr(execute, "_concurrent", spy)
    session = Session(backend.client())
    session.set("segments", "4")
    result = session.execute(sql.format(t=name))
    rows = result.all()
    assert rows and result.stats.operations == [f"Scan {name} (4 segments)"]
    assert len(handed) == result.stats.requests == 4  # one page per segment crossed
    if "SIZES" in sql:  # each page reduced to its counts and bytes per key where it was read
        assert all(isinstance(counts, dict) for counts in handed)
        assert sum(n for counts in handed for _wire, n, _size in counts.values()) == ITEMS
    elif "HOT KEYS" in sql:  # each page reduced to its counts per key (the GROUP BY's counter)
        assert all(isinstance(counts, Counter) for counts in handed)
        assert sum(n for counts in handed for n in counts.values()) == ITEMS
    else:
        assert sum(len(page.items) for page in handed) == ITEMS


def test_deferred_pages_decode_as_the_others(table):
    """`wire.deferred`: the page keeps its body (bytes wait, not Python objects) until it is
    given to `fill_page`, which gives what the decoder gives at once, capacity included."""
    from dynosql.dynamo import wire

    backend, name = table
    session = Session(backend.client())
    params = {"TableName": name, "Limit": 25, "ReturnConsumedCapacity": "TOTAL"}
    at_once = session.client.scan(**params)
    with wire.deferred():
        later = session.client.scan(**params)
    assert wire.DEFERRED in later and "Items" not in later
    later = wire.fill_page(later, later.pop(wire.DEFERRED))
    for key in ("Items", "Count", "ScannedCount", "LastEvaluatedKey", "ConsumedCapacity"):
        assert later[key] == at_once[key], key
    assert wire.DEFERRED not in at_once  # a page read at once is decoded already


def test_hot_keys_decode_one_page_at_a_time(table, monkeypatch):
    """Segment threads decode and count their pages one at a time (memory: one decoded page,
    not one per thread), and the answer is the same as with one segment."""
    import threading
    import time

    from dynosql.dynamo import wire

    backend, name = table
    real, inside, most = wire.fill_page, [0], [0]
    lock = threading.Lock()

    def decode(page, body):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)  # a slow decode: overlapping ones would be seen
        try:
            return real(page, body)
        finally:
            with lock:
                inside[0] -= 1

    one = Session(backend.client()).execute(f"SHOW HOT KEYS FROM {name}").all()
    monkeypatch.setattr(wire, "fill_page", decode)
    session = Session(backend.client())
    session.set("segments", "4")
    assert session.execute(f"SHOW HOT KEYS FROM {name}").all() == one
    assert most[0] == 1
