"""Golden write-plan fixtures: INSERT/UPSERT/REPLACE/UPDATE/DELETE in, the read that finds the
keys and the write requests out, priced; no server.

The fixtures live in ``grammar/plans/writes/*.txt``, in the same format as the SELECT fixtures
(see tests/test_planner_fixtures.py and grammar/README.md), against grammar/tables.json.
``-- options:`` takes the planner options plus ``journal`` and ``transactional``. Every case is
also checked for invariants: every placeholder of an expression defined and every defined one
used (DynamoDB rejects unused values), no value in expression text, no key attribute changed.

``python tests/test_write_fixtures.py --fill`` writes the planner's output into cases that have
no expectation yet (never touching existing ones); ``--actual`` prints every case as it plans now.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from test_planner_fixtures import TABLES, Case, fill, format_expected, parse_fixtures

from dynosql.errors import DynosqlError
from dynosql.plan.model import _jsonable
from dynosql.plan.planner import Options
from dynosql.plan.write import WriteOptions, WritePlan, plan_write
from dynosql.session import bind
from dynosql.sql import ast, parse

WRITE_FILES = sorted(
    (Path(__file__).resolve().parent.parent / "grammar" / "plans" / "writes").glob("*.txt")
)


def _cases() -> list[Case]:
    cases: list[Case] = []
    for path in WRITE_FILES:
        cases.extend(parse_fixtures(path.read_text(encoding="utf-8"), str(path)))
    return cases


CASES = _cases()


def plan_case(case: Case) -> WritePlan:
    statement = parse(case.sql)
    assert isinstance(statement, ast.Insert | ast.Update | ast.Delete), case.id
    statement = bind(statement, case.params)
    options = dict(case.options)
    write = {k: options.pop(k) for k in ("journal", "transactional") if k in options}
    source = None
    if isinstance(statement, ast.Insert) and statement.select is not None:
        source = TABLES[statement.select.table]
    return plan_write(
        statement, TABLES[statement.table], WriteOptions(read=Options(**options), **write), source
    )


def view(plan: WritePlan) -> dict[str, Any]:
    read = plan.source if plan.source is not None else plan.read
    out: dict[str, Any] = {
        "operation": plan.operation,
        "read": None
        if read is None
        else {
            "operation": read.operation,
            "index": read.access.name,
            "requests": [_jsonable(r.params) for r in read.requests],
        },
        "write": _jsonable(plan.template),
        "requests": [_jsonable(r.params) for r in plan.requests()[:3]],
        "estimate": {
            "items": plan.estimate.items,
            "exact": plan.estimate.exact,
            "rcu": format(plan.estimate.rcu.normalize(), "f"),
            "wcu": format(plan.estimate.wcu.normalize(), "f"),
        },
        "unchecked": list(plan.unchecked),
        "warnings": list(plan.warnings),
    }
    return out


def outcome(case: Case) -> dict[str, Any]:
    try:
        return view(plan_case(case))
    except DynosqlError as err:
        return {"error": str(err)}


def _differences(case: Case, actual: dict[str, Any]) -> list[str]:
    """Every key the case states must match; unchecked and warnings default to empty."""
    expected = case.expected or {}
    problems = [
        f"{key}:\n  expected {_dump(want)}\n  actual   {_dump(actual.get(key))}"
        for key, want in expected.items()
        if actual.get(key) != want
    ]
    if "error" not in actual:
        for key in ("unchecked", "warnings"):
            if key not in expected and actual[key]:
                problems.append(f"{key} (expected none): {_dump(actual[key])}")
    return problems


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def test_write_fixture_files_exist() -> None:
    assert WRITE_FILES and len(CASES) >= 15


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_write_fixture(case: Case) -> None:
    assert case.expected is not None, f"{case.id} ({case.rule}) has no expected JSON"
    actual = outcome(case)
    problems = _differences(case, actual)
    assert not problems, f"{case.id} ({case.rule}):\n" + "\n".join(problems)


_TOKEN = re.compile(r"[#:][A-Za-z0-9_]+")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_write_invariants(case: Case) -> None:
    try:
        plan = plan_case(case)
    except DynosqlError:
        return
    requests = [plan.template] + [r.params for r in plan.requests()]
    for params in requests:
        text = " ".join(params.get(k, "") for k in ("ConditionExpression", "UpdateExpression"))
        used = set(_TOKEN.findall(text))
        names = set(params.get("ExpressionAttributeNames", {}))
        vals = set(params.get("ExpressionAttributeValues", {}))
        assert used == names | vals, f"{case.id}: used {used}, defined {names | vals}"
        # no value in expression text: quotes and digits only inside placeholders
        assert "'" not in text and '"' not in text
        assert not re.search(r"(?<![#:\w\[])\d", text), text
    if isinstance(plan.statement, ast.Update):
        assert not any(a.path.root in plan.table.keys.names for a in plan.statement.assignments)


def _shown(case: Case) -> dict[str, Any]:
    actual = outcome(case)
    return {k: v for k, v in actual.items() if not (k in ("unchecked", "warnings") and not v)}


def main(argv: list[str]) -> int:
    if "--fill" in argv:
        for path in WRITE_FILES:
            print(f"{path}: filled {fill(path, _shown)} case(s)")
        return 0
    for case in CASES:
        print(f"-- {case.rule}  [{case.id}]")
        print(case.sql)
        print(format_expected(outcome(case)))
        print()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main(sys.argv[1:]))
