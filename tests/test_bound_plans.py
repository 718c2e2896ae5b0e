"""The plan is chosen from bound values, not from a parameter's shape: every case of
grammar/plans/13_bound.txt (``SK LIKE :p``, SQLAlchemy's ``:p || '%'``, ``BETWEEN :a AND :b``,
``IN (:a, :b)``, ``LIMIT :n``) plans exactly as its literal twin, the same SQL with each
parameter's value written in its place. No server."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_planner_fixtures import Case, parse_fixtures, plan_case, view

BOUND = Path(__file__).resolve().parent.parent / "grammar" / "plans" / "13_bound.txt"
CASES = parse_fixtures(BOUND.read_text(encoding="utf-8"), str(BOUND))


def written(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    assert isinstance(value, int | Decimal), value
    return str(value)


def literal_twin(case: Case) -> Case:
    sql = re.sub(r":(\w+)", lambda m: written(case.params[m.group(1)]), case.sql)
    return Case(case.file, case.line, case.rule, sql, case.expected)


@pytest.mark.parametrize("case", CASES, ids=[c.rule[:60] for c in CASES])
def test_a_bound_statement_plans_as_its_literal_twin(case: Case) -> None:
    assert case.params, f"{case.id}: a case of 13_bound.txt binds parameters"
    twin = literal_twin(case)
    assert ":" not in twin.sql.replace("'", "")
    assert view(plan_case(case)) == view(plan_case(twin)), twin.sql
