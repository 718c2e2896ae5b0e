"""EXPLAIN (FORMAT PYTHON): the plan as a runnable boto3 program (dynosql/plan/program/).

Every golden plan fixture (grammar/plans, as tests/test_planner_fixtures.py reads them) is
written as a program: none is refused (a fixture that expects an error has no plan, so there
is nothing to write). Every program runs against moto and against dynalite (its tables made
from grammar/tables.json, filled with items built from the fixtures' own values), all in this
process (each program exec'd in a fresh namespace, its boto3 client pointed at the backend),
and its rows are compared with the rows dynosql gives for the same plan on the same backend.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import itertools
import json
from decimal import Decimal
from typing import Any

import pytest
from backends import start
from test_planner_fixtures import all_cases, plan_case

from dynosql import values
from dynosql.errors import PlanError
from dynosql.evaluate.pipeline import aggregate_rows, select_rows
from dynosql.evaluate.sample_stats import sampled_groups, with_intervals
from dynosql.plan.program import program, refusal
from dynosql.result import Stats
from dynosql.session import Session
from dynosql.sql import ast, parse
from dynosql.statements import select
from dynosql.values import MISSING


@functools.cache
def _cases() -> list[tuple[Any, Any]]:
    """Every fixture planned: once, when a test first asks (planning the 194 fixtures at
    import cost every run, the fast loop's too, a second of each worker's collection)."""
    planned = []
    for case in all_cases():
        try:
            planned.append((case, plan_case(case)))
        except PlanError:
            continue  # the fixture expects an error: there is no plan to write
    return planned


def test_every_fixture_is_written() -> None:
    assert len(_cases()) > 150
    for case, plan in _cases():
        assert refusal(plan) is None, case.id
        compile(program(plan, case.sql), case.id, "exec")


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

    while plan is not None:
        for request in plan.requests:
            visit(request.params)
        plan = plan.then
    return found


def _named(statement: Any) -> tuple[dict[str, tuple[Any, ...]], dict[str, list[Any]]]:
    """The top-level attribute names a statement reads (with the longest path under each),
    and for each the literals a condition or expression sets beside it (a LIKE pattern as a
    string that matches it); literals beside no attribute are listed under ""."""
    names: dict[str, tuple[Any, ...]] = {}
    beside: dict[str, list[Any]] = {}

    def walk(x: Any, paths: list[str], literals: list[Any]) -> None:
        if isinstance(x, ast.Path):
            first, *rest = x.elements
            if isinstance(first, str):
                paths.append(first)
                if len(rest) >= len(names.get(first, ())):
                    names[first] = tuple(rest)
        elif isinstance(x, ast.Literal):
            literals.append(x.value)
        elif isinstance(x, ast.Like):
            literals.append(x.pattern.replace("%", "x").replace("_", "y"))
            walk(x.path, paths, literals)
        elif isinstance(x, ast.Compare | ast.Between | ast.In | ast.Function | ast.SelectItem):
            inner_paths: list[str] = []
            inner: list[Any] = []
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name), inner_paths, inner)
            for top in inner_paths or [""]:
                beside.setdefault(top, []).extend(inner)
            paths.extend(inner_paths)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name), paths, literals)
        elif isinstance(x, tuple | list):
            for v in x:
                walk(v, paths, literals)

    rest: list[Any] = []
    walk(statement, [], rest)
    beside.setdefault("", []).extend(rest)
    return names, beside


def _ranked(found: list[Any]) -> list[Any]:
    """Values by how often the fixtures name them (then first seen), each string followed
    by one just after it (so a range condition cuts between items); no empty string."""
    counts: dict[Any, list[Any]] = {}
    for v in found:
        if values.type_of(v) not in ("S", "N", "B") or v == "":
            continue
        counts.setdefault(values.hashable(v), [0, v])[0] += 1
    out: list[Any] = []
    for _n, v in sorted(counts.values(), key=lambda e: -e[0]):
        out += [v, v + "x"] if isinstance(v, str) else [v]
    return out


def _fill(backend: Any) -> None:
    """Each table of grammar/tables.json, with items whose keys and attributes take the
    values the fixtures set beside them (the most named first), so most fixtures find
    rows; attributes also take values of other types, a NULL or nothing, by turns, so the
    type rules and missing values are met too."""
    raw = json.loads(open(TABLES_JSON, encoding="utf-8").read())
    paths: dict[str, dict[str, tuple[Any, ...]]] = {}
    found: dict[str, dict[str, list[Any]]] = {}
    for _case, plan in _cases():
        names, beside = _named(plan.statement)
        table_paths = paths.setdefault(plan.table.name, {})
        for attribute, rest in names.items():
            if len(rest) >= len(table_paths.get(attribute, ())):
                table_paths[attribute] = rest
        table_found = found.setdefault(plan.table.name, {})
        for attribute, literals in beside.items():
            table_found.setdefault(attribute, []).extend(literals)
        wire = [values.decode(w) if "B" not in w else w["B"] for w in _wire_values(plan)]
        table_found.setdefault("", []).extend(wire)
    for name, description in raw.items():
        create = {
            k: v
            for k, v in description.items()
            if k in ("TableName", "KeySchema", "AttributeDefinitions")
        }
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            indexes = [
                {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
                for index in description.get(kind, [])
            ]
            if indexes:
                create[kind] = indexes
        # returns once ACTIVE: dynalite refuses writes to a table still CREATING (under load,
        # a BatchWriteItem right after CreateTable found "resource not found")
        backend.create_table(BillingMode="PAY_PER_REQUEST", **create)
        types = {
            a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]
        }
        table_found = found.get(name, {})
        anything = _ranked([v for vs in table_found.values() for v in vs])
        general = {
            code: [v for v in anything if values.type_of(v) == code] or [default]
            for code, default in (("S", "a"), ("N", Decimal(1)), ("B", b"a"))
        }

        def pool(
            attribute: str,
            code: str | None = None,
            table_found: dict[str, list[Any]] = table_found,
            general: dict[str, list[Any]] = general,
        ) -> list[Any]:
            """The attribute's own values (of that type), then others, twelve at most."""
            own = _ranked(table_found.get(attribute, []))
            if code is not None:
                own = [v for v in own if values.type_of(v) == code]
                return own + [v for v in general[code] if v not in own][: 12 - len(own)]
            return own

        keys = [k["AttributeName"] for k in description["KeySchema"]]
        sizes = (ITEMS_PER_TABLE,) if len(keys) == 1 else (5, ITEMS_PER_TABLE // 5)
        choices = [pool(k, types[k])[:size] for k, size in zip(keys, sizes, strict=True)]
        others = [a for a in types if a not in keys]
        nested = paths.get(name, {})
        loose = sorted(set(nested) - set(types))
        items = []
        for n, combo in enumerate(itertools.product(*choices)):
            item = dict(zip(keys, combo, strict=True))
            for i, attribute in enumerate(others):
                options = pool(attribute, types[attribute])
                if (n // len(options) + i + 1) % 4:  # missing now and then
                    item[attribute] = options[n % len(options)]
            for i, attribute in enumerate(loose):
                own = pool(attribute) or general["N"] + general["S"]
                turn = (n + i) % 6
                value: Any = MISSING
                if turn in (1, 2, 3):
                    value = own[(n // 6 * 3 + turn - 1) % len(own)]
                elif turn == 4:
                    value = general["N"][(n * 7 + i) % len(general["N"])]
                elif turn == 5:
                    value = None if n % 2 else general["S"][(n * 5 + i) % len(general["S"])]
                # a document path reads a map or list (moto fails a projection that meets
                # a scalar on the way)
                for step in reversed(nested[attribute]):
                    if value is MISSING:
                        break
                    value = {step: value} if isinstance(step, str) else [value] * (step + 1)
                if value is not MISSING:
                    item[attribute] = value
            item.setdefault("note", f"n{n % 7}")
            items.append(item)
        backend.put_items(name, items)


TABLES_JSON = str(
    __import__("pathlib").Path(__file__).resolve().parent.parent / "grammar" / "tables.json"
)


ITEMS_PER_TABLE = 40  # moto reads a few ms an item: keep the tables small

_CLIENTS: dict[str, Any] = {}


def _run(text: str, name: str, backend: Any) -> list[dict[str, Any]]:
    """A generated program's rows: run in this process (exec), its client made by its own
    ``connect()`` from ``--endpoint-url``; the boto3.client(...) it calls gets one client of
    the backend's, made once (with the test's credentials), instead of a new one per program
    (0.2 s each)."""
    import boto3

    client = _CLIENTS.get(backend.endpoint_url)
    if client is None:  # not setdefault(…, backend.client()): that made a client every call
        client = _CLIENTS[backend.endpoint_url] = backend.client()
    namespace: dict[str, Any] = {"__name__": "generated"}
    asked: dict[str, Any] = {}

    def make(*args: Any, **kwargs: Any) -> Any:
        asked.update(kwargs)
        return client

    real, boto3.client = boto3.client, make  # type: ignore[assignment]
    try:
        exec(compile(text, name, "exec"), namespace)  # noqa: S102 - the program under test
        namespace["client"] = namespace["connect"](["--endpoint-url", backend.endpoint_url])
        assert asked["endpoint_url"] == backend.endpoint_url
        return list(namespace["rows"]())
    finally:
        boto3.client = real


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


def _ours(session: Session, plan: Any) -> list[dict[str, Any]]:
    """dynosql's rows for a plan (a sample's as statements/tablesample.py gives them)."""
    statement = plan.statement
    if plan.sample is None:
        return list(select.rows(session.context, plan, Stats()))
    pages = session.context.pages(plan, Stats())
    if statement.is_aggregate:
        groups = sampled_groups(statement, pages, plan.sample)
        return list(aggregate_rows(with_intervals(statement), groups))
    items = (item for _i, _n, page in pages for item in page)
    return list(select_rows(statement, plan.table.keys.names, items, plan.sort))


def _one_stream(plan: Any) -> bool:
    """Whether the plan reads one stream in DynamoDB's order (else its requests or segments
    are read at once, and their items arrive in any order)."""
    return len(plan.requests) == 1 and plan.segments == 1 and plan.sample is None


def _check_all(backend: Any) -> None:
    session = Session(backend.client())
    nonempty = loose = 0
    for case, plan in _cases():
        theirs = _run(program(plan, case.sql), case.id, backend)
        ours = _ours(session, plan)
        a, b = _canonical(theirs), _canonical(ours)
        statement = plan.statement
        nonempty += bool(ours)
        if _one_stream(plan) or (statement.order_by and a == b):
            assert a == b, case.id  # one stream in DynamoDB's order, or an ORDER BY: in order
        elif sorted(a) == sorted(b):
            continue  # no ORDER BY over several streams: any order of the same rows
        else:
            # LIMIT over several streams read at once (or ORDER BY ties among them): which
            # rows come first is the streams' arrival order; both must be that many rows
            # of the statement's rows without the LIMIT
            assert statement.limit is not None, case.id
            unlimited = dataclasses.replace(
                plan, statement=dataclasses.replace(statement, limit=None)
            )
            every = set(_canonical(_ours(session, unlimited)))
            assert len(a) == len(b) and set(a) <= every and set(b) <= every, case.id
            loose += 1
    assert nonempty >= len(_cases()) * 3 // 4, f"only {nonempty} of {len(_cases())} found rows"
    assert loose <= 5, f"{loose} fixtures compared as any LIMIT of their rows"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["moto", "dynalite"])
def test_every_program_answers_as_dynosql(name: str) -> None:
    """All programs on one backend, in this process: about 30 s each (moto and dynalite
    answer a request in a few ms to tens of ms, and each fixture reads twice)."""
    backend = start(name)
    try:
        _fill(backend)
        _check_all(backend)
    finally:
        backend.stop()


@pytest.mark.slow
def test_explain_format_python_through_the_session(moto_examples_backend) -> None:
    """The statements as a user writes them: each program runs and gives the statement's
    rows (a filter DynamoDB checks, a client-side GROUP BY with HAVING and a top-n ORDER BY,
    a seeded sample's estimates, CASE and arithmetic under a NULLS LAST top-n)."""
    session = Session(moto_examples_backend.client())
    filtered = (
        "SELECT SK, size, meta.iso FROM drive WHERE PK = 'DRIVE#alice' "
        "AND begins_with(SK, 'root/photos/') AND size > 2000000 LIMIT 7"
    )
    grouped = (
        "SELECT PK, COUNT(*) AS n, SUM(size) AS bytes, MAX(modified) FROM drive "
        "GROUP BY PK HAVING COUNT(*) > 1 ORDER BY bytes DESC LIMIT 3"
    )
    sampled = "SELECT COUNT(*), AVG(size) FROM drive TABLESAMPLE (50 PERCENT) REPEATABLE (5)"
    expressions = (
        "SELECT SK, CASE WHEN size > 1000 THEN 'big' ELSE 'small' END AS k, size * 2 AS d "
        "FROM drive WHERE PK = 'DRIVE#bob' ORDER BY size DESC NULLS LAST LIMIT 4"
    )
    for sql, steps in [
        (filtered, ("def responses(", "LastEvaluatedKey", "'FilterExpression': '#size > :v2'")),
        (grouped, ("def add(state, item)", "groups = [group for group in groups if", "nsmallest")),
        (sampled, ("def estimate_ratio(", "TotalSegments")),
        (expressions, ("call(multiply", "null_if_missing(", "heapq.nsmallest(4")),
    ]:
        result = session.execute("EXPLAIN (FORMAT PYTHON) " + sql)
        text = result.document["program"]
        assert [row["plan"] for row in result] == text.splitlines()
        assert all(step in text for step in steps), sql
        theirs = _run(text, "drive", moto_examples_backend)
        ours = session.execute(sql).all()
        assert _canonical(theirs) == _canonical(ours) and ours, sql


# statements whose plans moto's workarounds would shape: a filter moto cannot take (an ordering
# comparison), an index's entries filtered before they are fetched, a filtered Scan grouped
# client-side, a filtered Select=COUNT
PORTABLE = [
    "SELECT SK, size, meta.iso FROM drive WHERE PK = 'DRIVE#alice' "
    "AND begins_with(SK, 'root/photos/') AND size > 2000000",
    "SELECT * FROM sensors WHERE region = 'eu-west' AND temperature > 30",
    "SELECT deviceId, COUNT(*) AS n, MAX(temperature) AS high FROM sensors "
    "WHERE humidity > 50 GROUP BY deviceId ORDER BY n DESC, deviceId LIMIT 3",
    "SELECT COUNT(*) AS n FROM drive WHERE size > 1000000",
]


@pytest.mark.slow
def test_a_program_is_the_same_wherever_it_was_written(
    moto_examples_backend, dynalite_examples_backend, ddblocal_examples_backend
) -> None:
    """A program written on the embedded server (moto) and one written on DynamoDB Local are
    the same text, the plan DynamoDB runs (the filter in the FilterExpression, nothing of moto
    in it), and each gives dynosql's rows on all three backends, run as a script: endpoint and
    region from its command line (from the environment on dynalite); without any region it
    says so and exits 2."""
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from backends import REGION

    from dynosql.plan.program import library

    written = {}
    for backend in (moto_examples_backend, ddblocal_examples_backend):
        session = Session(backend.client())
        explained = [session.execute(f"EXPLAIN (FORMAT PYTHON) {sql}") for sql in PORTABLE]
        written[backend.name] = [result.document["program"] for result in explained]
    assert written["moto"] == written["ddblocal"]
    first = written["moto"][0]
    assert "'FilterExpression': '#size > :v2'" in first and "compare(" not in first
    assert "moto" not in "".join(written["moto"]) and "us-east-1" not in first

    namespace: dict[str, Any] = {}
    imports, helpers = library.source(["jsonable"])
    exec("\n".join(imports) + "\n" + helpers, namespace)  # noqa: S102 - the program's helper
    session = Session(ddblocal_examples_backend.client())
    expected = [
        [json.dumps(namespace["jsonable"](row), sort_keys=True) for row in session.execute(sql)]
        for sql in PORTABLE
    ]
    assert all(expected)

    credentials = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    plain = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    plain["AWS_CONFIG_FILE"] = plain["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for n, text in enumerate(written["moto"]):
            path = Path(folder) / f"program_{n}.py"
            path.write_text(text, encoding="utf-8")
            for backend in (
                moto_examples_backend,
                dynalite_examples_backend,
                ddblocal_examples_backend,
            ):
                url = backend.endpoint_url
                if backend is dynalite_examples_backend:
                    args = []
                    env = {
                        **plain,
                        **credentials,
                        "AWS_REGION": REGION,
                        "AWS_ENDPOINT_URL_DYNAMODB": url,
                    }
                else:
                    args = ["--endpoint-url", url, "--region", REGION]
                    env = {**plain, **credentials}
                command = [sys.executable, str(path), *args]
                process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
                runs.append((n, backend.name, process))
        nowhere = subprocess.run(
            [sys.executable, str(Path(folder) / "program_0.py")],
            env={**plain, **credentials},
            capture_output=True,
            text=True,
        )
        for n, name, process in runs:
            out, _ = process.communicate(timeout=120)
            assert process.returncode == 0, (name, PORTABLE[n])
            rows = [json.dumps(json.loads(line), sort_keys=True) for line in out.splitlines()]
            ordered = "ORDER BY" in PORTABLE[n]
            got, want = (rows, expected[n]) if ordered else (sorted(rows), sorted(expected[n]))
            assert got == want, (name, PORTABLE[n])
    assert nowhere.returncode == 2 and "no AWS region: give --region" in nowhere.stderr


def test_the_programs_functions_answer_as_dynosqls() -> None:
    """Each SQL function a program may call (plan/program/library.py) against dynosql's own
    (evaluate/scalar.py) over values of every kind: the two must not drift apart."""
    from dynosql.evaluate import scalar
    from dynosql.plan.program import library

    names = sorted({helper for helper, _ in library.FUNCTIONS.values()} | {"call", "kind"})
    imports, text = library.source(names)
    namespace: dict[str, Any] = {}
    exec("\n".join(imports) + "\n" + text, namespace)  # noqa: S102 - the helpers under test
    samples: list[Any] = [
        MISSING, None, True, "", "abc", "Äpfel", "2026-05-04T13:45:12.5+02:00", "2026-02-30",
        "a,b,,c", "  7.50 ", "1e400", Decimal(0), Decimal("-2.5"), Decimal("7"),
        Decimal("1777852800.25"), Decimal("12345678901234567890123456789012345678"),
        b"ab", [Decimal(1)], {"a": "b"},
    ]  # fmt: skip
    extra: dict[str, list[tuple[Any, ...]]] = {
        "DATE_TRUNC": [(u, v) for u in ("day", "Month", "hour", "week") for v in samples],
        "TRIM": [(" ab ", " ", "LEADING"), ("xabx", "x", "BOTH"), ("xabx", "x", "TRAILING")],
        "SPLIT_PART": [("a,b,,c", ",", Decimal(n)) for n in (1, 3, 4, 5, -1, -5, 0)],
        "SUBSTR": [("abcdef", Decimal(s), Decimal(n)) for s in (-1, 0, 2) for n in (0, 2, 9)],
        "ROUND": [(Decimal("2.345"), Decimal(n)) for n in (-1, 0, 2, 5)],
        "LIKE": [("abc", "a_c"), ("abc", "%b%"), ("abc", "b%")]
        + [(s, p, "/") for s in ("a%c", "abc", "a/c", "ab_") for p in ("a/%c", "a//c", "%/_")],
        "NOW": [("2026-05-04T13:45:12.345Z",)],
        "CAST_STRING": [(v, Decimal(n)) for v in ("Äpfel", Decimal("-2.5"), True) for n in (1, 9)],
    }
    checked = 0
    for func, (_helper, name) in library.FUNCTIONS.items():
        arity = {"SUBSTR": 3, "REPLACE": 3, "SPLIT_PART": 3, "TRIM": 1, "NOW": 0}.get(func)
        if arity is None:
            arity = 1 if func in ("NEG", "LENGTH", "LOWER", "UPPER", "ABS", "FLOOR", "CEIL") else 2
        if func.startswith(("CAST", "FROM_", "TO_")):
            arity = 1
        cases = list(itertools.product(samples, repeat=arity))
        cases = cases[:: max(1, len(cases) // 200)]  # every value in each place, a few hundred
        if func == "CAST_DECIMAL":  # DECIMAL(p, s): its parameters are whole numbers
            places = ((10, 2), (4, 2), (38, 0), (3, 3))
            cases = [(v, Decimal(p), Decimal(s)) for v in samples for p, s in places]
        for args in cases + extra.get(func, []):
            ours = scalar.apply(func, list(args))
            mine = [namespace["MISSING"] if a is MISSING else a for a in args]
            theirs = namespace["call"](namespace[name], *mine)
            if func == "NOW" and not args:  # two clocks read a moment apart: same form, ~same time
                assert len(theirs) == len(ours) == 24 and theirs[10] == ours[10] == "T"
                moments = [
                    datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))
                    for t in (ours, theirs)
                ]
                assert abs(moments[1] - moments[0]) < datetime.timedelta(seconds=1)
            else:
                assert _canonical([{"v": theirs}]) == _canonical([{"v": ours}]), (func, args)
            checked += 1
    assert checked > 3000


def test_the_programs_rules_answer_as_dynosqls() -> None:
    """The value rules a program restates (comparison, equality, begins_with, contains,
    size(), LIKE, ORDER BY's order, DISTINCT's identity, ITEM_SIZE/RCU/WCU) against
    dynosql's own (evaluate/predicate.py, evaluate/scalar.py, values.py) over values of
    every type."""
    from boto3.dynamodb.types import Binary

    from dynosql.evaluate import predicate
    from dynosql.plan.program import library

    names = ["compare", "begins_with", "contains", "size", "like", "order_key", "hashable"]
    names.append("item_measure")
    imports, text = library.source(names)
    ns: dict[str, Any] = {}
    exec("\n".join(imports) + "\n" + text, ns)  # noqa: S102 - the helpers under test
    samples: list[Any] = [
        MISSING, None, True, False, "", "a", "ab", "Zebra", "apple", "Äpfel", "😀",
        Decimal(1), Decimal("1.0"), Decimal(-2), Decimal("1e-5"), b"", b"a", b"\xff",
        [Decimal(1), "a"], ["a"], {"k": Decimal(1)}, {"k": Decimal("1.00")},
        values.set_of(["a", "b"]), values.set_of([Decimal(1), Decimal(2)]), values.set_of([b"a"]),
    ]  # fmt: skip

    def boto(v: Any) -> Any:
        """The value as boto3's TypeDeserializer gives it to the program."""
        if v is MISSING:
            return ns["MISSING"]
        if isinstance(v, bytes):
            return Binary(v)
        if isinstance(v, list):
            return [boto(x) for x in v]
        if isinstance(v, dict):
            return {k: boto(x) for k, x in v.items()}
        if isinstance(v, frozenset):
            return {boto(x) for x in v}
        return v

    def order(v: Any) -> Any:
        return values.sort_key(v)

    for a, b in itertools.product(samples, repeat=2):
        x, y = boto(a), boto(b)
        for op in ("=", "<>", "<", "<=", ">", ">="):
            assert ns["compare"](x, op, y) == predicate.compare(op, a, b), (a, op, b)
        assert ns["begins_with"](x, y) == predicate.begins_with(a, b), (a, b)
        assert ns["contains"](x, y) == predicate.contains(a, b), (a, b)
        assert (ns["order_key"](x) < ns["order_key"](y)) == (order(a) < order(b)), (a, b)
        same = ns["hashable"](x) == ns["hashable"](y)
        assert same == (values.hashable(a) == values.hashable(b)), (a, b)
        if isinstance(a, str) and isinstance(b, str):
            for pattern in (b, b + "%", "%" + b, "_" + b):
                theirs = ns["like"](x, pattern)
                assert theirs == predicate.matches(
                    ast.Like(ast.Path(("p",), "p"), pattern), {"p": a}
                )
    from dynosql.evaluate.scalar import item_measure
    from dynosql.sql.keywords import ITEM_MEASURES

    for n, k in itertools.product(range(0, len(samples), 5), (1, 9, 60)):  # to past 4 KB
        item = {f"a{i}": v for i, v in enumerate(samples[n:] * k) if v is not MISSING}
        typed = boto(item)
        for func, modes in ITEM_MEASURES.items():
            for mode in modes or (None,):
                theirs = ns["item_measure"](func, typed, mode)
                assert theirs == item_measure(func, item, mode), (func, mode, n, k)
    for a in samples:
        theirs = ns["size"](boto(a))
        ours = predicate.size_of(a)
        assert (theirs is ns["MISSING"]) == (ours is MISSING) and (
            ours is MISSING or theirs == ours
        )
