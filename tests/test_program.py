"""EXPLAIN (FORMAT PYTHON): the plan as a runnable boto3 program (dynosql/plan/program.py).

Every golden plan fixture (grammar/plans, as tests/test_planner_fixtures.py reads them) is
either written as a program that compiles, or refused with one line naming the client-side
step not written yet. The slow test runs every written program against moto (its tables made
from grammar/tables.json, filled with items built from the fixtures' own key values) and
compares its rows with the rows dynosql's executor gives for the same plan.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import sys
from decimal import Decimal
from typing import Any

import pytest
from backends import start
from test_planner_fixtures import all_cases, plan_case

from dynosql import values
from dynosql.errors import PlanError
from dynosql.plan.program import program, refusal
from dynosql.result import Stats
from dynosql.session import Session
from dynosql.sql import ast, parse


def _cases() -> list[tuple[Any, Any]]:
    planned = []
    for case in all_cases():
        try:
            planned.append((case, plan_case(case)))
        except PlanError:
            continue  # the fixture expects an error: there is no plan to write
    return planned


CASES = _cases()
WRITTEN = [(c, p) for c, p in CASES if refusal(p) is None]


def test_every_fixture_is_written_or_refused_in_one_line() -> None:
    assert len(CASES) > 150 and len(WRITTEN) > 60
    for case, plan in CASES:
        why = refusal(plan)
        if why is not None:
            with pytest.raises(PlanError, match="^EXPLAIN \\(FORMAT PYTHON\\) does not yet write "):
                program(plan, "us-east-1", case.sql)
        else:
            compile(program(plan, "us-east-1", case.sql), case.id, "exec")


def test_parse_and_refusals() -> None:
    explain = parse("EXPLAIN (FORMAT PYTHON) SELECT * FROM t WHERE pk = 'a'")
    assert isinstance(explain, ast.Explain) and explain.program and not explain.analyze
    from dynosql.errors import SqlError

    with pytest.raises(SqlError, match="takes a SELECT, without ANALYZE"):
        parse("EXPLAIN (FORMAT PYTHON) ANALYZE SELECT * FROM t WHERE pk = 'a'")


def _wire_values(plan: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def visit(x: Any) -> None:
        if isinstance(x, dict):
            if len(x) == 1 and next(iter(x)) in ("S", "N", "B"):
                found.append(x)
                return
            for v in x.values():
                visit(v)
        elif isinstance(x, list):
            for v in x:
                visit(v)

    for request in plan.requests:
        visit(request.params)
    return found


def _fill(backend: Any) -> None:
    """Each table of grammar/tables.json on moto, with items whose keys and attributes take
    the values the written fixtures ask for (a begins_with prefix also gets an item under it)."""
    raw = json.loads(open(TABLES_JSON, encoding="utf-8").read())
    pools: dict[str, dict[str, list[Any]]] = {}
    for _case, plan in WRITTEN:
        pool = pools.setdefault(plan.table.name, {"S": [], "N": [], "B": []})
        for wire in _wire_values(plan):
            ((code, text),) = wire.items()
            value = text if isinstance(text, bytes) else values.decode(wire)
            if value not in pool[code]:
                pool[code].append(value)
            if code == "S" and value + "x" not in pool["S"]:
                pool["S"].append(value + "x")
    client = backend.client()
    for name, description in raw.items():
        create = {
            k: v
            for k, v in description.items()
            if k in ("TableName", "KeySchema", "AttributeDefinitions")
        }
        indexes = []
        for gsi in description.get("GlobalSecondaryIndexes", []):
            indexes.append({k: gsi[k] for k in ("IndexName", "KeySchema", "Projection")})
        if indexes:
            create["GlobalSecondaryIndexes"] = indexes
        lsis = [
            {k: lsi[k] for k in ("IndexName", "KeySchema", "Projection")}
            for lsi in description.get("LocalSecondaryIndexes", [])
        ]
        if lsis:
            create["LocalSecondaryIndexes"] = lsis
        client.create_table(BillingMode="PAY_PER_REQUEST", **create)
        types = {
            a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]
        }
        pool = pools.get(name, {"S": ["a"], "N": [Decimal(1)], "B": [b"a"]})
        keys = [k["AttributeName"] for k in description["KeySchema"]]
        default = {"S": ["a"], "N": [Decimal(1)], "B": [b"a"]}
        choices = [pool[types[k]][:12] or default[types[k]] for k in keys]
        others = [a for a in types if a not in keys]
        items = []
        for n, combo in enumerate(itertools.product(*choices)):
            item = dict(zip(keys, combo, strict=True))
            for i, attribute in enumerate(others):
                options = pool[types[attribute]]
                if options and (n + i) % 3:
                    item[attribute] = options[(n + i) % len(options)]
            item.setdefault("note", f"n{n}")
            items.append(item)
        backend.put_items(name, items[:150])


TABLES_JSON = str(
    __import__("pathlib").Path(__file__).resolve().parent.parent / "grammar" / "tables.json"
)


@pytest.fixture(scope="module")
def fixture_tables():
    backend = start("moto")
    try:
        _fill(backend)
        yield backend
    finally:
        backend.stop()


_CLIENTS: dict[str, Any] = {}


def _run(text: str, name: str, backend: Any) -> list[dict[str, Any]]:
    """A generated program's rows: run in this process (exec) with the endpoint as its
    argument; its boto3.client(...) gets one client of the backend's, made once (with the
    test's credentials), instead of a new one per program (0.2 s each)."""
    import boto3

    client = _CLIENTS.setdefault(backend.endpoint_url, backend.client())
    namespace: dict[str, Any] = {"__name__": "generated"}
    argv, sys.argv = sys.argv, ["program", backend.endpoint_url]
    make, boto3.client = boto3.client, lambda *a, **k: client  # type: ignore[assignment]
    try:
        exec(compile(text, name, "exec"), namespace)  # noqa: S102 - the program under test
        return list(namespace["rows"]())
    finally:
        sys.argv, boto3.client = argv, make


def _canonical(rows: list[dict[str, Any]]) -> list[str]:
    from boto3.dynamodb.types import Binary

    def plain(v: Any) -> Any:
        if isinstance(v, Binary | bytes):
            return ["$B", bytes(v).hex()]
        if isinstance(v, set | frozenset):
            return sorted(json.dumps(plain(x), sort_keys=True) for x in v)
        if isinstance(v, Decimal):
            return values.format_number(v)
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v

    return [json.dumps(plain(r), sort_keys=True) for r in rows]


@pytest.mark.slow
def test_written_programs_answer_as_dynosql_on_moto(fixture_tables) -> None:
    session = Session(fixture_tables.client())
    nonempty = 0
    for case, plan in WRITTEN:
        theirs = _run(program(plan, "us-east-1", case.sql), case.id, fixture_tables)
        ours = list(session.context.rows(plan, Stats()))
        a, b = _canonical(theirs), _canonical(ours)
        statement = plan.statement
        if statement.order_by or len(plan.requests) == 1 and plan.segments == 1:
            assert a == b, case.id  # one stream in DynamoDB's order, or an ORDER BY: in order
        elif statement.limit is not None:
            # LIMIT without ORDER BY over several requests read at once: any LIMIT of the
            # matching rows is right, so both must be that many rows of the requests' items
            unlimited = dataclasses.replace(
                plan, statement=dataclasses.replace(statement, limit=None)
            )
            every = set(
                _canonical(_run(program(unlimited, "us-east-1", case.sql), case.id, fixture_tables))
            )
            assert len(a) == len(b) and set(a) <= every and set(b) <= every, case.id
        else:
            assert sorted(a) == sorted(b), case.id
        nonempty += bool(ours)
    assert nonempty >= len(WRITTEN) // 3, f"only {nonempty} of {len(WRITTEN)} fixtures found rows"


@pytest.mark.slow
def test_explain_format_python_through_the_session(moto_examples_backend) -> None:
    """The statement as a user writes it: its program runs and gives the statement's rows."""
    session = Session(moto_examples_backend.client())
    sql = (
        "SELECT SK, size, meta.iso FROM drive WHERE PK = 'DRIVE#alice' "
        "AND begins_with(SK, 'root/photos/') AND size > 2000000 LIMIT 7"
    )
    result = session.execute("EXPLAIN (FORMAT PYTHON) " + sql)
    text = result.document["program"]
    assert [row["plan"] for row in result] == text.splitlines()
    assert (
        "def pages(" in text
        and "LastEvaluatedKey" in text
        and "compare(at(item, ('size',))" in text
    )
    theirs = _run(text, "drive", moto_examples_backend)
    ours = session.execute(sql).all()
    assert _canonical(theirs) == _canonical(ours) and ours
    with pytest.raises(PlanError, match=r"does not yet write aggregates; EXPLAIN shows the plan"):
        session.execute(
            "EXPLAIN (FORMAT PYTHON) SELECT COUNT(*) FROM drive WHERE PK = 'DRIVE#alice'"
        )
