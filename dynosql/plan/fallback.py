"""The break-even of a read that fetches what its index lacks (pure; two plans in, a rule out).

A Query of a KEYS_ONLY or INCLUDE index (or of an LSI that lacks an attribute) for whole items
fetches each item it finds from the table (BatchGetItem: each item rounded up to its own 4 KB
unit, 0.5 RCU at least). For a few items that is the cheapest read; for many it costs more than
the read without the index (a Scan, or the table's own Query): PartiQL's Scan of the example
sensors table costs 15 RCU, and 325 items of one region fetched cost 156. How many items one
index key holds, DescribeTable does not say (the planner's guess is the square root of the
index's entries), so the planner cannot know which read is cheaper; the read can.

The rule: with n items found, the index read costs its entries' pages plus n fetches, growing
with n; the alternative costs what it costs whatever n is. The break-even count N is the most
items whose index read and fetches cost no more than the alternative's estimate. The index is
read first for at most N + 1 entries (Limit N + 1, the keys only): if it holds at most N,
they are fetched, and the read costs at most the alternative; if more, the alternative is read
instead, and what the probe read (N + 1 entries of the index, ``Fallback.probe_rcu``: one
4 KB unit, 0.5 RCU, for the example tables) is the most spent on top of it. No guess decides
the plan any more: the index's own answer does.
"""

from __future__ import annotations

from decimal import Decimal

from dynosql.plan.cost import paced_page_items, scan_estimate
from dynosql.plan.model import Estimate, Fallback, Plan
from dynosql.values import read_units


def fallback(
    plan: Plan, instead: Plan, entry_bytes: int, pace: Decimal | None = None
) -> Fallback | None:
    """The probe rule for `plan` (a Query that fetches; its index entries of `entry_bytes` on
    average) against `instead` (the same statement planned without fetching), or None when `plan` can never cost more than `instead` (its
    index holds too few entries, or a LIMIT pushed down bounds the fetches) or when nothing
    is known to compare with (a table of unknown size)."""
    if plan.fetch is None or plan.operation != "Query" or instead.fetch is not None:
        return None
    if not instead.estimate.known or not (plan.access.item_count or plan.table.item_count):
        return None
    budget = instead.estimate.rcu
    entries = plan.access.item_count or plan.table.item_count
    limits = [r.max_items for r in plan.requests]
    most = entries if None in limits else min(entries, sum(n for n in limits if n is not None))
    if _cost(plan, most, entry_bytes, pace) <= budget:
        return None
    low, high = 0, most  # the most keys whose index read and fetches stay within the budget
    while low < high:
        mid = (low + high + 1) // 2
        if _cost(plan, mid, entry_bytes, pace) <= budget:
            low = mid
        else:
            high = mid - 1
    return Fallback(low, instead, _index_units(plan, low + 1, entry_bytes, pace))


def priced(plan: Plan, rule: Fallback) -> Estimate:
    """The plan's estimate under the rule: its own where it guesses at most `rule.keys`
    items, else the probe and the read instead."""
    if plan.estimate.items <= rule.keys:
        return plan.estimate
    rcu = rule.probe_rcu + rule.plan.estimate.rcu
    basis = (
        f"{plan.estimate.basis}: more than {rule.keys:,} keys, so the probe "
        f"(≤ {_text(rule.probe_rcu)} RCU) and {rule.plan.label}"
    )
    return Estimate(rule.keys + 1 + rule.plan.estimate.items, rcu, basis=basis)


def _cost(plan: Plan, keys: int, size: int, pace: Decimal | None) -> Decimal:
    """What the index read finding `keys` entries and the fetch of their items cost."""
    assert plan.fetch is not None
    consistent = any(
        spec.get("ConsistentRead", False) for spec in plan.fetch.params["RequestItems"].values()
    )
    fetch = read_units(plan.table.average_item_size, consistent) * keys
    return _index_units(plan, keys, size, pace) + fetch


def _index_units(plan: Plan, keys: int, size: int, pace: Decimal | None) -> Decimal:
    """`keys` index entries of `size` bytes read by the plan's Queries (each Query billed a
    unit at least)."""
    page_items = paced_page_items(pace, size, plan.consistent) if pace else None
    first = scan_estimate(keys, size, plan.consistent, page_items=page_items)
    return first + read_units(0, plan.consistent) * (len(plan.requests) - 1)


def _text(units: Decimal) -> str:
    return format(units.normalize(), "f")
