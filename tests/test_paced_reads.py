"""--rate-limit cuts each Query and Scan page to whole 4 KB units of the rate (plan/cost.py,
`paced_page_items`), and every estimate prices the pages so cut: what EXPLAIN says a paced read
costs is what it costs. Before, pages of one second of the rate were billed a unit they did not
read: the example sensors table's Scan cost 22 RCU at 1 RCU/s, and EXPLAIN said 15.

The reads here do not wait for the rate: the budget's clock jumps ahead (`no_waiting`), so the
pages are cut as they would be and sent at once (tests/test_robustness.py checks the waiting,
against dynalite's own figures)."""

from __future__ import annotations

import itertools
import math
import time
from decimal import Decimal
from typing import Any

import pytest

from dynosql.dynamo import budget
from dynosql.plan.cost import PACED_PAGE_UNITS, paced_page_items, paced_page_units
from dynosql.result import format_duration, format_figure
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.values import READ_UNIT_BYTES, read_units


class _Ahead:
    """A clock that runs a thousand seconds ahead at every look: the budget never waits."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def monotonic(self) -> float:
        self.now += 1000.0
        return self.now


@pytest.fixture
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "time", _Ahead())


def test_a_paced_page_holds_the_most_items_that_fill_its_units() -> None:
    """The items of the average size, with two standard deviations of room (an item's a
    quarter of the average), fit the page's whole units; one more would not. The units: one
    second of the rate, at least eight."""
    rates = [Decimal(r) for r in ("0.5", "1", "3.9", "4", "10", "25.5", "1000")]
    for rate, size, consistent in itertools.product(rates, (1, 92, 143, 4000, 400_000), (0, 1)):
        units = paced_page_units(rate, bool(consistent))
        unit_rcu = read_units(READ_UNIT_BYTES, bool(consistent))
        assert units == max(PACED_PAGE_UNITS, math.floor(rate / unit_rcu))
        n = paced_page_items(rate, size, bool(consistent))
        room = units * READ_UNIT_BYTES

        def needs(k: int, size: int = size) -> float:
            return k * size + size / 2 * math.sqrt(k)

        assert n >= 1 and (needs(n) <= room or n == 1) and needs(n + 1) > room, (rate, size)


def _costs(session: Session, sql: str) -> tuple[Decimal, Decimal, int, str]:
    """EXPLAIN's estimate, the run's capacity and requests, and what EXPLAIN says of the pace."""
    explained = session.execute(f"EXPLAIN {sql}").document["estimate"]
    result = session.execute(sql)
    result.all()
    estimate = Decimal(explained["rcu"])
    return estimate, result.stats.capacity, result.stats.requests, explained.get("paced", "")


@pytest.mark.parametrize("name", ["moto", pytest.param("ddblocal", marks=pytest.mark.slow)])
def test_a_paced_read_costs_what_explain_says(
    name: str, request: pytest.FixtureRequest, no_waiting: None
) -> None:
    """At 1 RCU/s: items of even sizes cost exactly the estimate (which is the whole read's
    cost, or half a unit more); items whose sizes vary (drive: 44 to 200 bytes, grouped by
    partition) at most one unit a page more."""
    backend: Any = request.getfixturevalue(f"{name}_examples_backend")
    paced = Session(backend.client(), settings=Settings(rate_limit=Decimal(1)))
    whole = Session(backend.client())
    for sql, even in [
        ("SELECT * FROM sensors", True),  # 1,300 items of 90-104 bytes
        ("SELECT COUNT(*) FROM audit", True),  # Select=COUNT: no item comes back to be sized
        ("SELECT * FROM drive", False),
    ]:
        estimate, run, requests, said = _costs(paced, sql)
        _, unlimited, _, _ = _costs(whole, sql)
        page = int(said.split("at most ")[1].split(" items")[0].replace(",", ""))
        items = int(backend.datasets[sql.split()[-1]])
        assert f"without it ~{format(unlimited.normalize(), 'f')} RCU" in said, said
        assert unlimited <= estimate <= unlimited + Decimal("0.5"), sql
        if even:  # the pages EXPLAIN said, each billed what the estimate said
            assert requests == math.ceil(items / page) + (items % page == 0), sql
            assert run == estimate, (sql, run, estimate)
        else:  # pages sized to the items read so far
            assert estimate <= run <= estimate + Decimal("0.5") * requests, (sql, run, estimate)


def test_explain_says_how_the_rate_cuts_the_pages(moto_examples_backend: Any) -> None:
    session = Session(moto_examples_backend.client(), settings=Settings(rate_limit=Decimal(1)))
    (line,) = [
        row["plan"]
        for row in session.execute("EXPLAIN SELECT * FROM sensors")
        if row["plan"].startswith("estimate:")
    ]
    assert line.startswith("estimate: ~1300 items, ~15 RCU; based on DescribeTable")
    assert line.endswith(
        "; --rate-limit 1 RCU/s cuts the pages to at most 346 items (4 RCU, 4 s of the rate, "
        "each); without it ~15 RCU"
    )
    # a read that fits in one paced page is cut no differently: nothing to say
    keyed = session.execute("EXPLAIN SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva'")
    assert "paced" not in keyed.document["estimate"]
    faster = Session(moto_examples_backend.client(), settings=Settings(rate_limit=Decimal(5)))
    document = faster.execute("EXPLAIN SELECT * FROM sensors").document["estimate"]
    assert "(5 RCU, 1 s of the rate, each)" in document["paced"]


def test_durations_and_rates_are_printed_to_three_significant_digits(
    moto_examples_backend: Any,
) -> None:
    """A page of 4 RCU at 3 RCU/s lasts 4/3 s: EXPLAIN says 1.33 s (it printed
    1.333333333333333333333333333 s), its costs compared the Scan's ~5 s of the rate, and a rate
    given with many digits reads back rounded too (`dynosql.result.format_figure`)."""
    session = Session(moto_examples_backend.client(), settings=Settings(rate_limit=Decimal(3)))
    lines = [row["plan"] for row in session.execute("EXPLAIN SELECT * FROM sensors")]
    (estimate,) = [line for line in lines if line.startswith("estimate:")]
    assert (
        "--rate-limit 3 RCU/s cuts the pages to at most 346 items (4 RCU, 1.33 s of the rate"
        in (estimate)
    )
    (scan,) = [line for line in lines if line.startswith("  Scan:")]
    assert scan.endswith("~5 s at --rate-limit 3 RCU/s; uses the table's read capacity"), scan
    odd = Session(
        moto_examples_backend.client(), settings=Settings(rate_limit=Decimal(1) / Decimal(3))
    )
    said = odd.execute("EXPLAIN SELECT * FROM sensors").document["estimate"]["paced"]
    assert said.startswith("--rate-limit 0.333 RCU/s cuts the pages to at most 346 items")
    assert "(4 RCU, 12 s of the rate, each)" in said, said


@pytest.mark.parametrize(
    "value, text",
    [
        (Decimal(4) / Decimal(3), "1.33"),
        (Decimal("12.5"), "12.5"),
        (Decimal("0.0004166"), "0.000417"),
        (Decimal("99.96"), "100"),
        (Decimal(2048), "2048"),
        (Decimal("1234.56"), "1235"),
        (Decimal("4.000"), "4"),
        (0.1 + 0.2, "0.3"),
        (Decimal(0), "0"),
    ],
)
def test_format_figure(value: Decimal | float, text: str) -> None:
    assert format_figure(value) == text


@pytest.mark.parametrize(
    "seconds, text",
    [(Decimal(4) / Decimal(3), "1.33 s"), (150, "2.5 min"), (Decimal(7500), "2.08 h"), (0.04, "0.04 s")],
)  # fmt: skip
def test_format_duration(seconds: Decimal | float, text: str) -> None:
    assert format_duration(seconds) == text
