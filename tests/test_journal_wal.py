"""The undo journal is write-ahead: an intent line (the key) is flushed before each write is sent,
the images after its answer. A process that dies between DynamoDB's answer and the journal
line leaves an intent with no answer: when nothing was read before the write (a write by key)
undo lists that key as "unknown" instead of skipping it silently, and restores the rest; when
the write's read returned the whole item, the intent holds its images and undo restores it too.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from journal_lines import answers
from test_writes import _table as _scan

from dynosql import values
from dynosql.dynamo import writer as write_execute
from dynosql.errors import DynosqlError
from dynosql.journal import Journal, read_journal
from dynosql.session import Session, Settings, make_client


def test_intents_pair_with_answers_when_read_back(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.begin("t", ("pk",), "UPDATE")
        for k in ("a", "b", "c"):
            journal.intent("t", {"pk": k})
        journal.record("t", {"pk": "a"}, {"pk": "a", "n": Decimal(1)}, {"pk": "a", "n": Decimal(2)})
        journal.unchanged("t", {"pk": "b"})
        assert journal.pending == 1 and journal.entries == 1
    read = read_journal(path)
    assert [e.key for e in read.entries] == [{"pk": "a"}]
    assert [(u.key, u.line) for u in read.unknown] == [({"pk": "c"}, 4)]
    # a journal written before intents existed reads as before: nothing unknown
    old_style = tmp_path / "old.jsonl"
    lines = path.read_text().splitlines()
    old_style.write_text("\n".join(x for x in lines if "intent" not in x) + "\n")
    assert read_journal(old_style).unknown == []


class _Crash(BaseException):
    """The process dying: not an Exception, so nothing on the way catches it."""


@pytest.mark.parametrize("read", [False, True], ids=["by-key", "read-whole"])
def test_a_write_answered_but_never_journaled_is_listed_as_unknown_unless_read_whole(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: bool
) -> None:
    name = unique_name("wal")
    backend.create_keyed_table(name)
    rows = [{"pk": "p", "sk": Decimal(i), "n": Decimal(i)} for i in range(12)]
    backend.put_items(name, rows)
    before = _scan(backend, name)
    session = Session(
        make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t")),
        settings=Settings(journal_dir=str(tmp_path)),
    )
    session.assume_yes = True
    real = write_execute.Writer.call_or_failure
    crashed: list[dict] = []

    def call(self: Any, method: str, params: dict) -> Any:
        answer = real(self, method, params)
        if method == "update_item" and params["Key"]["sk"] == {"N": "5"}:
            crashed.append(values.decode_item(params["Key"]))
            raise _Crash  # DynamoDB applied it; the answer never reaches the journal
        return answer

    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    where = "n >= 0" if read else f"sk IN ({', '.join(str(i) for i in range(12))})"
    with pytest.raises(_Crash):
        session.execute(f"UPDATE {name} SET n = 100 WHERE pk = 'p' AND {where}").all()
    monkeypatch.undo()
    journal = session.last_write.journal
    assert journal is not None
    after = _scan(backend, name)
    assert after[("p", Decimal(5))]["n"] == 100  # applied, not journaled
    lines = [json.loads(x) for x in Path(journal).read_text().splitlines()[1:]]
    recorded = {values.decode_item(e["key"])["sk"] for e in answers(journal)}
    changed = {k[1] for k in before if after[k] != before[k]}
    assert changed == recorded | {Decimal(5)}
    (intent,) = [e for e in lines if e.get("intent") and e["key"]["sk"] == {"N": "5"}]
    undo = session.undo(journal)
    listed = undo.all()
    assert crashed == [{"pk": "p", "sk": Decimal(5)}]
    if read:  # the intent holds the item as read and as written: restored from it
        assert values.decode_item(intent["old"]) == before[("p", Decimal(5))]
        assert values.decode_item(intent["new"]) == after[("p", Decimal(5))]
        assert listed == [] and undo.stats.changed == len(recorded) + 1
        assert "1 write whose answer was never journaled" in " ".join(undo.warnings)
        assert _scan(backend, name) == before
        return
    assert "old" not in intent  # nothing was read: no image to restore
    assert [(r["pk"], r["sk"], r["state"][:7]) for r in listed] == [("p", 5, "unknown")]
    assert "outcome never reached the journal" in " ".join(undo.warnings)
    assert undo.stats.changed == len(recorded)
    now = _scan(backend, name)
    assert {k: v for k, v in now.items() if k[1] != 5} == {
        k: v for k, v in before.items() if k[1] != 5
    }


def test_a_torn_line_stays_alone_and_is_reported_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.begin("t", ("pk",), "UPDATE t SET n = 1 WHERE pk = 'a'")
        journal.intents("t", [{"pk": "a"}])
        journal.record("t", {"pk": "a"}, {"pk": "a"}, {"pk": "a", "n": Decimal(1)})
    with path.open("a") as f:
        f.write('{"seq":0,"journal":2,"table":"t","ke')  # a crash (or a full disk) mid-line
    with Journal(path) as journal:  # the next statement appends to the same --journal file
        journal.begin("t", ("pk",), "DELETE FROM t WHERE pk = 'b'")
        journal.intents("t", [{"pk": "b"}])
        journal.record("t", {"pk": "b"}, {"pk": "b"}, None)
    read = read_journal(path)
    assert [h["statement"][:6] for h in read.headers] == ["UPDATE", "DELETE"]
    assert [e.key for e in read.entries] == [{"pk": "a"}, {"pk": "b"}]
    assert read.trust.damage is not None and read.trust.damage.startswith("line 5: not a journal")


def test_journals_begun_across_a_second_sort_in_the_order_they_began(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """UNDO LAST takes the journal whose name sorts last. A clock that moves 0.2 s at every
    read: two journals begun at .5 and .9 of a second (the second read just after the second
    turns) must still name themselves in that order."""
    import time

    from dynosql.journal import new_journal_path

    start = 1_764_655_200.5
    reads = iter(range(100))

    def now() -> float:
        return start + 0.2 * next(reads)

    real_gmtime = time.gmtime
    monkeypatch.setattr(time, "time", now)
    monkeypatch.setattr(time, "time_ns", lambda: round(now() * 1e9))
    monkeypatch.setattr(time, "gmtime", lambda t=None: real_gmtime(now() if t is None else t))
    first = new_journal_path(tmp_path, "t")
    second = new_journal_path(tmp_path, "t")
    assert sorted([second, first]) == [first, second]
    assert first.name.startswith("20251202T060000.5")


def test_an_empty_journal_says_there_is_nothing_to_undo(tmp_path: Path) -> None:
    """A process killed between creating its journal and writing the header leaves it empty."""
    path = tmp_path / "j.jsonl"
    path.write_text("")
    with pytest.raises(DynosqlError, match="is empty: no write was journaled in it, nothing"):
        read_journal(path)
