"""Parallel Scan segments hand whole pages to the consumer, not single items (issue 14: the
per-item queue cost a quarter of the CPU of a segmented read)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from backends import unique_name

from dynosql import execute
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


@pytest.mark.parametrize("sql", ["SELECT * FROM {t}", "SHOW HOT KEYS FROM {t}"])
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
    if "HOT KEYS" in sql:  # each page reduced to its counts per key where it was read
        assert all(isinstance(counts, dict) for counts in handed)
        assert sum(n for counts in handed for _wire, n, _size in counts.values()) == ITEMS
    else:
        assert sum(len(page) for page in handed) == ITEMS
