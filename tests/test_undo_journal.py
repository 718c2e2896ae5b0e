"""The undo journal at its edges, through the real command (in-process) on the embedded moto
backend: where the writes went and the statement as written (undo elsewhere refused), lost
answers during an undo, undoing twice, ``undo --last`` and ``\\undo``, a cut or edited
journal, write-ahead fsync, a full disk under the journal, writes never sent or refused, and
COPY's resume (its .bad file, its count after Ctrl-C).
"""

from __future__ import annotations

import json
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, quick_session, unique_name
from cli_runner import cli_env, run_cli
from faultproxy import FaultProxy
from journal_lines import answers
from test_writes import _table as _scan

from dynosql import values
from dynosql.dynamo import writer as write_execute
from dynosql.journal import AHEAD, read_journal
from dynosql.journal import file as journal_module
from dynosql.session import Session, Settings, make_client

ITEMS = 20


def _table(backend: Backend, items: int = ITEMS, **extra: Any) -> tuple[str, dict[tuple, dict]]:
    name = unique_name("uj")
    backend.create_keyed_table(name)
    rows = [{"pk": f"p{i % 2}", "sk": Decimal(i), "n": Decimal(i), **extra} for i in range(items)]
    backend.put_items(name, rows)
    return name, {(r["pk"], r["sk"]): r for r in rows}


def _cli(backend_url: str, tmp_path: Path, *args: str) -> Any:
    return run_cli(*args, "--endpoint-url", backend_url, env=cli_env(tmp_path))


def _session(url: str, tmp_path: Path) -> Session:
    client = make_client(endpoint_url=url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path / "j")))
    session.assume_yes = True
    return session


# --- 4: where the writes went ----------------------------------------------------------------


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_the_header_says_where_and_what_and_undo_elsewhere_is_refused(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name}\n  SET n = n + 100 WHERE pk = 'p0' AND n >= 0"
    with FaultProxy(moto_backend.endpoint_url) as proxy:  # another endpoint, the same server
        run = _cli(proxy.url, tmp_path, "--yes", "--journal", str(journal), "-e", sql)
        assert run.returncode == 0, run.stderr
        header = json.loads(journal.read_text().splitlines()[0])
        assert header["statement"] == sql  # the whole statement, as written
        arn = moto_backend.client().describe_table(TableName=name)["Table"]["TableArn"]
        assert header["target"] == {"endpoint": proxy.url, "region": "us-east-1", "table_arn": arn}
        changed = _scan(moto_backend, name)
        refused = _cli(moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes")
        assert refused.returncode == 3
        error = refused.one_error()
        assert proxy.url in error and moto_backend.endpoint_url in error
        assert "--force-target" in error
        assert _scan(moto_backend, name) == changed  # nothing was undone
        # another region of the same endpoint is another target too
        other = run_cli(
            "--endpoint-url", proxy.url, "--region", "eu-west-1", "undo", str(journal), "--yes",
            env=cli_env(tmp_path),
        )  # fmt: skip
        assert other.returncode == 3 and "eu-west-1" in other.one_error()
    forced = _cli(
        moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--force-target", "--yes"
    )
    assert forced.returncode == 0, forced.stderr
    assert _scan(moto_backend, name) == before


# --- 5: lost answers during an undo ----------------------------------------------------------


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_undo_through_lost_answers_restores_all_and_its_undo_is_exact(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend)
    session = _session(moto_backend.endpoint_url, tmp_path)
    result = session.execute(f"UPDATE {name} SET n = n + 1, s = 'x' WHERE n >= 0")
    result.all()
    updated = _scan(moto_backend, name)
    with FaultProxy(moto_backend.endpoint_url) as proxy:
        proxy.fail("PutItem", "lost", calls=range(1, 200, 5))  # 1 answer in 5 never arrives
        undoing = quick_session(proxy.url, Settings(journal_dir=str(tmp_path / "j")))
        undoing.assume_yes = True
        undo = undoing.undo(result.stats.journal, force_target=True)
        listed = undo.all()
        lost = [c for c in proxy.log if c.action == "lost"]
    assert len(lost) >= 4
    assert listed == [] and not any("changed after" in w for w in undo.warnings)
    assert (undo.stats.changed, undo.stats.skipped) == (ITEMS, 0)
    assert _scan(moto_backend, name) == before
    # the undo's own journal is exact: undoing it gives back the UPDATE's result, every item
    entries = answers(undo.stats.journal)
    assert len(entries) == ITEMS
    redo = session.undo(undo.stats.journal, force_target=True)
    assert redo.all() == [] and redo.stats.changed == ITEMS
    assert _scan(moto_backend, name) == updated


# --- 14: undo twice, the CLI's forms, undo --last and \undo ----------------------------------


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_undo_twice_says_already_restored_and_the_options_first_form_works(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend)
    journal = tmp_path / "j.jsonl"
    url = moto_backend.endpoint_url
    sql = f"DELETE FROM {name} WHERE pk = 'p1'"
    assert _cli(url, tmp_path, "--yes", "--journal", str(journal), "-e", sql).returncode == 0
    # options before the word undo, as `dynosql --local undo FILE` writes them
    first = run_cli("--endpoint-url", url, "undo", str(journal), env=cli_env(tmp_path))
    assert first.returncode == 0, first.stderr
    assert _scan(moto_backend, name) == before
    again = run_cli("--endpoint-url", url, "undo", str(journal), env=cli_env(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "changed after" not in again.stderr
    assert f"warning: {ITEMS // 2} items already as before the statement" in again.stderr
    assert "0 written, 0 skipped" in again.stderr
    assert _scan(moto_backend, name) == before


@pytest.mark.parametrize("args", [("undo",), ("undo", "j.jsonl", "--last"), ("-q", "undo")])
def test_undo_without_one_journal_is_a_usage_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    run = run_cli(*args, env=cli_env(tmp_path))
    assert run.returncode == 2
    assert run.one_error().startswith("error: dynosql undo takes a journal file or --last")


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_undo_last_shows_what_it_will_do_and_is_guarded(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend)
    url = moto_backend.endpoint_url
    older, _ = _table(moto_backend)
    assert _cli(url, tmp_path, "-e", f"UPDATE {older} SET n = 0 WHERE pk = 'p0' AND sk = 0")
    sql = f"UPDATE {name} SET n = -1 WHERE pk = 'p0' AND sk = 2"
    assert _cli(url, tmp_path, "-e", sql).returncode == 0
    changed = _scan(moto_backend, name)
    refused = _cli(url, tmp_path, "undo", "--last")  # a script: nobody to say yes
    assert refused.returncode == 3, refused.stderr
    assert f"{sql}" in refused.stderr and "1 item to restore" in refused.stderr
    assert _scan(moto_backend, name) == changed
    done = _cli(url, tmp_path, "undo", "--last", "--yes")
    assert done.returncode == 0, done.stderr
    assert _scan(moto_backend, name) == before
    # the undo's own journal is not "the last write": again finds the same one, already undone
    again = _cli(url, tmp_path, "undo", "--last", "--yes")
    assert again.returncode == 0 and "already as before" in again.stderr


def test_repl_backslash_undo_undoes_the_newest_write(moto_backend: Backend, tmp_path: Path) -> None:
    from repl_driver import drive

    name, before = _table(moto_backend)
    session = _session(moto_backend.endpoint_url, tmp_path)
    session.execute(f"UPDATE {name} SET n = 7 WHERE pk = 'p1' AND sk = 3").all()
    session.assume_yes = False
    asked: list[str] = []

    def recording(repl: Any) -> None:
        ask = session.confirm
        session.confirm = lambda question: asked.append(question) or ask(question)

    drive(session, "\\undo\ry\r", prepare=recording)  # it says what it will do, then asks
    assert len(asked) == 1 and "SET n = 7" in asked[0] and "1 item to restore" in asked[0]
    assert _scan(moto_backend, name) == before


# --- 9: a journal cut short or edited ----------------------------------------------------------


def _journaled_update(backend: Backend, tmp_path: Path) -> tuple[str, dict, Path]:
    name, before = _table(backend, items=6)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name} SET n = n + 1 WHERE n >= 0"
    run = _cli(backend.endpoint_url, tmp_path, "--yes", "--journal", str(journal), "-e", sql)
    assert run.returncode == 0, run.stderr
    return name, before, journal


def test_a_journal_cut_short_is_undone_with_a_loud_warning(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before, journal = _journaled_update(moto_backend, tmp_path)
    lines = journal.read_text().splitlines()
    assert json.loads(lines[-1])["end"] is True
    journal.write_text("\n".join(lines[:-3]) + "\n")  # the end line and two answers gone
    run = _cli(moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes")
    assert run.returncode == 0, run.stderr
    assert "warning: the journal has no end line" in run.stderr
    # the two writes whose answers were cut off: their intents hold the items as read and as
    # written (the UPDATE read whole items), and the items are as written: restored too
    assert "2 writes whose answer was never journaled" in run.stderr
    assert _scan(moto_backend, name) == before


@pytest.mark.parametrize("edit", ["drop a line", "change a value"])
def test_an_edited_journal_is_refused_unless_forced(
    moto_backend: Backend, tmp_path: Path, edit: str
) -> None:
    name, _before, journal = _journaled_update(moto_backend, tmp_path)
    lines = journal.read_text().splitlines()
    if edit == "drop a line":
        del lines[3]
    else:
        at = next(i for i, x in enumerate(lines) if '"old":{' in x and '"intent"' not in x)
        lines[at] = lines[at].replace('"old":{', '"old":{"extra":{"S":"x"},', 1)
    journal.write_text("\n".join(lines) + "\n")
    changed = _scan(moto_backend, name)
    run = _cli(moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes")
    assert run.returncode == 3
    error = run.one_error()
    assert "damaged" in error and "--force-damaged" in error
    assert _scan(moto_backend, name) == changed
    forced = _cli(
        moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes", "--force-damaged"
    )
    assert forced.returncode == 0, forced.stderr
    assert "warning: the journal is damaged" in forced.stderr


# --- 8: write-ahead on the disk -----------------------------------------------------------------


def test_each_write_is_sent_only_after_its_intent_was_fsynced(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, _before = _table(moto_backend)
    session = _session(moto_backend.endpoint_url, tmp_path)
    synced: list[str] = []  # the journal's text at each fsync
    real_fsync = os.fdatasync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        path = os.readlink(f"/proc/self/fd/{fd}")
        if path.endswith(".jsonl"):
            synced.append(Path(path).read_text())

    real_call = write_execute.Writer.call_or_failure
    early: list[Any] = []

    def call(self: Any, method: str, params: dict) -> Any:
        if method == "update_item":
            key = json.dumps(params["Key"], separators=(",", ":"))
            if not any(f'"key":{key},"intent":true' in text for text in synced):
                early.append(params["Key"])
        return real_call(self, method, params)

    monkeypatch.setattr(journal_module.os, "fdatasync", fsync)
    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    result = session.execute(f"UPDATE {name} SET n = n + 1 WHERE n >= 0")
    result.all()
    monkeypatch.undo()
    assert result.stats.changed == ITEMS
    assert early == []
    # group commit: never more fsyncs than writes, plus the end
    assert 1 <= len(synced) <= ITEMS + 1


# --- 11: a full disk under the journal ----------------------------------------------------------


def _full_after(monkeypatch: pytest.MonkeyPatch, writes: int) -> None:
    """The journal's writes fail with ENOSPC after the first `writes` of them."""
    real = journal_module._os_write
    count = [0]

    def write(fd: int, data: Any) -> int:
        count[0] += 1
        if count[0] > writes:
            raise OSError(28, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(journal_module, "_os_write", write)


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_a_full_disk_under_an_update_stops_it_and_says_how_to_undo(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, before = _table(moto_backend, items=80)  # more than a chunk of intents
    journal = tmp_path / "j.jsonl"
    _full_after(monkeypatch, 9)  # the header, then intents and answers
    sql = f"UPDATE {name} SET n = n + 1 WHERE n >= 0"
    run = _cli(moto_backend.endpoint_url, tmp_path, "--yes", "--journal", str(journal), "-e", sql)
    monkeypatch.undo()
    assert run.returncode == 1
    error = run.one_error()
    assert f"cannot write the undo journal {journal}: No space left on device" in error
    assert f"dynosql undo {journal}" in error and "written" in error
    after = _scan(moto_backend, name)
    changed = {k for k in before if after[k] != before[k]}
    assert 0 < len(changed) < 80
    # nothing was sent without its intent on disk: every change is in the journal
    read = read_journal(journal)
    recorded = {(e.key["pk"], e.key["sk"]) for e in read.entries}
    assert recorded | {(u.key["pk"], u.key["sk"]) for u in read.unknown} >= changed
    undo = _cli(moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes")
    assert undo.returncode == 0, undo.stderr
    restored = _scan(moto_backend, name)
    assert {k for k in before if restored[k] != before[k]} == changed - recorded


def _load_file(path: Path, lines: range, bad: tuple[int, ...] = ()) -> None:
    with path.open("a", encoding="utf-8") as f:
        for i in lines:
            if i in bad:
                f.write('{"pk": "q", "sk": "not a number"}\n')
            else:
                f.write(json.dumps({"pk": "q", "sk": i, "v": f"line {i}"}) + "\n")


def _copy_setup(
    backend: Backend, tmp_path: Path, lines: range, bad: tuple[int, ...] = ()
) -> tuple[str, Path]:
    """An empty table and a JSONL file of `lines` for it to load."""
    name = unique_name("uj")
    backend.create_keyed_table(name)
    data = tmp_path / "load.jsonl"
    _load_file(data, lines, bad)
    return name, data


def test_a_full_disk_under_copy_names_the_journal_and_the_resume_line(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, data = _copy_setup(moto_backend, tmp_path, range(1, 101))
    journal = tmp_path / "j.jsonl"
    _full_after(monkeypatch, 5)  # header, 2 batches' intents and answers
    run = _cli(
        moto_backend.endpoint_url, tmp_path, "--journal", str(journal),
        "-e", f"COPY {name} FROM '{data}'",
    )  # fmt: skip
    monkeypatch.undo()
    assert run.returncode == 1
    error = run.one_error()
    assert f"cannot write the undo journal {journal}: No space left on device" in error
    written = len(_scan(moto_backend, name))
    assert f"; {written} items written" in error
    assert f"to continue: COPY {name} FROM '{data}' FORMAT jsonl START AT LINE {written + 1}" in (
        error
    )


# --- 7: not sent, refused, unknown --------------------------------------------------------------


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_batches_copy_never_sent_are_not_listed_as_sent(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, data = _copy_setup(moto_backend, tmp_path, range(1, 201))
    journal = tmp_path / "j.jsonl"
    url = moto_backend.endpoint_url
    run = _cli(url, tmp_path, "--journal", str(journal), "--max-wcu", "60", "-e",
               f"COPY {name} FROM '{data}'")  # fmt: skip
    assert run.returncode == 3, run.stderr
    written = len(_scan(moto_backend, name))
    assert 0 < written < 200
    undo = _cli(url, tmp_path, "undo", str(journal), "--yes")
    assert undo.returncode == 0, undo.stderr
    assert "unknown" not in undo.stdout + undo.stderr
    assert _scan(moto_backend, name) == {}


@pytest.mark.slow  # several commands (or a proxy): over a second
def test_intents_journaled_ahead_of_writes_never_sent_say_not_sent(
    moto_backend: Backend, tmp_path: Path
) -> None:
    # intents go to disk a chunk at a time (one fsync); --max-wcu stops the UPDATE inside the
    # first chunk: the writes it never started are journaled as not sent, not left "sent"
    name, before = _table(moto_backend, items=2 * AHEAD + 20)
    journal = tmp_path / "j.jsonl"
    url = moto_backend.endpoint_url
    sql = f"UPDATE {name} SET n = n + 1 WHERE n >= 0"
    run = _cli(url, tmp_path, "--yes", "--max-wcu", "10", "--journal", str(journal), "-e", sql)
    assert run.returncode == 3, run.stderr
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    intents = sum(1 for x in lines if x.get("intent"))
    not_sent = sum(1 for x in lines if x.get("not_sent"))
    after = _scan(moto_backend, name)
    written = sum(after[k] != before[k] for k in before)
    # the first chunk, and the next one announced while the first was being sent
    assert 0 < written <= 10 and intents in (AHEAD, 2 * AHEAD)
    assert len(answers(journal)) + not_sent == intents
    undo = _cli(url, tmp_path, "undo", str(journal), "--yes")
    assert undo.returncode == 0, undo.stderr
    assert "unknown" not in undo.stdout + undo.stderr
    assert _scan(moto_backend, name) == before


def test_a_write_dynamodb_refused_is_journaled_as_refused_not_unknown(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, before = _table(moto_backend, items=4)
    client = moto_backend.client()
    key = {"pk": {"S": "p1"}, "sk": {"N": "3"}}
    client.update_item(TableName=name, Key=key, UpdateExpression="SET tags = :t",
                       ExpressionAttributeValues={":t": {"S": "text"}})  # fmt: skip
    journal = tmp_path / "j.jsonl"
    # ADD of a number to a string attribute: DynamoDB refuses it (ValidationException)
    sql = f"UPDATE {name} SET n = n + tags WHERE pk = 'p1' AND sk = 3"
    url = moto_backend.endpoint_url
    run = _cli(url, tmp_path, "--yes", "--journal", str(journal), "-e", sql)
    assert run.returncode == 1, run.stderr
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [x.get("refused", "")[:19] for x in lines if "refused" in x] == ["ValidationException"]
    undo = _cli(url, tmp_path, "undo", str(journal), "--yes")
    assert undo.returncode == 0, undo.stderr
    assert "unknown" not in undo.stdout + undo.stderr
    assert "1 write was sent and refused by DynamoDB (ValidationException)" in undo.stderr
    assert values.decode_item(client.get_item(TableName=name, Key=key)["Item"])["n"] == 3
    del before


# --- 10 and 14: COPY's resume ------------------------------------------------------------------


def test_copy_resumed_with_skip_bad_appends_to_the_bad_file(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name, data = _copy_setup(moto_backend, tmp_path, range(1, 6), bad=(3,))
    url = moto_backend.endpoint_url
    first = _cli(url, tmp_path, "-e", f"COPY {name} FROM '{data}' SKIP BAD")
    assert first.returncode == 0, first.stderr
    _load_file(data, range(6, 11), bad=(8,))  # the file grew; the load goes on from line 6
    resumed = _cli(url, tmp_path, "-e", f"COPY {name} FROM '{data}' SKIP BAD START AT LINE 6")
    assert resumed.returncode == 0, resumed.stderr
    bad = (tmp_path / "load.jsonl.bad").read_text().splitlines()
    assert bad == ['{"pk": "q", "sk": "not a number"}'] * 2
    assert len(_scan(moto_backend, name)) == 8


def test_an_interrupted_copy_counts_the_batch_in_flight(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dynosql.statements import copy as copy_module

    name, data = _copy_setup(moto_backend, tmp_path, range(1, 201))
    real = copy_module.files.read_items

    def read_items(*args: Any, **kwargs: Any) -> Any:
        for line in real(*args, **kwargs):
            if line.number == 61:
                # Ctrl-C while the first batches are being written: once the first is (on a
                # busy machine the writer thread may not have sent it yet at this line)
                deadline = time.monotonic() + 10
                while len(_scan(moto_backend, name)) < 25 and time.monotonic() < deadline:
                    time.sleep(0.01)
                raise KeyboardInterrupt
            yield line

    monkeypatch.setattr(copy_module.files, "read_items", read_items)
    session = _session(moto_backend.endpoint_url, tmp_path)
    told: list[str] = []
    session.notice = told.append
    with pytest.raises(KeyboardInterrupt):
        session.execute(f"COPY {name} FROM '{data}'")
    monkeypatch.undo()
    # two batches of 25 had been handed to the writer: the first is written, the second is
    # written too if it was sent before Ctrl-C stopped it
    written = len(_scan(moto_backend, name))
    assert written in (25, 50)
    assert told and told[-1].startswith(f"{written} items written (journal ")
    assert told[-1].endswith(f"START AT LINE {written + 1}")


# --- 6 (the journal's side): an intent that carries its images --------------------------------


class _Crash(BaseException):
    """The process dying: not an Exception, so nothing on the way catches it."""


def test_an_undo_killed_in_flight_is_itself_undone_exactly(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, _before = _table(moto_backend, items=8)
    session = _session(moto_backend.endpoint_url, tmp_path)
    result = session.execute(f"UPDATE {name} SET n = n + 10, s = 'x' WHERE n >= 0")
    result.all()
    updated = _scan(moto_backend, name)
    real = write_execute.Writer.call_or_failure

    def call(self: Any, method: str, params: dict) -> Any:
        answer = real(self, method, params)
        if method == "put_item" and params["Item"]["sk"] == {"N": "5"}:
            raise _Crash  # restored by DynamoDB; the answer never reaches the journal
        return answer

    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    with pytest.raises(_Crash):
        session.undo(result.stats.journal).all()
    monkeypatch.undo()
    undo_journal = session.last_write.journal
    assert undo_journal is not None and undo_journal.endswith("-undo.jsonl")
    # its intent for sk 5 has no answer, but says what the restore does: undo can tell
    redo = session.undo(undo_journal)
    assert redo.all() == []  # nothing unknown, nothing changed since
    assert _scan(moto_backend, name) == updated


@pytest.mark.slow
def test_the_local_undo_form_the_help_shows(tmp_path: Path) -> None:
    # two embedded servers (one per command, as two processes would have): the second starts
    # from the example data again, so the undo finds every item already as before the UPDATE
    journal = tmp_path / "undo.jsonl"
    env = cli_env(tmp_path)
    sql = "UPDATE drive SET seen = TRUE WHERE PK = 'DRIVE#bob'"
    wrote = run_cli("--local", "--yes", "--journal", str(journal), "-e", sql, env=env)
    assert wrote.returncode == 0, wrote.stderr
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["target"]["endpoint"] == "embedded" and header["statement"] == sql
    run = run_cli("--local", "undo", str(journal), "--yes", env=env)  # 120 items: --yes
    assert run.returncode == 0, run.stderr
    assert "already as before the statement" in run.stderr


def test_the_header_names_the_tables_arn_and_undo_in_another_account_is_refused(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """Item 4: the same endpoint and region under another account (the ARN says which) is
    another target; the header records the table's ARN from DescribeTable."""
    name, before = _table(moto_backend)
    journal = tmp_path / "j.jsonl"
    sql = f"UPDATE {name} SET n = n + 100 WHERE pk = 'p0' AND n >= 0"
    run = _cli(moto_backend.endpoint_url, tmp_path, "--yes", "--journal", str(journal), "-e", sql)
    assert run.returncode == 0, run.stderr
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    arn = moto_backend.client().describe_table(TableName=name)["Table"]["TableArn"]
    assert header["target"]["table_arn"] == arn
    # the same journal as if written in another account (the end line's checksum covers the
    # header, so the edit is also damage: forced here, to reach the target check)
    other = arn.replace(arn.split(":")[4], "999999999999")
    header["target"]["table_arn"] = other
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    refused = _cli(
        moto_backend.endpoint_url, tmp_path, "undo", str(journal), "--yes", "--force-damaged"
    )
    assert refused.returncode == 3
    error = refused.one_error()
    assert other in error and arn in error and "--force-target" in error
    forced = _cli(
        moto_backend.endpoint_url,
        tmp_path,
        "undo",
        str(journal),
        "--yes",
        "--force-damaged",
        "--force-target",
    )
    assert forced.returncode == 0, forced.stderr
    assert _scan(moto_backend, name) == before


# --- 6: old images that were known are kept ----------------------------------------------------


def _intent_of(journal: str, sk: int) -> dict[str, Any]:
    """The intent line of the write to the item ``sk``, and no answer line after it."""
    lines = [json.loads(x) for x in Path(journal).read_text().splitlines()]
    mine = [x for x in lines if x.get("key", {}).get("sk") == {"N": str(sk)}]
    assert len(mine) == 1 and mine[0]["intent"], mine  # its answer never reached the journal
    return mine[0]


@pytest.mark.parametrize("read", [True, False], ids=["read-whole", "by-key"])
def test_a_delete_whose_answer_was_lost_is_undone_from_its_intent(
    moto_backend: Backend, tmp_path: Path, read: bool
) -> None:
    """DynamoDB deleted the item but its answer was lost; the retry found the item gone (its own
    first attempt, or someone else: nobody can tell), so the journal has no answer line for it.
    A DELETE that read the item whole first has it in the intent line: undo puts it back (the
    item is absent, as the DELETE leaves it), and lists nothing as unknown. A DELETE by key read
    nothing: that item stays unknown, never guessed at."""
    name, before = _table(moto_backend, items=8)
    where = "n >= 0" if read else "sk IN (0, 2, 4, 6)"
    with FaultProxy(moto_backend.endpoint_url) as proxy:
        proxy.fail("DeleteItem", "lost", calls=[1], match=lambda b: b["Key"]["sk"] == {"N": "4"})
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path / "j")))
        session.assume_yes = True
        result = session.execute(f"DELETE FROM {name} WHERE pk = 'p0' AND {where}")
        result.all()
    stats = result.stats
    assert (stats.matched, stats.changed, stats.uncertain) == (4, 4, 1)
    assert set(_scan(moto_backend, name)) == {k for k in before if k[0] == "p1"}
    intent = _intent_of(stats.journal, 4)
    undo = _session(moto_backend.endpoint_url, tmp_path).undo(stats.journal, force_target=True)
    listed = undo.all()
    if not read:
        assert "old" not in intent and "old image unknown, listed by undo" in result.footer()
        assert [(r["sk"], r["state"][:7]) for r in listed] == [(4, "unknown")]
        assert _scan(moto_backend, name) == {k: v for k, v in before.items() if k[1] != 4}
        return
    assert "first answer was lost: old image as read before it, in the journal" in result.footer()
    assert values.decode_item(intent["old"]) == before[("p0", Decimal(4))]
    assert intent["new"] is None
    assert listed == []  # nothing unknown, nothing changed since
    assert undo.stats.changed == 4
    assert "1 write whose answer was never journaled" in " ".join(undo.warnings)
    assert _scan(moto_backend, name) == before


@pytest.mark.parametrize("moved", [False, True], ids=["as-written", "changed-since"])
def test_a_guarded_update_killed_in_flight_is_undone_from_its_intent(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moved: bool
) -> None:
    """``n = n + 1`` (guarded: it reads what it writes) applied by DynamoDB, then the process
    died before the answer was journaled. Its intent holds the item as read and as the write
    leaves it: undo restores it while the item is exactly that, and lists it, untouched, when
    another client changed it since (never overwritten)."""
    name, before = _table(moto_backend, items=8)
    session = _session(moto_backend.endpoint_url, tmp_path)
    real = write_execute.Writer.call_or_failure

    def call(self: Any, method: str, params: dict) -> Any:
        answer = real(self, method, params)
        if method == "update_item" and params["Key"]["sk"] == {"N": "2"}:
            raise _Crash  # applied; the answer never reaches the journal
        return answer

    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    with pytest.raises(_Crash):
        session.execute(f"UPDATE {name} SET n = n + 1 WHERE pk = 'p0' AND n >= 0").all()
    monkeypatch.undo()
    journal = session.last_write.journal
    two = ("p0", Decimal(2))
    assert _scan(moto_backend, name)[two]["n"] == 3  # applied
    intent = _intent_of(journal, 2)
    assert values.decode_item(intent["old"]) == before[two]
    assert values.decode_item(intent["new"]) == {**before[two], "n": Decimal(3)}
    if moved:  # another client writes the item after the statement: theirs stands
        moto_backend.client().update_item(
            TableName=name,
            Key=values.encode_item({"pk": "p0", "sk": Decimal(2)}),
            UpdateExpression="SET n = :v",
            ExpressionAttributeValues={":v": {"N": "50"}},
        )
    undo = session.undo(journal)
    listed = undo.all()
    after = _scan(moto_backend, name)
    if moved:
        assert [(r["sk"], r["state"]) for r in listed] == [(2, "changed since")]
        assert after == {**before, two: {**before[two], "n": Decimal(50)}}
    else:
        assert listed == [] and after == before
