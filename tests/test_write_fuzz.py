"""The model-based write fuzzer (issue 21): random tables and random sequences of writes, each
checked against an in-memory model (tests/write_model.py, from grammar/README.md's rules).

A run draws a table (hash or hash+range keys of S/N/B, a sparse GSI and LSI with random
projections), irregular items (missing attributes, mixed types, sets, nested maps and lists,
38-digit numbers) and a source table of the same shape, then a sequence of INSERT (new and
existing keys, ON CONFLICT DO NOTHING), UPSERT, UPDATE (every SET form, REMOVE, set ADD/DELETE,
arithmetic, list_append, if_not_exists), DELETE with random WHEREs, INSERT/UPSERT … SELECT,
RETURNING, and BEGIN … COMMIT where the backend has transactions (tests/write_gen.py). After
every statement:

- the exit code is the documented one (0; 1 for a refused statement or an INSERT of an existing
  key without ON CONFLICT DO NOTHING; a cancelled transaction), and an error is one line;
- the whole table, read with boto3 (a consistent Scan, not dynosql), equals the model;
- RETURNING's rows equal the model's.

At the end every journal is undone, newest first, and the table must equal the one the run
started from. Statements run in-process through `Session` with `--yes` semantics.

A failure names the backend, seed, step and statement; `DYNOSQL_WRITE_FUZZ_SEED=s` replays
that seed alone, `DYNOSQL_WRITE_FUZZ_RUNS=n` draws n runs (seeds from
`DYNOSQL_WRITE_FUZZ_FIRST`, default 1000) instead of the fixed ones.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import write_model as wm
from backends import Backend, unique_name
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from cli_runner import cli_env, run_cli
from write_gen import Gen, draw_schema
from write_model import Item, Key, Outcome, Schema, Statement, Transaction, Unmodelable

from dynosql.errors import DynosqlError
from dynosql.journal.sequence import header_of
from dynosql.session import Session, Settings, make_client

_SERIALIZE = TypeSerializer().serialize
_DESERIALIZE = TypeDeserializer().deserialize


# --- the table, read and written with boto3 alone -------------------------------------------------


def _wire(value: Any) -> Any:
    if isinstance(value, frozenset):
        return set(value)
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    return value


def put_items(client: Any, table: str, items: dict[Key, Item]) -> None:
    for item in items.values():
        client.put_item(TableName=table, Item={k: _SERIALIZE(_wire(v)) for k, v in item.items()})


def read_table(client: Any, table: str, schema: Schema) -> dict[Key, Item]:
    out: dict[Key, Item] = {}
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        for raw in page["Items"]:
            item = {k: wm.plain(_DESERIALIZE(v)) for k, v in raw.items()}
            out[schema.key_of(item)] = item
        if not page.get("LastEvaluatedKey"):
            return out
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# --- running statements as the CLI would ----------------------------------------------------------


@dataclass
class Ran:
    code: int
    rows: list[dict[str, Any]]
    error: str = ""
    journal: str | None = None
    rows_text: str = ""  # what the command printed (run_command)


def run(session: Session, sql: str, params: dict[str, Any]) -> Ran:
    """One statement in-process; the exit code `dynosql -e` gives for it (cli.run_statements)."""
    journal = None
    try:
        result = session.execute(sql, params)
        rows = result.all()
        code, error = (3, result.incomplete) if result.incomplete else (0, "")
        journal = getattr(result.stats, "journal", None)  # COMMIT's journal is only here
    except DynosqlError as err:
        rows, code, error = [], err.exit_code, str(err)
    except Exception as err:  # a bug: the CLI prints "internal error" and exits 1
        rows, code, error = [], -1, f"internal error: {type(err).__name__}: {err}"
    written = session.last_write  # set again by each statement that writes
    if journal is None and written is not None:
        journal = written.journal
    return Ran(code, rows, error, journal)


@dataclass
class Report:
    backend: str
    statements: int = 0
    commands: int = 0  # of them, run through the command (`dynosql -e`)
    steps: int = 0
    transactions: int = 0
    undone: int = 0
    undo_lasts: int = 0  # UNDO LAST checked after a cancelled transaction
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _show(statement: Statement) -> str:
    params = f"  params {statement.params}" if statement.params else ""
    return statement.sql + params


def fuzz_run(backend: Backend, seed: int, steps: int, journal_dir: Path, report: Report) -> None:
    """One seeded run: a fresh table pair, `steps` steps, then undo of every journal."""
    rng = random.Random(seed)
    wm.QUIRKS.clear()
    wm.QUIRKS.add(backend.name)
    schema = draw_schema(rng)
    table, source = unique_name("fz"), unique_name("fs")
    gen = Gen(rng, schema, table, source)
    client = backend.client()
    for name in (table, source):
        backend.create_table(**schema.create_kwargs(name))
    items, src = gen.items(rng.randint(4, 12)), gen.items(rng.randint(3, 8))
    put_items(client, table, items)
    put_items(client, source, src)
    original = read_table(client, table, schema)
    assert wm.same_table(items, original)
    session = Session(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        settings=Settings(journal_dir=str(journal_dir)),
    )
    session.assume_yes = True
    transactions = backend.name != "dynalite"  # dynalite has no TransactWriteItems
    journals: list[str] = []
    where = f"[{backend.name} seed {seed}]"

    def fail(step: int, text: str, what: str) -> None:
        report.failures.append(f"{where} step {step}: {text}\n  {what}")

    try:
        for step in range(steps):
            for _ in range(100):
                drawn = None
                try:
                    drawn = gen.step(items, src, transactions)
                    expected = drawn.expect(items)
                    break
                except Unmodelable:
                    continue
            else:
                raise AssertionError(f"{where}: 100 draws the model cannot answer")
            assert drawn is not None
            report.steps += 1
            if isinstance(drawn, Transaction):
                report.transactions += 1
                ok, text = _transaction(session, drawn, expected, journals, report)
                if ok and expected.exit_code:  # cancelled: UNDO LAST still takes the last write
                    report.undo_lasts += 1
                    ok, text = _undo_last_takes_the_last_write(session, journals, text)
            else:
                ok, text = _statement(session, drawn, expected, journals, report)
            if not ok:
                fail(step, text, "")
                return
            table_now = read_table(client, table, schema)
            if not wm.same_table(expected.items, table_now):
                shown = "; ".join(_show(s) for s in _statements(drawn))
                fail(step, shown, "model vs table:\n" + wm.diff(expected.items, table_now))
                return
            items = expected.items
        for journal in reversed(journals):
            undo = run(session, f"UNDO '{journal}'", {})
            report.undone += 1
            if undo.code != 0:
                fail(steps, f"UNDO '{journal}'", f"exit {undo.code}: {undo.error}")
                return
        final = read_table(client, table, schema)
        if not wm.same_table(original, final):
            fail(
                steps,
                "undo of every journal, newest first",
                "original vs table:\n" + wm.diff(original, final),
            )
    finally:
        session.close()
        for name in (table, source):
            client.delete_table(TableName=name)


def _statements(drawn: Statement | Transaction) -> list[Statement]:
    return drawn.statements if isinstance(drawn, Transaction) else [drawn]


def _check(ran: Ran, expected: Outcome, shown: str) -> tuple[bool, str]:
    if ran.code != expected.exit_code:
        return False, f"{shown}\n  exit {ran.code} (model: {expected.exit_code}) {ran.error}"
    if ran.error and ("\n" in ran.error or ran.code == -1):
        return False, f"{shown}\n  not a one-line error: {ran.error}"
    if expected.returning is not None and not wm.same_rows(expected.returning, ran.rows):
        return False, (
            f"{shown}\n  RETURNING rows differ: model {expected.returning!r} / dynosql {ran.rows!r}"
        )
    return True, shown


def run_command(endpoint: str, sql: str, journal: Path, yes: bool = True) -> Ran:
    """One statement through the command itself (`dynosql --yes -e SQL`, in-process): its
    exit code and its one-line error."""
    ran = run_cli(
        "--endpoint-url",
        endpoint,
        *(["--yes"] if yes else []),
        "--journal",
        str(journal),
        "--format",
        "json",
        "-e",
        sql,
        env=cli_env(journal.parent),
    )
    errors = [line for line in ran.stderr.splitlines() if line.startswith("error: ")]
    error = errors[-1][len("error: ") :] if errors else ""
    if "Traceback" in ran.stderr or len(errors) > 1 or (ran.returncode and not errors):
        return Ran(-1, [], f"not one error line: {ran.stderr!r}")
    return Ran(ran.returncode, [], error, str(journal) if journal.exists() else None, ran.stdout)


def _statement(
    session: Session, statement: Statement, expected: Outcome, journals: list[str], report: Report
) -> tuple[bool, str]:
    shown = _show(statement)
    rows = expected.returning
    if (
        isinstance(statement, wm.Change)
        and statement.where is None
        and not statement.refused
        and not statement.params  # binary parameters have no command-line form
    ):
        # without WHERE, a script needs --yes: refused (exit 3) before any request
        path = Path(session.settings.journal_dir) / f"refused-{report.statements}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        refused = run_command(session.endpoint, statement.sql, path, yes=False)
        report.commands += 1
        if refused.code != 3 or "needs --yes" not in refused.error or refused.journal:
            return False, f"{shown}\n  without --yes: exit {refused.code} {refused.error}"
    if not statement.params and (
        expected.exit_code or (rows is not None and report.statements % 3 == 0)
    ):
        # a failure, and some RETURNINGs: through the command itself (`--format json`)
        path = Path(session.settings.journal_dir) / f"cli-{len(journals)}-{report.statements}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        ran = run_command(session.endpoint, statement.sql, path)
        report.commands += 1
        if ran.code == 0 and rows is not None:
            try:
                printed = json.loads(ran.rows_text)
            except ValueError:
                printed = f"not JSON: {ran.rows_text!r}"
            if not isinstance(printed, list) or len(printed) != len(rows):
                return False, f"{shown}\n  --format json printed {printed!r} for {len(rows)} rows"
            expected = Outcome(expected.exit_code, expected.items, None)
    else:
        ran = run(session, statement.sql, statement.params)
    report.statements += 1
    if ran.journal and ran.journal not in journals:
        journals.append(ran.journal)
    return _check(ran, expected, shown)


def _transaction(
    session: Session, drawn: Transaction, expected: Outcome, journals: list[str], report: Report
) -> tuple[bool, str]:
    shown = "BEGIN; " + "; ".join(_show(s) for s in drawn.statements) + "; COMMIT"
    for sql, params in [("BEGIN", {})] + [(s.sql, s.params) for s in drawn.statements]:
        ran = run(session, sql, params)
        report.statements += 1
        if ran.code != 0:
            run(session, "ROLLBACK", {})
            return False, f"{shown}\n  {sql}: exit {ran.code}: {ran.error}"
    ran = run(session, "COMMIT", {})
    report.statements += 1
    if ran.journal and ran.journal not in journals:
        journals.append(ran.journal)
    return _check(ran, Outcome(expected.exit_code, expected.items, None), shown)


def _undo_last_takes_the_last_write(
    session: Session, journals: list[str], shown: str
) -> tuple[bool, str]:
    """After a cancelled transaction, UNDO LAST (a dry run: it only says which) names the
    journal of the last write of this session's journal directory (numbered: not a command's
    --journal file), never the cancelled transaction's."""
    numbered = [j for j in journals if "sequence" in header_of(Path(j))]
    told: list[str] = []
    session.notice = told.append
    session.settings.dry_run = True
    try:
        run(session, "UNDO LAST", {})
    finally:
        session.settings.dry_run = False
        session.notice = None
    said = " ".join(told)
    if numbered and f"UNDO {numbered[-1]}:" not in said:
        return False, f"{shown}\n  then UNDO LAST: {said!r}, not {numbered[-1]}"
    return True, shown


def fuzz(backend: Backend, seeds: Iterator[int] | list[int], steps: int, tmp_path: Path) -> Report:
    report = Report(backend.name)
    started = time.perf_counter()
    for seed in seeds:
        fuzz_run(backend, seed, steps, tmp_path / f"journal-{seed}", report)
    report.seconds = time.perf_counter() - started
    return report


def _seeds(default: list[int]) -> list[int]:
    if os.environ.get("DYNOSQL_WRITE_FUZZ_SEED"):
        return [int(os.environ["DYNOSQL_WRITE_FUZZ_SEED"])]
    runs = int(os.environ.get("DYNOSQL_WRITE_FUZZ_RUNS", "0"))
    first = int(os.environ.get("DYNOSQL_WRITE_FUZZ_FIRST", "1000"))
    return list(range(first, first + runs)) if runs else default


def _verdict(report: Report) -> None:
    print(
        f"write fuzz on {report.backend}: {report.statements} statements in {report.steps} steps "
        f"({report.transactions} transactions; {report.commands} through the command), "
        f"{report.undone} journals undone, {report.undo_lasts} UNDO LAST after a cancelled "
        "transaction, "
        f"{report.seconds:.1f}s"
    )
    assert not report.failures, (
        f"{len(report.failures)} disagreement(s) (replay one with DYNOSQL_WRITE_FUZZ_SEED=seed):\n"
        + "\n".join(report.failures)
    )


def test_write_fuzz_short_on_moto(moto_backend: Backend, tmp_path: Path) -> None:
    """The fast loop's run: a few seeds, moto only."""
    _verdict(fuzz(moto_backend, _seeds([1, 2]), 12, tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["moto", "dynalite", "ddblocal"])
def test_write_fuzz_long(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """The longer run, on all three backends: six seeds each, other seeds on each backend (18
    runs in all, at the cost of the ten-on-each it replaced)."""
    backend = request.getfixturevalue(f"{name}_backend")
    first = {"moto": 100, "dynalite": 106, "ddblocal": 112}[name]
    _verdict(fuzz(backend, _seeds(list(range(first, first + 6))), 20, tmp_path))


# --- regression tests: what the fuzzer found ------------------------------------------------------


def _hash_table(backend: Backend, items: list[Item]) -> str:
    name = unique_name("fr")
    backend.create_keyed_table(name, pk=("pk", "S"), sk=None)
    put_items(backend.client(), name, {(i["pk"],): i for i in items})
    return name


def _items_of(backend: Backend, name: str) -> dict[str, Item]:
    schema = Schema(("pk", "S"), None, {}, [])
    return {k[0][1]: v for k, v in read_table(backend.client(), name, schema).items()}


def _session(backend: Backend, tmp_path: Path) -> Session:
    session = Session(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        settings=Settings(journal_dir=str(tmp_path / "journal")),
    )
    session.assume_yes = True
    return session


def test_insert_select_maps_each_select_column_to_its_target(
    moto_backend: Backend, tmp_path: Path
) -> None:
    source = _hash_table(moto_backend, [{"pk": "a", "a": Decimal(1), "c": Decimal(3)}])
    target = _hash_table(moto_backend, [])
    run_ = run(
        _session(moto_backend, tmp_path),
        f"INSERT INTO {target} (pk, x, y, z) SELECT pk, a, b, c FROM {source}",
        {},
    )
    assert run_.code == 0, run_.error
    # b is missing in the source: y stays absent, z gets c
    assert _items_of(moto_backend, target) == {"a": {"pk": "a", "x": 1, "z": 3}}


def test_a_parameter_inside_a_list_or_map_literal(moto_backend: Backend, tmp_path: Path) -> None:
    """Found by the write fuzzer: a :parameter inside a list or map literal was refused
    (`… is not a value`); binary values inside a collection can only come from parameters."""
    name = _hash_table(moto_backend, [])
    ran = run(
        _session(moto_backend, tmp_path),
        f"INSERT INTO {name} (pk, m, l) VALUES ('a', {{'k': :b}}, [:b, 1])",
        {"b": b"\x01"},
    )
    assert ran.code == 0, ran.error
    assert _items_of(moto_backend, name)["a"] == {
        "pk": "a",
        "m": {"k": b"\x01"},
        "l": [b"\x01", Decimal(1)],
    }


def test_a_copied_set_does_not_share_its_source(backend: Backend, tmp_path: Path) -> None:
    """`SET c = s` then `c = c - {…}` must leave s alone. On moto (the embedded backend) the
    two attributes shared one object after the copy, and the DELETE changed both; the embedded
    server now stores a copy (dynamo/moto_conditions.py)."""
    name = _hash_table(backend, [{"pk": "a", "s": frozenset({"x", "y"})}])
    session = _session(backend, tmp_path)
    assert run(session, f"UPDATE {name} SET c = s WHERE pk = 'a'", {}).code == 0
    assert run(session, f"UPDATE {name} SET c = c - {{'x'}} WHERE pk = 'a'", {}).code == 0
    assert _items_of(backend, name)["a"] == {
        "pk": "a",
        "s": frozenset({"x", "y"}),
        "c": frozenset({"y"}),
    }


def test_size_of_a_number_in_a_write_condition(backend: Backend, tmp_path: Path) -> None:
    """A number has no size: `size(n) <> 3` is true, `size(n) > 0` false (grammar/README.md;
    DynamoDB Local and dynalite agree). moto answered HTTP 500 to such a condition; the
    embedded server now treats such a size as missing (dynamo/moto_conditions.py)."""
    name = _hash_table(backend, [{"pk": "a", "n": Decimal(5)}, {"pk": "b", "n": Decimal(6)}])
    session = _session(backend, tmp_path)
    first = run(session, f"UPDATE {name} SET x = 1 WHERE pk = 'a' AND size(n) <> 3", {})
    second = run(session, f"UPDATE {name} SET x = 1 WHERE pk = 'b' AND size(n) > 0", {})
    assert (first.code, second.code) == (0, 0), first.error + second.error
    items = _items_of(backend, name)
    assert items["a"].get("x") == 1 and "x" not in items["b"]


def test_arithmetic_keeps_38_digits(backend: Backend, tmp_path: Path) -> None:
    """`n = n + 1` is exact to 38 digits, whatever the stored number's form. moto adds in
    Python's 28-digit context (2.2345678901234567890123456789012345 becomes
    2.234567890123456789012345679) and answers HTTP 500 when the stored number is 1E+20; the
    embedded server makes it add as DynamoDB does (dynamo/embedded.py)."""
    name = _hash_table(
        backend,
        [
            {"pk": "a", "n": Decimal("1.234567890123456789012345678901234567")},
            {"pk": "b", "n": Decimal("1E+20")},
        ],
    )
    session = _session(backend, tmp_path)
    ran = run(session, f"UPDATE {name} SET n = n + 1 WHERE pk IN ('a', 'b')", {})
    assert ran.code == 0, ran.error
    items = _items_of(backend, name)
    assert wm.number_text(items["a"]["n"]) == "2.234567890123456789012345678901234567"
    assert items["b"]["n"] == Decimal("100000000000000000001")


def test_a_keyed_write_never_takes_null_for_missing_or_true_for_1(
    backend: Backend, tmp_path: Path
) -> None:
    """A write by the full key sends its WHERE as the condition, with no read. A missing
    attribute is not NULL and TRUE is not 1 (grammar/README.md), but moto compares Python
    values, so on the embedded backend these DELETEs removed items their WHERE does not match,
    until the embedded server compared typed values (dynamo/moto_conditions.py)."""
    name = _hash_table(backend, [{"pk": "a"}, {"pk": "b", "flag": True}])
    session = _session(backend, tmp_path)
    assert run(session, f"DELETE FROM {name} WHERE pk = 'a' AND l IN (NULL, 'x')", {}).code == 0
    assert run(session, f"DELETE FROM {name} WHERE pk = 'b' AND flag = 1", {}).code == 0
    assert set(_items_of(backend, name)) == {"a", "b"}


def test_begins_with_and_contains_on_binary(backend: Backend, tmp_path: Path) -> None:
    """begins_with and contains hold for a binary prefix / sub-bytes of a binary attribute
    (grammar/README.md). moto answered false to both, so on the embedded backend the SELECT
    found nothing and the DELETE deleted nothing, silently, until the embedded server compared
    binaries by their bytes (dynamo/moto_conditions.py)."""
    name = _hash_table(backend, [{"pk": "a", "b": b"\xff\x01"}, {"pk": "z", "b": b"\x01"}])
    session = _session(backend, tmp_path)
    found = session.execute(f"SELECT pk FROM {name} WHERE begins_with(b, :p)", {"p": b"\xff"})
    assert found.all() == [{"pk": "a"}]
    ran = run(session, f"DELETE FROM {name} WHERE contains(b, :p)", {"p": b"\xff"})
    assert ran.code == 0, ran.error
    assert set(_items_of(backend, name)) == {"z"}
