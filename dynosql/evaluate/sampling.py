"""Estimates from a sample of Scan segments, with 95% confidence intervals.

The sample is a *cluster sample*: N segments (clusters), k of them drawn at random without
replacement, every item of a drawn segment read. For a per-segment total t_i (a group's item
count, a sum), the estimate of the table's total and its interval are (grammar/README.md):

    T = N/k · Σ t_i
    s² = Σ (t_i − t̄)² / (k − 1)             over the k drawn segments, zeros included
    SE = N · sqrt((1 − k/N) · s² / k)        (finite-population correction)
    T ± t(0.975, k − 1) · SE

An AVG is a ratio of two totals (sum / count of numbers): R = Σ y_i / Σ x_i, with the
linearised SE = sqrt((1 − k/N) / k · Σ (y_i − R·x_i)² / (k − 1)) / x̄. MIN, MAX and every
DISTINCT aggregate are the sample's own values: nothing scales them.

Pure: no I/O; the items come tagged with the segment that read them.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from statistics import NormalDist
from typing import Any

from .. import values
from ..plan.model import SampleSpec
from ..sql import ast
from .aggregate import Group, _final, _State, _update, collect_aggregates
from .predicate import resolve

CONFIDENCE = 0.95
CONTEXT = decimal.Context(prec=38)
LOW, HIGH = " low", " high"  # the interval columns follow each scaled aggregate's column


def t_quantile(df: int, p: float = 0.5 + CONFIDENCE / 2) -> float:
    """Student's t quantile (exact for 1 and 2 degrees of freedom, a Cornish-Fisher expansion
    above, accurate to ~1e-4 from 3 on)."""
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


@dataclass(frozen=True)
class Interval:
    estimate: Decimal
    low: Decimal | None  # None: no interval (one segment read)
    high: Decimal | None


def _d(x: float) -> Decimal:
    return Decimal(repr(x))


def total_interval(totals: list[Decimal], total_segments: int) -> Interval:
    """The estimate of a table total from the k drawn segments' totals (zeros included)."""
    k, n = len(totals), total_segments
    scale = CONTEXT.divide(Decimal(n), Decimal(k))
    sample_sum = sum(totals, Decimal(0))
    estimate = CONTEXT.multiply(scale, sample_sum)
    if k >= n:
        return Interval(estimate, estimate, estimate)  # every segment read: exact
    if k < 2:
        return Interval(estimate, None, None)
    mean = sample_sum / k
    s2 = sum(((t - mean) ** 2 for t in totals), Decimal(0)) / (k - 1)
    se = n * ((1 - Decimal(k) / n) * s2 / k).sqrt(CONTEXT)
    half = _d(t_quantile(k - 1)) * se
    return Interval(estimate, estimate - half, estimate + half)


def ratio_interval(
    sums: list[Decimal], counts: list[Decimal], total_segments: int
) -> Interval | None:
    """AVG as a ratio of two estimated totals; None when the sample holds no number."""
    k, n = len(sums), total_segments
    x = sum(counts, Decimal(0))
    if x == 0:
        return None
    r = CONTEXT.divide(sum(sums, Decimal(0)), x)
    if k >= n:
        return Interval(r, r, r)
    if k < 2:
        return Interval(r, None, None)
    residuals = sum(((y - r * c) ** 2 for y, c in zip(sums, counts, strict=True)), Decimal(0))
    x_mean = x / k
    se = ((1 - Decimal(k) / n) / k * residuals / (k - 1)).sqrt(CONTEXT) / x_mean
    half = _d(t_quantile(k - 1)) * se
    return Interval(r, r - half, r + half)


def scaled(agg: ast.Aggregate) -> bool:
    """Whether an aggregate is estimated for the table (else it is the sample's value)."""
    return not agg.distinct and agg.func in ("COUNT", "SUM", "AVG")


def _round_count(iv: Interval, seen: int) -> Interval:
    """Counts are whole: the estimate rounded, the interval widened outward, and never below
    the items the sample itself holds."""
    low = (
        None
        if iv.low is None
        else max(Decimal(seen), iv.low.to_integral_value(decimal.ROUND_FLOOR))
    )
    high = None if iv.high is None else iv.high.to_integral_value(decimal.ROUND_CEILING)
    return Interval(iv.estimate.to_integral_value(decimal.ROUND_HALF_EVEN), low, high)


def _round_to(iv: Interval, exponent: int) -> Interval:
    """A sum's estimate and bounds at the precision of the values summed (bounds outward)."""
    q = Decimal(1).scaleb(exponent)

    def at(x: Decimal | None, rounding: str) -> Decimal | None:
        return None if x is None else x.quantize(q, rounding=rounding, context=CONTEXT)

    return Interval(
        at(iv.estimate, decimal.ROUND_HALF_EVEN),  # type: ignore[arg-type]
        at(iv.low, decimal.ROUND_FLOOR),
        at(iv.high, decimal.ROUND_CEILING),
    )


@dataclass
class _GroupStates:
    key_values: dict[tuple, Any]
    whole: list[_State]  # over the whole sample (MIN, MAX, DISTINCT, and what was seen)
    per_segment: dict[int, list[_State]]  # the scaled aggregates' states, by segment


def sampled_groups(
    statement: ast.Select, tagged: Iterable[tuple[int, dict]], spec: SampleSpec
) -> list[Group]:
    """Groups whose COUNT/SUM/AVG are table estimates, each with ``text low``/``text high``
    interval values, and whose other aggregates are the sample's."""
    aggs = collect_aggregates(statement)
    scaled_aggs = [a for a in aggs if scaled(a)]
    groups: dict[tuple, _GroupStates] = {}
    for index, item in tagged:
        key_values = {p.elements: resolve(item, p) for p in statement.group_by}
        key = tuple(values.hashable(v) for v in key_values.values())
        g = groups.get(key)
        if g is None:
            g = groups[key] = _GroupStates(key_values, [_State() for _ in aggs], {})
        for agg, state in zip(aggs, g.whole, strict=True):
            _update(agg, state, item)
        seg = g.per_segment.get(index)
        if seg is None:
            seg = g.per_segment[index] = [_State() for _ in scaled_aggs]
        for agg, state in zip(scaled_aggs, seg, strict=True):
            _update(agg, state, item)
    if not groups and not statement.group_by:
        groups[()] = _GroupStates({}, [_State() for _ in aggs], {})
    return [_estimate(statement, g, aggs, scaled_aggs, spec) for g in groups.values()]


def _estimate(
    statement: ast.Select,
    g: _GroupStates,
    aggs: list[ast.Aggregate],
    scaled_aggs: list[ast.Aggregate],
    spec: SampleSpec,
) -> Group:
    out: dict[str, Any] = {}
    k = spec.k
    for agg, state in zip(aggs, g.whole, strict=True):
        value = _final(agg, state)
        if not scaled(agg):
            out[agg.text] = value
            continue
        j = scaled_aggs.index(agg)
        segs = [g.per_segment.get(i) for i in range(k)]
        counts = [Decimal(s[j].count) if s else Decimal(0) for s in segs]
        numbers = [Decimal(s[j].numbers) if s else Decimal(0) for s in segs]
        sums = [s[j].total if s else Decimal(0) for s in segs]
        iv: Interval | None
        if agg.func == "COUNT":
            iv = _round_count(total_interval(counts, spec.total), state.count)
        elif value is None:
            iv = None
        elif agg.func == "SUM":
            exponent = min((v.as_tuple().exponent for v in sums if v), default=0)
            iv = _round_to(total_interval(sums, spec.total), min(0, int(exponent)))
        else:
            iv = ratio_interval(sums, numbers, spec.total)
        out[agg.text] = None if iv is None else iv.estimate
        out[agg.text + LOW] = None if iv is None else iv.low
        out[agg.text + HIGH] = None if iv is None else iv.high
    return Group(g.key_values, out)


def with_intervals(statement: ast.Select) -> ast.Select:
    """The statement with ``name low`` and ``name high`` columns after each scaled aggregate
    of the select list (their values come from `sampled_groups`)."""
    items: list[ast.SelectItem] = []
    for item in statement.items or ():
        items.append(item)
        expr = item.expr
        if isinstance(expr, ast.Aggregate) and scaled(expr):
            for suffix in (LOW, HIGH):
                bound = ast.Aggregate(expr.func, expr.path, expr.distinct, expr.text + suffix)
                items.append(ast.SelectItem(bound, item.name + suffix))
    return dataclasses.replace(statement, items=tuple(items))


def sample_notes(statement: ast.Select, spec: SampleSpec) -> list[str]:
    """What the numbers of a sampled statement are: said after the rows."""
    notes = [
        f"TABLESAMPLE ({format(spec.percent.normalize(), 'f')} PERCENT): read {spec.k} of "
        f"{spec.total} Scan segments (seed {spec.seed}; repeat with REPEATABLE ({spec.seed}))."
    ]
    if not statement.is_aggregate:
        notes.append("the rows are the sampled segments' items, not the whole table")
        return notes
    aggs = collect_aggregates(statement)
    est = [a.text for a in aggs if scaled(a)]
    kept = [a.text for a in aggs if not scaled(a)]
    if est:
        notes.append(
            f"{', '.join(est)}: estimates for the whole table (scaled by {spec.total}/{spec.k}), "
            f"with {CONFIDENCE:.0%} confidence intervals in the '… low' and '… high' columns"
        )
    if kept:
        notes.append(f"{', '.join(kept)}: values of the sample, not of the table")
    if statement.group_by:
        notes.append(
            "groups absent from the sampled segments are missing; a segment holds whole "
            "partition keys, so a GROUP BY on the partition key samples keys, not items "
            "(use SHOW HOT KEYS … SAMPLE)"
        )
    return notes


def sample_text(spec: SampleSpec, shown: int = 12) -> str:
    """How a sampled Scan is sent, for EXPLAIN."""
    listed = ", ".join(str(s) for s in spec.segments[:shown])
    more = f", … ({spec.k - shown} more)" if spec.k > shown else ""
    return (
        f"(sent as Segment s of TotalSegments {spec.total} for the {spec.k} sampled s = "
        f"{listed}{more}; seed {spec.seed})"
    )


# --- SHOW HOT KEYS … SAMPLE: what a key sample can estimate -------------------------------------


@dataclass
class KeySample:
    """A sample of whole partition keys: every item of each sampled key, no item of the rest."""

    spec: SampleSpec
    keys: dict[Any, list]  # hashable key -> [value, items, bytes]
    items_by_segment: list[Decimal]  # items read from each of the k segments
    keys_by_segment: list[Decimal]  # distinct keys in each of the k segments

    @property
    def ranked(self) -> list[list]:
        return sorted(self.keys.values(), key=lambda e: (-e[1], -e[2], values.sort_key(e[0])))

    def distinct_keys(self) -> Interval:
        """A key lies in exactly one segment, so the per-segment distinct counts add up."""
        iv = total_interval(self.keys_by_segment, self.spec.total)
        return _round_count(iv, len(self.keys))

    def items(self) -> Interval:
        iv = total_interval(self.items_by_segment, self.spec.total)
        return _round_count(iv, sum(e[1] for e in self.keys.values()))

    def top_share(self, fraction: float) -> float:
        """The share of the sample's items held by its top `fraction` of keys (at least one)."""
        ranked = self.ranked
        total = sum(e[1] for e in ranked)
        if not total:
            return 0.0
        n = max(1, math.ceil(len(ranked) * fraction))
        return sum(e[1] for e in ranked[:n]) / total

    def percentiles(self, points: tuple[float, ...] = (0.5, 0.9, 0.99)) -> dict[str, int]:
        """Items per key at these percentiles of the sampled keys (nearest rank), and the max."""
        counts = sorted(e[1] for e in self.keys.values())
        if not counts:
            return {}
        out = {f"p{round(p * 100)}": counts[max(0, math.ceil(p * len(counts)) - 1)] for p in points}
        out["max"] = counts[-1]
        return out

    def document(self) -> dict[str, Any]:
        def iv(x: Interval) -> dict[str, Any]:
            return {"estimate": x.estimate, "low": x.low, "high": x.high}

        return {
            "sample": self.spec.document(),
            "distinct_keys": iv(self.distinct_keys()),
            "items": iv(self.items()),
            "sampled_keys": len(self.keys),
            "top_1pct_share": self.top_share(0.01),
            "top_10pct_share": self.top_share(0.10),
            "items_per_key": self.percentiles(),
        }


def key_sample(tagged: Iterable[tuple[int, dict]], pk: str, spec: SampleSpec) -> KeySample:
    """Count items and bytes per partition key in the sampled segments."""
    keys: dict[Any, list] = {}
    per_items = [Decimal(0)] * spec.k
    per_keys: list[set] = [set() for _ in range(spec.k)]
    for index, item in tagged:
        value = item.get(pk, values.MISSING)
        key = values.hashable(value)
        entry = keys.get(key)
        if entry is None:
            entry = keys[key] = [item.get(pk), 0, 0]
        entry[1] += 1
        entry[2] += values.item_size(item)
        per_items[index] += 1
        per_keys[index].add(key)
    return KeySample(spec, keys, per_items, [Decimal(len(s)) for s in per_keys])
