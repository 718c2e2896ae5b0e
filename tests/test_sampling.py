"""TABLESAMPLE and SHOW HOT KEYS … SAMPLE: parsing (never silently ignored), planning (a seeded
k of N segments, priced), and the statistics (cluster-sample intervals that cover).

The statistical evidence runs on generated Zipf data of 100k+ items with segments simulated in
pure Python by the same model DynamoDB uses (a segment is a slice of the partition-key hash
space), so hundreds of seeded runs take seconds; the real path runs end to end on a smaller
table in tests/test_sampling_e2e.py.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from decimal import Decimal

import pytest
from test_planner_fixtures import TABLES

from dynosql.errors import PlanError, SqlError
from dynosql.evaluate.sample_stats import (
    HIGH,
    LOW,
    Design,
    key_sample,
    ratio_interval,
    sampled_groups,
    t_quantile,
    total_interval,
)
from dynosql.plan.model import SampleSpec
from dynosql.plan.planner import plan_select
from dynosql.plan.sample import choose_segments, sample_shape
from dynosql.sql import ast, parse
from dynosql.statements.hot_keys import ShowHotKeys
from dynosql.statements.read_explain import explain_lines

# --- parsing: TABLESAMPLE is read or refused, never dropped ------------------------------------


@pytest.mark.parametrize(
    ("sql", "percent", "seed"),
    [
        ("SELECT * FROM orders TABLESAMPLE (5 PERCENT)", Decimal(5), None),
        (
            "SELECT * FROM orders TABLESAMPLE SYSTEM (0.5 PERCENT) REPEATABLE (42)",
            Decimal("0.5"),
            42,
        ),
        (
            "SELECT status, COUNT(*) FROM orders TABLESAMPLE (10 PERCENT) GROUP BY status",
            Decimal(10),
            None,
        ),
    ],
)
def test_tablesample_is_parsed(sql: str, percent: Decimal, seed: int | None) -> None:
    statement = parse(sql)
    assert isinstance(statement, ast.Select)
    assert statement.sample is not None
    assert (statement.sample.percent, statement.sample.seed) == (percent, seed)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT * FROM orders TABLESAMPLE (100 ROWS)", "TABLESAMPLE takes a percentage"),
        ("SELECT * FROM orders TABLESAMPLE (5)", "TABLESAMPLE takes a percentage"),
        ("SELECT * FROM orders TABLESAMPLE BERNOULLI (5 PERCENT)", "BERNOULLI is not supported"),
        ("SELECT * FROM orders TABLESAMPLE (0 PERCENT)", "above 0 and at most 100"),
        ("SELECT * FROM orders TABLESAMPLE (101 PERCENT)", "above 0 and at most 100"),
        ("SHOW HOT KEYS FROM orders SAMPLE 0 PERCENT", "above 0 and at most 100"),
        ("SHOW HOT KEYS FROM orders SAMPLE 5 PERCENT REPEATABLE (x)", "REPEATABLE takes"),
    ],
)
def test_tablesample_refusals(sql: str, message: str) -> None:
    with pytest.raises(SqlError, match=message) as err:
        parse(sql)
    assert err.value.line == 1


def test_show_hot_keys_sample_is_parsed() -> None:
    statement = parse("SHOW HOT KEYS FROM orders SAMPLE 10 PERCENT REPEATABLE (7) LIMIT 3")
    assert isinstance(statement, ShowHotKeys)
    assert statement.sample is not None
    assert (statement.sample.percent, statement.sample.seed, statement.limit) == (Decimal(10), 7, 3)


# --- planning ------------------------------------------------------------------------------------


def _plan(sql: str):  # noqa: ANN202
    statement = parse(sql)
    assert isinstance(statement, ast.Select)
    return plan_select(statement, TABLES[statement.table])


def test_sample_plan_reads_k_of_n_segments_priced_before_it_runs() -> None:
    full = _plan("SELECT status, COUNT(*) FROM orders GROUP BY status")
    plan = _plan(
        "SELECT status, COUNT(*) FROM orders TABLESAMPLE (10 PERCENT) REPEATABLE (42) GROUP BY status"
    )
    assert plan.sample is not None
    assert plan.sample.k == len(set(plan.sample.segments)) == plan.sample.total // 10
    assert all(0 <= s < plan.sample.total for s in plan.sample.segments)
    ratio = plan.estimate.rcu / full.estimate.rcu
    assert Decimal("0.09") <= ratio <= Decimal("0.12"), ratio
    assert "instead of the full Scan's" in plan.warnings[0]
    assert not any(w.startswith("Scan of ") for w in plan.warnings)
    text = "\n".join(explain_lines(plan))
    assert "seed 42" in text and f"TotalSegments {plan.sample.total}" in text


def test_the_seed_decides_the_segments() -> None:
    a = _plan("SELECT * FROM orders TABLESAMPLE (5 PERCENT) REPEATABLE (1)").sample
    b = _plan("SELECT * FROM orders TABLESAMPLE (5 PERCENT) REPEATABLE (1)").sample
    c = _plan("SELECT * FROM orders TABLESAMPLE (5 PERCENT) REPEATABLE (2)").sample
    assert a is not None and b is not None and c is not None
    assert a.segments == b.segments != c.segments


def test_count_star_sample_reads_items_not_select_count() -> None:
    plan = _plan("SELECT COUNT(*) FROM orders TABLESAMPLE (10 PERCENT) REPEATABLE (1)")
    assert not plan.count_only
    assert "Select" not in plan.requests[0].params


def test_a_keyed_statement_refuses_tablesample() -> None:
    with pytest.raises(PlanError, match="drop TABLESAMPLE"):
        _plan("SELECT * FROM orders TABLESAMPLE (10 PERCENT) WHERE customer = 'c1'")


def test_sample_shape_small_and_large_tables() -> None:
    assert sample_shape(Decimal(10), 10**12) == (1000, 100)
    total, k = sample_shape(Decimal(10), 100 * 1024)  # 100 KB: still two segments read
    assert k >= 2 and total >= 20
    assert sample_shape(Decimal(100), 10**9)[0] == sample_shape(Decimal(100), 10**9)[1]


# --- the statistics --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("df", "expected"), [(1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (99, 1.984)]
)
def test_t_quantile(df: int, expected: float) -> None:
    assert t_quantile(df) == pytest.approx(expected, abs=2e-3)


def test_total_interval_is_exact_when_every_segment_is_read() -> None:
    iv = total_interval([Decimal(3), Decimal(5)], 2)
    assert iv.estimate == iv.low == iv.high == 8


def test_total_interval_by_hand() -> None:
    # N=10, k=4, t = 1,2,3,4: T = 25; s² = 5/3; SE = 10·sqrt(0.6·(5/3)/4) = 5; residuals
    # ±0.5, ±1.5: effective df = (Σr²)²/Σr⁴ = 25/10.25 -> 2, t(2) = 4.303
    iv = total_interval([Decimal(x) for x in (1, 2, 3, 4)], 10)
    assert iv.estimate == 25
    assert float(iv.high - iv.estimate) == pytest.approx(4.303 * 5, abs=0.01)


def test_ratio_estimate_uses_the_table_item_count() -> None:
    # y = half of x in every segment: the ratio is exact, so is the estimate (X/2)
    iv = total_interval([Decimal(5), Decimal(50)], 10, [Decimal(10), Decimal(100)], 1000)
    assert iv.estimate == iv.low == iv.high == 500


def test_ratio_interval_is_the_mean() -> None:
    iv = ratio_interval([Decimal(10), Decimal(30)], [Decimal(1), Decimal(3)], 4)
    assert iv is not None and iv.estimate == 10
    assert iv.low == iv.high == 10  # y = R·x in every segment: no spread


# --- evidence on Zipf data: segments simulated like DynamoDB's --------------------------------------

ITEMS = 120_000
KEYS = 24_000
CATEGORIES = 2_000
RUNS = 200


def segment_of(key: str, total: int) -> int:
    """DynamoDB's model: a segment is a slice of the partition key's hash space."""
    h = int.from_bytes(hashlib.md5(key.encode()).digest()[:8], "big")
    return (h * total) >> 64


def zipf_weights(n: int, s: float) -> list[float]:
    return [1 / (rank**s) for rank in range(1, n + 1)]


@pytest.fixture(scope="module")
def zipf_table() -> list[dict]:
    """120k items: Zipf-skewed partition keys (some keys hold thousands of items) and a
    Zipf-distributed non-key attribute `category`, independent of the key."""
    rng = random.Random(20261201)
    keys = rng.choices([f"user#{i}" for i in range(KEYS)], zipf_weights(KEYS, 0.8), k=ITEMS)
    cats = rng.choices(
        [f"cat-{i}" for i in range(CATEGORIES)], zipf_weights(CATEGORIES, 1.1), k=ITEMS
    )
    return [
        {"pk": k, "category": c, "n": Decimal(i % 97)}
        for i, (k, c) in enumerate(zip(keys, cats, strict=True))
    ]


def _segments(items: list[dict], total: int) -> list[list[dict]]:
    out: list[list[dict]] = [[] for _ in range(total)]
    for item in items:
        out[segment_of(item["pk"], total)].append(item)
    return out


@pytest.mark.slow
def test_group_by_a_non_key_attribute_finds_the_top_values_with_covering_intervals(
    zipf_table: list[dict],
) -> None:
    """TABLESAMPLE (10 PERCENT) GROUP BY category, 200 seeded runs: the estimated top 10 holds
    at least 8 of the true top 10 in >= 95% of the runs, and the true COUNT and SUM of each
    true top-10 value lie in their 95% intervals in >= 95% of the (run, value) pairs."""
    total, k = sample_shape(Decimal(10), 10**12)  # a large table's shape: 100 of 1000
    segments = _segments(zipf_table, total)
    by_segment = [Counter(i["category"] for i in seg) for seg in segments]
    sums_by_segment: list[Counter] = [Counter() for _ in segments]
    for seg, sums in zip(segments, sums_by_segment, strict=True):
        for i in seg:
            sums[i["category"]] += i["n"]
    truth = Counter(i["category"] for i in zipf_table)
    true_sum: Counter = Counter()
    for i in zipf_table:
        true_sum[i["category"]] += i["n"]
    true_top = [c for c, _ in truth.most_common(10)]
    found_enough = covered = checked = 0
    for seed in range(RUNS):
        chosen = choose_segments(seed, total, k)
        design = Design(total, [Decimal(len(segments[s])) for s in chosen], len(zipf_table))
        sampled: Counter = Counter()
        for s in chosen:
            sampled.update(by_segment[s])
        estimated_top = [c for c, _ in sampled.most_common(10)]
        found_enough += len(set(estimated_top) & set(true_top)) >= 8
        for cat in true_top:
            for per, true in ((by_segment, truth[cat]), (sums_by_segment, true_sum[cat])):
                iv = design.total({j: Decimal(per[s][cat]) for j, s in enumerate(chosen)})
                assert iv.low is not None and iv.high is not None
                covered += iv.low <= true <= iv.high
                checked += 1
    print(f"top-10 found in {found_enough}/{RUNS} runs; coverage {covered}/{checked}")
    assert found_enough / RUNS >= 0.95, found_enough
    assert covered / checked >= 0.95, covered / checked


def test_distinct_keys_estimate_covers_on_zipf_keys(zipf_table: list[dict]) -> None:
    """SHOW HOT KEYS … SAMPLE 10 PERCENT: the distinct-key estimate's interval holds the true
    number of keys in >= 95% of seeded runs."""
    total, k = sample_shape(Decimal(10), 10**12)
    keys_by_segment = [Decimal(len({i["pk"] for i in seg})) for seg in _segments(zipf_table, total)]
    true_keys = len({i["pk"] for i in zipf_table})
    covered = 0
    for seed in range(RUNS):
        chosen = choose_segments(seed, total, k)
        iv = total_interval([keys_by_segment[s] for s in chosen], total)
        assert iv.low is not None and iv.high is not None
        covered += iv.low <= true_keys <= iv.high
    print(f"distinct keys covered in {covered}/{RUNS} runs")
    assert covered / RUNS >= 0.95, covered / RUNS


@pytest.mark.slow
def test_the_evaluation_path_gives_the_design_estimates(zipf_table: list[dict]) -> None:
    """sampled_groups (COUNT, SUM, AVG with intervals; MAX as a sample value) and key_sample on
    simulated segment reads give the estimates the tests above check for coverage."""
    statement = parse(
        "SELECT category, COUNT(*), SUM(n), AVG(n), MAX(n) FROM t TABLESAMPLE (10 PERCENT) "
        "GROUP BY category"
    )
    assert isinstance(statement, ast.Select)
    total, k = sample_shape(Decimal(10), 10**12)
    segments = _segments(zipf_table, total)
    true_keys = len({i["pk"] for i in zipf_table})
    for seed in range(3):
        chosen = choose_segments(seed, total, k)
        spec = SampleSpec(Decimal(10), seed, total, chosen, table_items=len(zipf_table))
        pages = [(j, len(segments[s]), segments[s]) for j, s in enumerate(chosen)]
        design = Design(total, [Decimal(len(segments[s])) for s in chosen], len(zipf_table))
        groups = {
            g.key_values[("category",)]: g.aggregates
            for g in sampled_groups(statement, pages, spec)
        }
        g = groups["cat-0"]
        counts = {
            j: Decimal(sum(i["category"] == "cat-0" for i in segments[s]))
            for j, s in enumerate(chosen)
        }
        iv = design.total(counts)
        assert g["COUNT(*)"] == round(iv.estimate)
        assert g["COUNT(*)" + LOW] <= iv.low + 1 and g["COUNT(*)" + HIGH] >= iv.high - 1
        assert g["SUM(n)" + LOW] <= g["SUM(n)"] <= g["SUM(n)" + HIGH]
        assert g["AVG(n)" + LOW] <= g["AVG(n)"] <= g["AVG(n)" + HIGH]
        assert 0 <= g["AVG(n)"] <= 96 and g["MAX(n)"] <= 96
        assert "MAX(n)" + LOW not in g  # a sample value: no interval
        keys = key_sample(pages, "pk", spec).distinct_keys()
        assert keys.low is not None and keys.high is not None
        assert keys.low <= true_keys <= keys.high
