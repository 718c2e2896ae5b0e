"""Start-up (issue 25): ``dynosql -e`` imports only what its statement needs, and the command
line's scripts are kept parsed on disk (``dynosql/sql/cache.py``) so that a script run again
in a new process needs neither the parser nor sqlglot.

The import check is one subprocess (a fresh interpreter is the only honest ``sys.modules``);
the cache is tested in this process, with its directory under ``tmp_path``.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import ROOT, unique_name
from cli_runner import AWS_VARIABLES

from dynosql.errors import SqlError
from dynosql.sql import ast, cache, parser
from dynosql.statements.show import ShowTables

# none of these is needed by a keyed SELECT written as CSV: a module-level import of any of them
# on the -e path (the REPL, the embedded server, the export engines, SQLAlchemy, the writer, the
# table renderer, boto3's resources and transfers, or the parser when the script is kept) fails
HEAVY = (
    "prompt_toolkit",
    "moto",
    "duckdb",
    "pyarrow",
    "sqlalchemy",
    "flask",
    "werkzeug",
    "boto3",
    "s3transfer",
    "tabulate",
    "sqlglot",
    "dynosql.repl",
    "dynosql.engines",
    "dynosql.dynamo.writer",
    "dynosql.local.embedded",
    "dynosql.journal",
    "dynosql.sql.parser",
)

PROBE = """
import json, sys
from dynosql.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m in HEAVY or m.startswith(tuple(h + "." for h in HEAVY)))
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


@pytest.fixture
def kept_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.clear()
    return tmp_path / "dynosql" / "parsed"


@pytest.mark.slow
def test_a_kept_keyed_select_imports_nothing_it_does_not_need(
    moto_backend: Any, kept_dir: Path
) -> None:
    table = unique_name("startup")
    moto_backend.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    moto_backend.put_items(table, [{"pk": "x", "n": Decimal("1.50")}, {"pk": "y"}])
    sql = f"SELECT * FROM {table} WHERE pk = 'x'"
    cache.parse_script(sql, across_runs=True)  # as an earlier run of the same -e left it
    env = {**os.environ, **AWS_VARIABLES, "XDG_CACHE_HOME": str(kept_dir.parent.parent)}
    argv = ["--endpoint-url", moto_backend.endpoint_url, "--format", "csv", "-q", "-e", sql]
    proc = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{PROBE}", *argv],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    report = json.loads(proc.stderr.splitlines()[-1])
    assert report["code"] == 0, proc.stderr
    assert proc.stdout.splitlines() == ["pk,n", "x,1.5"]  # it ran (DynamoDB trims the 0)
    assert report["loaded"] == []


# --- the parse cache on disk -----------------------------------------------------------------

SCRIPT = "SELECT a, b.c[2] FROM t WHERE pk = 'k' AND n BETWEEN 1.50 AND 2;\nSHOW TABLES"


def _no_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(script: str) -> list[ast.Statement]:
        raise AssertionError("parsed again")

    monkeypatch.setattr(parser, "parse_script", refuse)


def test_a_kept_script_comes_back_equal_without_the_parser(
    kept_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = cache.parse_script(SCRIPT, across_runs=True)
    assert len(list(kept_dir.glob("*.pickle"))) == 1
    assert (kept_dir.stat().st_mode & 0o777, next(kept_dir.iterdir()).stat().st_mode & 0o777) == (
        0o700,
        0o600,
    )
    cache.clear()  # a new process: nothing in memory
    _no_parser(monkeypatch)
    again = cache.parse_script(SCRIPT, across_runs=True)
    assert again == first
    assert repr(again) == repr(first)  # positions too (== does not compare them)


def test_an_entry_for_other_text_or_other_code_is_not_used(
    kept_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.parse_script(SCRIPT, across_runs=True)
    other = "SELECT * FROM u WHERE pk = 'z'"
    entry = next(kept_dir.iterdir())
    # a hash collision, simulated: another script's file holds this script's statements
    entry.rename(cache._entry(other))
    cache.clear()
    assert cache.parse_script(other, across_runs=True)[0].table == "u"  # type: ignore[union-attr]
    # the parser's code changed (another sqlglot, an edited module): parsed again
    cache.clear()
    monkeypatch.setattr(cache, "fingerprint", lambda: "other code")
    parsed: list[str] = []
    real = parser.parse_script
    monkeypatch.setattr(parser, "parse_script", lambda s: parsed.append(s) or real(s))
    cache.parse_script(other, across_runs=True)
    assert parsed == [other]


def test_errors_are_not_kept_and_only_sound_trusted_entries_are_read(kept_dir: Path) -> None:
    with pytest.raises(SqlError, match="line 2"):
        cache.parse_script("SELECT * FROM t;\nSELEC 1", across_runs=True)
    assert not list(kept_dir.glob("*.pickle"))
    whole = cache.parse_script(SCRIPT, across_runs=True)
    entry = next(kept_dir.glob("*.pickle"))

    def plant(mode: int) -> None:  # an entry that differs from what the parser says
        entry.write_bytes(pickle.dumps((cache.fingerprint(), SCRIPT, (ShowTables(),))))
        entry.chmod(mode)
        cache.clear()

    plant(0o600)
    assert cache.parse_script(SCRIPT, across_runs=True) == [ShowTables()]  # it is read
    plant(0o666)  # writable by others: never unpickled
    assert cache.parse_script(SCRIPT, across_runs=True) == whole
    entry.write_bytes(entry.read_bytes()[:40])  # torn
    cache.clear()
    assert cache.parse_script(SCRIPT, across_runs=True) == whole


def test_the_fingerprint_covers_every_module_that_parses() -> None:
    """A kind module may read its own statements (the parser= of a Starter it declares): an
    edit there parses again, as one in dynosql/sql does."""
    from dynosql.sql import keywords

    parsing = {
        str(s.parser).partition(":")[0] for s in (*keywords.STARTERS, *keywords.UNDER) if s.parser
    }
    assert "dynosql.statements.hot_keys" in parsing and "dynosql.sql.entity_parse" in parsing
    for module in parsing:
        assert f"\n{ROOT.joinpath(*module.split('.'))}.py:" in cache.fingerprint(), module


# a script of every kind of statement, with what each may hold (an entity's templates, a
# sample, expressions, a join, RETURNING, a PartiQL set)
EVERY_KIND = (
    (ROOT / "examples" / "entities.sql").read_text()
    + """;
SELECT CAST(a AS NUMBER), SUBSTR(a, 1, 2), COUNT(*) FROM t WHERE a IN (1, 2) AND b LIKE 'x%'
  GROUP BY 1, 2 ORDER BY 1 LIMIT 3;
SELECT * FROM t TABLESAMPLE (5 PERCENT); SELECT * FROM a JOIN b ON a.x = b.y; SELECT 1 + 1;
SHOW HOT KEYS FROM t BY SUBSTR(pk, 1, 3) WITH SIZES SAMPLE 5 PERCENT LIMIT 2;
SHOW ENTITIES FROM t SAMPLE 5 AS CREATE; SHOW ENTITIES; SHOW TABLES; DESCRIBE t; SET format = csv;
INSERT INTO t (a, b) VALUES (1, <<'x'>>) ON CONFLICT DO NOTHING RETURNING *;
UPDATE t SET a = a + 1 REMOVE b WHERE pk = 'x' RETURNING old.*; DELETE FROM t WHERE pk = 'x';
COPY t TO 'f.csv' FORMAT csv; COPY t FROM 'f.jsonl';
CREATE TABLE tt (a S, b N, PRIMARY KEY (a, b)) WITH GSI gix (b) PROJECTION KEYS_ONLY TTL e;
ALTER TABLE tt SET POINT IN TIME RECOVERY ON; EXPLAIN SELECT * FROM t; UNDO LAST;
IMPORT MODEL 'm.json'; EXPORT MODEL t TO 'm.json' SAMPLE 3; DROP ENTITY IF EXISTS e;
BEGIN; EXISTS (SELECT * FROM t WHERE pk = 'a'); COMMIT
"""
)


def test_the_fingerprint_covers_every_module_whose_objects_a_kept_script_holds() -> None:
    """A kept script is its statements pickled: objects of classes from dynosql's modules (an
    entity's templates are dynosql.entity_model's, every position dynosql.position's). An
    edit of any of those modules (a field added) parses again, rather than handing back objects
    made by the code before it."""
    held: set[str] = set()

    class Held(pickle.Pickler):
        def persistent_id(self, obj: Any) -> None:
            held.add(type(obj).__module__)

    Held(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(
        tuple(parser.parse_script(EVERY_KIND))
    )
    ours = sorted(m for m in held if m.split(".")[0] == "dynosql")
    assert {"dynosql.entity_model", "dynosql.position", "dynosql.sql.ast"} <= set(ours)
    for module in ours:
        assert f"\n{ROOT.joinpath(*module.split('.'))}.py:" in cache.fingerprint(), module


def test_the_directory_keeps_a_bounded_number_of_entries(
    kept_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "KEPT_ENTRIES", 4)
    for i in range(7):
        cache.parse_script(f"SELECT * FROM t WHERE pk = '{i}'", across_runs=True)
    assert 2 <= len(list(kept_dir.glob("*.pickle"))) <= 4
    assert not list(kept_dir.glob(".*.tmp"))  # no torn temporary files left


# --- botocore's data loader ------------------------------------------------------------------


def test_the_session_loader_answers_each_service_as_botocore_does() -> None:
    import botocore.loaders

    from dynosql.dynamo import botodata

    ours = botodata.loader(None)
    theirs = botocore.loaders.create_loader()
    every = theirs.list_available_services("service-2")
    for type_name in ("service-2", "waiters-2"):  # every service has a model, fewer have waiters
        listed = theirs.list_available_services(type_name)
        answer = ours.list_available_services(type_name)
        names = {*every, "no-such-service", "", "..", "a/b", "endpoints.json"}
        assert {n for n in names if n in answer} == set(listed)  # one name at a time
        assert list(answer) == listed and len(answer) == len(listed)  # the whole listing
    assert "dynamodb" in every and len(listed) < len(every)


def test_endpoints_resolve_as_from_botocores_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import botocore.loaders
    from botocore.regions import EndpointResolver

    from dynosql.dynamo import botodata

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    stock, path = botocore.loaders.create_loader().load_data_with_path("endpoints")
    theirs = EndpointResolver(stock, uses_builtin_data=True)
    regions = {(p["partition"], r) for p in stock["partitions"] for r in p["regions"]}
    for run in ("first (the whole file, the copy written)", "next (the trimmed copy)"):
        loader = botodata.loader(None)
        data, found = loader.load_data_with_path("endpoints")
        assert found == path and loader.is_builtin_path(found), run
        ours = EndpointResolver(data, uses_builtin_data=True)
        for partition, region in sorted(regions):
            for service in ("dynamodb", "sts", "s3"):  # kept, and two read from the whole file
                assert ours.construct_endpoint(service, region) == theirs.construct_endpoint(
                    service, region
                ), (run, service, region)
            assert ours.get_available_endpoints(
                "dynamodb", partition
            ) == theirs.get_available_endpoints("dynamodb", partition)
        assert list(tmp_path.glob("dynosql/botocore/endpoints-*.json")), run
    trimmed = next(tmp_path.glob("dynosql/botocore/endpoints-*.json"))
    assert trimmed.stat().st_size < 100_000 < os.stat(path + ".json").st_size
    # a copy someone else could have written is not read; the user's own is
    planted = json.loads(trimmed.read_text())
    for partition in planted["partitions"]:
        endpoints = partition["services"]["dynamodb"]["endpoints"]
        endpoints["eu-west-1"] = {"hostname": "elsewhere.example"}
    for mode, read in ((0o666, False), (0o600, True)):
        trimmed.write_text(json.dumps(planted))  # (a refused copy is written anew)
        trimmed.chmod(mode)
        data, _ = botodata.loader(None).load_data_with_path("endpoints")
        found = EndpointResolver(data, uses_builtin_data=True).construct_endpoint(
            "dynamodb", "eu-west-1"
        )
        assert (found["hostname"] == "elsewhere.example") is read, mode


# --- what a keyed lookup sends ---------------------------------------------------------------


def test_a_keyed_lookup_learns_the_backend_from_describe_table(moto_backend: Any) -> None:
    from dynosql.dynamo.capabilities import probe
    from dynosql.session import Session

    table = unique_name("startup")
    moto_backend.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    moto_backend.put_items(table, [{"pk": "x"}])
    client = moto_backend.client()
    sent: list[str] = []
    client.meta.events.register(
        "before-call.dynamodb.*", lambda model, **_: sent.append(model.name)
    )
    session = Session(client)
    assert session.execute(f"SELECT * FROM {table} WHERE pk = 'x'").all() == [{"pk": "x"}]
    assert sent == ["DescribeTable", "GetItem"]  # no ListTables probe before it
    assert session.capabilities == probe(client)  # what the probe would have said
    assert session.capabilities.backend == "moto"


# --- ast's deferred dataclass methods ----------------------------------------------------------


def test_ast_nodes_compare_hash_and_print_as_frozen_dataclasses() -> None:
    import dataclasses

    nodes = [
        ast.Path(("a", "b", 2), "a.b[2]", ast.Pos(1, 2), quoted=True),
        ast.Path(("a", "b", 2), "a.b[2]", ast.Pos(3, 4)),  # pos and quoted: compare=False
        ast.Literal(Decimal("1.50")),
        ast.ShowDeclaredEntities(),
    ]
    for node in nodes:  # the same class written with the stock decorator, field for field
        cls = type(node)
        stock = dataclasses.make_dataclass(
            cls.__name__,
            [
                (f.name, Any, dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash))
                for f in dataclasses.fields(cls)
            ],
            frozen=True,
        )
        twin = stock(**{f.name: getattr(node, f.name) for f in dataclasses.fields(cls)})
        assert repr(node) == repr(twin)
        assert hash(node) == hash(twin)
        with pytest.raises(dataclasses.FrozenInstanceError):
            node.pos = ast.NOWHERE  # type: ignore[misc]
    assert nodes[0] == nodes[1] and hash(nodes[0]) == hash(nodes[1]) and len({*nodes}) == 3
    assert nodes[0] != nodes[2] and (nodes[2] == 1) is False
    assert type(nodes[0]).__eq__ is type(nodes[1]).__eq__  # made once, for the class


def test_ast_methods_are_made_on_first_use_not_at_import() -> None:
    code = (
        "import dynosql.sql.ast as a; c = a.SetPointInTimeRecovery; "
        "made = lambda: c.__dict__['__eq__'].__qualname__; before = made(); "
        "c('t', True) == c('t', True); print(before, made())"
    )
    names = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    assert names == ["_deferred.<locals>.first_call", "SetPointInTimeRecovery.__eq__"]


def test_the_vocabulary_is_made_on_first_use_not_at_import() -> None:
    """Every statement class imports the vocabulary, and a script found parsed on disk needs
    none of it: the kinds' Starters are read (their modules' source) when first asked for."""
    code = (
        "import dynosql.sql.ast, dynosql.sql.keywords as k; "
        "print(k.declared.cache_info().currsize, 'STARTERS' in vars(k)); "
        "'DESCRIBE' in k.STARTER_WORDS; print(k.declared.cache_info().currsize, 'SET' in k.RESERVED)"
    )
    said = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    assert said == ["0", "False", "1", "True"]


def test_the_command_skips_collections_of_what_its_start_built_and_a_caller_of_main_does_not() -> (
    None
):
    # `dynosql` (cli.entry): no cycle collection while starting, what the start built frozen
    # out of later ones; `cli.main` called by another program leaves its collector alone
    code = (
        "import gc, sys\n"
        "from dynosql import cli, process\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(gc.isenabled(), gc.get_freeze_count(), file=sys.stderr)\n"
        "process.collect_less_at_start()\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
        "args = cli.build_parser().parse_args(['--endpoint-url', 'http://127.0.0.1:9'])\n"
        "cli._connect(args, {}, cli._settings(args, False)[0])  # every front door connects\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)\n"
    )
    env = {**os.environ, **AWS_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env
    )
    assert done.stderr.split("\n")[:3] == ["True 0", "False", "True True"]
