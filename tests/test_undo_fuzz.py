"""The write fuzzer's attacks on undo (issue 37), on moto, dynalite and DynamoDB Local: random
items (tests/write_gen.py's irregular values: sets, maps, lists, binary, 38-digit numbers), then,
each seeded, and each followed by the oracle's table (read with boto3, compared as the model
compares, tests/write_model.py):

- ``kill -9`` of a real ``dynosql`` process at a random line of its journal, during COPY FROM,
  during UNDO and during an undo of an undo; then undo (again) in a process of its own: the table
  is the one before the COPY, before the UPDATE, or the UPDATE's result again;
- two ``dynosql`` processes writing at once with one ``--journal`` file: undo takes it whole;
- a transaction cancelled after a write: UNDO LAST undoes the write (not on dynalite, which has
  no transactions);
- an index added between a write and its undo, keying an attribute the undo would put back with
  another type: those items listed, the rest restored, all of them once the index is dropped (not
  on dynalite, which never builds an index added to a table);
- the table dropped and recreated with other keys: the undo refused, and forced, every item
  listed and nothing written.

A kill is aimed at a line the statement writes before its end line: a journal holds a header,
an intent and an answer per item written, and an end line (`_journal_lines`; an unkilled run is
checked against it), so a kill drawn from 1 to that count minus one lands mid-statement unless
the process outruns the poll. Each backend's run prints one line (`_verdict`): seeds, kills and
how many landed, undos, tables compared exact. A failed seed is reported and the next one runs.

`DYNOSQL_UNDO_FUZZ_SEED=s` replays one seed; `DYNOSQL_UNDO_FUZZ_RUNS=n` draws n seeds each.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import write_model as wm
from backends import Backend, unique_name
from cli_runner import cli_env
from journal_lines import answers
from test_write_fuzz import _SERIALIZE, _wire, put_items, read_table
from write_gen import ATTRS, Gen
from write_model import Item, Key, Schema

from dynosql import files, values
from dynosql.errors import DynosqlError
from dynosql.journal.sequence import header_of
from dynosql.session import Session, Settings, make_client

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Schema(("pk", "S"), ("sk", "N"), {}, [])
RATE = "150"  # WCU a second: slow enough to be killed in the middle


def _items(gen: Gen, n: int, first: int = 0) -> dict[Key, Item]:
    out = {}
    for i in range(first, first + n):
        item: Item = {"pk": f"p{i % 3}", "sk": Decimal(i)}
        for name in gen.rng.sample(ATTRS, gen.rng.randint(1, 5)):
            item[name] = gen.attr_value(name)
        out[SCHEMA.key_of(item)] = item
    return out


def _decoded(item: Item) -> dict[str, Any]:
    return values.decode_item({k: _SERIALIZE(_wire(v)) for k, v in item.items()})


@dataclass
class Report:
    """What one backend's runs did, for `_verdict`."""

    backend: str
    runs: int = 0
    kills: int = 0
    landed: int = 0  # kills that stopped the statement before its end line
    undos: int = 0
    exact: int = 0  # tables compared with the oracle's, and equal
    late: int = 0  # a killed COPY's last request applied after the undo read its items
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Attack:
    """One seeded run's table, random source and sessions."""

    def __init__(self, backend: Backend, seed: int, tmp_path: Path, report: Report):
        self.backend = backend
        self.report = report
        self.rng = random.Random(seed)
        self.tmp = tmp_path / f"seed-{seed}"
        self.tmp.mkdir(parents=True)
        self.table = unique_name("uf")
        self.gen = Gen(self.rng, SCHEMA, self.table, self.table)
        self.client = backend.client()
        backend.create_table(**SCHEMA.create_kwargs(self.table))
        self.where = f"[{backend.name} seed {seed}]"

    def now(self) -> dict[Key, Item]:
        return read_table(self.client, self.table, SCHEMA)

    def same(self, expected: dict[Key, Item], what: str) -> None:
        actual = self.now()
        assert wm.same_table(expected, actual), f"{self.where} {what}:\n" + wm.diff(
            expected, actual
        )
        self.report.exact += 1

    def session(self, journal: Path | None = None, journal_dir: str = "j") -> Session:
        client = make_client(endpoint_url=self.backend.endpoint_url, credentials=("t", "t"))
        session = Session(client, settings=Settings(journal_dir=str(self.tmp / journal_dir)))
        session.assume_yes = True
        if journal is not None:
            session.journal_file = str(journal)
        return session

    def process(self, *args: str) -> subprocess.Popen[str]:
        """`dynosql --yes --rate-limit RATE ARGS` against this backend, a process of its own."""
        command = [sys.executable, "-m", "dynosql.cli", "--endpoint-url", self.backend.endpoint_url]
        return subprocess.Popen(
            [*command, "--yes", "--rate-limit", RATE, *args],
            env={**cli_env(self.tmp), "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def killed(self, journal: Path, lines: int, *args: str) -> bool:
        """Run `args`, whose journal holds `lines` lines when it runs to its end, and kill -9
        it once `journal` has a random number of them, before its end line; whether the kill
        landed (the process died before its end line, not after it ended)."""
        target = self.rng.randint(1, lines - 1)
        process = self.process("--journal", str(journal), *args)
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            if _lines(journal) >= target:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.003)
        _out, err = process.communicate(timeout=60)
        _served(self.backend)  # its request in flight lands now, not during what comes next
        have = _lines(journal)
        landed = process.returncode == -signal.SIGKILL and have < lines
        if not landed:  # it ran to its end: the journal's structure must be as counted
            assert process.returncode in (0, -signal.SIGKILL), f"{self.where} {args}: {err}"
            assert have == lines, f"{self.where} {args}: {have} journal lines, not {lines}"
        self.report.kills += 1
        self.report.landed += landed
        return landed

    def undo(self, journal: Path | str, session: Session | None = None) -> Any:
        undo = (session or self.session(journal_dir="recover")).undo(str(journal))
        listed = undo.all()
        self.report.undos += 1
        if listed:
            now = self.now()
            held = [now.get(SCHEMA.key_of({"pk": r["pk"], "sk": r["sk"]})) for r in listed]
            raise AssertionError(f"{self.where} undo {journal}: listed {listed}, now {held}")
        return undo


def _served(backend: Backend) -> None:
    """Wait until the server has answered every request of a killed process: a kill does not
    recall a request the server has received, and a server starved of CPU (moto answers
    children from a thread of this busy process) applied one late, under the test's next
    steps: the killed undo's write, conditional on the UPDATE's result, landed after
    `put_items` had put that result back, and the whole undo found one item already restored
    (16 writes, not 17). The server's end of a connection whose client has gone stays in
    CLOSE_WAIT until the server has read (and answered) what it was sent and closed it."""
    port = urlsplit(backend.endpoint_url).port
    deadline = time.monotonic() + 30
    while _closing(port):
        assert time.monotonic() < deadline, f"{backend.name}: a killed client's request unserved"
        time.sleep(0.005)


def _closing(port: int | None) -> bool:
    """Whether a TCP connection on local `port` is in CLOSE_WAIT (its peer gone, not yet
    closed here); False where /proc/net/tcp cannot say."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            if state == _CLOSE_WAIT and int(local.rsplit(":", 1)[1], 16) == port:
                return True
    return False


_CLOSE_WAIT = "08"  # the state's number in /proc/net/tcp (include/net/tcp_states.h)


def _journal_lines(items: int) -> int:
    """The lines of a statement's journal that writes `items` items and runs to its end: the
    header, an intent and an answer per item, the end line."""
    return 2 * items + 2


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def copy_killed(a: Attack, t0: dict[Key, Item]) -> None:
    """COPY FROM of rows that overwrite some items and add others, killed at random."""
    rows = list(_items(a.gen, 40, first=a.rng.randint(0, len(t0))).values())
    data = a.tmp / "load.jsonl"
    data.write_text("".join(files.item_json(_decoded(r)) + "\n" for r in rows))
    journal = a.tmp / "copy.jsonl"
    a.killed(journal, _journal_lines(len(rows)), "-e", f"COPY {a.table} FROM '{data}'")
    if header_of(journal):
        a.undo(journal)
        if not wm.same_table(t0, a.now()):
            # the request in flight when the process died had reached the server, which may
            # apply it after the undo read those items (seen on DynamoDB Local under load): the
            # undo run again restores what landed late, as docs/undo.md tells the user to do
            a.report.late += 1
            a.undo(journal)
    a.same(t0, "COPY killed, then undone")


def undo_killed(a: Attack, t0: dict[Key, Item]) -> None:
    """An UPDATE of every item; its undo killed at random, then run again: the table before
    the UPDATE, no write of the second undo putting back a value the UPDATE wrote, and a third
    undo writes nothing. Then an undo of an undo, killed at random and run again: the UPDATE's
    result; and the UPDATE undone once more."""
    name = a.rng.choice(ATTRS)
    value = values.decode(_SERIALIZE(_wire(a.gen.attr_value(name))))
    journal = a.tmp / "update.jsonl"
    a.session(journal).execute(
        f'UPDATE {a.table} SET "{name}" = :v WHERE sk >= 0', {"v": value}
    ).all()
    t1 = a.now()
    differ = sum(wm.canon_item(t0[k]) != wm.canon_item(v) for k, v in t1.items())
    if differ:  # else undo has nothing to write (and writes no journal)
        a.killed(a.tmp / "undo-killed.jsonl", _journal_lines(differ), "undo", str(journal))
    again = a.undo(journal)
    a.same(t0, "UNDO killed, then run again")
    for entry in answers(again.stats.journal) if again.stats.journal else []:
        assert entry["new"] is not None, f"{a.where}: the second undo deleted an item"
        item = _plain(values.decode_item(entry["new"]))
        assert wm.canon_item(t0[SCHEMA.key_of(item)]) == wm.canon_item(item), a.where
    third = a.undo(journal)
    assert third.stats.changed == 0 and third.stats.journal is None, a.where
    # a whole undo with a journal of its own, from the UPDATE's result put back
    put_items(a.client, a.table, t1)
    whole = a.tmp / "undo-whole.jsonl"
    assert a.undo(journal, a.session(whole)).stats.changed == differ, a.where
    if differ:
        assert _lines(whole) == _journal_lines(differ), a.where  # what the kills are aimed at
        a.killed(a.tmp / "redo-killed.jsonl", _journal_lines(differ), "undo", str(whole))
    a.undo(whole)
    a.same(t1, "undo of an undo killed, then run again")
    a.undo(journal)
    a.same(t0, "the UPDATE undone once more")


def _plain(item: dict[str, Any]) -> Item:
    return {k: wm.plain(v) for k, v in item.items()}


def two_writers(a: Attack, t0: dict[Key, Item]) -> None:
    """Two processes write at once, appending to one --journal file: undo takes it whole."""
    journal = a.tmp / "shared.jsonl"
    sets = [f"SET w = '{w}', n = :n" for w in ("one", "two")]
    processes = [
        a.process("--journal", str(journal), "-v", f"n={i}", "-e",
                  f"UPDATE {a.table} {s} WHERE pk = 'p{i}' AND sk >= 0")
        for i, s in enumerate(sets)
    ]  # fmt: skip
    for p in processes:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, f"{a.where}: {err}"
    undo = a.undo(journal)
    assert not any("damaged" in w for w in undo.warnings), f"{a.where}: {undo.warnings}"
    a.same(t0, "two writers, one journal, undone")


def cancelled_transaction(a: Attack, t0: dict[Key, Item]) -> None:
    """A write, then a transaction cancelled by its INSERT of an existing key: UNDO LAST
    takes the write."""
    session = a.session(journal_dir="last")
    first, other = (_key(t0[k]) for k in a.rng.sample(sorted(t0), 2))
    where = "WHERE pk = :p AND sk = :s"
    session.execute(f"UPDATE {a.table} SET w = 'last' {where}", first).all()
    session.execute("BEGIN").all()
    session.execute(f"UPDATE {a.table} SET w = 'never' {where}", other).all()
    session.execute(f"INSERT INTO {a.table} (pk, sk) VALUES (:p, :s)", first).all()
    with pytest.raises(DynosqlError, match="transaction cancelled"):
        session.execute("COMMIT").all()
    assert session.execute("UNDO LAST").all() == []
    a.report.undos += 1
    a.same(t0, "UNDO LAST after a cancelled transaction")


def _key(item: Item) -> dict[str, Any]:
    return {"p": item["pk"], "s": item["sk"]}


def index_added(a: Attack, t0: dict[Key, Item]) -> None:
    """ix is a number in some items; an UPDATE makes it a string everywhere; an index keyed
    on ix as a string is added: undo lists the items whose ix was a number, restores the rest,
    and all of them once the index is dropped."""
    numbered = a.rng.sample(sorted(t0), max(1, len(t0) // 4))
    for key in numbered:
        item = t0[key]
        a.client.update_item(TableName=a.table, Key=values.encode_item({"pk": item["pk"], "sk": item["sk"]}),
                             UpdateExpression="SET ix = :n",
                             ExpressionAttributeValues={":n": {"N": "7"}})  # fmt: skip
    t0 = a.now()
    session = a.session(journal_dir="ix")
    result = session.execute(f"UPDATE {a.table} SET ix = 'x' WHERE sk >= 0")
    result.all()
    t1 = a.now()
    session.execute(f"CREATE INDEX by_ix ON {a.table} (ix S)").all()
    undo = session.undo(result.stats.journal)
    held = {SCHEMA.key_of({"pk": r["pk"], "sk": r["sk"]}) for r in undo.all()}
    a.report.undos += 1
    assert held == set(numbered), a.where
    expected = {k: (t1[k] if k in held else v) for k, v in t0.items()}
    a.same(expected, "undo after an index was added")
    session.execute(f"DROP INDEX by_ix ON {a.table}").all()
    a.undo(result.stats.journal, session)
    a.same(t0, "undo once the index is dropped")


def recreated(a: Attack, t0: dict[Key, Item]) -> None:
    """A DELETE, then the table dropped and recreated keyed otherwise: undo refused; forced,
    every item listed, nothing written."""
    session = a.session(journal_dir="recreated")
    result = session.execute(f"DELETE FROM {a.table} WHERE pk = 'p0' AND sk >= 0")
    result.all()
    a.backend.delete_table(a.table)
    a.backend.create_keyed_table(a.table, pk=("id", "S"), sk=None)
    with pytest.raises(DynosqlError, match="recreated"):
        session.undo(result.stats.journal).all()
    forced = session.undo(result.stats.journal, force_target=True)
    listed = forced.all()
    a.report.undos += 1
    assert len(listed) == sum(1 for v in t0.values() if v["pk"] == "p0"), a.where
    assert forced.stats.changed == 0, a.where
    assert a.client.scan(TableName=a.table)["Items"] == [], a.where


def attack(backend: Backend, seed: int, tmp_path: Path, report: Report) -> None:
    a = Attack(backend, seed, tmp_path, report)
    t0 = _items(a.gen, a.rng.randint(12, 24))
    put_items(a.client, a.table, t0)
    t0 = a.now()
    copy_killed(a, t0)
    undo_killed(a, t0)
    two_writers(a, t0)
    if backend.name != "dynalite":  # no TransactWriteItems, and a new index never built
        cancelled_transaction(a, t0)
        index_added(a, t0)
    recreated(a, t0)


def _seeds(default: list[int]) -> list[int]:
    if os.environ.get("DYNOSQL_UNDO_FUZZ_SEED"):
        return [int(os.environ["DYNOSQL_UNDO_FUZZ_SEED"])]
    runs = int(os.environ.get("DYNOSQL_UNDO_FUZZ_RUNS", "0"))
    return list(range(5000, 5000 + runs)) if runs else default


def _verdict(report: Report) -> None:
    print(
        f"undo fuzz on {report.backend}: {report.runs} runs, {report.landed} of {report.kills} "
        f"kills landed mid-statement, {report.undos} undos, {report.exact} tables exact, "
        f"{report.late} late writes undone again, "
        f"{len(report.failures)} failed, {report.seconds:.1f}s"
    )
    assert not report.failures, (
        f"{len(report.failures)} failure(s) (replay one with DYNOSQL_UNDO_FUZZ_SEED=seed):\n"
        + "\n".join(report.failures)
    )
    assert report.landed, "no kill landed mid-statement: the kills test nothing"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["moto", "dynalite", "ddblocal"])
def test_undo_under_attack(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Two seeds on each backend (other seeds on each: six runs in all, about 6 s of CPU
    each); a third would cost the suite as much again."""
    backend = request.getfixturevalue(f"{name}_backend")
    first = {"moto": 300, "dynalite": 301, "ddblocal": 302}[name]
    report = Report(name)
    started = time.monotonic()
    for seed in _seeds([first, first + 10]):
        report.runs += 1
        try:
            attack(backend, seed, tmp_path, report)
        except AssertionError as failed:
            report.failures.append(f"seed {seed}: {failed}")
    report.seconds = time.monotonic() - started
    _verdict(report)
