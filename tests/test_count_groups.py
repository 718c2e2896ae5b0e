"""COUNT(*) by top-level names counted in C (dynosql.evaluate.count_groups) gives the groups the
general loop of `aggregate.group` gives: the same groups (1 and 1.0 one group, true and 1 two,
a missing attribute its own), the same counts, whatever the chunking, with list and map keys
handed back to the general loop."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynosql import values
from dynosql.evaluate import aggregate, count_groups
from dynosql.plan.planner import plan_select
from dynosql.plan.schema import table_info
from dynosql.sql import parse_script
from dynosql.values import MISSING, StringSet

KEYS = st.sampled_from(
    [
        "x",
        "1",
        "",
        Decimal(1),
        Decimal("1.0"),
        Decimal("1E+2"),
        Decimal(100),
        True,
        False,
        None,
        b"\x01",
        b"",
        MISSING,
        StringSet({"a"}),
        [Decimal(1)],
        {"k": "v"},
    ]
)


def _groups(sql: str, items: list[dict[str, Any]]) -> dict[Any, Any]:
    (statement,) = parse_script(sql)
    out = {}
    for g in aggregate.group(statement, iter(items)):
        key = tuple(values.hashable(v) for v in g.key_values.values())
        assert key not in out
        out[key] = g.aggregates
    return out


def _general(sql: str, items: list[dict[str, Any]], monkeypatch: Any) -> dict[Any, Any]:
    with monkeypatch.context() as m:
        m.setattr(count_groups, "counted_names", lambda aggs, paths: None)
        return _groups(sql, items)


def _items(drawn: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    items = []
    for g, h in drawn:
        item: dict[str, Any] = {"pk": "p"}
        if g is not MISSING:
            item["g"] = g
        if h is not MISSING:
            item["h"] = h
        items.append(item)
    return items


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(KEYS, KEYS), max_size=40), st.integers(1, 7), st.integers(1, 5))
def test_counted_as_the_general_loop_counts(drawn, chunk, max_raw) -> None:
    items = _items(drawn)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(count_groups, "CHUNK", chunk)
        m.setattr(count_groups, "MAX_RAW", max_raw)
        for sql in (
            "SELECT g, COUNT(*) AS n FROM t GROUP BY g",
            "SELECT g, h, COUNT(*), COUNT(*) AS again FROM t GROUP BY g, h",
        ):
            assert _groups(sql, items) == _general(sql, items, m)


def test_types_stay_apart_and_numbers_meet(monkeypatch) -> None:
    items = _items([(k, MISSING) for k in ["1", Decimal(1), Decimal("1.0"), True, MISSING, None]])
    got = _groups("SELECT g, COUNT(*) AS n FROM t GROUP BY g", items)
    assert got == {
        (("S", "1"),): {"COUNT(*)": 1},
        (("N", Decimal(1)),): {"COUNT(*)": 2},
        (("BOOL", True),): {"COUNT(*)": 1},
        (("MISSING",),): {"COUNT(*)": 1},
        (("NULL", None),): {"COUNT(*)": 1},
    }


@pytest.mark.parametrize(
    "sql, applies",
    [
        ("SELECT g, COUNT(*) FROM t GROUP BY g", True),
        ("SELECT COUNT(*) FROM t GROUP BY g, h", True),
        ("SELECT COUNT(*) FROM t", False),  # no group-by names: one group, the general loop
        ("SELECT g, COUNT(g) FROM t GROUP BY g", False),
        ("SELECT g, COUNT(DISTINCT h) FROM t GROUP BY g", False),
        ("SELECT g, COUNT(*), SUM(h) FROM t GROUP BY g", False),
        ("SELECT m.k, COUNT(*) FROM t GROUP BY m.k", False),
    ],
)
def test_where_it_applies(sql, applies) -> None:
    (statement,) = parse_script(sql)
    aggs = aggregate.collect_aggregates(statement)
    assert (count_groups.counted_names(aggs, statement.group_by) is not None) == applies


# --- counted off the wire form (a page at a time, decoding only the distinct keys) -------------


def _wire(value: Any) -> Any:
    """An AttributeValue as the JSON wire carries it (binary as base64 text)."""
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def _wire_groups(sql: str, items: list[dict[str, Any]], page: int) -> dict[Any, Any]:
    (statement,) = parse_script(sql)
    names = count_groups.counted_names(aggregate.collect_aggregates(statement), statement.group_by)
    assert names is not None
    count = count_groups.count_wire(names)
    wire = [_wire(values.encode_item(i)) for i in items]
    pages = [count(wire[i : i + page], None) for i in range(0, len(wire), page)]
    out = {}
    for g in aggregate.group(statement, count_groups.WirePages(pages)):
        key = tuple(values.hashable(v) for v in g.key_values.values())
        assert key not in out
        out[key] = g.aggregates
    return out


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(KEYS, KEYS), max_size=40), st.integers(1, 9), st.integers(1, 5))
def test_wire_pages_count_as_the_general_loop_counts(drawn, page, max_raw) -> None:
    items = _items(drawn)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(count_groups, "MAX_RAW", max_raw)
        for sql in (
            "SELECT g, COUNT(*) AS n FROM t GROUP BY g",
            "SELECT g, h, COUNT(*), COUNT(*) AS again FROM t GROUP BY g, h",
        ):
            assert _wire_groups(sql, items, page) == _general(sql, items, m)


def test_a_wire_page_with_a_list_key_is_decoded_for_the_general_loop() -> None:
    count = count_groups.count_wire(("g",))
    assert count([{"g": {"S": "a"}}, {"g": {"S": "a"}}, {}], None) == {
        ((("S", "a"),),): 2,
        ((),): 1,
    }
    page = [{"g": {"L": [{"N": "1"}]}}, {"g": {"B": "AQ=="}}]
    assert count(page, None) == [{"g": [Decimal(1)]}, {"g": b"\x01"}]


def _plan(sql: str) -> Any:
    table = table_info(
        {
            "TableName": "t",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            "ItemCount": 1000,
            "TableSizeBytes": 100_000,
        }
    )
    (statement,) = parse_script(sql)
    return plan_select(statement, table)


@pytest.mark.parametrize(
    "sql, names",
    [
        ("SELECT pk, COUNT(*) AS n FROM t GROUP BY pk", ("pk",)),
        ("SELECT g, COUNT(*) FROM t WHERE pk = 'a' AND sk > 'm' GROUP BY g", ("g",)),  # a Query
        # a whole partition read: its sort keys are remembered for later estimates
        ("SELECT g, COUNT(*) FROM t WHERE pk = 'a' GROUP BY g", None),
        ("SELECT g, COUNT(*) FROM t WHERE n > 3 GROUP BY g", ("g",)),  # the server's filter
        ("SELECT g, COUNT(*) FROM t WHERE pk IN ('a', 'b') GROUP BY g", ("g",)),  # two Queries
        ("SELECT g, SUM(n) FROM t GROUP BY g", None),  # not COUNT(*) alone
        ("SELECT COUNT(*) FROM t", None),  # no GROUP BY
        ("SELECT g, COUNT(*) FROM t WHERE g LIKE '%x' GROUP BY g", None),  # checked client-side
        ("SELECT g, COUNT(*) FROM t WHERE pk = 'a' AND pk = 'b' GROUP BY g", None),  # reads nothing
    ],
)
def test_which_plans_are_counted_off_the_wire(sql: str, names: Any) -> None:
    plan = _plan(sql)
    aggs = aggregate.collect_aggregates(plan.statement)
    counted = count_groups.counted_names(aggs, plan.statement.group_by)
    assert (counted if plan.reads_every_item_once else None) == names
