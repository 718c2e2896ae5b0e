"""What a statement's choices cost: a Scan, an export read here, or Athena over the export; and
what a statement costs per month at a request rate (``EXPLAIN … AT n PER SECOND``), on-demand
and provisioned side by side.

The prices are the published on-demand list prices of us-east-1 (checked 2025); other regions
differ by up to about 50%. Override any of them with ``--prices name=dollars,…`` (or
``SET prices = '…'``). Pure arithmetic: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from dynosql.result import format_duration, format_figure

# dollars per million read request units (on-demand; an eventually consistent 4 KB read is
# half a unit, which the planner's RCU figures already count)
RCU_MILLION = Decimal("0.125")
WCU_MILLION = Decimal("0.625")  # dollars per million write request units (on-demand)
RCU_HOUR = Decimal("0.00013")  # provisioned: dollars per read capacity unit-hour
WCU_HOUR = Decimal("0.00065")  # provisioned: dollars per write capacity unit-hour
HOURS_PER_MONTH = 730  # AWS's pricing month (8,760 hours a year / 12)
EXPORT_GB = Decimal("0.10")  # ExportTableToPointInTime, per GB of table size exported
PITR_GB_MONTH = Decimal("0.20")  # point-in-time recovery, per GB-month while it is on
ATHENA_TB = Decimal("5.00")  # Athena, per TB of data scanned (10 MB minimum per query)
ATHENA_MIN_BYTES = 10 * 1000**2
# an export is DynamoDB JSON (type tags on every value), gzip-compressed: Athena reads about
# this fraction of the table's size (a rough, documented guess; measure with EXPLAIN ANALYZE)
EXPORT_COMPRESSED_RATIO = Decimal("0.5")
ITEMS_PER_SECOND = 50_000  # one client's Scan rate without --rate-limit (botocore-bound)

GB = 1000**3
TB = 1000**4


@dataclass(frozen=True)
class Prices:
    rcu_million: Decimal = RCU_MILLION
    wcu_million: Decimal = WCU_MILLION
    rcu_hour: Decimal = RCU_HOUR
    wcu_hour: Decimal = WCU_HOUR
    export_gb: Decimal = EXPORT_GB
    pitr_gb_month: Decimal = PITR_GB_MONTH
    athena_tb: Decimal = ATHENA_TB


def parse_prices(text: str) -> Prices:
    """``rcu_million=0.25,athena_tb=6.75`` over the defaults; ValueError says what is wrong."""
    prices = Prices()
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in Prices.__dataclass_fields__:
            known = ", ".join(Prices.__dataclass_fields__)
            raise ValueError(f"unknown price {name!r} (prices: {known})")
        try:
            amount = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"price {name} takes a number of dollars, got {value!r}") from None
        if not amount.is_finite() or amount < 0:
            raise ValueError(f"price {name} takes a number of dollars, got {value!r}")
        prices = replace(prices, **{name: amount})
    return prices


def _dollars(x: Decimal) -> str:
    if x >= 1:
        return f"${x:,.2f}"
    if not x:
        return "$0"
    text = f"{x:.6f}".rstrip("0")
    return "$" + (text if len(text.split(".")[1]) >= 2 else f"{x:.2f}")


def compare(
    rcu: Decimal,
    items: int,
    table_bytes: int,
    rate_limit: Decimal | None,
    prices: Prices,
    pitr_on: bool | None = None,
) -> list[str]:
    """EXPLAIN's side-by-side lines for a statement that reads `rcu` / `items` of a table of
    `table_bytes`."""
    scan_dollars = rcu * prices.rcu_million / 1_000_000
    if rate_limit:
        time = f"~{format_duration(rcu / rate_limit)} at --rate-limit {format_figure(rate_limit)} RCU/s"
    else:
        time = f"~{format_duration(items / ITEMS_PER_SECOND)} from one client (~{ITEMS_PER_SECOND} items/s)"
    gb = Decimal(table_bytes) / GB
    export_dollars = gb * prices.export_gb
    pitr = gb * prices.pitr_gb_month
    pitr_text = (
        "PITR is on"
        if pitr_on
        else f"needs PITR: ~{_dollars(pitr)} per month while on"
        if pitr_on is None
        else f"PITR is off: turning it on costs ~{_dollars(pitr)} per month"
    )
    scanned = max(Decimal(ATHENA_MIN_BYTES), Decimal(table_bytes) * EXPORT_COMPRESSED_RATIO)
    athena_dollars = scanned / TB * prices.athena_tb
    return [
        "costs compared (list prices of us-east-1; --prices name=dollars,… overrides):",
        f"  Scan:   ~{_fmt(rcu)} RCU = {_dollars(scan_dollars)} on-demand, {time}; "
        "uses the table's read capacity",
        f"  export: ~{gb:.3f} GB × {_dollars(prices.export_gb)}/GB = {_dollars(export_dollars)} once "
        f"({pitr_text}), then DuckDB on this machine at no AWS cost; no table capacity used",
        f"  Athena: ~{scanned / GB:.3f} GB scanned × {_dollars(prices.athena_tb)}/TB = "
        f"{_dollars(athena_dollars)} a query, over the export (its {_dollars(export_dollars)} once)",
    ]


def _fmt(x: Decimal) -> str:
    return format(x.normalize(), "f") if x else "0"


@dataclass(frozen=True)
class Monthly:
    """One statement's units at `rate` a second, for a month, both ways of paying."""

    rate: Decimal
    rcu: Decimal  # per statement, as EXPLAIN estimates it (eventually consistent halves)
    wcu: Decimal
    prices: Prices

    @property
    def seconds(self) -> int:
        return HOURS_PER_MONTH * 3600

    @property
    def statements(self) -> Decimal:
        return self.rate * self.seconds

    def on_demand(self) -> tuple[Decimal, Decimal]:
        """Dollars for the month's read and write request units."""
        reads = self.rcu * self.statements * self.prices.rcu_million / 1_000_000
        writes = self.wcu * self.statements * self.prices.wcu_million / 1_000_000
        return reads, writes

    def provisioned_units(self) -> tuple[int, int]:
        """The RCU and WCU to provision to sustain the rate (whole units; no burst or
        auto scaling headroom)."""
        return math.ceil(self.rcu * self.rate), math.ceil(self.wcu * self.rate)

    def provisioned(self) -> tuple[Decimal, Decimal]:
        rcu, wcu = self.provisioned_units()
        hours = HOURS_PER_MONTH
        return rcu * hours * self.prices.rcu_hour, wcu * hours * self.prices.wcu_hour

    def lines(self) -> list[str]:
        reads, writes = self.on_demand()
        p_reads, p_writes = self.provisioned()
        rcu_units, wcu_units = self.provisioned_units()
        n = self.statements
        return [
            f"per month at {format_figure(self.rate)} per second ({n:,.0f} statements in "
            f"{HOURS_PER_MONTH} h; list prices of us-east-1, --prices name=dollars,… overrides):",
            f"  on-demand:   reads {_fmt(self.rcu)} RRU × {n:,.0f} × "
            f"{_dollars(self.prices.rcu_million)}/million = {_dollars(reads)}; writes "
            f"{_fmt(self.wcu)} WRU × {n:,.0f} × {_dollars(self.prices.wcu_million)}/million = "
            f"{_dollars(writes)}; total {_dollars(reads + writes)}",
            f"  provisioned: {rcu_units} RCU × {HOURS_PER_MONTH} h × "
            f"{_dollars(self.prices.rcu_hour)} = {_dollars(p_reads)}; {wcu_units} WCU × "
            f"{HOURS_PER_MONTH} h × {_dollars(self.prices.wcu_hour)} = {_dollars(p_writes)}; "
            f"total {_dollars(p_reads + p_writes)} (steady rate, no headroom)",
        ]

    def document(self) -> dict[str, str | int]:
        reads, writes = self.on_demand()
        p_reads, p_writes = self.provisioned()
        rcu_units, wcu_units = self.provisioned_units()
        return {
            "rate_per_second": _fmt(self.rate),
            "hours": HOURS_PER_MONTH,
            "on_demand_reads": _fmt(reads),
            "on_demand_writes": _fmt(writes),
            "provisioned_rcu": rcu_units,
            "provisioned_wcu": wcu_units,
            "provisioned_reads": _fmt(p_reads),
            "provisioned_writes": _fmt(p_writes),
        }
