"""Every crash point of UPDATE, DELETE, COPY FROM, COMMIT, UNDO and an undo of an undo, on the
embedded moto backend (tests/crash_points.py): each statement is run once whole to count its
journal and wire steps, then once per step, killed just before it, and recovered:

- a write killed anywhere is undone exactly: the table is the one before it, nothing unknown,
  nothing changed since (each of these writes journals the images it expects with its intents);
- an UNDO killed anywhere, run again, restores the table exactly, and none of its writes puts
  back a value the statement wrote (undo never passes through the statement's state);
- an undo of an undo killed anywhere, run again, gives the statement's result back, and the
  first journal can then be undone again.

One table of a few items, made again from its items before each run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from crash_points import CrashPoints, Killed
from journal_lines import answers

from dynosql import values
from dynosql.journal.sequence import header_of
from dynosql.session import Session, Settings

ITEMS = [{"pk": "p", "sk": Decimal(i), "n": Decimal(i), "s": f"item {i}"} for i in range(4)]


class Harness:
    """One table, a client whose steps are counted (and killed), and fresh sessions."""

    def __init__(self, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        self.backend = backend
        self.tmp_path = tmp_path
        self.client = backend.client(read_timeout=30)  # its own: handlers are registered on it
        self.crash = CrashPoints(self.client, monkeypatch)
        self.table = unique_name("cp")
        backend.create_keyed_table(self.table)
        self.runs = 0

    def items(self) -> dict[tuple[str, Decimal], dict[str, Any]]:
        page = self.backend.admin().scan(TableName=self.table, ConsistentRead=True)
        found = (values.decode_item(i) for i in page["Items"])
        return {(i["pk"], i["sk"]): i for i in found}

    def reset(self, items: dict[tuple[str, Decimal], dict[str, Any]]) -> None:
        admin = self.backend.admin()
        for pk, sk in self.items():
            admin.delete_item(TableName=self.table, Key=values.encode_item({"pk": pk, "sk": sk}))
        self.backend.put_items(self.table, items.values())

    def session(self, journal_dir: Path, hooked: bool = False) -> Session:
        client = self.client if hooked else self.backend.client()
        session = Session(client, settings=Settings(journal_dir=str(journal_dir)))
        session.assume_yes = True
        return session

    def written(self, start: dict, sql: str) -> tuple[Session, str, dict]:
        """`sql` run whole from the table `start`: its session, its journal, the table after."""
        self.reset(start)
        session = self.session(self.tmp_path / "statement")
        result = session.execute(sql)
        result.all()
        assert result.stats.journal
        return session, result.stats.journal, self.items()

    def killed(self, k: int | None, run: Callable[[Session], Any], journal_dir: Path) -> bool:
        """`run` in a fresh session through the counted client, killed before step `k`;
        whether it was killed."""
        session = self.session(journal_dir, hooked=True)
        self.crash.arm(k)
        try:
            run(session)
        except Killed:
            return True
        finally:
            self.crash.disarm()
            self.runs += 1
        return False

    def everywhere(
        self,
        start: dict[tuple[str, Decimal], dict[str, Any]],
        run: Callable[[Session], Any],
        recover: Callable[[int, Path], None],
    ) -> int:
        """`run` from the table `start` once whole, then killed at each of its steps, each
        kill followed by `recover(k, journal_dir)`; the number of steps."""
        self.reset(start)
        assert not self.killed(None, run, self.tmp_path / "whole")
        steps = len(self.crash.steps)
        assert steps > 5, self.crash.steps
        for k in range(steps):
            self.reset(start)
            journal_dir = self.tmp_path / f"k{self.runs}"
            assert self.killed(k, run, journal_dir), f"step {k} of {steps}: not killed"
            recover(k, journal_dir)
        return steps


def _journal(journal_dir: Path) -> Path | None:
    """The journal a killed run left with its header, if any (killed before it: none)."""
    found = [p for p in journal_dir.glob("*.jsonl") if header_of(p)]
    assert len(found) <= 1, found
    return found[0] if found else None


@pytest.fixture
def harness(moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    return Harness(moto_backend, tmp_path, monkeypatch)


def _undone_exactly(harness: Harness, before: dict) -> Callable[[int, Path], None]:
    def recover(k: int, journal_dir: Path) -> None:
        journal = _journal(journal_dir)
        if journal is not None:
            undo = harness.session(harness.tmp_path / "recover").undo(str(journal))
            assert undo.all() == [], f"crash point {k}: listed"
        assert harness.items() == before, f"crash point {k}: not undone exactly"

    return recover


def _copy_file(tmp_path: Path) -> Path:
    """30 lines (two batches): the first four overwrite the table's items, the rest are new."""
    path = tmp_path / "load.jsonl"
    rows = ({"pk": "p", "sk": i, "n": -i, "s": "loaded"} for i in range(30))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    "kind",
    ["update", *(pytest.param(k, marks=pytest.mark.slow) for k in ("delete", "copy", "commit"))],
)
def test_a_write_killed_at_any_step_is_undone_exactly(harness: Harness, kind: str) -> None:
    t = harness.table
    before = {(i["pk"], i["sk"]): i for i in ITEMS}
    data = _copy_file(harness.tmp_path)
    runs: dict[str, Callable[[Session], Any]] = {
        "update": lambda s: s.execute(
            f"UPDATE {t} SET n = n + 10, s = 'x' WHERE pk = 'p' AND n >= 0"
        ).all(),
        "delete": lambda s: s.execute(f"DELETE FROM {t} WHERE pk = 'p' AND n >= 1").all(),
        "copy": lambda s: s.execute(f"COPY {t} FROM '{data}'").all(),
        "commit": lambda s: _transaction(s, t),
    }
    steps = harness.everywhere(before, runs[kind], _undone_exactly(harness, before))
    print(f"{kind}: {steps} crash points")


def _transaction(session: Session, t: str) -> None:
    session.execute("BEGIN").all()
    session.execute(f"UPDATE {t} SET n = 99 WHERE pk = 'p' AND sk = 0").all()
    session.execute(f"DELETE FROM {t} WHERE pk = 'p' AND sk = 1").all()
    session.execute(f"INSERT INTO {t} (pk, sk, n) VALUES ('p', 9, 9)").all()
    session.execute("COMMIT").all()


@pytest.mark.slow
def test_an_undo_killed_at_any_step_then_run_again_restores_exactly(harness: Harness) -> None:
    before = {(i["pk"], i["sk"]): i for i in ITEMS}
    wrote, journal, after = harness.written(
        before, f"UPDATE {harness.table} SET n = n + 10, s = 'x' WHERE pk = 'p' AND n >= 0"
    )

    def recover(k: int, journal_dir: Path) -> None:
        again = harness.session(harness.tmp_path / "recover").undo(journal)
        assert again.all() == [], f"crash point {k}: listed"
        assert harness.items() == before, f"crash point {k}: not restored exactly"
        if again.stats.journal:  # every write of the second undo puts an item back as before
            put = [values.decode_item(e["new"]) for e in answers(again.stats.journal)]
            assert all(i == before[(i["pk"], i["sk"])] for i in put), f"crash point {k}"

    steps = harness.everywhere(after, lambda s: s.undo(journal).all(), recover)
    print(f"undo: {steps} crash points")


@pytest.mark.slow
def test_an_undo_of_an_undo_killed_at_any_step_gives_the_statement_back(harness: Harness) -> None:
    before = {(i["pk"], i["sk"]): i for i in ITEMS}
    wrote, journal, after = harness.written(
        before, f"DELETE FROM {harness.table} WHERE pk = 'p' AND n >= 2"
    )
    undo = wrote.undo(journal)
    undo.all()
    undo_journal = undo.stats.journal
    assert harness.items() == before and undo_journal

    def recover(k: int, journal_dir: Path) -> None:
        redo = harness.session(harness.tmp_path / "recover").undo(undo_journal)
        assert redo.all() == [], f"crash point {k}: listed"
        assert harness.items() == after, f"crash point {k}: the statement's result not back"
        again = harness.session(harness.tmp_path / "recover").undo(journal)
        assert again.all() == [] and harness.items() == before, f"crash point {k}"

    steps = harness.everywhere(before, lambda s: s.undo(undo_journal).all(), recover)
    print(f"undo of undo: {steps} crash points")
