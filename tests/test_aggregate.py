"""GROUP BY, aggregates, HAVING, ORDER BY, DISTINCT and LIMIT against a brute-force oracle.

The oracle (tests/aggregate_oracle.py) implements the stated rules of
dynosql/evaluate/aggregate.py on its own; each query is described once and rendered both to SQL
(for dynosql, on every backend) and to the oracle's description. The data is skewed (one
partition key holds about half the items), has missing attributes, NULLs, nested paths and
values of mixed types in the aggregated and grouped attributes.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from decimal import Decimal

import aggregate_oracle as O
import pytest
from backends import unique_name
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynosql import values
from dynosql.errors import SqlError
from dynosql.session import Session
from dynosql.sql import parse_script

MISSING = object()  # "leave the attribute out" in the generators below

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

TABLE_KWARGS = dict(
    KeySchema=[
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
        {"AttributeName": "gk", "AttributeType": "S"},
    ],
    GlobalSecondaryIndexes=[
        {
            "IndexName": "byGk",
            "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    BillingMode="PAY_PER_REQUEST",
)

BIG = Decimal("12345678901234567890123456789012345678")  # 38 significant digits

G_POOL = ["x", "y", "z", Decimal(1), Decimal(2), True, False, None, b"\x01", "1", MISSING]
N_POOL_OTHER = ["7", None, True, [Decimal(1)], {"a": Decimal(1)}, values.StringSet({"s"})]
K_POOL = ["a", "b", Decimal(3), Decimal("3.5"), None, MISSING]
S_POOL = ["Zebra", "apple", "Äpfel", "é", "😀", "", MISSING]
B_POOL = [b"\x00", b"\xff", b"\x7f\x01", b"", MISSING]


def _put(item: dict, name: str, value: object) -> None:
    if value is not MISSING:
        item[name] = value


def _number(rng: random.Random) -> Decimal:
    r = rng.random()
    if r < 0.7:
        return Decimal(rng.randint(-100000, 100000)).scaleb(-2)  # money: 2 decimals
    if r < 0.85:
        return O.EXACT.add(BIG, rng.randint(0, 9))  # keep all 38 digits
    return Decimal(rng.randint(0, 5))


def make_items(seed: int = 4, count: int = 400) -> list[dict]:
    rng = random.Random(seed)
    items = []
    for i in range(count):
        r = rng.random()
        pk = "hot" if r < 0.5 else "warm" if r < 0.7 else f"k{rng.randint(0, 29):02d}"
        item: dict = {"pk": pk, "sk": Decimal(i)}
        _put(item, "g", rng.choice(G_POOL))
        r = rng.random()
        n: object = MISSING
        if r < 0.65:
            n = _number(rng)
        elif r < 0.85:
            n = rng.choice(N_POOL_OTHER)
        _put(item, "n", n)
        r = rng.random()
        if r < 0.6:
            m: dict = {}
            _put(m, "k", rng.choice(K_POOL))
            item["m"] = m
        elif r < 0.7:
            item["m"] = "not a map"
        r = rng.random()
        if r < 0.5:
            item["l"] = [rng.choice([Decimal(1), Decimal(2), "one", None])]
        elif r < 0.6:
            item["l"] = []
        _put(item, "s", rng.choice(S_POOL))
        _put(item, "b", rng.choice(B_POOL))
        if rng.random() < 0.6:
            item["gk"] = rng.choice(["g1", "g1", "g2", "g3"])
        items.append(item)
    return items


class Dataset(tuple):
    """(table name, items written): a short repr keeps hypothesis' reports readable."""

    def __repr__(self) -> str:
        return f"Dataset({self[0]!r}, {len(self[1])} items)"


@pytest.fixture(scope="session")
def agg_table(backend):
    """One skewed table per backend, with the items written (read-only for the tests)."""
    name = unique_name("agg")
    backend.create_table(TableName=name, **TABLE_KWARGS)
    items = make_items()
    backend.put_items(name, items)
    return Dataset((name, items))


@pytest.fixture
def session(backend):
    return Session(backend.client())


# --- queries: one description, rendered to SQL and handed to the oracle -----------------------


def path_text(path: tuple) -> str:
    out = ""
    for el in path:
        out += f"[{el}]" if isinstance(el, int) else (f".{el}" if out else el)
    return out


def expr_text(e: O.Agg | O.Col) -> str:
    if isinstance(e, O.Col):
        return path_text(e.path)
    inner = "*" if e.path is None else path_text(e.path)
    return f"{e.func}({'DISTINCT ' if e.distinct else ''}{inner})"


def literal(v: object) -> str:
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, Decimal):
        return str(v)
    raise TypeError(v)


def to_sql(q: O.Query, table: str, aliased: dict, having_by_alias: dict) -> str:
    """``aliased``: expr -> alias used in the select list (others are named by their text)."""
    parts = []
    for it in q.items:
        text = expr_text(it.expr)
        parts.append(f"{text} AS {it.name}" if it.expr in aliased else text)
    sql = f"SELECT {'DISTINCT ' if q.distinct else ''}{', '.join(parts)} FROM {table}"
    if q.where:
        sql += " WHERE " + " AND ".join(
            f"{expr_text(c.expr)} {c.op} {literal(c.value)}" for c in q.where
        )
    if q.group_by:
        sql += " GROUP BY " + ", ".join(path_text(p) for p in q.group_by)
    if q.having:
        conds = []
        for c in q.having:
            ref = aliased[c.expr] if having_by_alias.get(c) else expr_text(c.expr)
            conds.append(f"{ref} {c.op} {literal(c.value)}")
        sql += " HAVING " + " AND ".join(conds)
    if q.order_by:
        sql += " ORDER BY " + ", ".join(
            (aliased.get(e) or expr_text(e)) + (" DESC" if desc else "") for e, desc in q.order_by
        )
    if q.limit is not None:
        sql += f" LIMIT {q.limit}"
    return sql


GROUPINGS = [(), (("pk",),), (("g",),), (("m", "k"),), (("pk",), ("g",))]
AGG_PATHS = [("n",), ("m", "k"), ("g",), ("s",), ("b",), ("sk",)]
# list elements (l[0]) only where the backend accepts them: see test_list_element_paths
LIST_GROUPINGS = [(("l", 0),), (("l", 0), ("g",))]
LIST_AGG_PATHS = [("l", 0)]
WHERES = [
    [],
    [O.Cond(O.Col(("pk",)), "=", "hot")],  # a Query
    [O.Cond(O.Col(("pk",)), "=", "warm"), O.Cond(O.Col(("sk",)), "<", Decimal(250))],
    [O.Cond(O.Col(("sk",)), ">=", Decimal(100))],  # a Scan with a filter
    [O.Cond(O.Col(("gk",)), "=", "g1")],  # a Query on the GSI
]
HAVING_VALUES = [Decimal(0), Decimal(2), Decimal(5), Decimal("100.5"), BIG, "b", "x", "apple"]


def aggregates(paths: list[tuple]) -> st.SearchStrategy[O.Agg]:
    return st.one_of(
        st.just(O.Agg("COUNT")),
        st.builds(
            O.Agg,
            st.sampled_from(["COUNT", "SUM", "AVG", "MIN", "MAX"]),
            st.sampled_from(paths),
        ),
        st.builds(O.Agg, st.just("COUNT"), st.sampled_from(paths), st.just(True)),
    )


def list_paths_ok(backend) -> bool:
    return backend.name != "moto"


@st.composite
def queries(draw, list_paths: bool = True):
    groupings = GROUPINGS + LIST_GROUPINGS if list_paths else GROUPINGS
    agg_paths = AGG_PATHS + LIST_AGG_PATHS if list_paths else AGG_PATHS
    group_by = list(draw(st.sampled_from(groupings)))
    cols = [O.Col(p) for p in group_by if draw(st.booleans())]
    aggs = draw(st.lists(aggregates(agg_paths), min_size=0 if cols else 1, max_size=4, unique=True))
    exprs = cols + aggs
    draw(st.randoms()).shuffle(exprs)
    aliased = {}
    items = []
    for i, e in enumerate(exprs):
        if draw(st.booleans()):
            aliased[e] = f"c{i}"
            items.append(O.Item(e, f"c{i}"))
        else:
            items.append(O.Item(e, expr_text(e)))
    having, having_by_alias = [], {}
    for e in draw(st.lists(st.sampled_from(exprs), max_size=2, unique=True)):
        c = O.Cond(
            e,
            draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="])),
            draw(st.sampled_from(HAVING_VALUES)),
        )
        having.append(c)
        having_by_alias[c] = e in aliased and draw(st.booleans())
    order = draw(st.lists(st.sampled_from(exprs), max_size=3, unique=True))
    q = O.Query(
        items=items,
        group_by=group_by,
        where=draw(st.sampled_from(WHERES)),
        having=having,
        order_by=[(e, draw(st.booleans())) for e in order],
        limit=draw(st.one_of(st.none(), st.integers(0, 6))),
        distinct=draw(st.booleans()),
    )
    return q, aliased, having_by_alias


def check_rows(q: O.Query, got: list[dict], items: list[dict], sql: str) -> None:
    expected = O.evaluate(q, items)
    got_c = Counter(O.row_canon(r) for r in got)
    exp_c = Counter(O.row_canon(r) for r in expected)
    if q.limit is None:
        assert got_c == exp_c, sql
    else:
        assert len(got) == min(q.limit, len(expected)), sql
        assert not got_c - exp_c, sql  # every row returned is a right row
    if q.distinct:
        assert len(got_c) == len(got), sql
    if q.order_by:
        keys = [O.row_order(q, r) for r in got]
        want = [O.row_order(q, r) for r in expected]
        assert keys == want[: len(keys)], sql


@pytest.mark.slow
@SETTINGS
@given(data=st.data())
def test_differential(backend, session, agg_table, data):
    table, items = agg_table
    q, aliased, having_by_alias = data.draw(queries(list_paths_ok(backend)), label="query")
    sql = to_sql(q, table, aliased, having_by_alias)
    got = session.execute(sql).all()
    check_rows(q, got, items, sql)


# --- generated data: a fresh small table per example --------------------------------------------

scalars = st.sampled_from(["x", "y", "1", Decimal(1), Decimal("1.50"), True, None, b"\x01"])
numbers = st.one_of(
    st.decimals(min_value=-(10**6), max_value=10**6, places=2, allow_nan=False),
    st.just(BIG),
    st.just(BIG.copy_negate()),
)


@st.composite
def item_lists(draw):
    items = []
    for i in range(draw(st.integers(0, 25))):
        item = {"pk": draw(st.sampled_from(["hot", "hot", "hot", "a", "b"])), "sk": Decimal(i)}
        _put(item, "g", draw(st.one_of(st.just(MISSING), scalars)))
        _put(item, "n", draw(st.one_of(st.just(MISSING), numbers, scalars)))
        if draw(st.booleans()):
            item["m"] = {"k": draw(st.one_of(numbers, scalars))}
        items.append(item)
    return items


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(items=item_lists(), data=st.data())
def test_differential_generated_data(backend, session, items, data):
    q, aliased, having_by_alias = data.draw(queries(list_paths_ok(backend)), label="query")
    table = unique_name("gen")
    backend.create_table(TableName=table, **TABLE_KWARGS)
    try:
        backend.put_items(table, items)
        sql = to_sql(q, table, aliased, having_by_alias)
        check_rows(q, session.execute(sql).all(), items, sql)
    finally:
        backend.delete_table(table)


def test_list_element_paths(request, backend, session, agg_table):
    """GROUP BY / aggregate over a list element. moto 5 rejects ProjectionExpression "#l[0]"
    ("Value provided in ExpressionAttributeNames unused": its check ignores names followed by
    an index); dynosql projects the whole list (DynamoDB returns a projected `l[2]` as a
    one-element list anyway), so it works on both."""
    table, items = agg_table
    q = O.Query(
        items=[O.Item(O.Col(("l", 0)), "l[0]"), O.Item(O.Agg("COUNT"), "n")],
        group_by=[("l", 0)],
    )
    got = session.execute(f"SELECT l[0], COUNT(*) AS n FROM {table} GROUP BY l[0]").all()
    assert Counter(map(O.row_canon, got)) == Counter(map(O.row_canon, O.evaluate(q, items)))


# --- the rules, case by case --------------------------------------------------------------------


@pytest.fixture(scope="session")
def small_table(backend):
    """A hand-made table for the stated rules: mixed types, NULLs, missing attributes."""
    name = unique_name("aggs")
    backend.create_table(TableName=name, **TABLE_KWARGS)
    items = [
        {"pk": "mixed", "sk": Decimal(1), "v": Decimal(5)},
        {"pk": "mixed", "sk": Decimal(2), "v": "a"},
        {"pk": "mixed", "sk": Decimal(3), "v": b"\x00"},
        {"pk": "mixed", "sk": Decimal(4), "v": True},
        {"pk": "mixed", "sk": Decimal(5), "v": [Decimal(1)]},
        {"pk": "mixed", "sk": Decimal(6), "v": {"a": Decimal(1)}},
        {"pk": "mixed", "sk": Decimal(7), "v": values.StringSet({"s"})},
        {"pk": "mixed", "sk": Decimal(8), "v": None},
        {"pk": "mixed", "sk": Decimal(9)},
        {"pk": "strs", "sk": Decimal(1), "v": "apple"},
        {"pk": "strs", "sk": Decimal(2), "v": "Zebra"},
        {"pk": "strs", "sk": Decimal(3), "v": "Äpfel"},
        {"pk": "strs", "sk": Decimal(4), "v": None},
        {"pk": "nulls", "sk": Decimal(1), "v": None},
        {"pk": "nulls", "sk": Decimal(2)},
        {"pk": "big", "sk": Decimal(1), "v": BIG},
        {"pk": "big", "sk": Decimal(2), "v": O.EXACT.add(BIG, 1)},
        {"pk": "big", "sk": Decimal(3), "v": Decimal("99999999999999999999999999999999999999")},
        {"pk": "avg", "sk": Decimal(1), "v": Decimal(1)},
        {"pk": "avg", "sk": Decimal(2), "v": Decimal(1)},
        {"pk": "avg", "sk": Decimal(3), "v": Decimal(2)},
        {"pk": "avg", "sk": Decimal(4), "v": "2"},
    ]
    backend.put_items(name, items)
    return name, items


def rows_by_pk(session, sql: str) -> dict:
    return {r["pk"]: r for r in session.execute(sql).all()}


def test_mixed_types_min_max_and_counts(session, small_table):
    table, _ = small_table
    rows = rows_by_pk(
        session,
        f"SELECT pk, MIN(v) AS lo, MAX(v) AS hi, COUNT(v) AS c, COUNT(*) AS n, "
        f"COUNT(DISTINCT v) AS d, SUM(v) AS s, AVG(v) AS a FROM {table} GROUP BY pk",
    )
    mixed = rows["mixed"]
    assert mixed["lo"] == Decimal(5)
    assert mixed["hi"] == {"s"} and isinstance(mixed["hi"], values.StringSet)
    assert (mixed["c"], mixed["n"], mixed["d"]) == (7, 9, 7)  # NULL and missing not counted
    assert mixed["s"] == 5 and mixed["a"] == 5  # numbers only
    strs = rows["strs"]
    assert (strs["lo"], strs["hi"]) == ("Zebra", "Äpfel")  # UTF-8 byte order
    assert strs["s"] is None and strs["a"] is None  # no numbers: NULL
    nulls = rows["nulls"]
    assert (nulls["c"], nulls["n"], nulls["d"]) == (0, 2, 0)
    assert nulls["lo"] is None and nulls["hi"] is None and nulls["s"] is None


def test_38_digit_numbers_exact(session, small_table):
    table, _ = small_table
    row = rows_by_pk(session, f"SELECT pk, MIN(v), MAX(v), SUM(v) FROM {table} GROUP BY pk")["big"]
    assert row["MIN(v)"] == BIG
    assert row["MAX(v)"] == Decimal("99999999999999999999999999999999999999")
    nines = Decimal("99999999999999999999999999999999999999")
    assert row["SUM(v)"] == O.EXACT.add(O.EXACT.add(BIG, BIG), O.EXACT.add(nines, 1))
    assert isinstance(row["SUM(v)"], Decimal)


def test_avg_keeps_38_significant_digits(session, small_table):
    table, _ = small_table
    row = rows_by_pk(session, f"SELECT pk, AVG(v) AS a FROM {table} GROUP BY pk")["avg"]
    assert row["a"] == Decimal("1.3333333333333333333333333333333333333")  # "2" is a string
    assert len(row["a"].as_tuple().digits) == 38


@pytest.fixture(scope="session")
def money_table(backend):
    name = unique_name("money")
    backend.create_table(TableName=name, **TABLE_KWARGS)
    amounts = [Decimal("0.10")] * 700 + [Decimal("0.01")] * 33 + [Decimal("0.07")] * 3
    items = [{"pk": f"p{i % 7}", "sk": Decimal(i), "amt": a} for i, a in enumerate(amounts)]
    backend.put_items(name, items)
    return name, items


def test_sum_of_money_never_drifts(session, money_table):
    table, items = money_table
    (row,) = session.execute(f"SELECT SUM(amt) AS s, AVG(amt) AS a FROM {table}").all()
    assert row["s"] == Decimal("70.54")
    assert row["a"] == decimal_avg([i["amt"] for i in items])
    per_key = rows_by_pk(session, f"SELECT pk, SUM(amt) AS s FROM {table} GROUP BY pk")
    for pk, row in per_key.items():
        assert row["s"] == sum(i["amt"] for i in items if i["pk"] == pk)


def decimal_avg(xs: list[Decimal]) -> Decimal:
    total = Decimal(0)
    for x in xs:
        total = O.EXACT.add(total, x)
    return O.AVG38.divide(total, Decimal(len(xs)))


def test_sum_exact_across_magnitudes():
    """Offline (moto answers 500 to a Scan over 1E+100): the aggregate step itself."""
    from dynosql.evaluate.aggregate import group

    (statement,) = parse_script("SELECT SUM(v) AS s FROM t")
    items = [{"v": Decimal("1E+100")}, {"v": Decimal(1)}]
    (only,) = group(statement, items)
    assert only.aggregates["SUM(v)"] == O.EXACT.add(Decimal("1E+100"), 1)


def test_missing_group_value_is_its_own_group(session, agg_table):
    table, items = agg_table
    rows = session.execute(f"SELECT g, COUNT(*) AS n FROM {table} GROUP BY g").all()
    missing = [r for r in rows if "g" not in r]
    assert len(missing) == 1
    assert missing[0]["n"] == sum(1 for i in items if "g" not in i)
    nulls = [r for r in rows if "g" in r and r["g"] is None]  # NULL is a value, not missing
    assert len(nulls) == 1 and nulls[0]["n"] == sum(1 for i in items if i.get("g", 0) is None)
    # the string "1" and the number 1 are different groups
    assert {O.canon(r["g"]) for r in rows if "g" in r} >= {("S", "1"), ("N", Decimal(1))}


def test_empty_input(session, agg_table):
    table, _ = agg_table
    (row,) = session.execute(
        f"SELECT COUNT(*) AS n, SUM(n) AS s, MIN(n) AS lo FROM {table} WHERE pk = 'nobody'"
    ).all()
    assert row == {"n": 0, "s": None, "lo": None}
    assert (
        session.execute(f"SELECT pk, COUNT(*) FROM {table} WHERE pk = 'x' GROUP BY pk").all() == []
    )


def test_order_by_aggregate_not_selected(session, agg_table):
    table, items = agg_table
    q = O.Query(
        items=[O.Item(O.Col(("pk",)), "pk")],
        group_by=[("pk",)],
        order_by=[(O.Agg("COUNT"), True), (O.Col(("pk",)), False)],
        limit=4,
    )
    got = session.execute(
        f"SELECT pk FROM {table} GROUP BY pk ORDER BY COUNT(*) DESC, pk LIMIT 4"
    ).all()
    assert got == O.evaluate(q, items)[:4]
    assert got[0] == {"pk": "hot"}  # the skewed key
    q.order_by = [(O.Agg("SUM", ("n",)), False), (O.Col(("pk",)), True)]
    q.limit = None
    got = session.execute(f"SELECT pk FROM {table} GROUP BY pk ORDER BY SUM(n), pk DESC").all()
    assert got == O.evaluate(q, items)


def test_having_on_aggregate_of_selected_column(session, agg_table):
    table, items = agg_table
    q = O.Query(
        items=[O.Item(O.Col(("pk",)), "pk"), O.Item(O.Agg("SUM", ("n",)), "total")],
        group_by=[("pk",)],
        having=[O.Cond(O.Agg("SUM", ("n",)), ">", Decimal(100))],
    )
    for sql in (
        f"SELECT pk, SUM(n) AS total FROM {table} GROUP BY pk HAVING total > 100",
        f"SELECT pk, SUM(n) AS total FROM {table} GROUP BY pk HAVING SUM(n) > 100",
    ):
        got = session.execute(sql).all()
        assert got and Counter(map(O.row_canon, got)) == Counter(
            map(O.row_canon, O.evaluate(q, items))
        )


def test_having_on_aggregate_not_selected(session, agg_table):
    table, items = agg_table
    q = O.Query(
        items=[O.Item(O.Col(("pk",)), "pk")],
        group_by=[("pk",)],
        having=[O.Cond(O.Agg("SUM", ("n",)), ">", Decimal(100))],
    )
    expected = O.evaluate(q, items)
    assert expected
    got = session.execute(f"SELECT pk FROM {table} GROUP BY pk HAVING SUM(n) > 100").all()
    assert Counter(map(O.row_canon, got)) == Counter(map(O.row_canon, expected))


# --- planning: the read is planned like any SELECT ----------------------------------------------


def plan_of(session, sql: str):
    (statement,) = parse_script(sql)
    return session.planned(statement).plan


def projected_names(params: dict) -> set[str]:
    text = params["ProjectionExpression"]
    names = params.get("ExpressionAttributeNames", {})
    return {re.sub(r"#\w+", lambda m: names[m.group()], part.strip()) for part in text.split(",")}


def test_where_on_partition_key_is_a_query(backend, session, agg_table):
    table, items = agg_table
    sql = f"SELECT g, COUNT(*) AS n, SUM(n) AS s FROM {table} WHERE pk = 'hot' GROUP BY g"
    plan = plan_of(session, sql)
    assert plan.operation == "Query" and not plan.is_scan
    result = session.execute(sql)
    got = result.all()
    assert result.stats.operations == [f"Query {table}"]
    assert not any("Scan" in w for w in result.warnings)
    q = O.Query(
        items=[
            O.Item(O.Col(("g",)), "g"),
            O.Item(O.Agg("COUNT"), "n"),
            O.Item(O.Agg("SUM", ("n",)), "s"),
        ],
        group_by=[("g",)],
        where=[O.Cond(O.Col(("pk",)), "=", "hot")],
    )
    assert Counter(map(O.row_canon, got)) == Counter(map(O.row_canon, O.evaluate(q, items)))
    assert projected_names(plan.requests[0].params) == {"g", "n"}


def test_group_by_without_key_is_a_scan_and_warns(session, agg_table):
    table, _ = agg_table
    result = session.execute(f"SELECT pk, COUNT(*) FROM {table} GROUP BY pk")
    result.all()
    assert result.stats.operations == [f"Scan {table}"]
    assert any(w.startswith(f"Scan of {table}") for w in result.warnings)


def test_count_star_alone_uses_select_count(session, agg_table):
    table, items = agg_table
    plan = plan_of(session, f"SELECT COUNT(*) FROM {table} WHERE pk = 'hot'")
    (request,) = plan.requests
    assert request.operation == "Query"
    assert request.params["Select"] == "COUNT"
    assert "ProjectionExpression" not in request.params
    assert plan.count_only
    (row,) = session.execute(f"SELECT COUNT(*) FROM {table} WHERE pk = 'hot'").all()
    assert row == {"COUNT(*)": sum(1 for i in items if i["pk"] == "hot")}


def test_count_star_with_server_filter_uses_select_count(session, agg_table):
    table, items = agg_table
    # an equality: every backend filters it (on moto, ordering comparisons of mixed types
    # are checked client-side, which rules out Select=COUNT there)
    sql = f"SELECT COUNT(*) AS c FROM {table} WHERE pk = 'hot' AND s = 'apple'"
    (request,) = plan_of(session, sql).requests
    assert request.params["Select"] == "COUNT" and "FilterExpression" in request.params
    (row,) = session.execute(sql).all()
    assert row["c"] == sum(
        1 for i in items if i["pk"] == "hot" and O.compare("=", O.resolve(i, ("s",)), "apple")
    )


def test_count_star_through_an_index(session, agg_table):
    table, items = agg_table
    sql = f"SELECT COUNT(*) FROM {table} WHERE gk = 'g1'"
    (request,) = plan_of(session, sql).requests
    assert request.operation == "Query" and request.params["IndexName"] == "byGk"
    assert request.params["Select"] == "COUNT"
    (row,) = session.execute(sql).all()
    assert row["COUNT(*)"] == sum(1 for i in items if i.get("gk") == "g1")


@pytest.mark.parametrize(
    "select",
    [
        "SELECT COUNT(*), SUM(n) FROM {t} WHERE pk = 'hot'",
        "SELECT pk, COUNT(*) FROM {t} WHERE pk = 'hot' GROUP BY pk",
        "SELECT DISTINCT COUNT(*) FROM {t} WHERE pk = 'hot'",
    ],
)
def test_no_select_count_when_more_is_needed(session, agg_table, select):
    table, _ = agg_table
    (request,) = plan_of(session, select.format(t=table)).requests
    assert request.params.get("Select") != "COUNT"


@pytest.mark.parametrize(
    "sql, names",
    [
        ("SELECT g, SUM(n) FROM {t} GROUP BY g", {"g", "n"}),
        ("SELECT m.k, COUNT(*) FROM {t} GROUP BY m.k", {"m.k"}),
        # a list element is read as its whole list (a projected l[2] would come back as l[0])
        ("SELECT l[0], MAX(s) AS x FROM {t} GROUP BY l[0] ORDER BY x", {"l", "s"}),
        ("SELECT pk, COUNT(DISTINCT b) FROM {t} GROUP BY pk ORDER BY MIN(s)", {"pk", "b", "s"}),
        ("SELECT COUNT(*), AVG(m.k) FROM {t}", {"m.k"}),
    ],
)
def test_projects_only_needed_attributes(backend, session, agg_table, sql, names):
    table, _ = agg_table
    (request,) = plan_of(session, sql.format(t=table)).requests
    params = request.params
    assert "Select" not in params
    assert projected_names(params) == names  # moto too (capabilities.py: retried if it fails)


def test_projection_includes_having_paths(backend, session, agg_table):
    table, _ = agg_table
    sql = f"SELECT pk FROM {table} GROUP BY pk HAVING SUM(n) > 1"
    (request,) = plan_of(session, sql).requests
    assert projected_names(request.params) == {"pk", "n"}


# --- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "SELECT pk, g, COUNT(*) FROM t GROUP BY pk",
            "g must appear in GROUP BY or be inside an aggregate",
        ),
        ("SELECT g, COUNT(*) FROM t", "g must appear in GROUP BY or be inside an aggregate"),
        ("SELECT * FROM t GROUP BY pk", "SELECT * cannot be combined with GROUP BY"),
        ("SELECT g FROM t HAVING g = 1", "HAVING needs GROUP BY or an aggregate"),
        ("SELECT pk FROM t WHERE COUNT(*) > 1", "aggregates are not allowed in WHERE"),
        (
            "SELECT pk, COUNT(*) FROM t GROUP BY pk ORDER BY g",
            "order by a grouped column or an aggregate",
        ),
    ],
)
def test_refusals(sql, message):
    with pytest.raises(SqlError) as info:
        parse_script(sql)
    assert message in str(info.value)


def test_refusal_through_session_sends_nothing(session, agg_table):
    table, _ = agg_table
    sent = []
    session.client.meta.events.register("before-call.dynamodb", lambda **kw: sent.append(kw))
    with pytest.raises(SqlError, match="must appear in GROUP BY"):
        session.execute(f"SELECT pk, g, COUNT(*) FROM {table} GROUP BY pk")
    assert sent == []


def test_having_forms(session, agg_table):
    """OR, NOT, BETWEEN and IN over aggregates, group columns and aliases."""
    table, items = agg_table
    counts = Counter(i["pk"] for i in items)
    cases = {
        "COUNT(*) BETWEEN 3 AND 12": lambda pk, n: 3 <= n <= 12,
        "n IN (5, 6, 7) OR pk = 'hot'": lambda pk, n: n in (5, 6, 7) or pk == "hot",
        "NOT (COUNT(*) > 10) AND pk <> 'k00'": lambda pk, n: not n > 10 and pk != "k00",
        "n >= 10 AND n < 1000": lambda pk, n: 10 <= n < 1000,
    }
    for having, keep in cases.items():
        sql = f"SELECT pk, COUNT(*) AS n FROM {table} GROUP BY pk HAVING {having}"
        got = {r["pk"]: r["n"] for r in session.execute(sql).all()}
        assert got == {pk: n for pk, n in counts.items() if keep(pk, n)}, sql


def test_order_by_position_and_top_n(session, agg_table):
    table, items = agg_table
    counts = Counter(i["pk"] for i in items)
    got = session.execute(
        f"SELECT pk, COUNT(*) FROM {table} GROUP BY pk ORDER BY 2 DESC, 1 LIMIT 5"
    ).all()
    want = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    assert [(r["pk"], r["COUNT(*)"]) for r in got] == want


def test_distinct_without_aggregates(session, agg_table):
    table, items = agg_table
    got = session.execute(f"SELECT DISTINCT g, m.k FROM {table} WHERE pk = 'warm'").all()
    want = set()
    for i in items:
        if i["pk"] != "warm":
            continue
        row = {}
        for name, path in (("g", ("g",)), ("m.k", ("m", "k"))):
            v = O.resolve(i, path)
            if v is not O.MISSING:
                row[name] = v
        want.add(O.row_canon(row))
    assert len(got) == len(want)
    assert {O.row_canon(r) for r in got} == want


def test_group_by_whole_map(session, agg_table):
    table, items = agg_table
    q = O.Query(
        items=[O.Item(O.Col(("m",)), "m"), O.Item(O.Agg("COUNT", ("m", "k")), "c")],
        group_by=[("m",)],
    )
    got = session.execute(f"SELECT m, COUNT(m.k) AS c FROM {table} GROUP BY m").all()
    assert Counter(map(O.row_canon, got)) == Counter(map(O.row_canon, O.evaluate(q, items)))


def test_count_star_with_having_on_other_aggregate(session, small_table):
    table, _ = small_table  # pk 'mixed': 9 items, SUM(v) = 5 (the only number)
    sql = f"SELECT COUNT(*) AS c FROM {table} WHERE pk = 'mixed' HAVING SUM(v) = 5"
    assert session.execute(sql).all() == [{"c": 9}]
    sql = f"SELECT COUNT(*) AS c FROM {table} WHERE pk = 'mixed' HAVING SUM(v) > 5"
    assert session.execute(sql).all() == []
