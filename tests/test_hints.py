"""Issue 11: the mistakes a new user makes, caught through the real ``dynosql`` command — the
hint text, where it appears (before the read, or as a note after an empty result), no Scan
sent under ``--fail-on-scan`` where the hint applies, and the exit codes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import Run, cli_env, run_cli

ALICE = "PK = 'DRIVE#alice'"
ANA = "PK = 'ACTOR#ana.silva'"

# A few runs of the command, several statements each.
RUNS: dict[str, tuple[str, ...]] = {
    "qualified": (
        "--fail-on-scan",
        "--format",
        "csv",
        "-e",
        "SELECT drive.SK FROM drive WHERE drive.PK = 'DRIVE#bob' AND drive.SK = 'root/'",
        "-e",
        "SELECT d.SK, d.name FROM drive AS d WHERE d.PK = 'DRIVE#bob' ORDER BY d.SK LIMIT 2",
        "-e",
        f"SELECT COUNT(*) FROM audit WHERE {ANA} AND ok = 1",
        "-e",
        f"SELECT SK FROM drive WHERE {ALICE} AND begins_with(SK, 'root/foto/')",
        "-e",
        f"SELECT SK FROM drive WHERE {ALICE} AND SK LIKE 'root/photos/2027%'",
        "-e",
        f"SELECT SK, sizee FROM drive WHERE {ALICE} LIMIT 2",
    ),
    "sampled": (
        "--format",
        "csv",
        "-e",
        f"SELECT size AS bytes FROM drive WHERE {ALICE} AND bytes > 10",
        "-e",
        f"SELECT sizee FROM drive WHERE {ALICE} AND sizee > 1",
        "-e",
        f"SELECT COUNT(*) AS n FROM audit WHERE {ANA} AND ok = 'true'",
        "-e",
        "SELECT COUNT(*) AS n FROM audit WHERE latencyMs > '100'",
    ),
    "case": ("--fail-on-scan", "-e", "SELECT SK FROM drive WHERE pk = 'DRIVE#alice'"),
    "case-scan": ("-e", "SELECT COUNT(*) AS n FROM drive WHERE pk = 'DRIVE#alice'"),
    "quoted": ("--fail-on-scan", "-e", 'SELECT SK FROM drive WHERE PK = "DRIVE#alice"'),
    "table": ("-e", "SELECT * FROM drvie WHERE PK = 'x'"),
}


@pytest.fixture(scope="module")
def runs(
    moto_examples_backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Run]:
    """Each command in-process against the example tables on moto (as ``--local`` has them)."""
    env = cli_env(tmp_path_factory.mktemp("hints"))
    url = ("--endpoint-url", moto_examples_backend.endpoint_url)
    return {k: run_cli(*url, *args, env=env) for k, args in RUNS.items()}


def blocks(run: Run) -> list[list[str]]:
    """stderr cut into one block per statement (each ends with its footer)."""
    out: list[list[str]] = [[]]
    for line in run.err_lines:
        out[-1].append(line)
        if " · " in line and not line.startswith(("warning:", "note:")):
            out.append([])
    return out[:-1] if not out[-1] else out


def test_table_qualified_columns_and_aliases_use_the_keys(runs) -> None:
    run = runs["qualified"]
    assert run.returncode == 0, run.stderr
    first, second = blocks(run)[:2]
    assert first[-1].startswith("1 row · GetItem drive"), first
    assert second[-1].startswith("2 rows · Query drive"), second
    csv_docs = run.stdout.split("SK")
    assert run.stdout.startswith("SK\nroot/\nSK,name\nroot/,root\nroot/documents/,documents\n")
    assert len(csv_docs) > 2


def at_the_repl(backend: Backend, sql: str, **settings: Any) -> tuple[list[str], Any]:
    """A statement's notes and stats as the REPL runs it: a person is there
    (``interactive``), so a hint may read a bounded sample, its cost a note of its own."""
    from dynosql.session import Session
    from dynosql.settings import Settings

    with Session(backend.client(), settings=Settings(**settings)) as session:
        session.interactive = True
        result = session.execute(sql)
        result.all()
        return result.notes, result.stats


def test_in_a_script_under_fail_on_scan_the_hints_read_nothing(runs) -> None:
    """Issue 22: outside the REPL a hint reads nothing the statement did not read. The keyed
    reads that found nothing (or left a column unfilled) are one request each, no notes."""
    run = runs["qualified"]
    third, fourth, fifth, sixth = blocks(run)[2:6]
    assert "COUNT(*)\n0\n" in run.stdout  # DynamoDB's answer (moto alone would say 136)
    for block, operation in (
        (third, "Query audit"),
        (fourth, "Query drive"),
        (sixth, "Query drive"),
    ):
        assert len(block) == 1 and block[0].split(" · ")[1] == operation, block
    assert fifth == [fifth[-1]], fifth


def test_number_compared_with_a_boolean_is_false_and_hinted(moto_examples_backend) -> None:
    sql = f"SELECT COUNT(*) FROM audit WHERE {ANA} AND ok = 1"
    notes, _stats = at_the_repl(moto_examples_backend, sql, fail_on_scan=True)
    assert notes[0].startswith("read for the hints: ") and "one Query" in notes[0], notes
    assert notes[1] == (
        "ok holds boolean values in a 100-item sample, and 1 is a number: no item of the "
        "seen types can match (did you mean ok = TRUE?)"
    ), notes


def test_empty_begins_with_lists_existing_prefixes(moto_examples_backend) -> None:
    sql = f"SELECT SK FROM drive WHERE {ALICE} AND begins_with(SK, 'root/foto/')"
    notes, _stats = at_the_repl(moto_examples_backend, sql, fail_on_scan=True)
    assert notes[0].startswith(
        "no SK under PK = 'DRIVE#alice' begins with 'root/foto/'; existing prefixes: "
        "root/archive/, root/documents/, root/music/, root/photos/, root/projects/; "
        "did you mean 'root/photos/'? (from 7 keys-only Queries with Limit 1, 3.5 RCU)"
    ), notes
    sql = f"SELECT SK FROM drive WHERE {ALICE} AND SK LIKE 'root/photos/2027%'"
    notes, _stats = at_the_repl(moto_examples_backend, sql, fail_on_scan=True)
    assert notes[0].startswith(
        "no SK under PK = 'DRIVE#alice' begins with 'root/photos/2027'; existing prefixes: "
        "root/photos/2025/, root/photos/2026/;"
    ), notes


def test_a_column_no_row_filled_is_checked_against_the_partition(moto_examples_backend) -> None:
    """Rows came back, but none had `sizee`: at the REPL under --fail-on-scan the names are
    checked against the partition the Query read (a Query, not a Scan)."""
    sql = f"SELECT SK, sizee FROM drive WHERE {ALICE} LIMIT 2"
    notes, _stats = at_the_repl(moto_examples_backend, sql, fail_on_scan=True)
    assert notes[-1] == "no item of a 100-item sample has sizee; closest: size", notes
    assert notes[0].startswith("read for the hints: 100 items of the partition read (one Query")


def test_select_alias_unknown_names_and_string_numbers_are_named(
    runs, moto_examples_backend
) -> None:
    run = runs["sampled"]
    assert run.returncode == 0, run.stderr
    alias = blocks(run)[0]
    assert alias[0] == (
        "warning: bytes is a select-list alias; WHERE sees only attributes: write size"
    )
    # a script reads no sample for its hints (issue 22): these are named at the REPL
    assert "sample" not in run.stderr
    sql = f"SELECT sizee FROM drive WHERE {ALICE} AND sizee > 1"
    notes, _stats = at_the_repl(moto_examples_backend, sql)
    assert "no item of a 100-item sample has sizee; closest: size" in notes, notes
    sql = f"SELECT COUNT(*) AS n FROM audit WHERE {ANA} AND ok = 'true'"
    notes, _stats = at_the_repl(moto_examples_backend, sql)
    assert any(
        n.startswith("ok holds boolean values") and "did you mean ok = TRUE?" in n for n in notes
    ), notes
    from dynosql.session import Session

    with Session(moto_examples_backend.client()) as session:
        session.interactive = True
        result = session.execute("SELECT COUNT(*) AS n FROM audit WHERE latencyMs > '100'")
        # a Scan: the hint comes before it (ahead of the Scan warning), not after
        assert result.warnings[0] == (
            "latencyMs holds number values in a 100-item sample, and '100' is a string: no "
            "item of the seen types can match (did you mean latencyMs > 100?)"
        ), result.warnings
        assert result.warnings[1].startswith("Scan of audit")
        result.all()


def test_case_of_a_key_name_refused_before_the_scan(runs) -> None:
    run = runs["case"]
    assert run.returncode == 3 and run.stdout == ""
    assert run.one_error().endswith(
        "--fail-on-scan is set; hint: no attribute pk; the partition key is PK "
        "(names are case-sensitive)"
    )


def test_case_of_a_key_name_warned_before_the_scan(runs) -> None:
    run = runs["case-scan"]
    assert run.returncode == 0
    assert run.err_lines[0] == (
        "warning: no attribute pk; the partition key is PK (names are case-sensitive)"
    )
    assert run.err_lines[1].startswith("warning: Scan of drive")


def test_double_quoted_value(runs) -> None:
    run = runs["quoted"]
    assert run.returncode == 3 and run.stdout == ""
    assert run.one_error().endswith(
        'hint: "DRIVE#alice" in double quotes names an attribute, and no item has one: did you '
        "mean the string 'DRIVE#alice'?"
    )


def test_unknown_table_names_the_closest(runs) -> None:
    run = runs["table"]
    assert run.returncode == 1
    assert run.one_error() == (
        "error: no table named drvie in region us-east-1; did you mean drive? (tables: audit, drive, sensors, tenants, usage)"
    )


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELEC * FROM drive", "error: line 1, column 1: unknown word SELEC: did you mean SELECT?"),
        ("SELECT * FORM drive", "error: line 1, column 10: unknown word FORM: did you mean FROM?"),
        (
            "SELECT * FROM drive LIMT 5",
            "error: line 1, column 21: unknown word LIMT: did you mean LIMIT?",
        ),
        (
            "SELECT * FROM drive WHERE begin_with(SK, 'a')",
            "error: line 1, column 27: unknown function begin_with(): did you mean begins_with()?",
        ),
        # the first word: compared with the words a statement starts with first
        *(
            (
                f"{word} {rest}",
                f"error: line 1, column 1: unknown word {word}: did you mean {meant}?",
            )
            for word, meant, rest in [
                ("CRETE", "CREATE", "TABLE t (pk S, PRIMARY KEY (pk))"),
                ("UPDAT", "UPDATE", "drive SET a = 1 WHERE PK = 'x' AND SK = 'y'"),
                ("SELEC", "SELECT", "* FROM drive"),
                ("DELTE", "DELETE", "FROM drive WHERE PK = 'x' AND SK = 'y'"),
                ("INSRT", "INSERT", "INTO drive (PK, SK) VALUES ('x', 'y')"),
            ]
        ),
        (
            "EXPLAIN UPDAT drive SET a = 1",
            "error: line 1, column 9: unknown word UPDAT: did you mean UPDATE?",
        ),
        # later words, in writes and table statements too
        (
            "UPDATE drive SETT a = 1 WHERE PK = 'x'",
            "error: line 1, column 14: unknown word SETT: did you mean SET?",
        ),
        (
            "CREATE TABL t (pk S, PRIMARY KEY (pk))",
            "error: line 1, column 8: unknown word TABL: did you mean TABLE?",
        ),
        (
            "CREATE TABLE t (pk S, PRIMARY KEY (pk)) BILING PAY_PER_REQUEST",
            "error: line 1, column 41: unknown word BILING: did you mean BILLING?",
        ),
        (
            "COPY drive TO 'x.csv' FORMT csv",
            "error: line 1, column 23: unknown word FORMT: did you mean FORMAT?",
        ),
    ],
)
def test_misspelt_keywords_fail_before_connecting(sql: str, message: str) -> None:
    run = run_cli("--endpoint-url", "http://127.0.0.1:9", "-e", sql)
    assert run.returncode == 1 and run.one_error() == message


# --- a generated table: prefix collisions ---------------------------------------------------------


@pytest.fixture(scope="module")
def overloaded(backend: Backend) -> tuple[Backend, str]:
    name = unique_name("ovl")
    backend.create_keyed_table(name, sk=("sk", "S"))
    items = [{"pk": "T#1", "sk": f"USER#{i:02d}", "n": Decimal(i)} for i in range(3)]
    items += [{"pk": "T#1", "sk": f"USERGROUP#{i:02d}"} for i in range(2)]
    items += [{"pk": "T#1", "sk": "INVOICE#000001"}]
    backend.put_items(name, items)
    return backend, name


def test_prefix_that_spans_entity_types(overloaded: tuple[Backend, str]) -> None:
    backend, name = overloaded
    sql = f"SELECT sk FROM {name} WHERE pk = 'T#1' AND begins_with(sk, 'USER')"
    run = run_cli("--endpoint-url", backend.endpoint_url, "--format", "csv", "-e", sql)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("USER") == 5
    assert run.err_lines[0] == (
        "note: begins_with(sk, 'USER') matches more than one entity type (USER#…, USERGROUP#…): "
        "use 'USER#'"
    )
    exact = f"SELECT sk FROM {name} WHERE pk = 'T#1' AND begins_with(sk, 'USER#')"
    run = run_cli("--endpoint-url", backend.endpoint_url, "-e", exact)
    assert run.returncode == 0 and not any(line.startswith("note:") for line in run.err_lines)


def test_explain_shows_key_name_hints_without_reading(overloaded: tuple[Backend, str]) -> None:
    from dynosql.session import Session

    backend, name = overloaded
    with Session(backend.client()) as session:
        result = session.execute(f"EXPLAIN SELECT sk FROM {name} WHERE PK = 'T#1'")
        lines = [row["plan"] for row in result.all()]
    assert lines[0] == f"Scan {name}"
    assert lines[2] == "hint: no attribute PK; the partition key is pk (names are case-sensitive)"
    assert result.stats.requests == 0


def test_a_map_attribute_named_like_the_table_wins_only_when_seen() -> None:
    """The rule for `t.col`: the column col, unless t is a key or a sampled attribute."""
    from dynosql.plan.qualified import resolve_qualified as unqualify
    from dynosql.plan.schema import table_info
    from dynosql.sql import parse

    info = table_info(
        {
            "TableName": "drive",
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        }
    )
    statement = parse("SELECT drive.SK, x.y FROM drive WHERE drive.PK = 'a'")
    plain = unqualify(statement, info)
    assert [i.expr.elements for i in plain.items] == [("SK",), ("x", "y")]
    assert [i.name for i in plain.items] == ["SK", "x.y"]
    assert plain.where.left.elements == ("PK",)
    seen = unqualify(statement, info, {"drive": {"M"}})
    assert [i.expr.elements for i in seen.items] == [("drive", "SK"), ("x", "y")]
    aliased = unqualify(parse("SELECT d.SK FROM drive AS d WHERE d.PK = 'a'"), info)
    assert aliased.items[0].expr.elements == ("SK",) and aliased.where.left.elements == ("PK",)


def test_the_hint_sample_is_counted_in_the_session_total(overloaded: tuple[Backend, str]) -> None:
    from dynosql.session import Session

    backend, name = overloaded
    with Session(backend.client()) as session:
        session.interactive = True  # as the REPL runs it: a script reads no sample (issue 22)
        session.table(name)
        result = session.execute(f"SELECT sk FROM {name} WHERE nn = 1")  # a Scan naming nn
        assert result.warnings[0] == "no item of a 6-item sample has nn; closest: n"
        assert result.all() == []
        # every backend (the embedded moto too: its DescribeTable has sizes, no sample needed)
        assert session.total_capacity - result.stats.capacity == Decimal("0.5")
        # read for the hint: its cost is a note of its own
        assert (
            result.notes[0]
            == f"read for the hints: a 6-item sample of {name} (one Scan page, 0.5 RCU)"
        )
    with Session(backend.client()) as script:
        result = script.execute(f"SELECT sk FROM {name} WHERE nn = 1")
        assert result.all() == []
        assert script.total_capacity == result.stats.capacity  # nothing read for a hint


# --- issue 22: a Scan's names checked on its own first page --------------------------------------


def _scans(session: Any) -> list[dict[str, Any]]:
    """Every Scan request the session's client sends from now on (its parameters)."""
    sent: list[dict[str, Any]] = []
    session.client.meta.events.register(
        "before-parameter-build.dynamodb.Scan", lambda params, **_: sent.append(dict(params))
    )
    return sent


def test_a_scripts_scan_checks_names_on_its_own_first_page(overloaded) -> None:
    """Outside the REPL no sample is read: the Scan's first page comes back whole (the same
    items evaluated, the same bill, the same one request), its names are checked, and the
    WHERE is applied to it client-side."""
    from dynosql.session import Session

    backend, name = overloaded
    with Session(backend.client()) as script:
        sent = _scans(script)
        result = script.execute(f"SELECT sk FROM {name} WHERE nn = 1")
        assert result.all() == []
        assert result.notes == ["no item of the Scan's first page (6 items) has nn; closest: n"]
        assert result.stats.requests == 1 and len(sent) == 1
        assert "FilterExpression" not in sent[0] and "ProjectionExpression" not in sent[0]
        assert script.total_capacity == result.stats.capacity == Decimal("0.5")
        # a WHERE that matches: the first page is filtered here, as DynamoDB would have
        result = script.execute(f"SELECT sk FROM {name} WHERE n >= 1 AND begins_with(sk, 'U')")
        assert sorted(r["sk"] for r in result.all()) == ["USER#01", "USER#02"]
        assert result.notes == [] and result.stats.requests == 1


def test_the_first_page_hint_is_told_before_the_rest_is_read(moto_backend: Backend) -> None:
    """A script learns of a misspelt attribute while its Scan goes on: the note is said after
    the first page (whole items, up to DynamoDB's 1 MB), and the Scan reads the rest, with its
    filter, from where that page ended."""
    from dynosql.session import Session

    name = unique_name("pages")
    moto_backend.create_keyed_table(name, sk=("sk", "N"))
    pad = "x" * 4000  # 300 items of ~4 KB: two 1 MB pages
    moto_backend.put_items(
        name, [{"pk": "p", "sk": Decimal(i), "status": "open", "pad": pad} for i in range(300)]
    )
    with Session(moto_backend.client()) as script:
        sent = _scans(script)
        told: list[tuple[str, int]] = []
        script.notice = lambda text: told.append((text, len(sent)))
        result = script.execute(f"SELECT * FROM {name} WHERE stauts = 'open'")
        assert result.all() == []
    ((text, requests_then),) = told
    assert requests_then == 1 and text.endswith("items) has stauts; closest: status"), text
    assert result.notes == []  # said once, as it was found
    assert len(sent) == 2 and "Limit" not in sent[0] and "FilterExpression" not in sent[0]
    assert "FilterExpression" in sent[1] and "ExclusiveStartKey" in sent[1]
    assert result.stats.items_scanned == 300 and result.stats.requests == 2


def test_a_scripts_count_checks_names_on_its_scans_first_page(overloaded) -> None:
    """COUNT(*) over a Scan (Select=COUNT): its first page comes back whole instead, is
    counted here with the WHERE, and its names are checked; the count is DynamoDB's."""
    from dynosql.session import Session

    backend, name = overloaded
    with Session(backend.client()) as script:
        sent = _scans(script)
        result = script.execute(f"SELECT COUNT(*) AS n FROM {name} WHERE nn = 1")
        assert result.all() == [{"n": 0}]
        assert result.notes == ["no item of the Scan's first page (6 items) has nn; closest: n"]
        assert len(sent) == 1 and "Select" not in sent[0]
        result = script.execute(f"SELECT COUNT(*) AS n FROM {name} WHERE n >= 1")
        assert result.all() == [{"n": 2}] and result.notes == []


def test_select_list_names_alone_send_no_first_page_whole(overloaded) -> None:
    """A Scan whose WHERE names no attribute (or has none) goes out as planned: a column no row
    fills shows blank, and a LIMIT's small first page would make a poor witness."""
    from dynosql.session import Session

    backend, name = overloaded
    with Session(backend.client()) as script:
        sent = _scans(script)
        result = script.execute(f"SELECT sk, n FROM {name} LIMIT 2")
        assert len(result.all()) == 2 and result.notes == []
        assert sent[0].get("Limit") == 2 and "ProjectionExpression" in sent[0]
