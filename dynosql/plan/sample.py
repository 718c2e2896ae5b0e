"""Sampled Scans: ``TABLESAMPLE (p PERCENT)`` and ``SHOW HOT KEYS … SAMPLE p PERCENT``. No I/O.

A sample reads a seeded random k of N parallel-Scan segments. The seed decides which segments
(EXPLAIN shows it; ``REPEATABLE (seed)`` repeats a run exactly), and the plan says before
anything is sent what the sample costs next to the full Scan. N is chosen so that k is large
enough for an interval (``CLUSTERS``) but each segment is still big enough that the per-
request rounding of read units does not eat the saving (``MIN_SEGMENT_BYTES``). The statistics
live in ``dynosql.evaluate.sample_stats``; the rules are written down in grammar/README.md.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal

from dynosql.errors import PlanError
from dynosql.plan.model import Estimate, Plan, SampleSpec
from dynosql.sql import ast
from dynosql.values import read_units

CLUSTERS = 100  # segments a sample reads when the table is large enough
MIN_K = 2  # an interval needs two segments
MIN_CLUSTERS = 30  # fewer than this and the intervals are wide: said so
MIN_SEGMENT_BYTES = 16 * 1024  # smaller segments waste too much on per-request rounding
MAX_TOTAL_SEGMENTS = 1_000_000  # DynamoDB's limit for TotalSegments


def sample_shape(percent: Decimal, table_bytes: int) -> tuple[int, int]:
    """(N, k): TotalSegments and how many of them to read for `percent` of a table this big."""
    wanted = math.ceil(CLUSTERS * 100 / float(percent))
    by_size = max(1, table_bytes // MIN_SEGMENT_BYTES)
    # at least two segments read (an interval needs two), however small the table
    least = math.ceil(MIN_K * 100 / float(percent))
    total = max(1, min(wanted, max(by_size, least), MAX_TOTAL_SEGMENTS))
    k = int((Decimal(total) * percent / 100).to_integral_value())
    return total, max(1, min(total, k))


def choose_segments(seed: int, total: int, k: int) -> tuple[int, ...]:
    """The k segments of `total` a seed picks (a simple random sample without replacement)."""
    return tuple(sorted(random.Random(seed).sample(range(total), k)))


def apply_sample(plan: Plan, sample: ast.Sample) -> Plan:
    """Turn a whole-table (or whole-index) Scan plan into a sampled one, priced."""
    if not plan.is_scan:
        raise PlanError(
            f"TABLESAMPLE samples a Scan, but this statement is answered by {plan.label} "
            f"({plan.estimate.text()}), which reads only matching items already: drop TABLESAMPLE"
        )
    path = plan.access
    items = path.item_count or plan.table.item_count
    size = path.size_bytes or plan.table.size_bytes or items * plan.table.average_item_size
    total, k = sample_shape(sample.percent, size)
    seed = sample.seed if sample.seed is not None else 0
    full = plan.estimate.rcu
    chosen = choose_segments(seed, total, k)
    spec = SampleSpec(sample.percent, seed, total, chosen, full, items)
    if plan.count_only:  # per-segment counts need the items' segments: read them (same cost)
        plan.count_only = False
        for request in plan.requests:
            request.params.pop("Select", None)
        plan.steps = [s.replace(" (counts only)", "") for s in plan.steps]
    per_segment = read_units(size / total, plan.consistent)
    plan.sample = spec
    plan.segments = total
    plan.estimate = Estimate(round(items * k / total), per_segment * k)
    share = f"{100 * k / total:.3g}%"
    text = (
        f"sample of {plan.table.name if path.name is None else f'{plan.table.name}.{path.name}'}: "
        f"reads {k} of {total} Scan segments ({share}, seed {seed}), "
        f"{plan.estimate.text()} instead of the full Scan's {format(full.normalize(), 'f')} RCU"
    )
    if plan.warnings and plan.warnings[0].startswith("Scan of "):
        plan.warnings[0] = text
    else:
        plan.warnings.insert(0, text)
    if k < MIN_CLUSTERS and k < total:
        plan.warnings.append(
            f"the table is small ({size} bytes): {k} of {total} segments of at least "
            f"{MIN_SEGMENT_BYTES // 1024} KB, so the intervals are wide; the full Scan costs "
            f"{format(full.normalize(), 'f')} RCU"
        )
    if sample.seed is None:
        plan.warnings.append("no seed given: segments chosen with seed 0")
    plan.steps.insert(
        0,
        f"read Segment s of TotalSegments {total} for the {k} sampled segments; keep "
        "per-segment totals (a cluster sample)",
    )
    if plan.statement.is_aggregate:
        plan.steps.append(
            "estimate COUNT and SUM for the table with 95% intervals ("
            + (
                f"the sample's share of the {items} items DescribeTable reports"
                if items
                else f"scaled by N/k = {total}/{k}"
            )
            + "; AVG: a ratio estimate); MIN, MAX and DISTINCT are the sample's values"
        )
    return plan
