"""What a statement changes in its session comes back to the Session, never through the
Context it is handed: in its result, or, when it is stopped midway (Ctrl-C, an error after
some requests), in the error that stopped it (`dynosql.result.carried`), which the Session
applies before the error goes on. Each test stops a statement after it changed something and
checks that the Session kept it (the export taken: test_export_engine.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from botocore.exceptions import ClientError
from test_estimates import _explained

from dynosql.errors import DynosqlError, GuardError
from dynosql.result import Changes, Stats, carried, carried_by
from dynosql.session import Session, Settings


def _partition(backend: Backend, items: int) -> str:
    name = unique_name("changes")
    backend.create_keyed_table(name)
    backend.put_items(name, [{"pk": "a", "sk": i, "n": i} for i in range(items)])
    return name


def _fail_the(session: Session, operation: str, call: int) -> None:
    """The `call`-th request of `operation` and every later one fail before they are sent (a
    refusal: not retried)."""
    calls = []

    def refuse(**_kwargs: Any) -> None:
        calls.append(1)
        if len(calls) >= call:
            error = {"Code": "ValidationException", "Message": "refused by the test"}
            raise ClientError({"Error": error}, operation)

    session.client.meta.events.register(f"before-call.dynamodb.{operation}", refuse)


def test_a_write_stopped_by_an_error_leaves_its_read_and_journal_to_the_session(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """An UPDATE reads its partition whole, writes 2 items, and its third request fails: the
    error carries the partition it read (a later EXPLAIN stands on it) and the write begun
    (`last_write`, whose journal undo puts back)."""
    name = _partition(moto_backend, 5)
    before = moto_backend.client().scan(TableName=name, ConsistentRead=True)["Items"]
    session = Session(moto_backend.client(), settings=Settings(journal_dir=str(tmp_path)))
    session.assume_yes = True
    _fail_the(session, "UpdateItem", 3)
    with pytest.raises(DynosqlError, match="refused by the test"):
        session.execute(f"UPDATE {name} SET n = n + 100 WHERE pk = 'a'").all()
    written = session.last_write
    assert written is not None and written.changed == 2 and written.journal
    line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
    assert "pk = 'a', read whole earlier this session: 5 items" in line
    session.client.meta.events.unregister("before-call.dynamodb.UpdateItem")
    session.undo(written.journal).all()
    after = moto_backend.client().scan(TableName=name, ConsistentRead=True)["Items"]
    assert sorted(map(str, after)) == sorted(map(str, before))


def test_rows_stopped_by_ctrl_c_leave_what_was_read_to_the_session(moto_backend: Backend) -> None:
    """SHOW HOT KEYS counts every key before its first row: Ctrl-C while the rows are shown
    (the front door reading them) still leaves the count to later estimates."""
    name = _partition(moto_backend, 3)
    with Session(moto_backend.client()) as session:
        rows = session.execute(f"SHOW HOT KEYS FROM {name}").rows
        assert next(iter(rows))["key"] == "a"
        assert isinstance(rows, type(x for x in ()))  # a generator: Ctrl-C arrives inside it
        with pytest.raises(KeyboardInterrupt):
            rows.throw(KeyboardInterrupt())
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "pk = 'a', read whole earlier this session: 3 items" in line


@pytest.mark.parametrize(
    "sql",
    ["SHOW HOT KEYS FROM {t}", "SELECT * FROM {t} WHERE pk = 'a' ORDER BY n DESC"],
    ids=["hot keys", "sorted select"],
)
def test_rows_abandoned_part_way_count_before_the_next_statement(
    moto_backend: Backend, sql: str
) -> None:
    """SHOW HOT KEYS, and a SELECT sorted client-side, read their partition whole before their
    first row. Left after one row, their generator still held (neither closed nor collected,
    as a script or a cursor may leave it), what they read is applied as the next statement
    starts, not whenever the generator happens to be closed; the rows can still be read."""
    name = _partition(moto_backend, 3)
    with Session(moto_backend.client()) as session:
        rows = iter(session.execute(sql.format(t=name)))
        first = next(rows)
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "pk = 'a', read whole earlier this session: 3 items" in line, line
        rest = list(rows)
        assert len(rest) == (0 if sql.startswith("SHOW") else 2), (first, rest)


def test_rows_closed_after_a_table_changed_leave_nothing_stale(moto_backend: Backend) -> None:
    """SHOW HOT KEYS' rows, left half read while the table is dropped and made again, then
    closed (a DB-API cursor's result replaced by its next statement's): their count was of
    the table as it was, so later estimates of the new table do not stand on it."""
    name = _partition(moto_backend, 3)
    with Session(moto_backend.client()) as session:
        session.assume_yes = True
        rows = session.execute(f"SHOW HOT KEYS FROM {name}").rows
        assert next(iter(rows))["key"] == "a"
        session.execute(f"DROP TABLE {name}").all()
        session.execute(f"CREATE TABLE {name} (pk S, sk N, PRIMARY KEY (pk, sk))").all()
        rows.close()
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "based on a guess: no partition of" in line, line


def test_a_write_the_guards_refuse_after_its_read_leaves_the_read(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """An UPDATE, then a COMMIT of one, reads its partition whole, then the pipeline refuses
    it (a script, over --confirm-over): the refusal stops the statement as an error would,
    and later estimates still stand on what it read."""
    name = _partition(moto_backend, 5)
    settings = Settings(journal_dir=str(tmp_path), confirm_over=2)
    with Session(moto_backend.client(), settings=settings) as session:
        with pytest.raises(GuardError, match="needs a confirmation"):
            session.execute(f"UPDATE {name} SET n = 0 WHERE pk = 'a'").all()
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "pk = 'a', read whole earlier this session: 5 items" in line
        other = _partition(moto_backend, 4)
        session.execute("BEGIN")
        session.execute(f"UPDATE {other} SET n = 0 WHERE pk = 'a'")
        with pytest.raises(GuardError, match="needs a confirmation"):
            session.execute("COMMIT").all()
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {other} WHERE pk = 'a'")
        assert "pk = 'a', read whole earlier this session: 4 items" in line


def test_an_error_carries_the_changes_of_every_block_it_leaves() -> None:
    """`carried` hands the stats' changes to the error once (the outer block's come first:
    they were made before the inner statement that failed); an error raised from it keeps
    them."""
    outer, inner = Stats(), Stats()
    outer.change(Changes(export=("t", "arn:1"), dropped=("a",)))
    inner.change(Changes(export=("t", "arn:2"), dropped=("b",)))
    with pytest.raises(RuntimeError) as caught:
        with carried(outer):
            try:
                with carried(inner):
                    raise KeyboardInterrupt
            except KeyboardInterrupt as err:
                raise RuntimeError("said again") from err
    changes = carried_by(caught.value)
    assert changes.export == ("t", "arn:2") and changes.dropped == ("a", "b")
    assert outer.take_changes() == Changes() == inner.take_changes()


def test_a_table_change_forgets_the_partitions_read(moto_backend: Backend) -> None:
    """What was observed of the tables is the Session's to forget when a statement changed a
    table (the port's catalog refreshed: `Port.catalog_version`), not the kind's."""
    name = _partition(moto_backend, 4)
    other = unique_name("changes")
    with Session(moto_backend.client()) as session:
        session.assume_yes = True
        session.execute(f"SELECT * FROM {name} WHERE pk = 'a'").all()
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "pk = 'a', read whole earlier this session: 4 items" in line
        session.execute(f"CREATE TABLE {other} (pk S, PRIMARY KEY (pk))").all()
        line, _ = _explained(session, f"EXPLAIN SELECT * FROM {name} WHERE pk = 'a'")
        assert "read whole" not in line


def test_ctrl_c_in_a_write_names_its_journal_on_the_command_line(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """Ctrl-C during an UPDATE's third write: its result never comes, and the command line
    still names the journal of what was written (the interrupt carried the write begun)."""
    import argparse
    import io

    from dynosql.cli import run_statements
    from dynosql.sql import parse_script

    name = _partition(moto_backend, 5)
    session = Session(moto_backend.client(), settings=Settings(journal_dir=str(tmp_path)))
    session.assume_yes = True
    calls = []

    def ctrl_c(**_kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    session.client.meta.events.register("before-call.dynamodb.UpdateItem", ctrl_c)
    statements = parse_script(f"UPDATE {name} SET n = n + 1 WHERE pk = 'a'")
    args = argparse.Namespace(quiet=False, debug=False)
    err = io.StringIO()
    assert run_statements(session, statements, args, io.StringIO(), err) == 130
    written = session.last_write
    assert written is not None and written.journal
    assert f"note: what was written is in the journal {written.journal}" in err.getvalue()
