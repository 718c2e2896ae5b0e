"""Scalar expressions (issue 23): the functions' rules, how statements name and group them,
what the planner keeps on the key, and a differential test against an independent
evaluator (tests/expr_oracle.py: exact fractions, no code shared with dynosql)."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import expr_oracle as O
import pytest
from backends import unique_name

from dynosql import values
from dynosql.errors import SqlError
from dynosql.evaluate import scalar
from dynosql.examples import datasets
from dynosql.session import Session
from dynosql.sql import parse
from dynosql.values import MISSING

ROOT = Path(__file__).resolve().parent.parent

D = Decimal
BIG = D("12345678901234567890123456789012345678")  # 38 significant digits


@pytest.mark.parametrize(
    "func, args, expected",
    [
        ("+", [BIG, D(1)], D("12345678901234567890123456789012345679")),
        ("+", [BIG, D("0.5")], D("12345678901234567890123456789012345678.5")),  # exact
        ("*", [D("1.5"), D("-2")], D("-3.0")),
        ("/", [D(1), D(3)], D("0." + "3" * 38)),  # 38 digits
        ("/", [D(2), D(3)], D("0." + "6" * 37 + "7")),
        ("/", [D(1), D(0)], None),  # division by zero: NULL
        ("%", [D(-7), D(3)], D(-1)),  # the sign of the dividend
        ("%", [D(7), D(0)], None),
        ("+", [D(1), "1"], None),  # not a number: NULL
        ("+", [D(1), MISSING], None),
        ("NEG", [BIG], BIG.copy_negate()),  # not -BIG: Python's 28-digit context rounds
        ("ROUND", [D("2.5")], D(3)),  # half away from zero
        ("ROUND", [D("-2.5")], D(-3)),
        ("ROUND", [D("21.2987"), D(2)], D("21.30")),
        ("ROUND", [D("1234.5"), D(-2)], D("1.2E+3")),
        ("ROUND", [D("1.5"), D("0.5")], None),
        ("FLOOR", [D("-1.5")], D(-2)),
        ("CEIL", [D("-1.5")], D(-1)),
        ("ABS", [D("-0.1")], D("0.1")),
        ("||", ["a", D("1.50")], "a1.5"),  # numbers in DynamoDB's canonical text
        ("||", ["a", True], "atrue"),
        ("||", ["a", MISSING], None),
        ("CONCAT", ["a", MISSING, None, "b"], "ab"),  # CONCAT skips NULLs
        ("SUBSTR", ["EVT#2026", D(1), D(4)], "EVT#"),
        ("SUBSTR", ["abc", D(0), D(2)], "a"),  # SQL: position 0 counts but yields nothing
        ("SUBSTR", ["a😀b", D(2), D(1)], "😀"),  # code points, not UTF-16 units or bytes
        ("SUBSTR", ["abc", D(2)], "bc"),
        ("SUBSTR", ["abc", D(1), D(-1)], None),
        ("SUBSTR", [D(123), D(1), D(1)], None),
        ("LENGTH", ["a😀"], D(2)),
        ("UPPER", ["äpfel"], "ÄPFEL"),
        ("TRIM", ["  x  ", " ", "BOTH"], "x"),
        ("TRIM", ["xxaxx", "x", "LEADING"], "axx"),
        ("REPLACE", ["a#b#c", "#", "/"], "a/b/c"),
        ("SPLIT_PART", ["tenant-7#3", "#", D(1)], "tenant-7"),
        ("SPLIT_PART", ["a#b", "#", D(-1)], "b"),
        ("SPLIT_PART", ["a#b", "#", D(5)], ""),
        ("SPLIT_PART", ["a#b", "#", D(0)], None),
        ("STARTS_WITH", ["EVT#1", "EVT#"], True),
        ("COALESCE", [MISSING, None, D(0)], D(0)),
        ("COALESCE", [MISSING, None], None),
        ("NULLIF", [D(1), D("1.0")], None),
        ("NULLIF", ["a", "b"], "a"),
        ("CAST_NUMBER", [" 42.50 "], D("42.50")),
        ("CAST_NUMBER", ["1" * 39], None),  # more than 38 digits: not a DynamoDB number
        ("CAST_NUMBER", ["NaN"], None),
        ("CAST_STRING", [D("1E+3")], "1000"),
        ("CAST_STRING", ["äb😀cd", D(3)], "äb😀"),  # VARCHAR(3): three code points
        ("CAST_STRING", [D("1.50"), D(2)], "1."),
        ("CAST_INTEGER", ["2.5"], D(3)),  # half away from zero, as PostgreSQL
        ("CAST_INTEGER", [D("-2.5")], D(-3)),
        ("CAST_INTEGER", [BIG + D("0.5")], BIG + 1),  # 38 digits: no 64-bit bound
        ("CAST_INTEGER", [True], None),  # a number is a number or a string holding one
        ("CAST_DECIMAL", [D("15.75635"), D(10), D(4)], D("15.7564")),
        ("CAST_DECIMAL", [D("-0.00005"), D(5), D(4)], D("-0.0001")),
        ("CAST_DECIMAL", ["1E+2", D(3), D(0)], D("100")),
        ("CAST_DECIMAL", [D("123.4"), D(4), D(2)], None),  # 3 digits before the point, 2 fit
        ("CAST_DECIMAL", [D("3" + "0" * 37), D(38), D(0)], D("3" + "0" * 37)),
        ("CAST_BOOLEAN", [" Yes "], True),
        ("CAST_BOOLEAN", ["0"], False),
        ("CAST_BOOLEAN", [D("0.0")], False),
        ("CAST_BOOLEAN", ["maybe"], None),
        ("CAST_BINARY", ["é"], b"\xc3\xa9"),  # its UTF-8 bytes
        ("CAST_BINARY", [D(1)], None),
        ("VALUE", [D("1.50")], D("1.50")),
        ("DATE_TRUNC", ["day", "2026-05-04T13:45:12.345Z"], "2026-05-04"),
        ("DATE_TRUNC", ["hour", "2026-05-04T13:45:12Z"], "2026-05-04T13"),
        ("DATE_TRUNC", ["month", "2026-05-04"], "2026-05"),
        ("DATE_TRUNC", ["day", "2026-05"], None),  # no day to keep
        ("DATE_TRUNC", ["day", "2026-13-04"], None),  # no such month
        ("DATE_TRUNC", ["day", D("1777896312.5")], D(1777852800)),
        ("DATE_TRUNC", ["hour", D(-1)], D(-3600)),  # floored, before 1970 too
        ("DATE_TRUNC", ["month", D(1777896312)], D(1777593600)),
        ("FROM_UNIXTIME", [D(1777852800)], "2026-05-04T00:00:00Z"),
        ("FROM_UNIXTIME", [D("1777852800.5")], "2026-05-04T00:00:00.500Z"),
        ("TO_UNIXTIME", ["2026-05-04T00:00:00.25Z"], D("1777852800.25")),
        ("TO_UNIXTIME", ["2026-05-04T02:00:00+02:00"], D(1777852800)),
        ("TO_UNIXTIME", ["2026-05-04"], D(1777852800)),
        ("TO_UNIXTIME", ["yesterday"], None),
    ],
)
def test_function_rules(func: str, args: list[Any], expected: Any) -> None:
    got = scalar.apply(func, args)
    assert got == expected and type(got) is type(expected), (got, expected)
    if isinstance(expected, Decimal):
        assert str(got) == str(expected)  # the digits too, not only the value


def test_an_expression_is_named_as_typed_and_grouped_by_what_it_computes() -> None:
    s = parse(
        "SELECT substr(readingTs, 1, 10), COUNT(*) FROM sensors "
        "GROUP BY SUBSTRING(readingTs, 1, 10) ORDER BY 1"
    )
    assert s.items is not None and s.items[0].name == "substr(readingTs, 1, 10)"
    assert s.group_by == (s.items[0].expr,)
    by_alias = parse("SELECT SUBSTR(ts, 1, 10) AS day, COUNT(*) FROM t GROUP BY day")
    by_position = parse("SELECT SUBSTR(ts, 1, 10) AS day, COUNT(*) FROM t GROUP BY 1")
    assert by_alias.group_by == by_position.group_by == (by_alias.items[0].expr,)  # type: ignore[index]
    with pytest.raises(SqlError, match="ts must appear in GROUP BY"):
        parse("SELECT SUBSTR(ts, 1, 7), COUNT(*) FROM t GROUP BY SUBSTR(ts, 1, 10)")


def test_a_misspelt_function_is_named_as_typed() -> None:
    with pytest.raises(SqlError) as info:
        parse("SELECT SUBSTR(a) FROM t")
    assert info.value.message.startswith("SUBSTR() takes 2 or 3 arguments")  # not SUBSTRING


# --- on a backend ------------------------------------------------------------------------------

ITEMS = [
    {"pk": "tenant-1#1", "sk": "EVT#2026-05-04T10:00:00Z", "t": D("20.125"), "n": D(3)},
    {"pk": "tenant-1#2", "sk": "EVT#2026-05-04T23:59:59Z", "t": D("21.5"), "n": D(1)},
    {"pk": "tenant-1#1", "sk": "EVT#2026-05-05T00:00:00Z", "t": D("-1"), "n": "3"},
    {"pk": "tenant-2#1", "sk": "USR#ana", "name": "Ana"},
    {"pk": "tenant-1#1", "sk": "EVT#", "t": None},
]


@pytest.fixture(scope="module")
def table(moto_backend: Any) -> str:
    name = unique_name("expr")
    moto_backend.create_table(
        TableName=name,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    moto_backend.put_items(name, ITEMS)
    return name


def rows(backend: Any, sql: str) -> list[dict[str, Any]]:
    return list(Session(backend.client()).execute(sql))


def test_per_day_counts_and_rounded_averages(moto_backend: Any, table: str) -> None:
    got = rows(
        moto_backend,
        f"SELECT SUBSTR(sk, 5, 10) AS day, COUNT(*) AS n, ROUND(AVG(t), 1) AS mean FROM {table} "
        "WHERE begins_with(sk, 'EVT#2') GROUP BY day ORDER BY day",
    )
    assert got == [
        {"day": "2026-05-04", "n": D(2), "mean": D("20.8")},  # (20.125 + 21.5) / 2 = 20.8125
        {"day": "2026-05-05", "n": D(1), "mean": D("-1.0")},
    ]


def test_missing_attributes_give_null_and_where_checks_expressions(
    moto_backend: Any, table: str
) -> None:
    got = rows(
        moto_backend,
        f"SELECT sk, n * 2 AS twice, COALESCE(name, 'nobody') AS who FROM {table} "
        "WHERE pk = 'tenant-1#1' ORDER BY sk",
    )
    # n is the string '3' on one item and absent on another: NULL, never an error
    assert [r["twice"] for r in got] == [None, D(6), None]
    assert {r["who"] for r in got} == {"nobody"}
    kept = rows(moto_backend, f"SELECT sk FROM {table} WHERE n * 2 >= 6")
    assert kept == [{"sk": "EVT#2026-05-04T10:00:00Z"}]
    # NULL from an expression is DynamoDB's NULL: = NULL holds, <> a value holds
    nulls = rows(moto_backend, f"SELECT sk FROM {table} WHERE pk = 'tenant-2#1' AND n * 2 = NULL")
    assert nulls == [{"sk": "USR#ana"}]


def test_the_key_rewrite_reads_the_same_rows_with_a_key_condition(
    moto_backend: Any, table: str
) -> None:
    session = Session(moto_backend.client())
    sql = f"SELECT sk FROM {table} WHERE pk = 'tenant-1#1' AND SUBSTR(sk, 1, 5) = 'EVT#2'"
    plan = session.execute("EXPLAIN " + sql).document
    assert "begins_with(#sk, :v1)" in plan["requests"][0]["params"]["KeyConditionExpression"]
    assert list(session.execute(sql)) == list(
        session.execute(f"SELECT sk FROM {table} WHERE pk = 'tenant-1#1' AND sk LIKE 'EVT#2%'")
    )
    day = list(
        session.execute(
            f"SELECT sk FROM {table} WHERE pk = 'tenant-1#1' "
            "AND DATE_TRUNC('day', SUBSTR(sk, 5)) = '2026-05-04'"
        )
    )
    assert day == [{"sk": "EVT#2026-05-04T10:00:00Z"}]


def test_is_null_on_an_expression_is_the_expressions_null(moto_backend: Any, table: str) -> None:
    """`expr IS NULL` holds where the expression gives NULL (an attribute missing, NULL or of
    another type, grammar/README.md); `p IS NULL` on a path keeps DynamoDB's meaning (stored
    NULL only)."""

    session = Session(moto_backend.client())  # one session: one DescribeTable

    def sks(where: str) -> list[str]:
        return sorted(r["sk"] for r in session.execute(f"SELECT sk FROM {table} WHERE {where}"))

    # n: 3, 1, the string '3', missing twice
    assert sks("n * 2 IS NULL") == ["EVT#", "EVT#2026-05-05T00:00:00Z", "USR#ana"]
    assert sks("n * 2 IS NOT NULL") == ["EVT#2026-05-04T10:00:00Z", "EVT#2026-05-04T23:59:59Z"]
    # t: stored NULL on EVT#, missing on USR#ana
    assert sks("t IS NULL") == ["EVT#"]
    assert sks("t + 0 IS NULL") == ["EVT#", "USR#ana"]
    assert sks("pk = 'tenant-1#1' AND SUBSTR(name, 1, 2) IS NULL") == [
        "EVT#", "EVT#2026-05-04T10:00:00Z", "EVT#2026-05-05T00:00:00Z"
    ]  # fmt: skip
    assert sks("CASE WHEN t > 20 THEN 'warm' END IS NULL AND pk = 'tenant-1#1'") == [
        "EVT#", "EVT#2026-05-05T00:00:00Z"
    ]  # fmt: skip
    having = session.execute(
        f"SELECT SPLIT_PART(pk, '#', 1) AS k, COUNT(*) AS n FROM {table} GROUP BY k "
        "HAVING SUM(t) IS NULL AND ROUND(AVG(n), 1) IS NULL"
    ).all()
    assert having == [{"k": "tenant-2", "n": D(1)}]  # tenant-2 has no number t nor n
    plan = session.execute(
        f"EXPLAIN SELECT sk FROM {table} WHERE pk = 'tenant-1#1' AND LOWER(name) IS NOT NULL"
    )
    assert any(line["plan"].endswith(": NOT (LOWER(name) IS NULL)") for line in plan)
    with pytest.raises(SqlError, match="expected an attribute path, found SIZE"):
        parse(f"SELECT sk FROM {table} WHERE size(t) IS NULL")


def test_is_distinct_from_takes_missing_and_null_as_no_value(backend: Any) -> None:
    """Written with DynamoDB's conditions (sql/distinct.py), evaluated by each server: a
    missing attribute and a stored NULL are both "no value", not distinct from each other."""
    name = unique_name("dist")
    backend.create_keyed_table(name, pk=("k", "S"), sk=None)
    backend.put_items(
        name,
        [
            {"k": "same", "a": D(1), "b": D("1.0"), "flag": True},
            {"k": "differ", "a": D(1), "b": D(2), "flag": False},
            {"k": "types", "a": D(1), "b": "1"},
            {"k": "null-and-1", "a": None, "b": D(1)},
            {"k": "null-and-missing", "a": None},
            {"k": "missing", "flag": "yes"},
        ],
    )
    session = Session(backend.client())

    def keys(where: str) -> list[str]:
        return sorted(r["k"] for r in session.execute(f"SELECT k FROM {name} WHERE {where}"))

    assert keys("a IS NOT DISTINCT FROM b") == ["missing", "null-and-missing", "same"]
    assert keys("a IS DISTINCT FROM b") == ["differ", "null-and-1", "types"]
    assert keys("a IS NOT DISTINCT FROM NULL") == ["missing", "null-and-1", "null-and-missing"]
    assert keys("b IS DISTINCT FROM 1") == ["differ", "missing", "null-and-missing", "types"]
    assert keys("k IS NOT DISTINCT FROM 'same'") == ["same"]  # a GetItem
    assert keys("a + 0 IS NOT DISTINCT FROM b + 0") == ["missing", "null-and-missing", "same"]
    # a boolean attribute alone: = TRUE; NOT of it holds for false, missing and other types
    assert keys("flag") == ["same"]
    assert keys("NOT flag") == ["differ", "missing", "null-and-1", "null-and-missing", "types"]


def test_a_select_without_from_sends_nothing(moto_backend: Any) -> None:
    """Its effects are none: --read-only and --fail-on-scan admit it, and no request is sent."""
    session = Session(moto_backend.client(), params={"p": "x"})
    session.execute("SET read_only = on")
    session.execute("SET fail_on_scan = on")
    result = session.execute(
        "SELECT 1 / 3 AS third, CAST('2.345' AS DECIMAL(4, 2)) AS d, UPPER(:p), "
        "CASE WHEN :p IS NULL THEN 'none' ELSE :p END AS c, NULL AS n WHERE 2 > 1"
    )
    assert result.columns == ["third", "d", "UPPER(:p)", "c", "n"]
    assert result.all() == [
        {"third": D("0." + "3" * 38), "d": D("2.35"), "UPPER(:p)": "X", "c": "x", "n": None}
    ]
    assert result.stats.requests == 0 and result.inexact == ("third",)
    assert session.execute("SELECT 1 AS one WHERE 'a' IS DISTINCT FROM 'a'").all() == []
    assert session.execute("SELECT 1 AS one LIMIT 0").all() == []
    explained = session.execute("EXPLAIN SELECT 1 WHERE :p = 'x'")
    assert [r["plan"] for r in explained][:1] == ["no request (no table: values only)"]
    assert explained.document["requests"] == [] and explained.footer().startswith("plan only")


def test_write_sharded_keys_are_summed_back(moto_backend: Any, table: str) -> None:
    got = rows(
        moto_backend,
        f"SELECT SPLIT_PART(pk, '#', 1) AS tenant, COUNT(*) AS items, COUNT(DISTINCT pk) AS shards "
        f"FROM {table} GROUP BY tenant ORDER BY items DESC",
    )
    assert got == [
        {"tenant": "tenant-1", "items": D(4), "shards": D(2)},
        {"tenant": "tenant-2", "items": D(1), "shards": D(1)},
    ]


def test_case_and_having_over_expressions(moto_backend: Any, table: str) -> None:
    got = rows(
        moto_backend,
        f"SELECT CASE WHEN t >= 20 THEN 'warm' WHEN t < 20 THEN 'cold' ELSE 'none' END AS band, "
        f"COUNT(*) AS n FROM {table} GROUP BY band HAVING COUNT(*) * 10 >= 20 ORDER BY band",
    )
    assert got == [{"band": "none", "n": D(2)}, {"band": "warm", "n": D(2)}]


def test_the_athena_engine_refuses_expressions(moto_backend: Any, table: str) -> None:
    """Athena computes none (its functions differ at the edges); the export engine computes
    them (tests/test_export_engine.py)."""
    session = Session(moto_backend.client())
    session.execute("SET engine = athena")
    for sql in (
        f"SELECT UPPER(sk) FROM {table}",
        f"SELECT COUNT(*) FROM {table} GROUP BY SUBSTR(sk, 1, 3)",
        f"EXPLAIN SELECT pk FROM {table} WHERE n * 2 > 1",
    ):
        with pytest.raises(Exception, match="the athena engine does not support expressions"):
            list(session.execute(sql))


# --- differential: dynosql against the independent evaluator ----------------------------------

STRINGS = ["", "a", "Zebra", "äpfel", "😀x", "EVT#2026-05-04", "tenant-7#3"]


def _random_value(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.15:
        return MISSING
    if r < 0.2:
        return None
    if r < 0.5:
        return D(rng.randint(-(10**6), 10**6)).scaleb(-rng.randint(0, 3))
    if r < 0.6:
        return BIG * rng.choice([1, -1]) + rng.randint(0, 9)  # 38 digits
    if r < 0.65:
        return rng.choice([True, False])
    if r < 0.7:
        return D(rng.randint(0, 9)).scaleb(rng.randint(-130, 120))  # the range's ends
    return rng.choice(STRINGS)


def make_items(rng: random.Random, count: int = 40) -> list[dict[str, Any]]:
    items = []
    for i in range(count):
        item: dict[str, Any] = {"pk": f"p{i}"}
        for name in ("a", "b", "s"):
            v = _random_value(rng)
            if v is not MISSING:
                item[name] = v
        items.append(item)
    return items


def _literal_sql(v: Any) -> str:
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(v)


def random_expression(
    rng: random.Random, depth: int = 0, top: bool = False
) -> tuple[str, tuple[Any, ...]]:
    """(SQL text, oracle tree); at the top, an expression (a select-list column or a WHERE
    operand), never a bare path or literal."""
    if top:
        sql, tree = random_expression(rng, depth)
        return (sql, tree) if tree[0] not in ("path", "lit") else (f"COALESCE({sql})", tree)
    if depth >= 3 or rng.random() < 0.3:
        r = rng.random()
        if r < 0.6:
            name = rng.choice(["a", "b", "s"])
            return name, ("path", name)
        if r < 0.85:
            v = D(rng.randint(-50, 50)).scaleb(-rng.randint(0, 2))
            return _literal_sql(v), ("lit", v)
        v = rng.choice(STRINGS)
        return _literal_sql(v), ("lit", v)
    op = rng.choice(["+", "-", "*", "/", "%", "||", "NEG", "ABS", "ROUND", "ROUND2", "UPPER",
                     "LENGTH", "SUBSTR", "SUBSTR3", "COALESCE", "CAST_STRING"])  # fmt: skip
    x_sql, x = random_expression(rng, depth + 1)
    if op in ("+", "-", "*", "/", "%", "||"):
        y_sql, y = random_expression(rng, depth + 1)
        return f"({x_sql} {op} {y_sql})", (op, x, y)
    if op == "NEG":
        return f"-({x_sql})", ("NEG", x)
    if op == "ROUND2":
        n = rng.randint(-2, 3)
        return f"ROUND({x_sql}, {n})", ("ROUND", x, ("lit", D(n)))
    if op == "SUBSTR":
        k = rng.randint(-1, 4)
        return f"SUBSTR({x_sql}, {k})", ("SUBSTR", x, ("lit", D(k)))
    if op == "SUBSTR3":
        k, n = rng.randint(0, 3), rng.randint(0, 3)
        return f"SUBSTRING({x_sql}, {k}, {n})", ("SUBSTR", x, ("lit", D(k)), ("lit", D(n)))
    if op == "COALESCE":
        y_sql, y = random_expression(rng, depth + 1)
        return f"COALESCE({x_sql}, {y_sql})", ("COALESCE", x, y)
    if op == "CAST_STRING":
        return f"CAST({x_sql} AS STRING)", ("CAST_STRING", x)
    return f"{op}({x_sql})", (op, x)


def _expected(tree: tuple[Any, ...], item: dict[str, Any]) -> Any:
    v = O.evaluate(tree, item)
    return v


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, Fraction):
        return isinstance(got, Decimal) and Fraction(got) == want
    return got == want and type(got) is type(want)


def differential(backend: Any, seed: int, statements: int, per_statement: int) -> int:
    rng = random.Random(seed)
    name = unique_name("exprdiff")
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    items = make_items(rng)
    backend.put_items(name, items)
    by_pk = {i["pk"]: i for i in items}
    session = Session(backend.client())
    checked = 0
    for _ in range(statements):
        exprs = [random_expression(rng, top=True) for _ in range(per_statement)]
        columns = ", ".join(f"{sql} AS c{i}" for i, (sql, _tree) in enumerate(exprs))
        for row in session.execute(f"SELECT pk, {columns} FROM {name}"):
            item = by_pk[row["pk"]]
            for i, (sql, tree) in enumerate(exprs):
                got, want = row.get(f"c{i}", MISSING), _expected(tree, item)
                assert _same(got, want), (sql, item, got, want)
                checked += 1
        # the same expressions as WHERE conditions: the client-side residual path
        sql, tree = exprs[0]
        kept = {r["pk"] for r in session.execute(f"SELECT pk FROM {name} WHERE {sql} <> 0")}
        for pk, item in by_pk.items():
            want = _expected(tree, item)
            # <> 0 holds for NULL and for non-numbers (different types are never equal)
            assert (pk in kept) == (not (isinstance(want, Fraction) and want == 0)), (sql, item)
    return checked


def test_differential_on_moto(moto_backend: Any) -> None:
    # kept small for the fast loop (3,000 values); the dynalite run below draws 10,000
    assert differential(moto_backend, seed=23, statements=3, per_statement=25) == 3 * 25 * 40


@pytest.mark.slow
def test_differential_on_dynalite(dynalite_backend: Any) -> None:
    assert differential(dynalite_backend, seed=24, statements=10, per_statement=25) > 0


# --- SET numeric_digits ---------------------------------------------------------------------------


def test_people_see_averages_to_numeric_digits_and_machines_exactly(
    moto_backend: Any, table: str
) -> None:
    import io

    from dynosql.render import render

    session = Session(moto_backend.client())
    sql = f"SELECT AVG(n) AS mean, SUM(n) / 3 AS third, MAX(n) AS top FROM {table}"

    def shown(fmt: str) -> str:
        out = io.StringIO()
        render(session.execute(sql), fmt, out)
        return out.getvalue()

    # AVG of 3 and 1 is 2; SUM(n) / 3 = 4 / 3: 38 digits, shortened to 12 by default
    assert "1.33333333333 " in shown("table") and "1.33333333333\n" in shown("vertical")
    assert f'"third": {"1." + "3" * 37}' in shown("jsonl")  # exact in machine formats
    assert "1." + "3" * 37 in shown("csv")
    session.execute("SET numeric_digits = 3")
    assert "| 1.33    |" in shown("table") or "1.33 " in shown("table")
    session.execute("SET numeric_digits = off")
    assert "1." + "3" * 37 in shown("table")
    with pytest.raises(Exception, match="a whole number from 1 to 38, or off"):
        session.execute("SET numeric_digits = 39")


# --- SHOW HOT KEYS … BY --------------------------------------------------------------------------


def test_hot_keys_by_an_expression_sums_the_shards(moto_backend: Any, table: str) -> None:
    session = Session(moto_backend.client())
    result = session.execute(f"SHOW HOT KEYS FROM {table} BY SPLIT_PART(pk, '#', 1)")
    got = [(r["key"], r["shards"], r["items"], r["share"]) for r in result]
    assert got == [("tenant-1", D(2), D(4), D("0.8")), ("tenant-2", D(1), D(1), D("0.2"))]
    shard_note = [n for n in result.notes if n.startswith("tenant-1: 2 shards")]
    # tenant-1#1 holds 3 of tenant-1's 4 items: an uneven split
    assert shard_note and "its largest shard holds 75% of its items (even: 50%)" in shard_note[0]
    assert result.columns == ["key", "shards", "items", "share", "bar"]
    plain = {r["key"]: r["items"] for r in session.execute(f"SHOW HOT KEYS FROM {table}")}
    assert plain == {"tenant-1#1": D(3), "tenant-1#2": D(1), "tenant-2#1": D(1)}
    # WITH SIZES: each logical key's bytes (its shards' items summed) and the RCU of a Query
    # per shard, in the full report and in the sampled one (100 PERCENT: every segment)
    stored = moto_backend.client().scan(TableName=table)["Items"]
    sizes = Counter()
    for item in stored:
        sizes[values.decode(item["pk"]).split("#")[0]] += values.item_size(values.decode_item(item))
    sized = session.execute(f"SHOW HOT KEYS FROM {table} BY SPLIT_PART(pk, '#', 1) WITH SIZES")
    assert sized.columns == ["key", "shards", "items", "bytes", "share", "rcu", "bar"]
    assert {r["key"]: r["bytes"] for r in sized} == {k: D(n) for k, n in sizes.items()}
    sampled = f"SHOW HOT KEYS FROM {table} BY SPLIT_PART(pk, '#', 1) {{}}SAMPLE 100 PERCENT"
    assert "bytes" not in session.execute(sampled.format("")).columns
    rows = session.execute(sampled.format("WITH SIZES ")).all()
    assert {r["key"]: r["bytes"] for r in rows} == {k: D(n) for k, n in sizes.items()}
    with pytest.raises(Exception, match="BY takes an expression of the partition key pk, not sk"):
        list(session.execute(f"SHOW HOT KEYS FROM {table} BY SUBSTR(sk, 1, 3)"))
    with pytest.raises(Exception, match="BY takes an expression of the partition key pk, not sk"):
        list(session.execute(f"SHOW HOT KEYS FROM {table} BY SUBSTR(sk, 1, 3) SAMPLE 50 PERCENT"))


def test_aggregates_over_expressions(moto_backend: Any, table: str) -> None:
    session = Session(moto_backend.client())
    got = list(
        session.execute(
            f"SELECT SUM(t * 2) AS s, COUNT(n * 1) AS numbers, COUNT(*) AS n, "
            f"COUNT(DISTINCT SPLIT_PART(pk, '#', 1)) AS tenants, MAX(LENGTH(sk)) AS longest "
            f"FROM {table}"
        )
    )
    # t: 20.125, 21.5, -1 (and a NULL); n: 3, 1 and the string '3' (not a number)
    assert got == [
        {"s": D("81.250"), "numbers": D(2), "n": D(5), "tenants": D(2), "longest": D(24)}
    ]
    plan = session.execute(f"EXPLAIN SELECT COUNT(n * 1) FROM {table} WHERE pk = 'x'").document
    assert "Select" not in plan["requests"][0]["params"]  # Select=COUNT would count every item
    with pytest.raises(SqlError, match="SUM\\(\\) cannot hold another aggregate"):
        parse(f"SELECT SUM(COUNT(*) + 1) FROM {table}")


def test_like_on_an_expression_is_checked_client_side(moto_backend: Any, table: str) -> None:
    session = Session(moto_backend.client())
    got = list(session.execute(f"SELECT sk FROM {table} WHERE LOWER(name) LIKE 'a_a%'"))
    assert got == [{"sk": "USR#ana"}]  # 'Ana' lowered; items without name are no match
    none = list(session.execute(f"SELECT sk FROM {table} WHERE LOWER(name) NOT LIKE 'a%'"))
    assert len(none) == len(ITEMS) - 1  # NOT is plain negation: NULL rows are kept
    plan = session.execute(f"EXPLAIN SELECT sk FROM {table} WHERE LOWER(name) LIKE 'a%'")
    assert any(line["plan"].endswith(": LOWER(name) LIKE 'a%'") for line in plan)


# --- docs/expressions.md's examples, on --local's tables ---------------------------------------------


def _doc_expression_examples() -> list[str]:
    """The statements of docs/expressions.md's first three examples (the per-day count, the
    sharded key summed per tenant, SHOW HOT KEYS … BY); tests/test_docs.py checks the outputs
    the page shows, these check them against counts made from the generator."""
    from doc_examples import examples

    found = [e.code for e in examples(ROOT / "docs" / "expressions.md") if e.form == "sql"]
    return [s.strip().rstrip(";").strip() for s in found[:3]]


def test_the_docs_sharded_key_examples_run_on_the_example_tables(
    moto_examples_backend: Any,
) -> None:
    """The docs' per-day and write-sharded examples, against counts made from the generator
    (dynosql.examples.datasets), not from dynosql."""
    statements = _doc_expression_examples()
    assert len(statements) == 3 and "FROM usage" in statements[1] and "usage BY" in statements[2]
    session = Session(moto_examples_backend.client())
    calls = Counter(i["pk"].split("#")[0] for i in datasets.DATASETS["usage"].items())
    shards = Counter(t.split("#")[0] for t in {i["pk"] for i in datasets.DATASETS["usage"].items()})
    grouped = list(session.execute(statements[1]))
    expected = [(t, D(n), D(shards[t])) for t, n in calls.most_common()]
    assert [(r["tenant"], r["calls"], r["shards"]) for r in grouped] == expected
    assert expected[0] == ("acme", D(150), D(8))  # as the page shows
    hot = session.execute(statements[2])
    assert [(r["key"], r["items"], r["shards"]) for r in hot] == expected
    assert any(n.startswith("acme: 8 shards can spread over up to 8 partitions") for n in hot.notes)


@pytest.mark.slow  # a Scan of sensors' 1,300 items: about 0.6 s on moto
def test_the_docs_per_day_example_runs_on_the_example_tables(moto_examples_backend: Any) -> None:
    per_day = list(Session(moto_examples_backend.client()).execute(_doc_expression_examples()[0]))
    days = Counter(i["readingTs"][:10] for i in datasets.DATASETS["sensors"].items())
    assert [(r["day"], r["readings"]) for r in per_day] == sorted(
        (d, D(n)) for d, n in days.items()
    )
    assert (per_day[0]["day"], per_day[0]["avg_temp"]) == ("2026-05-04", D("21.30"))  # the page


def test_hot_keys_by_an_expression_with_a_sample(moto_examples_backend: Any) -> None:
    """BY … SAMPLE: shards, items and bytes per logical key estimated from the sampled
    segments: exact at 100 PERCENT (the full report's figures), and at 50 PERCENT the same
    estimates and intervals as TABLESAMPLE's COUNT(*) … GROUP BY over the same segments."""
    session = Session(moto_examples_backend.client())
    by = "SHOW HOT KEYS FROM usage BY SPLIT_PART(pk, '#', 1)"
    items = list(datasets.DATASETS["usage"].items())
    calls = Counter(i["pk"].split("#")[0] for i in items)
    shards = Counter(pk.split("#")[0] for pk in {i["pk"] for i in items})
    whole = session.execute(by + " SAMPLE 100 PERCENT").all()
    assert [(r["key"], r["shards"], r["items"]) for r in whole] == [
        (k, D(shards[k]), D(n)) for k, n in calls.most_common()
    ]
    assert all(r["items low"] == r["items"] == r["items high"] for r in whole)
    half = session.execute(by + " SAMPLE 50 PERCENT REPEATABLE (3)")
    got = half.all()
    assert half.stats.items_scanned < 300  # only the sampled segments were read
    assert "estimated from 2 of 4 segments of usage (seed 3)" in (half.title or "")
    assert any(
        "estimates for the whole table with 95% confidence intervals" in n for n in half.notes
    )
    grouped = session.execute(
        "SELECT SPLIT_PART(pk, '#', 1) AS k, COUNT(*) AS n, COUNT(DISTINCT pk) AS seen "
        "FROM usage TABLESAMPLE (50 PERCENT) REPEATABLE (3) GROUP BY k ORDER BY n DESC"
    ).all()
    assert [(r["key"], r["items"], r["items low"], r["items high"]) for r in got] == [
        (r["k"], r["n"], r["n low"], r["n high"]) for r in grouped
    ]
    for row, counted in zip(got, grouped, strict=True):
        seen = counted["seen"]  # the sample's own shards: scaled by N/k = 4/2
        assert row["shards"] == 2 * seen and row["shards low"] >= seen <= shards[row["key"]]
        assert row["shards low"] <= row["shards"] <= row["shards high"]
