"""Issue 22: EXPLAIN's estimates come from the one cost model and say what they stand on.

- A Query or Scan is billed page by page (each page's items rounded up to 4 KB units on its
  own, at most 1 MB a page, every parallel Scan segment ending on a page of its own), not once
  over the total (AWS: developerguide/read-write-operations.html#read-operation-consumption).
"""

from __future__ import annotations

from decimal import Decimal

from dynosql.plan import Options, plan_select
from dynosql.plan.cost import read_units, scan_estimate
from dynosql.plan.schema import table_info
from dynosql.sql import parse


def _table(items: int, size_bytes: int) -> dict[str, object]:
    return {
        "TableName": "t",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        "ItemCount": items,
        "TableSizeBytes": size_bytes,
    }


def test_a_scan_estimate_rounds_every_segments_pages_on_their_own() -> None:
    """1,000 items of 100 bytes in 4 segments: 4 pages of 25,000 bytes, 7 units each (28),
    not 100,000 bytes rounded once (25 units)."""
    info = table_info(_table(1000, 100_000))
    plan = plan_select(parse("SELECT * FROM t"), info, Options(segments=4))
    assert plan.segments == 4
    assert plan.estimate.rcu == Decimal(28) / 2 != read_units(100_000)
    # one stream: 100,000 bytes fit one page, rounded once
    assert scan_estimate(1000, 100) == read_units(100_000) == Decimal("12.5")


def test_pages_are_cut_at_1_mb_and_each_rounded() -> None:
    """100 items of 100,000 bytes: a page holds 10 (1,000,000 bytes: 245 units), 10 pages are
    2,450 units, where 10,000,000 bytes rounded once would be 2,442."""
    per_page = scan_estimate(100, 100_000, consistent=True)
    assert per_page == Decimal(245 * 10)
    assert read_units(100 * 100_000, consistent=True) == Decimal(2442)
    # a Limit of 4 cuts pages of 4 items: 25 pages of 400,000 bytes, 98 units each
    assert scan_estimate(100, 100_000, consistent=True, page_items=4) == Decimal(98 * 25)
