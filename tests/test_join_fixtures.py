"""Golden plan fixtures for joins: a SELECT … JOIN in, how each source is read out, no server
(``grammar/plans/joins/*.txt``, the planner fixtures' format). The entities are the example
tables' and the entity fixtures' (``examples/entities.sql``, ``grammar/plans/entities/
schema.sql``) and one of their own (``grammar/plans/joins/schema.sql``: pickup, in the
shipments' gsi2 collection) over ``grammar/plans/entities/tables.json``;
``grammar/plans/joins/tables.json`` adds two tables of their own (products, reviews).

A case's view: the first read (one source, or an item collection: its members, operation,
index and requests) and each lookup (its strategy, index, keys, and the requests of one key,
its values named after the rows they come from). A case with a ``-- physical:`` line also
plans that hand-written statement and requires the first read's requests to be its requests:
an item collection costs what the one Query an expert writes costs.
``python tests/test_join_fixtures.py --fill`` writes the output under cases without an
expectation; ``--actual`` prints every case.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from test_entity_fixtures import ENTITIES, FOLDER, declared, load_tables
from test_planner_fixtures import (
    Case,
    differences,
    fill,
    format_expected,
    parse_fixtures,
    view,
)

from dynosql.entity_model import Entity
from dynosql.errors import DynosqlError
from dynosql.plan.join import JoinPlan, plan_join
from dynosql.plan.join_sources import resolved
from dynosql.plan.planner import Options, plan_select
from dynosql.plan.schema import TableInfo, table_info
from dynosql.session import bind
from dynosql.sql import ast, parse
from dynosql.sql.text import sql_text

JOINS = FOLDER.parent / "joins"
FIXTURE_FILES = sorted(JOINS.glob("*.txt"))
TABLES = {
    **load_tables(),
    **{
        name: table_info(description)
        for name, description in json.loads(
            (JOINS / "tables.json").read_text(encoding="utf-8")
        ).items()
    },
}
JOIN_ENTITIES = {**ENTITIES, **declared([JOINS / "schema.sql"])}
CASES = [c for p in FIXTURE_FILES for c in parse_fixtures(p.read_text(encoding="utf-8"), str(p))]


def find(name: str) -> tuple[TableInfo, Entity | None]:
    entity = JOIN_ENTITIES.get(name)
    if entity is not None:
        return TABLES[entity.table], entity
    if name not in TABLES:
        raise DynosqlError(f"no table {name}")
    return TABLES[name], None


def plan_case(case: Case) -> JoinPlan:
    statement = parse(case.sql)
    assert isinstance(statement, ast.Select) and statement.joins, f"{case.id}: a join"
    if case.params:
        statement = bind(statement, case.params)
    qualified, sources = resolved(statement, find)
    return plan_join(qualified, sources, Options(**case.options))


def join_view(join: JoinPlan) -> dict[str, Any]:
    first = join.first
    read = view(first.plan)
    out: dict[str, Any] = {
        "first": {
            "strategy": "item collection" if first.collection else "one source",
            "members": [s.alias for s in first.sides],
            "operation": read["operation"],
            "index": read["index"],
            "requests": read["requests"],
        },
        "lookups": [
            {
                "source": x.side.alias,
                "strategy": "BatchGetItem" if x.full else "Query per key",
                "index": x.keys.index,
                "keys": x.match.text(),
                "one_key": view(x.sample)["requests"],
            }
            for x in join.lookups
        ],
        "after": None if join.where is None else sql_text(join.where),
    }
    return json.loads(json.dumps(out, ensure_ascii=False))


def outcome(case: Case) -> dict[str, Any]:
    try:
        return join_view(plan_case(case))
    except DynosqlError as err:
        return {"error": str(err)}


def test_fixture_files_exist() -> None:
    assert FIXTURE_FILES and len(CASES) >= 15
    assert sum(c.physical is not None for c in CASES) >= 4


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_fixture(case: Case) -> None:
    assert case.expected is not None, f"{case.id} ({case.rule}) has no expected JSON"
    actual = outcome(case)
    problems = differences(case, actual, defaulted=())  # a join's view has no defaulted keys
    assert not problems, f"{case.id} {case.rule}\n{case.sql}\n" + "\n".join(problems)
    if case.physical is not None:  # request for request what the physical statement sends
        statement = parse(case.physical)
        assert isinstance(statement, ast.Select)
        hand = view(plan_select(statement, TABLES[statement.table], Options(**case.options)))
        assert actual["first"]["requests"] == hand["requests"], case.id


def main(argv: list[str]) -> int:
    if "--fill" in argv:
        for path in FIXTURE_FILES:
            n = fill(path, outcome)
            print(f"{path}: filled {n} case(s)")
        return 0
    for case in CASES:
        print(f"-- {case.rule}  [{case.id}]")
        print(case.sql)
        print(format_expected(outcome(case)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
