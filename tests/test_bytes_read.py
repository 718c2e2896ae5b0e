"""Bytes read beside items and RCU (the footer, EXPLAIN ANALYZE), on moto (capacity estimated)
and dynalite (capacity reported): items of known size, so the 4 KB arithmetic (half for an
eventually consistent read; a Query page rounded once, BatchGetItem each item) is checked.

Every item here is strings only, and its size is its names plus values: 13 bytes of keys and
names (``pk`` ``a`` ``sk`` ``1`` ``payload``) and the payload."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from backends import unique_name

from dynosql.session import Session
from dynosql.sql import parse_script

KEYS_AND_NAMES = len("pk") + len("a") + len("sk") + len("1") + len("payload")


def _item(pk: str, sk: str, size: int) -> dict:
    return {"pk": pk, "sk": sk, "payload": "p" * (size - KEYS_AND_NAMES)}


@pytest.fixture(scope="module")
def sized(backend):
    name = unique_name("bytes")
    backend.create_keyed_table(name, sk=("sk", "S"))
    items = [_item("a", str(i), 3000) for i in (1, 2, 3)]  # one page of 9,000 bytes
    items += [_item("b", "1", 5000), _item("b", "2", 100)]
    backend.put_items(name, items)
    return backend, name


def _run(sized, sql: str, consistent: bool):
    backend, name = sized
    session = Session(backend.client())
    session.set("consistent", "true" if consistent else "false")
    result = session.execute(sql.format(t=name))
    result.all()
    return result


@pytest.mark.parametrize(
    "sql, items, size, units",
    [
        # a Query page: 9,000 bytes rounded up once to 3 units of 4 KB
        ("SELECT * FROM {t} WHERE pk = 'a'", 3, 9000, 3),
        # GetItem: 5,000 bytes are 2 units
        ("SELECT * FROM {t} WHERE pk = 'b' AND sk = '1'", 1, 5000, 2),
        # BatchGetItem rounds each item: 2 + 1 units (one 5,100-byte page would be 2)
        ("SELECT * FROM {t} WHERE pk = 'b' AND sk IN ('1', '2')", 2, 5100, 3),
    ],
)
@pytest.mark.parametrize("consistent", [False, True])
def test_bytes_and_capacity_agree(sized, sql, items, size, units, consistent):
    result = _run(sized, sql, consistent)
    stats = result.stats
    assert stats.items_scanned == items
    assert stats.bytes_exact and stats.bytes_read == size
    assert stats.capacity == (Decimal(units) if consistent else Decimal(units) / 2)
    kb = f"{size / 1024:.1f} KB"
    scanned = "1 item" if items == 1 else f"{items} items"
    assert f" · {scanned} scanned · {kb} · " in result.footer()


def test_footer_reads_like_the_issue(sized):
    footer = _run(sized, "SELECT * FROM {t} WHERE pk = 'a'", False).footer()
    assert " · 3 items scanned · 8.8 KB · " in footer
    assert "1.5 RCU" in footer


def test_projected_items_show_no_bytes(sized):
    """A ProjectionExpression returns part of each item: the bytes read are not known."""
    result = _run(sized, "SELECT sk FROM {t} WHERE pk = 'a'", False)
    assert not result.stats.bytes_exact
    assert " KB · " not in result.footer() and " bytes · " not in result.footer()
    assert result.stats.capacity == Decimal("1.5")  # the projection does not lower the cost


def test_explain_analyze_gives_exact_bytes(sized):
    backend, name = sized
    session = Session(backend.client())
    result = session.execute(f"EXPLAIN ANALYZE SELECT * FROM {name} WHERE pk = 'a'")
    lines = [row["plan"] for row in result.all()]
    actual = next(line for line in lines if line.startswith("actual:"))
    assert "3 items scanned, 9,000 bytes (8.8 KB), 3 rows" in actual
    assert result.document["actual"]["bytes_read"] == 9000
    assert json.dumps(result.document)  # still plain JSON


def test_a_filter_hides_what_was_read(sized):
    """Items a FilterExpression drops were read (and paid for) but never seen: no bytes."""
    backend, name = sized
    session = Session(backend.client())
    sql = f"SELECT * FROM {name} WHERE pk = 'b' AND payload = 'x'"
    result = session.execute(sql)
    assert result.all() == []
    (statement,) = parse_script(sql)
    (request,) = session.planned(statement).plan.requests
    sent_filter = "FilterExpression" in request.params
    assert result.stats.bytes_exact is not sent_filter
    if not sent_filter:  # checked by the client: every item came back whole
        assert result.stats.bytes_read == 5100
