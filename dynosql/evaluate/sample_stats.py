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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from dynosql import values
from dynosql.evaluate import count_groups
from dynosql.evaluate.aggregate import (
    Group,
    _final,
    _State,
    _update,
    collect_aggregates,
    group_values,
)
from dynosql.sql import ast


class SampleSpec(Protocol):
    """What the estimates read of a sample (`dynosql.plan.model.SampleSpec` is one): k of
    TotalSegments `total` read, with their seed, the percent asked for and the table's
    ItemCount (0: unknown)."""

    @property
    def percent(self) -> Decimal: ...

    @property
    def seed(self) -> int: ...

    @property
    def total(self) -> int: ...

    @property
    def segments(self) -> tuple[int, ...]: ...

    @property
    def table_items(self) -> int: ...

    @property
    def k(self) -> int: ...

    def document(self) -> dict[str, Any]: ...


CONFIDENCE = 0.95
CONTEXT = decimal.Context(prec=38)
LOW, HIGH = " low", " high"  # the interval columns follow each scaled aggregate's column


# Student's t at 0.975 (a two-sided 95% interval) for 1..30 degrees of freedom
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip


def t_quantile(df: int) -> float:
    """Student's t quantile for a 95% interval: tabulated up to 30 degrees of freedom, a
    Cornish-Fisher expansion above (accurate to about 1e-5 there)."""
    if df <= len(_T975):
        return _T975[df - 1]
    from statistics import NormalDist  # not loaded by every statement that imports this module

    z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)
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


def effective_df(q2: float, q4: float, k: int) -> int:
    """Satterthwaite's effective degrees of freedom of Σr²: (Σr²)² / Σr⁴, at most k − 1. When
    a few segments (those holding the hottest partition keys) carry most of the spread, the
    variance estimate rests on those few, and the interval widens accordingly."""
    if q4 <= 0:
        return k - 1
    return max(1, min(k - 1, int(q2 * q2 / q4)))


class Design:
    """The k segments read out of N, with what each one scanned: the estimators' common part.

    Group totals come sparse ({segment index: total}): a group absent from a segment has a
    total of zero there, and its residual is worked out from the segment moments computed
    once, so a group costs in proportion to the segments it appears in.
    """

    def __init__(self, total: int, scanned: list[Decimal], table_items: int = 0):
        self.n, self.k = total, len(scanned)
        self.f = self.k / total
        self.x = [float(v) for v in scanned]
        self.sx = sum(scanned, Decimal(0))
        self.sx2 = sum(v * v for v in self.x)
        self.sx4 = sum(v**4 for v in self.x)
        self.table_items = table_items if self.sx else 0  # a ratio needs items seen

    def total(self, ys: dict[int, Decimal]) -> Interval:
        """A table total: the ratio estimate X·Σy/Σx when the table's item count X is known
        (a segment holding a hot key has many items of every group: the ratio cancels that),
        else the expansion estimate N/k·Σy."""
        k, n = self.k, self.n
        sy = sum(ys.values(), Decimal(0))
        if k >= n:
            return Interval(sy, sy, sy)  # every segment read: exact
        if self.table_items:
            r = CONTEXT.divide(sy, self.sx)
            estimate = CONTEXT.multiply(Decimal(self.table_items), r)
            rf = float(r)
            q2 = rf * rf * self.sx2
            q4 = rf**4 * self.sx4
            for i, y in ys.items():
                x = self.x[i]
                d = float(y) - rf * x
                q2 += d * d - (rf * x) ** 2
                q4 += d**4 - (rf * x) ** 4
            g = self.table_items / (n * float(self.sx) / k)  # X / X̂
        else:
            estimate = CONTEXT.multiply(CONTEXT.divide(Decimal(n), Decimal(k)), sy)
            mean = float(sy) / k
            absent = k - len(ys)
            q2, q4 = absent * mean**2, absent * mean**4
            for y in ys.values():
                d = float(y) - mean
                q2 += d * d
                q4 += d**4
            g = 1.0
        if k < 2:
            return Interval(estimate, None, None)
        se = g * n * math.sqrt(max(0.0, (1 - self.f) * q2 / (k - 1) / k))
        return _interval(estimate, se, effective_df(max(q2, 0.0), max(q4, 0.0), k))

    def ratio(self, ys: dict[int, Decimal], xs: dict[int, Decimal]) -> Interval | None:
        """AVG: Σy/Σx over the sample (y a segment's sum, x its count of numbers), with the
        linearised variance; None when the sample holds no number."""
        k, n = self.k, self.n
        sx = sum(xs.values(), Decimal(0))
        if sx == 0:
            return None
        r = CONTEXT.divide(sum(ys.values(), Decimal(0)), sx)
        if k >= n:
            return Interval(r, r, r)
        if k < 2:
            return Interval(r, None, None)
        rf = float(r)
        q2 = q4 = 0.0
        for i, x in xs.items():
            d = float(ys.get(i, Decimal(0))) - rf * float(x)
            q2 += d * d
            q4 += d**4
        se = math.sqrt(max(0.0, (1 - self.f) / k * q2 / (k - 1))) / (float(sx) / k)
        return _interval(r, se, effective_df(q2, q4, k))


def _interval(estimate: Decimal, se: float, df: int) -> Interval:
    half = Decimal(repr(t_quantile(df) * se))
    return Interval(estimate, estimate - half, estimate + half)


def total_interval(
    totals: list[Decimal],
    total_segments: int,
    scanned: list[Decimal] | None = None,
    table_items: int = 0,
) -> Interval:
    """`Design.total` for dense per-segment totals (zeros included)."""
    design = Design(total_segments, scanned or [Decimal(0)] * len(totals), table_items)
    return design.total({i: t for i, t in enumerate(totals) if t})


def ratio_interval(
    sums: list[Decimal], counts: list[Decimal], total_segments: int
) -> Interval | None:
    """`Design.ratio` for dense per-segment sums and counts."""
    design = Design(total_segments, [Decimal(0)] * len(sums))
    return design.ratio(
        {i: y for i, y in enumerate(sums) if y}, {i: c for i, c in enumerate(counts) if c}
    )


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
    key_values: dict[Any, Any]
    whole: list[_State]  # over the whole sample (MIN, MAX, DISTINCT, and what was seen)
    per_segment: dict[int, list[_State]]  # the scaled aggregates' states, by segment


def sampled_groups(
    statement: ast.Select, pages: Iterable[tuple[int, int, list[dict[str, Any]]]], spec: SampleSpec
) -> list[Group]:
    """Groups whose COUNT/SUM/AVG are table estimates, each with ``text low``/``text high``
    interval values, and whose other aggregates are the sample's. `pages` are
    (segment index, items scanned, items) as the executor's ``tagged_pages`` yields them."""
    aggs = collect_aggregates(statement)
    scaled_aggs = [a for a in aggs if scaled(a)]
    groups: dict[tuple[Any, ...], _GroupStates] = {}
    scanned = [Decimal(0)] * spec.k
    for index, count, items in pages:
        scanned[index] += count
        for item in items:
            key_values = group_values(statement, item)
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
    design = Design(spec.total, scanned, spec.table_items)
    return [_estimate(g, aggs, scaled_aggs, design) for g in groups.values()]


def _estimate(
    g: _GroupStates,
    aggs: list[ast.Aggregate],
    scaled_aggs: list[ast.Aggregate],
    design: Design,
) -> Group:
    out: dict[str, Any] = {}
    for agg, state in zip(aggs, g.whole, strict=True):
        value = _final(agg, state)
        if not scaled(agg):
            out[agg.text] = value
            continue
        j = scaled_aggs.index(agg)
        segs = g.per_segment
        iv: Interval | None
        if agg.func == "COUNT":
            counts = {i: Decimal(s[j].count) for i, s in segs.items() if s[j].count}
            iv = _round_count(design.total(counts), state.count)
        elif value is None:
            iv = None
        elif agg.func == "SUM":
            sums = {i: s[j].total for i, s in segs.items() if s[j].numbers}
            exponent = min((int(v.as_tuple().exponent) for v in sums.values()), default=0)
            iv = _round_to(design.total(sums), min(0, exponent))
        else:
            sums = {i: s[j].total for i, s in segs.items() if s[j].numbers}
            numbers = {i: Decimal(s[j].numbers) for i, s in segs.items() if s[j].numbers}
            iv = design.ratio(sums, numbers)
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


def scaling_text(spec: SampleSpec) -> str:
    """How a sampled total is scaled to the table (`Design.total`), for the notes."""
    if spec.table_items:
        return (
            f"the sample's share times the table's {spec.table_items} items (DescribeTable's "
            "ItemCount, refreshed about every six hours)"
        )
    return f"scaled by {spec.total}/{spec.k}"


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
        how = scaling_text(spec)
        notes.append(
            f"{', '.join(est)}: estimates for the whole table ({how}), with "
            f"{CONFIDENCE:.0%} confidence intervals in the '… low' and '… high' columns"
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
    keys: dict[Any, list[Any]]  # hashable key -> [value, items, bytes (None: not sized)]
    items_by_segment: list[Decimal]  # items read from each of the k segments
    keys_by_segment: list[Decimal]  # distinct keys in each of the k segments

    @property
    def ranked(self) -> list[list[Any]]:
        return count_groups.hottest_first(self.keys.values())

    def distinct_keys(self) -> Interval:
        """A key lies in exactly one segment, so the per-segment distinct counts add up."""
        iv = total_interval(self.keys_by_segment, self.spec.total)
        return _round_count(iv, len(self.keys))

    def items(self) -> Interval:
        """Items in the table: DescribeTable's count when known (exact but up to six hours
        old), else estimated."""
        if self.spec.table_items:
            n = Decimal(self.spec.table_items)
            return Interval(n, n, n)
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


def key_sample(
    pages: Iterable[tuple[int, int, list[dict[str, Any]]]],
    pk: str,
    spec: SampleSpec,
    sized: bool = True,
) -> KeySample:
    """Count items per partition key in the sampled segments, and their bytes when `sized`
    (the items came whole: WITH SIZES; else their bytes are None)."""
    keys: dict[Any, list[Any]] = {}
    per_items = [Decimal(0)] * spec.k
    per_keys: list[set[Any]] = [set() for _ in range(spec.k)]
    for index, _scanned, items in pages:
        for item in items:
            value = item.get(pk, values.MISSING)
            key = values.hashable(value)
            entry = keys.get(key)
            if entry is None:
                entry = keys[key] = [item.get(pk), 0, 0 if sized else None]
            entry[1] += 1
            if sized:
                entry[2] += values.item_size(item)
            per_items[index] += 1
            per_keys[index].add(key)
    return KeySample(spec, keys, per_items, [Decimal(len(s)) for s in per_keys])


# --- SHOW HOT KEYS … BY … SAMPLE: logical keys from a sample of their shards -------------------


@dataclass(frozen=True)
class LogicalKey:
    """One logical key (``SPLIT_PART(pk, '#', 1)``) estimated from the sampled segments.

    Unlike a partition key, a logical key is *not* held by one segment: each of its shards
    hashes on its own, so its items spread over the segments like any non-key attribute's,
    and its item and byte totals are estimated as TABLESAMPLE's ``COUNT(*) … GROUP BY`` is
    (`Design.total`). Its shards do each lie in one segment, so their count adds up per
    segment and is estimated as the plain ``SHOW HOT KEYS … SAMPLE`` estimates distinct keys
    (the expansion estimate)."""

    key: Any
    items: Interval
    size: Interval | None  # None: not sized (SHOW HOT KEYS without WITH SIZES)
    shards: Interval
    sampled_items: int
    sampled_shards: int
    largest_shard: int  # items of its largest sampled shard


def logical_key_sample(
    pages: Iterable[tuple[int, int, list[dict[str, Any]]]],
    pk: str,
    logical: Callable[[Any], Any],
    spec: SampleSpec,
    sized: bool = True,
) -> list[LogicalKey]:
    """Logical keys of the sampled segments, hottest (by estimated items) first. `logical`
    maps a partition-key value to its logical key; it runs once per distinct value. Their
    bytes only when `sized` (the items came whole)."""
    scanned = [Decimal(0)] * spec.k
    shards: dict[Any, list[Any]] = {}  # hashable pk -> [logical key, segment, items, bytes]
    for index, count, items in pages:
        scanned[index] += count
        for item in items:
            value = item.get(pk, values.MISSING)
            entry = shards.get(values.hashable(value))
            if entry is None:
                key = logical(value)
                entry = shards[values.hashable(value)] = [key, index, 0, 0]
            entry[2] += 1
            if sized:
                entry[3] += values.item_size(item)
    per_key: dict[
        Any, list[Any]
    ] = {}  # hashable logical key -> [key, {seg: [items, bytes, shards]}, largest]
    for key, index, n, size in shards.values():
        entry = per_key.setdefault(values.hashable(key), [key, {}, 0])
        seg = entry[1].setdefault(index, [Decimal(0), Decimal(0), Decimal(0)])
        seg[0] += n
        seg[1] += size
        seg[2] += 1
        entry[2] = max(entry[2], n)
    design = Design(spec.total, scanned, spec.table_items)
    expansion = Design(spec.total, scanned)
    out = []
    for key, segs, largest in per_key.values():
        seen = [int(sum((s[j] for s in segs.values()), Decimal(0))) for j in range(3)]
        column = [{i: s[j] for i, s in segs.items()} for j in range(3)]
        out.append(
            LogicalKey(
                key,
                _round_count(design.total(column[0]), seen[0]),
                _round_count(design.total(column[1]), seen[1]) if sized else None,
                _round_count(expansion.total(column[2]), seen[2]),
                seen[0],
                seen[2],
                largest,
            )
        )
    return sorted(out, key=lambda e: (-e.items.estimate, -e.sampled_items, values.sort_key(e.key)))
