"""Golden plan fixtures for entity reads: an entity SELECT in, the DynamoDB requests out, no
server (``grammar/plans/entities/*.txt``, the planner fixtures' format). The entities are the
example tables' schema file (``examples/entities.sql``) and the fixtures' own
(``grammar/plans/entities/schema.sql``), over the descriptions in
``grammar/plans/entities/tables.json``.

Each case with a ``-- physical:`` line also plans that hand-written physical statement and
requires the same requests, request for request (so the same RCU): the entity query costs
1.00x what an expert writes by hand. ``python tests/test_entity_fixtures.py --fill`` writes
the planner's output under cases without an expectation; ``--actual`` prints every case.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from test_planner_fixtures import (
    Case,
    differences,
    expected_of,
    fill,
    format_expected,
    parse_fixtures,
    view,
)

from dynosql.entities.check import check
from dynosql.entity_model import Entity
from dynosql.errors import PlanError
from dynosql.plan.entity_read import rewrite_select
from dynosql.plan.model import Plan
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.schema import TableInfo, table_info
from dynosql.session import bind
from dynosql.sql import ast, parse, split_script

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "grammar" / "plans" / "entities"
FIXTURE_FILES = sorted(FOLDER.glob("*.txt"))
SCHEMAS = [ROOT / "examples" / "entities.sql", FOLDER / "schema.sql"]


def load_tables() -> dict[str, TableInfo]:
    raw = json.loads((FOLDER / "tables.json").read_text(encoding="utf-8"))
    return {name: table_info(description) for name, description in raw.items()}


TABLES = load_tables()


def declared(paths: list[Path] = SCHEMAS) -> dict[str, Entity]:
    """The schema files' entities, checked against the offline tables as CREATE ENTITY
    checks them."""
    entities: dict[str, Entity] = {}
    for path in paths:
        for chunk in split_script(path.read_text(encoding="utf-8")):
            statement = parse(chunk.text)
            assert isinstance(statement, ast.CreateEntity), f"{path}:{chunk.line}"
            entity, warnings = check(
                statement.entity, TABLES[statement.entity.table], entities.values()
            )
            assert warnings == [], warnings
            entities[entity.name] = entity
    return entities


ENTITIES = declared()
CASES = [c for p in FIXTURE_FILES for c in parse_fixtures(p.read_text(encoding="utf-8"), str(p))]


def plan_case(case: Case) -> Plan:
    statement = parse(case.sql)
    assert isinstance(statement, ast.Select), f"{case.id}: fixtures hold SELECT statements"
    if case.params:
        statement = bind(statement, case.params)
    read = rewrite_select(statement, ENTITIES[statement.table])
    plan = plan_select(read.physical, TABLES[read.entity.table], Options(**case.options))
    plan.warnings[:0] = read.hints
    return plan


def outcome(case: Case) -> dict[str, Any]:
    try:
        return view(plan_case(case))
    except PlanError as err:
        return {"error": str(err)}


def physical_view(case: Case) -> dict[str, Any]:
    assert case.physical is not None
    statement = parse(case.physical)
    assert isinstance(statement, ast.Select)
    return view(plan_select(statement, TABLES[statement.table], Options(**case.options)))


SAME = ("operation", "index", "requests", "fetch", "segments", "max_items", "count_only")


def test_fixture_files_exist() -> None:
    assert FIXTURE_FILES and len(CASES) >= 25
    assert sum(c.physical is not None for c in CASES) >= 20


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_fixture(case: Case) -> None:
    assert case.expected is not None, f"{case.id} ({case.rule}) has no expected JSON"
    actual = outcome(case)
    problems = differences(case, actual)
    assert not problems, f"{case.id} {case.rule}\n{case.sql}\n" + "\n".join(problems)
    if case.physical is not None:  # request for request what the physical statement sends
        hand = physical_view(case)
        for key in SAME:
            assert actual[key] == hand[key], f"{case.id} {key}: {actual[key]} != {hand[key]}"


def main(argv: list[str]) -> int:
    if "--fill" in argv:
        for path in FIXTURE_FILES:
            n = fill(path, lambda case: expected_of(case, outcome(case)))
            print(f"{path}: filled {n} case(s)")
        return 0
    for case in CASES:
        print(f"-- {case.rule}  [{case.id}]")
        print(case.sql)
        print(format_expected(expected_of(case, outcome(case))))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
