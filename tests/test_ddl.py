"""Table statements: the parser, the golden request fixtures (grammar/plans/ddl/), and the
round trips on every server (CREATE → DescribeTable; SHOW CREATE TABLE → CREATE → the same
DescribeTable), the guards (DROP TABLE asks, --yes, deletion protection, --read-only), the
catalog cache after DDL.

``python tests/test_ddl.py --fill`` writes the planner's output into cases without one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from backends import unique_name
from cli_runner import cli_env, run_cli
from test_backends import all_tables
from test_planner_fixtures import Case, parse_fixtures

from dynosql.errors import DynosqlError, GuardError, PlanError, SqlError
from dynosql.plan.ddl import plan_ddl, show_create
from dynosql.plan.schema import table_info
from dynosql.session import Session
from dynosql.sql import ast, parse

GRAMMAR = Path(__file__).resolve().parent.parent / "grammar"
DDL_FIXTURES = sorted((GRAMMAR / "plans" / "ddl").glob("*.txt"))


def _tables() -> dict[str, Any]:
    raw = json.loads((GRAMMAR / "tables.json").read_text(encoding="utf-8"))
    raw.update(json.loads((GRAMMAR / "plans" / "ddl" / "tables.json").read_text("utf-8")))
    return {name: table_info(d) for name, d in raw.items()}


TABLES = _tables()


def _cases() -> list[Case]:
    cases = []
    for path in DDL_FIXTURES:
        cases.extend(parse_fixtures(path.read_text(encoding="utf-8"), str(path)))
    return cases


def actual(case: Case) -> dict[str, Any]:
    statement = parse(case.sql)
    try:
        table = None if isinstance(statement, ast.CreateTable) else TABLES[statement.table]
        return plan_ddl(statement, table).document()
    except PlanError as err:
        return {"error": str(err)}


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_fixture(case: Case) -> None:
    assert case.expected is not None, f"{case.id}: no expectation (run --fill)"
    assert actual(case) == case.expected, case.rule


def test_fixtures_cover_every_statement_kind() -> None:
    kinds = {type(parse(c.sql)).__name__ for c in _cases()}
    assert {"CreateTable", "CreateIndex", "DropIndex", "AlterTable", "DropTable"} <= kinds


# --- parser ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, message",
    [
        ("CREATE TABLE t (pk S)", "line 1, column 21: CREATE TABLE needs PRIMARY KEY"),
        ("CREATE TABLE t (pk X, PRIMARY KEY (pk))", "line 1, column 20: expected a key type"),
        ("CREATE TABLE t (a S, b S, c S, PRIMARY KEY (a, b, c))", "column 44: a primary key"),
        ("CREATE TABLE t (a S, PRIMARY KEY (a)) WITH LSI l (a)", "an LSI names the table's"),
        ("CREATE TABLE t (a S, PRIMARY KEY (a)) BILLING FREE", "expected PAY_PER_REQUEST"),
        ("CREATE TABLE t (a S, PRIMARY KEY (a)) BILLING PROVISIONED (0, 1)", "at least 1"),
        ("CREATE TABLE t (a S, PRIMARY KEY (a))\n  WITH FOO", "line 2, column 8: expected GSI"),
        ("DROP INDEX i", "expected ON, got end of statement"),
        ("ALTER TABLE t SET COLOUR red", "expected BILLING or TTL or DELETION"),
        ("COPY t TO 'out.txt'", "cannot tell the format from the file name"),
        ("COPY t TO 'out.csv' FORMAT xml", "COPY TO takes FORMAT jsonl, csv, json, dynamodb"),
        ("COPY t FROM 'in.txt'", "cannot tell the format"),
        ("COPY t FROM 'in.json' START AT LINE 3", "column 32: COPY FROM a json file continues"),
        ("COPY t FROM 'in.csv' START AT ELEMENT 3", "with START AT LINE n"),
        ("COPY t FROM 'in.json' START AT ELEMENT 0", "elements are counted from 1"),
        ("COPY (SELECT * FROM t WHERE a = 1 TO 'x.csv'", "no closing parenthesis"),
        ("SHOW CREATE TABLE", "expected a table name"),
    ],
)
def test_parse_errors(sql: str, message: str) -> None:
    with pytest.raises(SqlError) as err:
        parse(sql)
    assert message in str(err.value)


def test_parse_statements() -> None:
    s = parse('CREATE TABLE "my t" ("PRIMARY" S, PRIMARY KEY ("PRIMARY")) TTL "off";')
    assert isinstance(s, ast.CreateTable)
    assert (s.table, s.hash, s.ttl, s.attributes) == ("my t", "PRIMARY", "off", (("PRIMARY", "S"),))
    assert parse("ALTER TABLE t SET TTL OFF") == ast.AlterTable("t", ttl_off=True)
    assert parse("alter table t set deletion protection off") == ast.AlterTable(
        "t", deletion_protection=False
    )
    copy = parse("COPY (SELECT a FROM t WHERE b = ')') TO 'x.csv.gz'")
    assert isinstance(copy, ast.CopyTo) and copy.format == "csv" and copy.query is not None
    assert copy.query.table == "t"
    copy_from = parse("COPY t FROM 'f.jsonl' START AT LINE 812 SKIP BAD 'bad.jsonl'")
    assert copy_from == ast.CopyFrom("t", "f.jsonl", "jsonl", 812, True, "bad.jsonl")
    from_json = parse("COPY t FROM 'f.json.gz' START AT ELEMENT 5")
    assert from_json == ast.CopyFrom("t", "f.json.gz", "json", 5)
    # the SELECT's own errors keep the script's positions
    with pytest.raises(SqlError, match="line 2, column"):
        parse("COPY (SELECT *\n FROM t WHERE) TO 'x.csv'")


# --- SHOW CREATE TABLE, offline ----------------------------------------------------------------


def test_show_create_reads_back_as_the_same_create() -> None:
    """Every fixture table's SHOW CREATE output parses and plans to a CreateTable carrying
    the same keys, definitions, billing and indexes."""
    raw = json.loads((GRAMMAR / "tables.json").read_text(encoding="utf-8"))
    raw.update(json.loads((GRAMMAR / "plans" / "ddl" / "tables.json").read_text("utf-8")))
    for name, description in raw.items():
        statement = parse(show_create(description))
        params = plan_ddl(statement).calls[0].params
        assert params["TableName"] == name
        assert params["KeySchema"] == description["KeySchema"]
        definitions = {
            a["AttributeName"]: a["AttributeType"] for a in params["AttributeDefinitions"]
        }
        assert definitions == {
            a["AttributeName"]: a["AttributeType"] for a in description["AttributeDefinitions"]
        }
        for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            want = {
                ix["IndexName"]: (ix["KeySchema"], ix["Projection"])
                for ix in description.get(field, [])
            }
            got = {
                ix["IndexName"]: (ix["KeySchema"], ix["Projection"]) for ix in params.get(field, [])
            }
            assert got == want, (name, field)
        assert params.get("DeletionProtectionEnabled", False) == description.get(
            "DeletionProtectionEnabled", False
        )


# --- on the servers ----------------------------------------------------------------------------

# Every key type, both billing modes, GSIs and LSIs with every projection kind.
ROUND_TRIPS = [
    "CREATE TABLE {t} (id S, PRIMARY KEY (id))",
    "CREATE TABLE {t} (n N, b B, PRIMARY KEY (n, b)) BILLING PROVISIONED (3, 2)",
    "CREATE TABLE {t} (b B, s S, PRIMARY KEY (b, s))",
    "CREATE TABLE {t} (pk S, sk N, g S, h B, total N, PRIMARY KEY (pk, sk))"
    " WITH GSI g_all (g, sk) PROJECTION ALL"
    " WITH GSI g_keys (h) PROJECTION KEYS_ONLY"
    " WITH GSI g_inc (g, total) PROJECTION INCLUDE (note, extra)"
    " WITH LSI l_keys (pk, total) PROJECTION KEYS_ONLY"
    " WITH LSI l_inc (pk, g) PROJECTION INCLUDE (note)"
    " WITH LSI l_all (pk, h) PROJECTION ALL",
    "CREATE TABLE {t} (pk N, g N, PRIMARY KEY (pk)) BILLING PROVISIONED (7, 3)"
    " WITH GSI gs1 (g) PROJECTION KEYS_ONLY PROVISIONED (2, 1) WITH GSI gs2 (g, pk)",
]

_VOLATILE = {
    "TableName",
    "TableArn",
    "TableId",
    "CreationDateTime",
    "IndexArn",
    "LatestStreamArn",
    "LatestStreamLabel",
    "LastIncreaseDateTime",
    "LastDecreaseDateTime",
    "NumberOfDecreasesToday",
    "LastUpdateToPayPerRequestDateTime",
    "ItemCount",
    "TableSizeBytes",
    "IndexSizeBytes",
}


def normalised(description: Any) -> Any:
    """A DescribeTable without what differs between two tables of the same shape (names,
    ARNs, times, counts); lists of indexes sorted by name."""
    if isinstance(description, dict):
        return {k: normalised(v) for k, v in description.items() if k not in _VOLATILE}
    if isinstance(description, list):
        items = [normalised(v) for v in description]
        if items and all(isinstance(v, dict) and "IndexName" in v for v in description):
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
        if items and all(isinstance(v, dict) and "AttributeName" in v for v in items):
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
        return items
    return description


def _session(backend: Any) -> Session:
    session = Session(backend.client())
    session.confirm = lambda question: True
    return session


def _with_index_names(description: dict[str, Any]) -> dict[str, Any]:
    out = normalised(description)
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        for ix in out.get(field, []):
            ix.pop("IndexStatus", None)
    return out


@pytest.mark.parametrize("template", ROUND_TRIPS, ids=range(len(ROUND_TRIPS)))
def test_create_show_create_round_trip(backend: Any, template: str) -> None:
    session = _session(backend)
    first, second = unique_name(), unique_name()
    session.execute(template.format(t=first)).all()
    described = session.client.describe_table(TableName=first)["Table"]
    statement = parse(template.format(t=first))
    want = plan_ddl(statement).calls[0].params
    # CREATE → DESCRIBE: keys, definitions, indexes, projections, billing as asked
    assert described["KeySchema"] == want["KeySchema"]
    assert normalised(described["AttributeDefinitions"]) == normalised(want["AttributeDefinitions"])
    for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        got = {
            ix["IndexName"]: (ix["KeySchema"], ix["Projection"]) for ix in described.get(field, [])
        }
        asked = {ix["IndexName"]: (ix["KeySchema"], ix["Projection"]) for ix in want.get(field, [])}
        assert got == asked
    info = table_info(described)
    assert info.billing_mode == want["BillingMode"]
    # SHOW CREATE TABLE → CREATE under another name → the same DescribeTable
    text = session.execute(f"SHOW CREATE TABLE {first}").all()[0]["statement"]
    assert text.startswith(f"CREATE TABLE {first} (")
    session.execute(text.replace(f"CREATE TABLE {first} (", f"CREATE TABLE {second} (", 1)).all()
    again = session.client.describe_table(TableName=second)["Table"]
    assert _with_index_names(again) == _with_index_names(described)
    for name in (first, second):
        session.execute(f"DROP TABLE {name}").all()
    assert first not in session.tables() and second not in session.tables()


@pytest.fixture(params=["moto", "ddblocal"])
def builder(request: pytest.FixtureRequest) -> Any:
    """The servers that implement TTL, deletion protection and GSI builds (dynalite does not)."""
    return request.getfixturevalue(f"{request.param}_backend")


def test_ttl_and_deletion_protection_round_trip(builder: Any) -> None:
    """moto and DynamoDB Local implement TTL and deletion protection (dynalite does neither)."""
    session = _session(builder)
    first, second = unique_name(), unique_name()
    session.execute(
        f"CREATE TABLE {first} (pk S, PRIMARY KEY (pk)) TTL expires DELETION PROTECTION"
    ).all()
    text = session.execute(f"SHOW CREATE TABLE {first}").all()[0]["statement"]
    assert text.endswith("TTL expires\nDELETION PROTECTION;")
    session.execute(text.replace(first, second, 1)).all()
    ttl = session.client.describe_time_to_live(TableName=second)["TimeToLiveDescription"]
    assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "expires")
    with pytest.raises(PlanError, match="deletion protection on"):
        session.execute(f"DROP TABLE {second}").all()
    session.execute(f"ALTER TABLE {second} SET TTL OFF").all()
    session.execute(f"ALTER TABLE {second} SET DELETION PROTECTION OFF").all()
    text = session.execute(f"SHOW CREATE TABLE {second}").all()[0]["statement"]
    assert "TTL" not in text and "DELETION" not in text
    session.execute(f"DROP TABLE {second}").all()
    session.execute(f"ALTER TABLE {first} SET DELETION PROTECTION OFF").all()
    session.execute(f"DROP TABLE {first}").all()


def test_alter_billing_and_indexes(builder: Any) -> None:
    """CREATE INDEX waits for the GSI to be built and backfilled (DynamoDB Local reports it
    CREATING for a while, as DynamoDB does; moto makes it at once), then the index answers."""
    session = _session(builder)
    notes: list[str] = []
    session.notice = notes.append
    t = unique_name()
    session.execute(f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))").all()
    builder.put_items(t, [{"pk": f"k{i}", "g": f"g{i % 3}", "pad": "x" * 1500} for i in range(30)])
    session.execute(f"CREATE INDEX by_g ON {t} (g S) PROJECTION ALL").all()
    assert len(notes) == 1 and "30 index entries" in notes[0] and "~60 WCU" in notes[0], notes
    assert [ix.name for ix in session.table(t).indexes] == ["by_g"]
    rows = session.execute(f"SELECT pk FROM {t}.by_g WHERE g = 'g1'").all()
    assert len(rows) == 10
    session.execute(f"ALTER TABLE {t} SET BILLING PROVISIONED (4, 3)").all()
    info = session.table(t)
    assert (info.billing_mode, info.provisioned_rcu, info.provisioned_wcu) == ("PROVISIONED", 4, 3)
    session.execute(f"DROP INDEX by_g ON {t}").all()
    assert session.table(t).indexes == ()
    session.execute(f"ALTER TABLE {t} SET BILLING PAY_PER_REQUEST").all()
    assert session.table(t).billing_mode == "PAY_PER_REQUEST"
    session.execute(f"DROP TABLE {t}").all()


def test_unsupported_index_change_is_reported_not_waited_for(dynalite_backend: Any) -> None:
    """dynalite accepts a GSI Create and never makes the index: an error, not a 30-minute wait.
    (DynamoDB, and DynamoDB Local, build it: test_alter_billing_and_indexes.)"""
    session = _session(dynalite_backend)
    t = unique_name()
    session.execute(f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk)) BILLING PROVISIONED (1, 1)").all()
    import dynosql.statements.table as ddl

    saved, ddl.UNSTARTED_TIMEOUT = ddl.UNSTARTED_TIMEOUT, 0.2
    try:
        with pytest.raises(DynosqlError, match="has not started it"):
            session.execute(f"CREATE INDEX gxx ON {t} (g S)").all()
    finally:
        ddl.UNSTARTED_TIMEOUT = saved
    session.execute(f"DROP TABLE {t}").all()


def test_drop_table_asks_with_count_and_size(backend: Any) -> None:
    session = Session(backend.client())
    t = unique_name()
    session.execute(f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))").all()
    backend.put_items(t, [{"pk": f"k{i}"} for i in range(3)])
    with pytest.raises(GuardError, match=f"DROP TABLE {t} deletes .* items .*needs --yes"):
        session.execute(f"DROP TABLE {t}").all()
    asked: list[str] = []
    session.confirm = lambda q: asked.append(q) or False
    result = session.execute(f"DROP TABLE {t}")
    assert result.title == f"cancelled: {t} was kept"
    assert t in session.tables()
    assert "deletes" in asked[0] and asked[0].endswith("Drop it?")  # the door adds [y/N]
    session.confirm = lambda q: True
    session.execute(f"DROP TABLE {t}").all()
    assert t not in session.tables()


def test_cli_guards(backend: Any, tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    url = ["--endpoint-url", backend.endpoint_url]
    t = unique_name()
    run = run_cli(*url, "-e", f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))", env=env)
    assert run.returncode == 0, run.stderr
    run = run_cli(*url, "--read-only", "-e", f"DROP TABLE {t}", env=env)
    assert run.returncode == 3
    assert run.one_error() == (
        "error: refused: read_only is on, so DROP TABLE was not sent (nothing was changed)"
    )
    run = run_cli(*url, "-e", f"DROP TABLE {t}", env=env)
    assert run.returncode == 3 and "needs --yes" in run.one_error()
    run = run_cli(*url, "-e", f"SHOW CREATE TABLE {t}", "--format", "csv", env=env)
    assert run.returncode == 0 and f"CREATE TABLE {t} (" in run.stdout
    run = run_cli(*url, "--yes", "--dry-run", "-e", f"DROP TABLE {t}", env=env)
    assert run.returncode == 0, run.stderr
    assert f"DROP TABLE {t} dry run: would send DeleteTable; nothing was sent" in run.stderr
    run = run_cli(*url, "--dry-run", "-e", f"CREATE TABLE {t}x (pk S, PRIMARY KEY (pk))", env=env)
    assert run.returncode == 0 and "would send CreateTable; nothing was sent" in run.stderr
    names = all_tables(backend.client())
    assert t in names and f"{t}x" not in names
    run = run_cli(*url, "--yes", "-e", f"DROP TABLE {t}", env=env)
    assert run.returncode == 0, run.stderr
    assert f"DROP TABLE {t} · done" in run.stderr


def test_catalog_forgotten_after_ddl_completion_too(moto_backend: Any) -> None:
    from dynosql.repl.completer import SessionMetadata

    session = _session(moto_backend)
    metadata = SessionMetadata(session)
    t = unique_name()
    assert t not in metadata.table_names()
    session.execute(f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))").all()
    assert t in metadata.table_names()
    assert metadata.table(t) is not None
    session.execute(f"DROP TABLE {t}").all()
    assert t not in metadata.table_names()
    assert metadata.table(t) is None


# --- filling expectations ----------------------------------------------------------------------


def _expectation(document: dict[str, Any]) -> str:
    """One request per line, like the SELECT fixtures."""
    if "error" in document:
        return json.dumps(document, ensure_ascii=False)
    lines = [json.dumps(r, ensure_ascii=False) for r in document["requests"]]
    return '{"requests": [\n  ' + ",\n  ".join(lines) + "\n]}"


def _fill() -> None:
    for path in DDL_FIXTURES:
        text = path.read_text(encoding="utf-8")
        out = []
        for case in parse_fixtures(text, str(path)):
            if case.expected is None:
                out.append((case, _expectation(actual(case))))
        for case, expected in out:
            text = text.replace(case.sql + "\n", case.sql + "\n" + expected + "\n", 1)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if "--fill" in sys.argv:
        _fill()


class _Terminal:
    """A terminal's stdin holding one typed answer."""

    def __init__(self, answer: str):
        self.answer = answer

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.answer


@pytest.mark.parametrize(
    "answer, yes", [("y\n", True), ("YES\n", True), ("\n", False), ("", False)]
)
def test_cli_asks_on_a_terminal(
    moto_backend: Any, monkeypatch: pytest.MonkeyPatch, answer: str, yes: bool
) -> None:
    import io

    from dynosql import cli

    session = Session(moto_backend.client())
    args = cli.build_parser().parse_args([])
    monkeypatch.setattr(sys, "stdin", _Terminal(answer))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    cli._doors(session, args, interactive=False)
    assert session.confirm is not None
    assert session.context.confirmed("Drop it?", "refused") is yes
    assert err.getvalue() == "Drop it? [y/N] "
    cli._doors(session, cli.build_parser().parse_args(["--yes"]), interactive=False)
    assert session.context.confirmed("Drop it?", "refused") is True


def test_explain_shows_the_requests_and_sends_nothing(moto_backend: Any) -> None:
    session = _session(moto_backend)
    t = unique_name()
    result = session.execute(f"EXPLAIN CREATE TABLE {t} (pk S, PRIMARY KEY (pk)) TTL exp")
    lines = [row["plan"] for row in result.all()]
    assert lines[0] == f"CREATE TABLE {t}"
    assert lines[1] == "request 1 of 2: CreateTable"
    assert "request 2 of 2: UpdateTimeToLive" in lines
    assert lines[-1] == f"then: wait until {t} and its indexes are ACTIVE"
    assert result.footer() == "plan only: no request was sent"
    assert result.document["requests"][0]["operation"] == "CreateTable"
    assert t not in session.tables()
    session.execute(f"CREATE TABLE {t} (pk S, PRIMARY KEY (pk))").all()
    moto_backend.put_items(t, [{"pk": f"k{i}", "g": "x" * 2000} for i in range(4)])
    lines = [r["plan"] for r in session.execute(f"EXPLAIN CREATE INDEX by_g ON {t} (g S)").all()]
    assert "estimate: the backfill writes ~4 index entries" in lines[-2]
    assert lines[-1] == "then: wait until index by_g is ACTIVE (backfilled)"
    assert session.table(t).indexes == ()
    with pytest.raises(SqlError, match="line 1, column 9: EXPLAIN ANALYZE runs SELECTs only"):
        session.execute(f"EXPLAIN ANALYZE DROP TABLE {t}")
    session.execute(f"DROP TABLE {t}").all()
