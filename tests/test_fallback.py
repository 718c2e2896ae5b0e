"""An index read that fetches each item (plan/fallback.py): the break-even count of keys it
fetches before a Scan is cheaper, the probe that reads at most one more, and the switch to the
Scan, guarded, when the index key holds more. On the embedded server, whose capacity is
metered by DynamoDB's rules, over the example sensors table (its INCLUDE GSI by_region holds
four regions of 88 to 515 items, and a Scan of the table costs 15 RCU)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from dynosql.errors import GuardError
from dynosql.examples.datasets import DATASETS
from dynosql.plan.fallback import fallback
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.port import EMBEDDED
from dynosql.plan.schema import table_info
from dynosql.session import Session, Settings
from dynosql.sql import parse

SENSORS = table_info(
    {
        **DATASETS["sensors"].table,
        "ItemCount": 1300,
        "TableSizeBytes": 120027,
        "GlobalSecondaryIndexes": [
            {
                **DATASETS["sensors"].table["GlobalSecondaryIndexes"][0],
                "ItemCount": 1300,
                "IndexSizeBytes": 93948,
            }
        ],
    }
)
ITEMS = list(DATASETS["sensors"].items())


def _plan(sql: str, **options: Any) -> Any:
    return plan_select(parse(sql), SENSORS, Options(**options))


def test_the_break_even_is_the_most_keys_whose_fetches_cost_no_more_than_the_scan() -> None:
    plan = _plan("SELECT * FROM sensors WHERE region = 'ap-south'")
    rule = plan.fallback
    assert rule is not None and rule.plan.label == "Scan sensors"
    scan = rule.plan.estimate.rcu
    # 29 index entries (one 4 KB unit, 0.5 RCU) and 29 fetches (0.5 each) cost 15 RCU, the Scan's
    assert (rule.keys, scan, rule.probe_rcu) == (29, Decimal(15), Decimal("0.5"))
    assert Decimal("0.5") + rule.keys * Decimal("0.5") <= scan
    assert Decimal("0.5") + (rule.keys + 1) * Decimal("0.5") > scan
    # the guess (√1,300 = 36 items a region) is beyond it: priced as the probe and the Scan
    assert plan.estimate.rcu == scan + rule.probe_rcu
    step = "reads up to 29 keys of sensors.by_region (Limit 30); more than 29 → Scan sensors"
    assert plan.steps[0].startswith(step)


def test_no_probe_where_the_fetches_cannot_cost_more_than_the_scan() -> None:
    bounded = _plan("SELECT * FROM sensors WHERE region = 'ap-south' LIMIT 20")
    covered = _plan("SELECT region, readingTs, temperature FROM sensors WHERE region = 'ap-south'")
    named = _plan("SELECT * FROM sensors.by_region WHERE region = 'ap-south'")
    never_scan = _plan("SELECT * FROM sensors WHERE region = 'ap-south'", scan_instead=False)
    assert bounded.fetch is not None and named.fetch is not None and never_scan.fetch is not None
    assert covered.fetch is None
    assert [p.fallback for p in (bounded, covered, named, never_scan)] == [None] * 4
    # a table of unknown size (DescribeTable's 0): nothing to compare with
    unknown = table_info(DATASETS["sensors"].table)
    plan = plan_select(parse("SELECT * FROM sensors WHERE region = 'ap-south'"), unknown)
    assert plan.fetch is not None and plan.fallback is None


def test_two_queries_share_the_probe_and_each_is_billed_a_unit() -> None:
    one = _plan("SELECT * FROM sensors WHERE region = 'ap-south'").fallback
    two = _plan("SELECT * FROM sensors WHERE region IN ('ap-south', 'sa-east')").fallback
    assert one is not None and two is not None
    assert (two.keys, two.probe_rcu) == (one.keys - 1, one.probe_rcu + Decimal("0.5"))
    assert fallback(_plan("SELECT * FROM sensors"), one.plan, 72) is None  # a Scan: no fetch


@pytest.fixture(scope="module")
def embedded() -> Iterator[Any]:
    from dynosql.local.embedded import start_local

    server = start_local()
    yield server
    server.stop()


def _run(server: Any, sql: str, **settings: Any) -> tuple[list[dict[str, Any]], Any]:
    session = Session(
        server.client(),
        capabilities=EMBEDDED,
        settings=Settings(journal_dir="off", **settings),
    )
    result = session.execute(sql)
    rows = result.all()
    return rows, result.stats


def _keys(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((r["deviceId"], r["readingTs"]) for r in rows)


def _expected(region: str, after: str = "") -> list[tuple[str, str]]:
    return _keys([i for i in ITEMS if i["region"] == region and i["readingTs"] > after])


def test_a_key_with_more_items_than_the_break_even_is_read_by_the_scan(embedded: Any) -> None:
    rows, stats = _run(embedded, "SELECT * FROM sensors WHERE region = 'ap-south'")
    assert _keys(rows) == _expected("ap-south") and len(rows) > 29
    assert stats.operations == ["Query sensors.by_region (more than 29 keys)", "Scan sensors"]
    # the Scan's 15 RCU and the probe's 30 keys (one unit): 156 RCU when each was fetched
    assert stats.capacity == Decimal("15.5")


def test_a_key_within_the_break_even_is_fetched(embedded: Any) -> None:
    after = sorted(i["readingTs"] for i in ITEMS if i["region"] == "ap-south")[-12]
    sql = f"SELECT * FROM sensors WHERE region = 'ap-south' AND readingTs > '{after}'"
    rows, stats = _run(embedded, sql)
    assert _keys(rows) == _expected("ap-south", after) and len(rows) == 11
    assert stats.operations == ["Query sensors.by_region + BatchGetItem sensors"]
    assert stats.capacity == Decimal("0.5") + 11 * Decimal("0.5")  # cheaper than the Scan


def test_the_switch_to_a_scan_is_guarded(embedded: Any) -> None:
    sql = "SELECT * FROM sensors WHERE region = 'sa-east'"
    with pytest.raises(GuardError, match=r"would Scan sensors .* more than --max-rcu 10"):
        _run(embedded, sql, max_rcu=Decimal(10))
    # --fail-on-scan: no Scan to switch to, the index read fetches every item
    rows, stats = _run(embedded, sql, fail_on_scan=True)
    assert _keys(rows) == _expected("sa-east")
    assert stats.operations == ["Query sensors.by_region + BatchGetItem sensors"]
    assert stats.capacity > Decimal(15)


SMALL = table_info(
    {
        "TableName": "t",
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [
            {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "ItemCount": 200,
        "TableSizeBytes": 20000,  # a Scan: 5 units of 4 KB, 2.5 RCU
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ItemCount": 200,
                "IndexSizeBytes": 20000,
            }
        ],
    }
)


def _in(column: str, n: int, **options: Any) -> Any:
    listed = ", ".join(f"'v{i}'" for i in range(n))
    return plan_select(
        parse(f"SELECT * FROM t WHERE {column} IN ({listed})"), SMALL, Options(**options)
    )


def test_a_gsi_read_of_more_keys_than_a_scan_costs_is_the_scan() -> None:
    """Each Query is billed 0.5 RCU at least, found or not: 6 keys of by_g cost 3 RCU at least,
    more than the Scan's 2.5 (PartiQL's read of the same WHERE); 5 cost no more."""
    six, five = _in("g", 6), _in("g", 5)
    # (the Scan of the index, which holds every item the WHERE can match, in as few bytes)
    assert (six.label, five.label) == ("Scan t.by_g", "5× Query t.by_g")
    assert six.warnings == [
        "Scan of t.by_g: 6 keys read one by one cost 3 RCU at least, more than it reads every item "
        "(200 items, ~2.5 RCU)"
    ]
    assert six.scan_hint is None  # no advice to add the key condition it has
    # the table's own keys are read one by one, as PartiQL reads them; --fail-on-scan (and a
    # write's read) never trade a keyed read for a Scan
    assert _in("id", 20).label == "BatchGetItem t"
    assert _in("g", 6, scan_instead=False).label == "6× Query t.by_g"


def test_explain_shows_the_read_instead_and_partiql_notes_the_limit() -> None:
    from dynosql.plan.partiql import for_select
    from dynosql.statements.read_explain import explain_lines

    plan = _plan("SELECT * FROM sensors WHERE region = 'ap-south'")
    lines = explain_lines(plan)
    at = lines.index("instead, if the index holds more than 29 keys:")
    assert lines[at + 1] == "  Scan sensors"
    notes = for_select(plan).notes
    assert any(
        n.startswith("dynosql reads at most 30 keys of sensors.by_region (PartiQL has no Limit)")
        and n.endswith("""SELECT * FROM "sensors" WHERE "region" = 'ap-south'""")
        for n in notes
    ), notes
