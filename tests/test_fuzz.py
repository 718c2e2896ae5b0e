"""Property-based fuzzing of the parser and the planner (hypothesis), no server needed.

Any text goes through ``dynosql.sql.parse_script``, parameter binding and ``plan_select`` on
offline table descriptions (grammar/tables.json and the example datasets). The only allowed
outcomes are statements with plans, or a ``DynosqlError`` whose message is one line: never
another exception, never a hang. Every plan's requests must be valid DynamoDB requests
(botocore's own parameter validation), with every value in ExpressionAttributeValues and every
attribute name in ExpressionAttributeNames: after removing placeholders, keywords, functions and
punctuation, nothing is left of any *Expression string, and the placeholders used are exactly
the ones defined.

The runs are derandomized (the same examples every time, so CI is stable); the fast loop
(``-m "not slow"``) draws a tenth of them. For a longer random hunt: ``DYNOSQL_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.validate import validate_parameters
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynosql.errors import DynosqlError
from dynosql.examples import datasets
from dynosql.plan.join import plan_join
from dynosql.plan.join_sources import resolved
from dynosql.plan.model import Plan
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.schema import TableInfo, table_info
from dynosql.session import Session, bind
from dynosql.sql import ast, parse_script, split_script
from dynosql.statements.setting import SetOption

ROOT = Path(__file__).resolve().parent.parent
RANDOM_EXAMPLES = int(os.environ.get("DYNOSQL_FUZZ_EXAMPLES", "0"))
HANG_SECONDS = 20  # a watchdog, far above the milliseconds one statement takes


def fuzz_settings(examples: int) -> settings:
    """`examples` drawn the same way every run (a tenth in the fast loop: conftest.py)."""
    if RANDOM_EXAMPLES:
        return settings(max_examples=RANDOM_EXAMPLES, deadline=None, derandomize=False)
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


# --- tables and statements -----------------------------------------------------------------


def _tables() -> dict[str, TableInfo]:
    tables = {}
    for name, dataset in datasets.DATASETS.items():
        tables[name] = table_info({**dataset.table, "ItemCount": 2000, "TableSizeBytes": 900_000})
    fixtures = ROOT / "grammar" / "tables.json"
    if fixtures.exists():
        for name, description in json.loads(fixtures.read_text()).items():
            tables[name] = table_info(description)
    return tables


TABLES = _tables()
TABLE_LIST = [TABLES[n] for n in sorted(TABLES)]

BUILTIN = [
    "SELECT a.SK, d.name FROM audit a JOIN drive d ON d.PK = a.PK AND d.SK = a.resource WHERE a.PK = 'ACTOR#x'",
    "SELECT * FROM drive f LEFT JOIN drive p ON p.PK = f.PK AND p.SK = f.parent WHERE f.PK IN ('DRIVE#a', 'DRIVE#b')",
    "SELECT s.deviceId, COUNT(*) FROM sensors s JOIN usage u ON u.pk = s.region GROUP BY s.deviceId",
    "SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva' ORDER BY SK DESC LIMIT 10",
    "SELECT SK, action FROM audit WHERE PK = 'ACTOR#x' AND SK BETWEEN 'EVT#1' AND 'EVT#2'",
    "SELECT * FROM drive WHERE PK = 'DRIVE#alice' AND SK LIKE 'root/photos/%'",
    "SELECT SK, meta.geo.country AS c FROM drive WHERE PK = 'D' AND contains(tags, 'beach')",
    "SELECT * FROM drive.by_modified WHERE PK = 'D' AND modified > '2026-06' LIMIT 3",
    "SELECT deviceId, COUNT(*) AS n FROM sensors GROUP BY deviceId HAVING n > 3 ORDER BY n DESC",
    "SELECT region, AVG(temperature) FROM sensors.by_region WHERE region = 'eu' GROUP BY region",
    "SELECT * FROM sensors WHERE deviceId IN ('a', 'b', 'c') AND readingTs >= :day",
    "SELECT * FROM tenants WHERE pk = 'T#a' AND (sk = 'USER#1' OR sk = 'USER#2')",
    "SELECT * FROM tenants WHERE NOT (amount < 10) AND attribute_exists(dueDate)",
    "SELECT * FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' ORDER BY gsi1sk LIMIT :n",
    "SELECT COUNT(*) FROM audit WHERE PK = :p AND size(resource) > 3 AND ok = TRUE",
    "SELECT DISTINCT action FROM audit WHERE PK = 'A' AND error IS NULL",
    "SELECT a[0].b, \"status\", \"size\" FROM drive WHERE PK = 'D' AND attribute_type(x, 'S')",
    "SELECT * FROM sensors WHERE humidity IS NOT NULL AND temperature BETWEEN -5 AND 3.25",
    "EXPLAIN SELECT * FROM audit WHERE attribute_not_exists(error)",
    "EXPLAIN ANALYZE SELECT PK FROM audit WHERE PK = 'x'",
    "SHOW TABLES",
    "DESCRIBE drive",
    "SHOW HOT KEYS FROM sensors LIMIT 5",
    "SET segments = 4",
    "SET consistent = on",
    "SELECT MIN(n), MAX(n), SUM(n) FROM audit WHERE PK = 'x' AND n <> 3 AND n IN (1, 2.5, -3)",
]


def _corpus() -> list[str]:
    found = list(BUILTIN)
    for path in sorted((ROOT / "examples").glob("*.sql")):
        found.extend(chunk.text for chunk in split_script(path.read_text(encoding="utf-8")))
    for path in sorted((ROOT / "grammar" / "plans").glob("*.txt")):
        # golden fixtures: a comment, the SQL, then the expected plan starting with "{"
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            sql = []
            for line in block.splitlines():
                if line.startswith("{"):
                    break
                if not line.startswith("--"):
                    sql.append(line)
            if sql:
                found.append("\n".join(sql))
    return [s.strip() for s in found if s.strip()]


CORPUS = _corpus()
PARAMS: dict[str, Any] = {"p": "ACTOR#x", "n": Decimal(3), "day": "2026-03-01"}

# --- checking one input ----------------------------------------------------------------------

SERVICE = botocore.session.get_session().get_service_model("dynamodb")
OPERATIONS = {"GetItem", "BatchGetItem", "Query", "Scan"}
ALLOWED = re.compile(
    r"#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|\[\d+\]|<>|<=|>=|[=<>(),.\s]"
    r"|\b(?:AND|OR|NOT|BETWEEN|IN|begins_with|contains|attribute_exists|attribute_not_exists"
    r"|attribute_type|size)\b"
)
WIRE_TYPES = {"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"}


class Hang(BaseException):
    """Raised by the watchdog: parsing or planning one input took far too long."""


@contextmanager
def watchdog(seconds: int = HANG_SECONDS) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise Hang(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _table_for(name: str) -> TableInfo:
    """The table a statement names, or (unknown name) one of ours under that name."""
    if name in TABLES:
        return TABLES[name]
    chosen = TABLE_LIST[zlib.crc32(name.encode("utf-8", "replace")) % len(TABLE_LIST)]
    return dataclasses.replace(chosen, name=name)


def run(text: str) -> list[Plan]:
    """Parse, bind and plan like a session would, offline. Returns the plans made."""
    plans = []
    session = Session(client=object())  # only SET runs here; it needs no client
    for statement in parse_script(text):
        bound = bind(statement, PARAMS)
        if isinstance(bound, SetOption):
            session.run_statement(bound)
            continue
        select = bound.statement if isinstance(bound, ast.Explain) else bound
        if not isinstance(select, ast.Select):
            continue
        if select.joins:
            plans.extend(_join_plans(select))
            continue
        table = _table_for(select.table)
        for options in (Options(), Options(consistent=True, segments=4)):
            plans.append(plan_select(select, table, options))
    return plans


def _join_plans(select: ast.Select) -> list[Plan]:
    """A join planned as a session would (its sources the tables `_table_for` gives): the
    first read's plan and one key's read of each lookup."""
    statement, sources = resolved(select, lambda name: (_table_for(name), None))
    plans = []
    for options in (Options(), Options(consistent=True, segments=4)):
        join = plan_join(statement, sources, options)
        plans.extend([join.first.plan, *(x.sample for x in join.lookups)])
    return plans


def outcome(text: str) -> list[Plan] | DynosqlError:
    """The plans, or the DynosqlError; any other exception propagates (a bug)."""
    with watchdog():
        try:
            plans = run(text)
        except DynosqlError as err:
            message = str(err)
            assert message.strip(), f"empty error message for {text!r}"
            assert "\n" not in message and "\r" not in message, f"multi-line error: {message!r}"
            return err
    for plan in plans:
        check_plan(plan)
    return plans


def _expressions(params: dict) -> dict[str, str]:
    return {k: v for k, v in params.items() if k.endswith("Expression")}


def _check_placeholders(where: str, params: dict) -> None:
    expressions = _expressions(params)
    names = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    used_names: set[str] = set()
    used_values: set[str] = set()
    for key, text in expressions.items():
        assert isinstance(text, str) and text, f"{where}: empty {key}"
        residue = ALLOWED.sub("", text)
        assert residue == "", f"{where}: {key} {text!r} carries literal text {residue!r}"
        used_names.update(re.findall(r"#[A-Za-z0-9_]+", text))
        used_values.update(re.findall(r":[A-Za-z0-9_]+", text))
        assert len(text.encode("utf-8")) <= 4096, f"{where}: {key} is over 4 KB"
    assert used_names == set(names), f"{where}: names used {used_names} != defined {set(names)}"
    assert used_values == set(values), f"{where}: values used {used_values} != {set(values)}"
    for placeholder, name in names.items():
        assert isinstance(name, str) and name, f"{where}: bad name for {placeholder}"
    for placeholder, value in values.items():
        assert isinstance(value, dict) and len(value) == 1, f"{where}: {placeholder}={value!r}"
        assert set(value) <= WIRE_TYPES, f"{where}: {placeholder}={value!r}"


def check_plan(plan: Plan) -> None:
    requests = list(plan.requests) + ([plan.fetch] if plan.fetch is not None else [])
    for i, request in enumerate(requests):
        where = f"{plan.label} request {i}"
        assert request.operation in OPERATIONS, where
        params = request.params
        if request is plan.fetch:  # a template: its Keys are filled in per page
            params = json.loads(json.dumps(params, default=str))
            for spec in params["RequestItems"].values():
                spec["Keys"] = [{k: {"S": "x"} for k in plan.table.keys.names}]
        shape = SERVICE.operation_model(request.operation).input_shape
        validate_parameters(params, shape)  # botocore's own check of the request
        _check_placeholders(where, params)
        for table, spec in params.get("RequestItems", {}).items():
            _check_placeholders(f"{where} {table}", spec)
        if "KeyConditionExpression" in params:
            first = re.match(r"#[A-Za-z0-9_]+", params["KeyConditionExpression"])
            assert first, where
            pk = params["ExpressionAttributeNames"][first.group()]
            assert pk == plan.access.keys.pk, f"{where}: key condition starts with {pk}"


# --- strategies ---------------------------------------------------------------------------------

TOKEN = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"|<>|<=|>=|!=|--|/\*|\*/|\s+|.",
    re.S,
)
KEYWORDS = (
    "SELECT FROM WHERE AND OR NOT IN BETWEEN LIKE IS NULL TRUE FALSE GROUP BY HAVING ORDER ASC "
    "DESC LIMIT OFFSET EXPLAIN ANALYZE SHOW TABLES HOT KEYS DESCRIBE SET TO COUNT SUM AVG MIN "
    "MAX DISTINCT AS JOIN LEFT ON UNION WITH INSERT UPDATE DELETE CASE WHEN THEN END CAST"
).split()
FUNCTIONS = ["begins_with", "contains", "size", "attribute_exists", "attribute_not_exists"]
FUNCTIONS += ["attribute_type", "lower", "now", "coalesce"]
PUNCTUATION = list("()[],.;*=<>!-+'\":?@$#`%/\\{}|&^~") + ["<>", "<=", ">=", "!=", "||", "::"]
VALUES = [
    "0",
    "-1",
    "1.5",
    "1e400",
    "1e-200",
    "-0",
    "12345678901234567890123456789012345678",
    "123456789012345678901234567890123456789",
    "'x'",
    "''",
    "'a''b'",
    "'ünï€'",
    "X'00'",
    "x'zz'",
    ":p",
    ":missing",
    ":",
    "?",
    "NULL",
    "'%'",
    "'_%\\'",
    "9.9999999999999999999999999999999999999E+125",
]
NAMES = [
    "PK",
    "SK",
    "pk",
    "sk",
    '"status"',
    "size",
    "a.b[0].c",
    "a[99999999999]",
    '"a.b"',
    '"#x"',
    '":v0"',
    '""',
    "drive.by_modified",
    "sensors.by_region",
    "tenants.gsi1",
    "nosuch",
    "users",
    "orders",
    "deviceId",
    "region",
    "gsi1pk",
    "modified",
]
EXTRA = [
    "\n",
    "\t",
    " ",
    "--",
    "/*",
    "*/",
    "\u00a0",
    "\u200b",
    "\u0000",
    "é",
    "日本",
    "🙂",
    "\ufeff",
]
VOCAB = KEYWORDS + FUNCTIONS + PUNCTUATION + VALUES + NAMES + EXTRA

SAFE_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
tokens = st.one_of(st.sampled_from(VOCAB), SAFE_TEXT)


@st.composite
def mutated_statements(draw: st.DrawFn) -> str:
    parts = TOKEN.findall(draw(st.sampled_from(CORPUS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "insert", "swap", "replace", "duplicate", "case"]))
        if not parts:
            parts = [draw(tokens)]
            continue
        i = draw(st.integers(0, len(parts) - 1))
        if op == "delete":
            del parts[i]
        elif op == "insert":
            parts.insert(i, draw(tokens))
        elif op == "replace":
            parts[i] = draw(tokens)
        elif op == "swap":
            j = draw(st.integers(0, len(parts) - 1))
            parts[i], parts[j] = parts[j], parts[i]
        elif op == "duplicate":
            j = draw(st.integers(i, min(len(parts), i + 8)))
            parts[i:i] = parts[i:j]
        else:
            parts[i] = parts[i].swapcase()
    return "".join(parts)


@st.composite
def scripts(draw: st.DrawFn) -> str:
    """Several statements, some mutated, joined with ; and newlines."""
    n = draw(st.integers(1, 4))
    pieces = [draw(st.one_of(st.sampled_from(CORPUS), mutated_statements())) for _ in range(n)]
    return draw(st.sampled_from([";\n", "; ", ";", "\n;\n"])).join(pieces)


# --- properties -----------------------------------------------------------------------------


def test_the_corpus_itself_plans() -> None:
    """The seeds parse and plan (so the mutations start from valid statements)."""
    planned = 0
    for text in CORPUS:
        result = outcome(text)
        if not isinstance(result, DynosqlError):
            planned += len(result)
    assert planned >= len(BUILTIN)


@fuzz_settings(400)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=300))
def test_random_text(text: str) -> None:
    outcome(text)


@fuzz_settings(300)
@given(st.lists(st.sampled_from(VOCAB), max_size=40).map(" ".join))
def test_random_token_soup(text: str) -> None:
    outcome(text)


@pytest.mark.slow
@fuzz_settings(800)
@given(mutated_statements())
def test_mutated_statements(text: str) -> None:
    outcome(text)


@fuzz_settings(300)
@given(scripts())
def test_mutated_scripts(text: str) -> None:
    outcome(text)


@fuzz_settings(30)
@given(
    st.sampled_from(CORPUS),
    st.integers(0, 2000),
    st.sampled_from(["x", "é", "'", " ", "1,", "🙂", "\n", "--"]),
)
def test_long_inputs(seed: str, cut: int, filler: str) -> None:
    """A statement with a very long run of one thing spliced in (up to ~80 KB). Runs of "(" or
    "a OR " are the deep-nesting cases below (a known bug)."""
    at = min(cut, len(seed))
    outcome(seed[:at] + filler * 20_000 + seed[at:])


@fuzz_settings(200)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["deviceId", "temperature", "region", "x.y", '"status"', "size(z)"]),
            st.sampled_from(["=", "<>", "<", ">=", "BETWEEN", "IN", "LIKE", "IS NULL"]),
            st.one_of(
                st.text(st.characters(exclude_categories=("Cs",)), max_size=20),
                st.decimals(allow_nan=False, allow_infinity=False, places=3),
                st.booleans(),
            ),
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([" AND ", " OR "]),
)
def test_generated_conditions_travel_as_placeholders(conditions: list, joiner: str) -> None:
    """Statements built from random values: each value reaches the plan only as a placeholder."""
    parts = ["deviceId = 'dev-0001'"]
    for path, op, value in conditions:
        literal = _literal(value)
        if op == "BETWEEN":
            parts.append(f"{path} BETWEEN {literal} AND {literal}")
        elif op == "IN":
            parts.append(f"{path} IN ({literal}, {literal})")
        elif op == "LIKE":
            parts.append(f"{path} LIKE {_literal(str(value))}")
        elif op == "IS NULL":
            parts.append(f"{path} IS NULL")
        else:
            parts.append(f"{path} {op} {literal}")
    where = parts[0] + " AND (" + joiner.join(parts[1:]) + ")"
    result = outcome(f"SELECT * FROM sensors WHERE {where}")
    if isinstance(result, DynosqlError):
        return
    for plan in result:
        for request in plan.requests:
            for text in _expressions(request.params).values():
                for _path, _op, value in conditions:
                    if isinstance(value, str) and len(value) >= 3 and value.isalpha():
                        assert value not in ALLOWED.sub(" ", text)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, Decimal):
        return format(value, "f")
    return "'" + value.replace("'", "''") + "'"


@pytest.mark.parametrize("depth", [5, 30])
def test_nested_parentheses(depth: int) -> None:
    text = "SELECT * FROM audit WHERE PK = 'a' AND " + "(" * depth + "x = 1" + ")" * depth
    result = outcome(text)
    assert not isinstance(result, DynosqlError)
    assert re.fullmatch(r"#\w+ = :\w+", result[0].requests[0].params["FilterExpression"])


@pytest.mark.parametrize("depth", [60, 500, 5000])
def test_deeply_nested_parentheses(depth: int) -> None:
    text = "SELECT * FROM audit WHERE PK = 'a' AND " + "(" * depth + "x = 1" + ")" * depth
    outcome(text)  # a plan or a one-line DynosqlError; a RecursionError fails


def test_a_thousand_ors() -> None:
    text = (
        "SELECT * FROM audit WHERE PK = 'a' AND ("
        + " OR ".join(f"n = {i}" for i in range(1000))
        + ")"
    )
    result = outcome(text)
    assert not isinstance(result, DynosqlError)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * FROM audit WHERE PK = '\udcff'",
        "SELECT * FROM audit WHERE PK = 'a' AND SK LIKE '\udcff%'",
        "SELECT * FROM audit WHERE PK = 'a' AND x = '\udcff'",
    ],
    ids=["key", "like-key", "filter"],
)
def test_undecodable_input_is_an_error(text: str) -> None:
    result = outcome(text)
    assert isinstance(result, DynosqlError)


@pytest.mark.parametrize("text", ["SELECT * FROM f(x)", "SELECT * FROM WHEREaudit(error)"])
def test_table_function_is_an_error(text: str) -> None:
    result = outcome(text)
    assert isinstance(result, DynosqlError)


@pytest.mark.parametrize(
    "text",
    ["SELECT * FROM audit WHERE PK = 'x\ny' 'z'", "0'a\nb'", "0'\r'"],
    ids=["concat", "newline", "carriage-return"],
)
def test_error_quoting_a_line_break_stays_one_line(text: str) -> None:
    outcome(text)  # asserts a DynosqlError's message has no line break


@pytest.mark.parametrize(
    "text",
    ["SELECT \"\" FROM audit WHERE PK = 'a'", "SELECT * FROM audit WHERE PK = 'a' AND x = \"\""],
    ids=["projection", "filter"],
)
def test_empty_attribute_name_is_an_error(text: str) -> None:
    result = outcome(text)  # a plan carrying an empty name fails check_plan
    assert isinstance(result, DynosqlError)
