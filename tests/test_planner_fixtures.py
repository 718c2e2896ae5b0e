"""Golden planner fixtures: SQL in, the DynamoDB requests out, no server.

The fixtures live in ``grammar/plans/*.txt`` (format described in ``grammar/README.md``) and run
against the offline table descriptions in ``grammar/tables.json``. Besides each case's own
expectation, every planned case is checked against invariants that hold for any plan: no value
in expression text, every placeholder defined and used, no key attribute in a Query's filter,
at most 100 keys per BatchGetItem, no Limit where a filter runs, no ConsistentRead on a GSI.

``python tests/test_planner_fixtures.py --actual`` prints every case with what the planner
produces now (to diff against the file); ``--fill`` writes the planner's output into cases that
have no expectation yet, never touching existing expectations.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dynosql.errors import PlanError
from dynosql.plan.model import Plan
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.schema import TableInfo, table_info
from dynosql.session import bind
from dynosql.sql import ast, parse
from dynosql.sql.text import sql_text

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar"
FIXTURE_FILES = sorted((GRAMMAR / "plans").glob("*.txt"))


def load_tables() -> dict[str, TableInfo]:
    raw = json.loads((GRAMMAR / "tables.json").read_text(encoding="utf-8"))
    return {name: table_info(description) for name, description in raw.items()}


TABLES = load_tables()


# --- the fixture format ------------------------------------------------------------------------


@dataclass
class Case:
    file: str
    line: int
    rule: str
    sql: str
    expected: dict[str, Any] | None
    options: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    xfail: str | None = None
    focus: list[str] | None = None
    physical: str | None = None  # an entity case's hand-written physical form (same requests)

    @property
    def id(self) -> str:
        return f"{Path(self.file).stem}:{self.line}"


_DIRECTIVE = re.compile(r"^--\s*(options|params|xfail|focus|physical):\s*(.*)$")


def _json(text: str) -> Any:
    """Parameter values: numbers exact, as Decimal (never float)."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def parse_fixtures(text: str, filename: str = "<fixtures>") -> list[Case]:
    """Blocks separated by blank lines: `--` comment lines (the first names the rule; directives
    `-- options:`, `-- params:`, `-- xfail:`, `-- focus:`, and for entity cases `-- physical:`
    with the hand-written physical statement), the SQL (one or more lines), then the
    expected JSON (from the first line starting with `{`). A block of comments only is a header."""
    cases: list[Case] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        start = i
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        comments = [ln for ln in block if ln.lstrip().startswith("--")]
        body = [ln for ln in block if not ln.lstrip().startswith("--")]
        if not body:
            continue
        json_at = next((k for k, ln in enumerate(body) if ln.lstrip().startswith("{")), None)
        sql_lines = body if json_at is None else body[:json_at]
        if not sql_lines:
            raise ValueError(f"{filename}:{start + 1}: a case needs SQL before its JSON")
        case = Case(
            file=filename,
            line=start + 1,
            rule="",
            sql="\n".join(sql_lines),
            expected=None if json_at is None else json.loads("\n".join(body[json_at:])),
        )
        for ln in comments:
            m = _DIRECTIVE.match(ln.strip())
            if m is None:
                if not case.rule:
                    case.rule = ln.strip()[2:].strip()
                continue
            key, value = m.groups()
            if key == "options":
                case.options = json.loads(value)
            elif key == "params":
                case.params = _json(value)
            elif key == "xfail":
                case.xfail = value.strip()
            elif key == "physical":
                case.physical = value.strip()
            else:
                case.focus = [k.strip() for k in value.split(",") if k.strip()]
        if not case.rule:
            raise ValueError(f"{filename}:{start + 1}: a case needs a comment naming its rule")
        cases.append(case)
    return cases


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for path in FIXTURE_FILES:
        cases.extend(parse_fixtures(path.read_text(encoding="utf-8"), str(path)))
    return cases


CASES = all_cases()


# --- what a plan looks like in a fixture -------------------------------------------------------


def view(plan: Plan) -> dict[str, Any]:
    """Everything a fixture may check, as JSON data."""
    d = plan.document()
    out: dict[str, Any] = {
        "operation": d["operation"],
        "index": d["index"],
        "requests": [r["params"] for r in d["requests"]],
        "fetch": None if d["fetch"] is None else d["fetch"]["params"],
        "segments": d["segments"],
        "client_steps": d["client_steps"],
        "warnings": d["warnings"],
        "estimate": d["estimate"],
        "residual": [None if r.residual is None else sql_text(r.residual) for r in plan.requests],
        "sort": [o.expr.text + (" DESC" if o.desc else "") for o in plan.sort],
        "dedupe": plan.dedupe,
        "count_only": plan.count_only,
        "max_items": [r.max_items for r in plan.requests],
        "sample": d.get("sample"),
        # the continuation's requests (ORDER BY … NULLS LAST over a sparse LSI)
        "then": None if plan.then is None else view(plan.then)["requests"],
        # what a read that fetches switches to beyond its break-even (plan/fallback.py)
        "fallback": None
        if plan.fallback is None
        else {
            "keys": plan.fallback.keys,
            "probe_rcu": d["fallback"]["probe_rcu"],
            "then": plan.fallback.plan.label,
        },
    }
    if plan.operation == "BatchGetItem":
        out["keys_per_request"] = [
            len(next(iter(r.params["RequestItems"].values()))["Keys"]) for r in plan.requests
        ]
    return json.loads(json.dumps(out, ensure_ascii=False))


# Checked even when the expectation leaves them out (then they must have these values).
DEFAULTED = (
    "fetch",
    "segments",
    "warnings",
    "residual",
    "sort",
    "dedupe",
    "count_only",
    "max_items",
    "then",
    "fallback",
)
# Emitted by --fill unless the case names its own focus.
EMITTED = ("operation", "index", "requests", "client_steps", *DEFAULTED)


def default_of(key: str, actual: dict[str, Any]) -> Any:
    n = len(actual["requests"])
    return {
        "fetch": None,
        "segments": 1,
        "warnings": [],
        "residual": [None] * n,
        "sort": [],
        "dedupe": False,
        "count_only": False,
        "max_items": [None] * n,
        "then": None,
        "fallback": None,
    }[key]


def plan_case(case: Case) -> Plan:
    statement = parse(case.sql)
    assert isinstance(statement, ast.Select), f"{case.id}: fixtures hold SELECT statements"
    if case.params:
        statement = bind(statement, case.params)
    table = TABLES[statement.table]
    return plan_select(statement, table, Options(**case.options))


def outcome(case: Case) -> dict[str, Any]:
    """The actual result of a case: its view, or {"error": message} for a PlanError."""
    try:
        return view(plan_case(case))
    except PlanError as err:
        return {"error": str(err)}


def differences(
    case: Case, actual: dict[str, Any], defaulted: tuple[str, ...] = DEFAULTED
) -> list[str]:
    """What `actual` says otherwise than the case's expected JSON; a key of `defaulted` the case
    leaves out must hold its default (a view without those keys passes ())."""
    expected = case.expected or {}
    if "error" in expected or "error" in actual:
        if expected.get("error") != actual.get("error"):
            return [f"error: expected {expected.get('error')!r}, got {actual.get('error')!r}"]
        return []
    problems = []
    for key, want in expected.items():
        if key == "warnings_contain":
            for fragment in want:
                if not any(fragment in w for w in actual["warnings"]):
                    problems.append(f"no warning contains {fragment!r}: {actual['warnings']}")
            continue
        if key not in actual:
            problems.append(f"{key}: not produced (plan has {sorted(actual)})")
        elif actual[key] != want:
            problems.append(f"{key}:\n  expected {_dump(want)}\n  actual   {_dump(actual[key])}")
    for key in defaulted:
        if key == "warnings" and "warnings_contain" in expected:
            continue
        if key not in expected and actual[key] != default_of(key, actual):
            problems.append(f"{key} (expected the default): actual {_dump(actual[key])}")
    return problems


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


# --- the tests ---------------------------------------------------------------------------------


def _param(case: Case):
    marks = []
    if case.xfail:
        marks.append(pytest.mark.xfail(reason=f"BUG: {case.xfail}", strict=True))
    return pytest.param(case, id=case.id, marks=marks)


def test_fixture_files_exist() -> None:
    assert FIXTURE_FILES, "no grammar/plans/*.txt"
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_fixture(case: Case) -> None:
    assert case.expected is not None, f"{case.id} ({case.rule}) has no expected JSON"
    problems = differences(case, outcome(case))
    assert not problems, f"{case.id} {case.rule}\n{case.sql}\n" + "\n".join(problems)


# Invariants: true of every plan the fixtures produce, whatever the case expects.

_KEYWORDS = {
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "begins_with",
    "contains",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "size",
}
_TOKEN = re.compile(
    r"\s*(?:(?P<name>#[A-Za-z0-9_]+)|(?P<value>:[A-Za-z0-9_]+)|(?P<word>[A-Za-z_]+)"
    r"|(?P<index>\[\d+\])|(?P<op><>|<=|>=|[=<>(),.]))"
)


def expression_tokens(text: str) -> list[tuple[str, str]]:
    """Tokens of a DynamoDB expression; anything else (a quote, a digit, a value) fails."""
    out, i = [], 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        assert m and m.end() > i, f"unexpected text at {text[i:]!r} in {text!r}"
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        i = m.end()
    return out


def _request_parts(plan: Plan) -> list[tuple[str, dict]]:
    """(label, spec) where spec holds the expressions and their placeholder maps."""
    parts = []
    for r in plan.requests:
        if r.operation == "BatchGetItem":
            for spec in r.params["RequestItems"].values():
                parts.append(("BatchGetItem", spec))
        else:
            parts.append((r.operation, r.params))
    if plan.fetch is not None:
        for spec in plan.fetch.params["RequestItems"].values():
            parts.append(("fetch", spec))
    return parts


EXPRESSIONS = ("KeyConditionExpression", "FilterExpression", "ProjectionExpression")

PLANNED = [c for c in CASES if "error" not in (c.expected or {})]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in PLANNED])
def test_invariants(case: Case) -> None:
    plan = plan_case(case)
    for r in plan.requests:
        assert r.operation == plan.operation
    for label, spec in _request_parts(plan):
        used_names, used_values = set(), set()
        for key in EXPRESSIONS:
            if key not in spec:
                continue
            text = spec[key]
            assert len(text.encode("utf-8")) <= 4096
            for kind, token in expression_tokens(text):
                if kind == "word":
                    assert token in _KEYWORDS, f"{label} {key}: bare word {token!r} in {text!r}"
                elif kind == "name":
                    used_names.add(token)
                elif kind == "value":
                    used_values.add(token)
        # every placeholder used is defined, and every one defined is used (AWS rejects extras)
        assert used_names == set(spec.get("ExpressionAttributeNames", {})), label
        assert used_values == set(spec.get("ExpressionAttributeValues", {})), label
        if label == "BatchGetItem":
            assert 1 <= len(spec["Keys"]) <= 100
    for r in plan.requests:
        p = r.params
        if r.operation == "Query":
            key_names = set(plan.access.keys.names)
            names = p.get("ExpressionAttributeNames", {})
            for kind, token in expression_tokens(p.get("FilterExpression", "")):
                if kind == "name":
                    assert names[token] not in key_names, f"filter names key {names[token]}"
        if "Limit" in p:
            assert "FilterExpression" not in p and r.residual is None
            assert p["Limit"] == r.max_items
        if plan.access.kind == "gsi":
            assert "ConsistentRead" not in p
        if p.get("Select") == "COUNT":
            assert plan.count_only and "ProjectionExpression" not in p


def test_no_literal_of_any_fixture_reaches_expression_text() -> None:
    """The SQL's string literals appear only in ExpressionAttributeValues/Key, never in text."""
    checked = 0
    for case in PLANNED:
        literals = re.findall(r"'((?:[^']|'')*)'", case.sql)
        plan = plan_case(case)
        for _label, spec in _request_parts(plan):
            for key in EXPRESSIONS:
                if key not in spec:
                    continue
                # what is left once the placeholders are taken out
                text = re.sub(r"[#:][A-Za-z0-9_]+", " ", spec[key])
                for literal in literals:
                    if len(literal) > 1:
                        assert literal.replace("''", "'") not in text
                        checked += 1
    assert checked > 50


# --- the format itself -------------------------------------------------------------------------


def test_parse_fixtures_format() -> None:
    text = (
        "-- header block: comments only\n"
        "\n"
        "-- the rule\n"
        '-- options: {"consistent": true}\n'
        '-- params: {"n": 1.50, "s": "x"}\n'
        "-- xfail: the reason\n"
        "-- focus: operation, requests\n"
        "-- a note\n"
        "SELECT *\n"
        "  FROM users WHERE id = :s\n"
        '{"operation": "GetItem",\n'
        ' "index": null}\n'
        "\n"
        "-- second\n"
        "SELECT * FROM users\n"
    )
    first, second = parse_fixtures(text, "f.txt")
    assert (first.line, first.rule, first.options) == (3, "the rule", {"consistent": True})
    assert first.params == {"n": Decimal("1.50"), "s": "x"}
    assert (first.xfail, first.focus) == ("the reason", ["operation", "requests"])
    assert first.sql == "SELECT *\n  FROM users WHERE id = :s"
    assert first.expected == {"operation": "GetItem", "index": None}
    assert (second.line, second.rule, second.expected) == (14, "second", None)
    with pytest.raises(ValueError, match="needs a comment naming its rule"):
        parse_fixtures("SELECT 1\n", "g.txt")


def test_differences_checks_defaults_and_subsets() -> None:
    expected = {"operation": "GetItem", "residual": ["id = 'a'"]}
    case = Case("f", 1, "r", "SELECT * FROM users WHERE id = 'a'", expected)
    actual = outcome(case)
    assert differences(case, actual) == []
    case.expected = {"operation": "GetItem"}  # residual left out: it must be the default
    assert differences(case, actual) == ["residual (expected the default): actual [\"id = 'a'\"]"]
    case.expected = {**expected, "operation": "Query"}
    assert differences(case, actual)
    case.expected = {**expected, "warnings_contain": ["Scan"]}
    assert differences(case, actual)
    scan = Case("f", 1, "r", "SELECT * FROM users", {"operation": "Scan"})
    assert any(p.startswith("warnings") for p in differences(scan, outcome(scan)))


def test_sql_text_of_residuals() -> None:
    where = parse(
        "SELECT * FROM t WHERE a = 'it''s' AND (b > 1.50 OR NOT c IS NULL) AND x LIKE '%y'"
        " AND size(d) BETWEEN 1 AND 2 AND e IN (TRUE, NULL) AND contains(f.g[1], 'h')"
    ).where
    assert sql_text(where) == (
        "a = 'it''s' AND (b > 1.5 OR NOT (c IS NULL)) AND x LIKE '%y'"
        " AND size(d) BETWEEN 1 AND 2 AND e IN (TRUE, NULL) AND contains(f.g[1], 'h')"
    )


def test_explain_shows_the_continuation() -> None:
    """EXPLAIN prints the read that runs only when the LSI's rows fall short of LIMIT."""
    from dynosql.statements.read_explain import explain_lines

    sql = "SELECT SK FROM drive WHERE PK = 'a' ORDER BY modified DESC NULLS LAST LIMIT 5"
    lines = explain_lines(plan_case(Case("f", 1, "r", sql, None)))
    at = lines.index("then, only if fewer rows than LIMIT came back:")
    assert lines[1 + at] == "  Query drive"
    assert any("attribute_not_exists(#modified)" in line for line in lines[at:])
    assert lines[0] == "Query drive.by_modified"


# --- maintenance: print or fill expectations ---------------------------------------------------


def format_expected(data: dict[str, Any]) -> str:
    lines = ["{"]
    items = list(data.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"  {json.dumps(key)}: [")
            for k, v in enumerate(value):
                sep = "," if k < len(value) - 1 else ""
                lines.append(f"    {_compact(v)}{sep}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {_compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def expected_of(case: Case, actual: dict[str, Any]) -> dict[str, Any]:
    if "error" in actual:
        return actual
    keys = case.focus or [
        k for k in EMITTED if k not in DEFAULTED or actual[k] != default_of(k, actual)
    ]
    if case.focus:
        keys += [k for k in DEFAULTED if k not in keys and actual[k] != default_of(k, actual)]
    return {k: actual[k] for k in keys}


def fill(path: Path, expected: Callable[[Case], dict[str, Any]]) -> int:
    """Writes ``expected(case)`` under every case of the file that has no expected JSON yet."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    filled = 0
    for case in reversed(parse_fixtures(text, str(path))):
        if case.expected is not None:
            continue
        # the case's SQL ends at the first blank line after its start
        end = case.line - 1
        while end < len(lines) and lines[end].strip():
            end += 1
        lines[end:end] = format_expected(expected(case)).splitlines()
        filled += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return filled


def main(argv: list[str]) -> int:
    if "--fill" in argv:
        for path in FIXTURE_FILES:
            print(
                f"{path}: filled {fill(path, lambda case: expected_of(case, outcome(case)))} case(s)"
            )
        return 0
    for case in CASES:
        print(f"-- {case.rule}  [{case.id}]" + (f"  (xfail: {case.xfail})" if case.xfail else ""))
        print(case.sql)
        print(format_expected(expected_of(case, outcome(case))))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
