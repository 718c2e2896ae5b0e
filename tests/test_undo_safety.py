"""Undo that can never do harm (issue 37), one test per edge, on the embedded moto backend:
undoing twice (and after a stopped undo) never passes through the statement's state; COPY's
intents carry the images it read; a cancelled transaction is never UNDO LAST's target; UNDO
LAST follows the journals' sequence, not the clock; two writers share a ``--journal`` file;
a file that is not a journal is refused before the first write; keys or indexes changed since
the statement are named, and the rest restored.
"""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from cli_runner import cli_env, run_cli
from journal_lines import answers
from test_undo_journal import _table
from test_writes import _table as _scan

from dynosql import values
from dynosql.dynamo import writer as write_execute
from dynosql.errors import DynosqlError
from dynosql.journal import Journal, read_journal
from dynosql.session import Session, Settings, make_client
from dynosql.statements.images import ImageReader


def _cli(backend: Backend, tmp_path: Path, *args: str) -> Any:
    return run_cli(*args, "--endpoint-url", backend.endpoint_url, env=cli_env(tmp_path))


def _session(backend: Backend, tmp_path: Path, journal: Path | None = None) -> Session:
    client = make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "j")))
    session.assume_yes = True
    if journal is not None:
        session.journal_file = str(journal)
    return session


class _Crash(BaseException):
    """The process dying: not an Exception, so nothing on the way catches it."""


# --- 1: undo twice ---------------------------------------------------------------------------


def test_a_second_undo_of_a_journal_file_writes_nothing_and_never_redoes(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """``--journal FILE`` then ``undo FILE`` twice: the undo's own entries never go into FILE
    (so never become its targets); the second undo finds every item already restored and
    writes nothing."""
    name, before = _table(moto_backend, items=6)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name} SET n = n + 100 WHERE n >= 0"
    assert (
        _cli(moto_backend, tmp_path, "--yes", "--journal", str(journal), "-e", sql).returncode == 0
    )
    written = journal.read_text()
    for _ in range(2):
        run = _cli(moto_backend, tmp_path, "--journal", str(journal), "undo", str(journal), "--yes")
        assert run.returncode == 0, run.stderr
        assert journal.read_text() == written  # the undo journals elsewhere
        assert _scan(moto_backend, name) == before
    assert "6 items already as before the statement (already restored)" in run.stderr
    assert "0 written, 0 skipped" in run.stderr


def test_an_undo_stopped_half_way_then_run_again_never_puts_the_statements_values_back(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """The first undo stops after a few items (--max-wcu); the second restores the rest, and
    none of its writes puts back a value the statement wrote."""
    name, before = _table(moto_backend, items=10)
    journal = tmp_path / "j.jsonl"
    session = _session(moto_backend, tmp_path, journal)
    session.execute(f"UPDATE {name} SET n = n + 100 WHERE n >= 0").all()
    stopped = _cli(
        moto_backend, tmp_path, "--journal", str(journal), "--max-wcu", "3", "undo",
        str(journal), "--yes",
    )  # fmt: skip
    assert stopped.returncode == 3, stopped.stderr
    now = _scan(moto_backend, name)
    assert 0 < sum(now[k] == before[k] for k in before) < 10
    again = session.undo(str(journal))
    assert again.all() == []
    assert _scan(moto_backend, name) == before
    put = [values.decode_item(e["new"]) for e in answers(again.stats.journal)]
    assert put and all(item == before[(item["pk"], item["sk"])] for item in put)


def test_an_item_written_by_two_statements_and_back_is_not_written_by_undo(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """n: 0 -> 5 -> 0 in two statements of one file: the item is as it was before them, so
    undo of the file has nothing to write for it (never 0 -> 5 -> 0 again)."""
    name, before = _table(moto_backend, items=2)
    journal = tmp_path / "j.jsonl"
    session = _session(moto_backend, tmp_path, journal)
    session.execute(f"UPDATE {name} SET n = 5 WHERE pk = 'p0' AND sk = 0").all()
    session.execute(f"UPDATE {name} SET n = 0 WHERE pk = 'p0' AND sk = 0").all()
    undo = session.undo(str(journal))
    assert undo.all() == [] and undo.stats.changed == 0 and undo.stats.journal is None
    assert _scan(moto_backend, name) == before


def test_a_boolean_made_a_number_is_restored_not_taken_for_already_restored(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """TRUE and 1 (FALSE and 0) are equal in Python but not in DynamoDB: an UPDATE that makes
    a boolean the number it equals in Python is undone (found by the undo fuzzer, seed 310:
    undo called the item as before the statement and wrote nothing)."""
    name, _before = _table(moto_backend, items=2, flag=True, off=False)
    session = _session(moto_backend, tmp_path)
    before = _scan(moto_backend, name)
    result = session.execute(f"UPDATE {name} SET flag = 1, off = 0 WHERE n >= 0")
    result.all()
    undo = session.undo(result.stats.journal)
    assert undo.all() == [] and undo.stats.changed == 2, undo.warnings
    now = _scan(moto_backend, name)
    assert all(type(item["flag"]) is bool and type(item["off"]) is bool for item in now.values())
    assert now == before


def test_an_item_put_back_by_another_writer_before_the_restore_is_already_restored(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between undo's read and its conditional write, another writer puts one item back as
    it was (an undo killed with that write in flight, landing late): the condition fails, and
    the item, read again, is as before the statement: already restored, not changed since."""
    name, before = _table(moto_backend, items=3)
    session = _session(moto_backend, tmp_path)
    result = session.execute(f"UPDATE {name} SET n = n + 100 WHERE n >= 0")
    result.all()
    read = ImageReader.read

    def read_then_restored_elsewhere(self: ImageReader, info: Any, keys: Any) -> Any:
        found = read(self, info, keys)
        item = before[("p1", Decimal(1))]
        moto_backend.client().put_item(TableName=name, Item=values.encode_item(item))
        return found

    monkeypatch.setattr(ImageReader, "read", read_then_restored_elsewhere)
    undo = session.undo(result.stats.journal)
    assert undo.all() == [], undo.warnings
    assert undo.stats.changed == 2 and undo.stats.skipped == 0
    said = " ".join(undo.warnings)
    assert "1 item already as before the statement (already restored)" in said
    assert "changed after" not in said
    assert _scan(moto_backend, name) == before


# --- 2: COPY's intents carry the images it read ----------------------------------------------


def test_a_copy_killed_in_flight_is_undone_from_its_intents(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second batch of a load over existing keys is applied, then the process dies before
    its answer is journaled: its intents hold the images read before it, so undo restores it."""
    name, before = _table(moto_backend, items=60)
    data = tmp_path / "load.jsonl"
    data.write_text(
        "".join(
            json.dumps({"pk": f"p{i % 2}", "sk": i, "n": -i, "s": "loaded"}) + "\n"
            for i in range(60)
        )
    )
    real = write_execute.Writer.call_or_failure
    calls = [0]

    def call(self: Any, method: str, params: dict) -> Any:
        if calls[0] >= 2:
            raise _Crash  # dead: nothing more is sent
        answer = real(self, method, params)
        if method == "batch_write_item":
            calls[0] += 1
            if calls[0] == 2:
                raise _Crash  # applied by DynamoDB; the answer never reaches the journal
        return answer

    session = _session(moto_backend, tmp_path)
    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    with pytest.raises(_Crash):
        session.execute(f"COPY {name} FROM '{data}'").all()
    monkeypatch.undo()
    journal = session.last_write.journal
    assert journal is not None
    assert sum(v.get("s") == "loaded" for v in _scan(moto_backend, name).values()) == 50
    undo = _session(moto_backend, tmp_path).undo(journal)
    assert undo.all() == []  # nothing unknown
    assert "25 writes whose answer was never journaled" in " ".join(undo.warnings)
    assert _scan(moto_backend, name) == before


# --- 3 and 4: UNDO LAST ----------------------------------------------------------------------


def test_undo_last_skips_a_cancelled_transaction(moto_backend: Backend, tmp_path: Path) -> None:
    name, before = _table(moto_backend)
    session = _session(moto_backend, tmp_path)
    session.execute(f"UPDATE {name} SET n = 50 WHERE pk = 'p0' AND sk = 0").all()
    session.execute("BEGIN").all()
    session.execute(f"UPDATE {name} SET n = 60 WHERE pk = 'p1' AND sk = 1").all()
    session.execute(f"INSERT INTO {name} (pk, sk) VALUES ('p0', 2)").all()  # exists: cancels
    with pytest.raises(DynosqlError, match="transaction cancelled, nothing was written"):
        session.execute("COMMIT").all()
    undo = session.execute("UNDO LAST")
    assert undo.all() == []
    assert _scan(moto_backend, name) == before  # the UPDATE, the real last write, undone


def test_undo_last_follows_the_sequence_when_the_clock_ran_ahead(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    name, before = _table(moto_backend)
    session = _session(moto_backend, tmp_path)
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 3600 * 10**9)  # an hour ahead
    session.execute(f"UPDATE {name} SET n = 50 WHERE pk = 'p0' AND sk = 0").all()
    monkeypatch.undo()  # the clock is set right
    session.execute(f"UPDATE {name} SET n = 60 WHERE pk = 'p1' AND sk = 1").all()
    told: list[str] = []
    session.notice = told.append
    session.execute("UNDO LAST").all()
    now = _scan(moto_backend, name)
    assert now[("p1", Decimal(1))] == before[("p1", Decimal(1))]  # the last write, undone
    assert now[("p0", Decimal(0))]["n"] == 50
    said = " ".join(told)
    assert "SET n = 60" in said and "clock" in said


# --- 5: two writers, one --journal file ------------------------------------------------------


def test_two_journals_appending_to_one_file_read_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    first, second = Journal(path), Journal(path)
    first.begin("t", ("pk",), "UPDATE t SET n = 1 WHERE pk = 'a'")
    second.begin("t", ("pk",), "UPDATE t SET n = 2 WHERE pk = 'b'")
    first.intents("t", [{"pk": "a"}])
    second.intents("t", [{"pk": "b"}])
    second.record("t", {"pk": "b"}, {"pk": "b"}, {"pk": "b", "n": Decimal(2)})
    first.record("t", {"pk": "a"}, {"pk": "a"}, {"pk": "a", "n": Decimal(1)})
    second.close()
    first.close()
    read = read_journal(path)
    assert read.trust.damage is None and read.trust.unfinished == []
    assert sorted(e.key["pk"] for e in read.entries) == ["a", "b"]
    assert read.unknown == []


def test_two_sessions_writing_one_journal_at_once_are_undone_exactly(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend, items=40)
    journal = tmp_path / "shared.jsonl"
    errors: list[BaseException] = []

    def write(pk: str) -> None:
        try:
            _session(moto_backend, tmp_path, journal).execute(
                f"UPDATE {name} SET n = n + 1000 WHERE pk = '{pk}' AND n >= 0"
            ).all()
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=write, args=(pk,)) for pk in ("p0", "p1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(v["n"] >= 1000 for v in _scan(moto_backend, name).values())
    run = _cli(moto_backend, tmp_path, "undo", str(journal), "--yes")
    assert run.returncode == 0, run.stderr
    assert "damaged" not in run.stderr
    assert _scan(moto_backend, name) == before


# --- 6: --journal on a file that is not a journal --------------------------------------------


def test_a_journal_file_that_is_not_a_journal_is_refused_before_any_write(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    link = tmp_path / "j.jsonl"
    link.symlink_to(notes)
    sql = f"UPDATE {name} SET n = 7 WHERE pk = 'p0' AND sk = 0"
    run = _cli(moto_backend, tmp_path, "--yes", "--journal", str(link), "-e", sql)
    assert run.returncode == 1
    error = run.one_error()
    assert (
        str(link) in error and "not a dynosql journal" in error and "nothing was written" in error
    )
    assert notes.read_text() == "my notes\n"
    assert _scan(moto_backend, name) == before


# --- 7: the table's keys or indexes changed since the statement ------------------------------


def test_an_image_whose_value_is_too_long_for_an_index_added_since_is_held_back() -> None:
    """An index added since keys an attribute whose old value is over the key's size (2048
    bytes a partition key, 1024 a sort key): DynamoDB would refuse the restore, so it is
    listed with why; one that fits is restored."""
    from dynosql.journal.schema import Changes, blocked
    from dynosql.plan.schema import table_info

    now = table_info(
        {
            "TableName": "t",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [
                {"AttributeName": a, "AttributeType": "S"} for a in ("pk", "a", "b")
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "by_a",
                    "KeySchema": [
                        {"AttributeName": "a", "KeyType": "HASH"},
                        {"AttributeName": "b", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            ],
        }
    )
    changes = Changes("t", now=now)
    key = {"pk": "k"}
    assert blocked(key, {**key, "a": "x" * 2048, "b": "y" * 1024}, changes) is None
    assert blocked(key, {**key, "a": "x" * 2049}, changes) == (
        "not restored: a is a key of index by_a: its value is 2,049 bytes, over DynamoDB's "
        "2,048-byte limit for a partition key"
    )
    assert blocked(key, {**key, "a": "x", "b": "y" * 1025}, changes) == (
        "not restored: b is a key of index by_a: its value is 1,025 bytes, over DynamoDB's "
        "1,024-byte limit for a sort key"
    )


@pytest.mark.parametrize(
    "server", ["moto", pytest.param("ddblocal", marks=pytest.mark.slow)]
)  # dynalite accepts a new GSI on a table and never builds it
def test_undo_after_an_index_was_added_names_it_and_restores_the_rest(
    server: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """DynamoDB refuses an item whose attribute has another type than an index's key (moto
    does not check): undo compares the indexes first and lists what it cannot restore."""
    moto_backend = request.getfixturevalue(f"{server}_backend")
    name, before = _table(moto_backend, items=4)
    session = _session(moto_backend, tmp_path)
    client = moto_backend.client()
    for sk in (0, 2):  # two items hold a as a number
        client.update_item(TableName=name, Key=values.encode_item({"pk": "p0", "sk": Decimal(sk)}),
                           UpdateExpression="SET a = :a",
                           ExpressionAttributeValues={":a": {"N": "1"}})  # fmt: skip
    before = _scan(moto_backend, name)
    result = session.execute(f"UPDATE {name} SET a = 'x' WHERE n >= 0")
    result.all()
    session.execute(f"CREATE INDEX by_a ON {name} (a S)").all()
    undo = session.undo(result.stats.journal)
    listed = undo.all()
    assert sorted((r["pk"], r["sk"]) for r in listed) == [("p0", 0), ("p0", 2)]
    assert all("by_a" in r["state"] for r in listed)
    said = " ".join(undo.warnings)
    assert "by_a" in said and "2 items" in said
    assert "changed after" not in said  # held back by the index, not changed since
    now = _scan(moto_backend, name)
    assert {k: v for k, v in now.items() if k[0] == "p1"} == {
        k: v for k, v in before.items() if k[0] == "p1"
    }


def test_undo_after_the_table_was_recreated_with_other_keys_says_so(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """A table dropped and recreated is another table: undo refuses it, saying what changed
    (its keys, here); forced, it lists the items the new keys cannot take, writing none."""
    name, _before = _table(moto_backend, items=2)
    session = _session(moto_backend, tmp_path)
    result = session.execute(f"DELETE FROM {name} WHERE pk = 'p0' AND sk = 0")
    result.all()
    moto_backend.delete_table(name)
    moto_backend.create_keyed_table(name, pk=("id", "S"), sk=None)
    with pytest.raises(DynosqlError) as refused:
        session.undo(result.stats.journal).all()
    message = str(refused.value)
    assert "recreated" in message and "(id S)" in message and "(pk S, sk N)" in message
    assert "nothing was undone" in message
    forced = session.undo(result.stats.journal, force_target=True)
    listed = forced.all()
    assert [(r["pk"], r["sk"]) for r in listed] == [("p0", 0)]
    assert "key" in listed[0]["state"] and forced.stats.changed == 0
    said = " ".join(forced.warnings)
    assert "keyed (id S)" in said and "changed after" not in said
    assert moto_backend.client().scan(TableName=name)["Items"] == []


def test_an_index_added_since_holds_back_items_whose_key_attribute_was_empty(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """DynamoDB refuses an empty string as an index key (``a = ''`` is a valid attribute, not
    a valid key of an index on a): found before the first write and listed with why, the rest
    restored, instead of sent and refused."""
    name, _before = _table(moto_backend, items=3, a="")
    moto_backend.client().update_item(TableName=name, Key=values.encode_item({"pk": "p0", "sk": Decimal(2)}),
                                      UpdateExpression="SET a = :y",
                                      ExpressionAttributeValues={":y": {"S": "y"}})  # fmt: skip
    session = _session(moto_backend, tmp_path)
    before = _scan(moto_backend, name)
    result = session.execute(f"UPDATE {name} SET a = 'x' WHERE n >= 0")
    result.all()
    session.execute(f"CREATE INDEX by_a ON {name} (a S)").all()
    undo = session.undo(result.stats.journal)
    listed = undo.all()
    assert sorted((r["pk"], r["sk"]) for r in listed) == [("p0", 0), ("p1", 1)]
    assert all("by_a keys a, and the item's a was empty" in r["state"] for r in listed)
    said = " ".join(undo.warnings)
    assert "2 items cannot be restored as they were" in said and "refused" not in said
    assert _scan(moto_backend, name)[("p0", 2)] == before[("p0", 2)]


@pytest.mark.parametrize("foreseen", [True, False])
def test_items_dynamodb_would_refuse_are_held_back_or_listed_as_refused_not_as_changed(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, foreseen: bool
) -> None:
    """An index added since keys ``a`` as its partition key, and two items held a 3,000-byte
    ``a`` (over the 2,048 bytes a partition key may hold): undo holds them back before any
    request, with why; a refusal it does not foresee (here, with that check turned off) is
    DynamoDB's, listed with its reason and counted as refused. Neither is changed since."""
    if not foreseen:
        from dynosql.journal import schema

        monkeypatch.setattr(schema.values, "key_size_error", lambda *_args: None)
    name, _before = _table(moto_backend, items=3, a="y" * 3000)
    session = _session(moto_backend, tmp_path)
    result = session.execute(f"UPDATE {name} SET a = 'x' WHERE n >= 1")
    result.all()
    session.execute(f"CREATE INDEX by_a ON {name} (a S)").all()
    undo = session.undo(result.stats.journal)
    listed = undo.all()
    assert sorted((r["pk"], r["sk"]) for r in listed) == [("p0", 2), ("p1", 1)]
    said = " ".join(undo.warnings)
    assert "changed after" not in said
    if foreseen:
        assert {r["state"] for r in listed} == {
            "not restored: a is a key of index by_a: its value is 3,000 bytes, over DynamoDB's "
            "2,048-byte limit for a partition key"
        }
        assert "refused by DynamoDB" not in said
    else:
        assert all("DynamoDB refused it" in r["state"] for r in listed)
        assert "2 items refused by DynamoDB" in said


def test_an_undo_that_leaves_items_exits_3_and_stops_the_script(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """Done with items left (held back by an index added since, here) is not done: exit 3,
    one error line after the listing, and the script's next statement is not run; under
    --dry-run, which only says what undo would do, exit 0."""
    name, _before = _table(moto_backend, items=4)
    client = moto_backend.client()
    client.update_item(TableName=name, Key=values.encode_item({"pk": "p0", "sk": Decimal(0)}),
                       UpdateExpression="SET a = :a", ExpressionAttributeValues={":a": {"N": "1"}})  # fmt: skip
    before = _scan(moto_backend, name)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name} SET a = 'x' WHERE n >= 0"
    assert (
        _cli(moto_backend, tmp_path, "--yes", "--journal", str(journal), "-e", sql).returncode == 0
    )
    _session(moto_backend, tmp_path).execute(f"CREATE INDEX by_a ON {name} (a S)").all()
    dry = _cli(moto_backend, tmp_path, "--dry-run", "-e", f"UNDO '{journal}'")
    assert dry.returncode == 0, dry.stderr
    assert _scan(moto_backend, name) != before
    after = f"UPDATE {name} SET n = 99 WHERE pk = 'p1' AND sk = 1"
    run = _cli(moto_backend, tmp_path, "--yes", "-e", f"UNDO '{journal}'; {after}")
    assert run.returncode == 3, run.stderr
    assert run.one_error() == "error: UNDO left 1 item not restored (listed, each with why)"
    assert "index by_a keys a as S" in run.stdout
    now = _scan(moto_backend, name)
    assert {k: v for k, v in now.items() if k != ("p0", 0)} == {
        k: v for k, v in before.items() if k != ("p0", 0)
    }  # the rest restored, and the UPDATE after the UNDO never ran (p1/1 keeps n = 1)


# --- 9: messages that name what they are about -------------------------------------------------


def test_a_dangling_link_as_journal_directory_says_so(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend, items=2)
    link = tmp_path / "journals"
    link.symlink_to(tmp_path / "gone")
    session = Session(
        make_client(endpoint_url=moto_backend.endpoint_url, credentials=("t", "t")),
        settings=Settings(journal_dir=str(link)),
    )
    session.assume_yes = True
    with pytest.raises(DynosqlError) as err:
        session.execute(f"UPDATE {name} SET n = 7 WHERE pk = 'p0' AND sk = 0").all()
    message = str(err.value)
    assert "File exists" not in message
    assert f"{link} is a symbolic link to {tmp_path / 'gone'}, which does not exist" in message
    assert _scan(moto_backend, name) == before


def test_undo_options_before_the_word_and_its_help(moto_backend: Backend, tmp_path: Path) -> None:
    name, before = _table(moto_backend, items=4)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name} SET n = n + 1 WHERE n >= 0"
    assert (
        _cli(moto_backend, tmp_path, "--yes", "--journal", str(journal), "-e", sql).returncode == 0
    )
    lines = journal.read_text().splitlines()
    del lines[2]  # damage: a line missing
    journal.write_text("\n".join(lines) + "\n")
    run = _cli(moto_backend, tmp_path, "--force-damaged", "--yes", "undo", str(journal))
    assert run.returncode == 0, run.stderr
    assert "warning: the journal is damaged" in run.stderr
    assert _scan(moto_backend, name) == before
    helped = run_cli("undo", "--help", env=cli_env(tmp_path))
    assert helped.returncode == 0 and helped.stderr == ""
    assert helped.stdout.startswith("usage: dynosql undo")
    assert "--force-damaged" in helped.stdout and "--last" in helped.stdout


def test_set_read_only_on_turns_it_on_and_never_off(moto_backend: Backend, tmp_path: Path) -> None:
    name, before = _table(moto_backend, items=2)
    session = _session(moto_backend, tmp_path)
    session.execute("SET read_only = on").all()
    with pytest.raises(DynosqlError, match="^refused: read_only is on"):
        session.execute(f"UPDATE {name} SET n = 7 WHERE pk = 'p0' AND sk = 0").all()
    with pytest.raises(DynosqlError, match="cannot turn it off"):
        session.execute("SET read_only = off").all()
    assert _scan(moto_backend, name) == before
