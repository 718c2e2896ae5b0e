"""COPY FROM's undo journal, on every server: a load that overwrites some keys and adds others
is journaled like UPSERT (old images read by BatchGetItem before each batch), and `dynosql undo`
gives the table back exactly; with journaling off nothing is read and no journal is kept."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from cli_runner import cli_env, run_cli
from journal_lines import answers
from test_copy import _dump, _table

from dynosql import files, values
from dynosql.plan.copy import FileMeasure, plan_copy_from
from dynosql.plan.schema import table_info
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import ast
from dynosql.statements.copy_journal import KeysSeen

BEFORE = [  # what the table holds before the load
    {"pk": "a", "sk": Decimal(1), "v": "old a", "gone": values.StringSet({"x"})},
    {"pk": "b", "sk": Decimal(2), "v": "old b", "big": "y" * 3000},
    {"pk": "keep", "sk": Decimal(3), "v": "not in the file"},
]


def _load_file(path: Path) -> None:
    """Overwrites a and b, adds 40 new keys (two batches), repeats a in a later batch."""
    rows = [
        {"pk": "a", "sk": Decimal(1), "v": "new a", "n": Decimal("1.50")},
        {"pk": "b", "sk": Decimal(2), "v": "new b", "bin": b"\x00\xff"},
    ]
    rows += [{"pk": f"new{i:02}", "sk": Decimal(i), "v": "added"} for i in range(40)]
    rows.append({"pk": "a", "sk": Decimal(1), "v": "newer a"})
    path.write_text("".join(files.item_json(r) + "\n" for r in rows))


@pytest.fixture
def session(backend: Any, tmp_path: Path) -> Session:
    return Session(backend.client(), settings=Settings(journal_dir=str(tmp_path / "journal")))


def test_undo_after_a_load_that_overwrote_and_added(
    session: Session, backend: Any, tmp_path: Path
) -> None:
    table = _table(session, BEFORE)
    before = _dump(session, table)
    path = tmp_path / "load.jsonl"
    _load_file(path)
    result = session.execute(f"COPY {table} FROM '{path}'")
    result.all()
    title = result.title or ""
    assert title.startswith(f"COPY 43 rows ← {path} · 2 BatchWriteItem calls")
    assert "+ 1 Scan, 2 BatchGetItem calls · " in title  # not empty: every batch read
    journal = title.split(" · journal ")[1]
    header = json.loads(Path(journal).read_text().splitlines()[0])
    assert header["journal"] == 3 and header["statement"].startswith(f"COPY {table} FROM")
    entries = answers(journal)
    assert len(entries) == 43
    by_key = [(e["key"]["pk"]["S"], e["old"]) for e in entries]
    assert by_key[0] == ("a", values.encode_item(values.decode_item(before[0])))
    assert by_key[1][1]["big"] == {"S": "y" * 3000}
    assert all(old is None for _pk, old in by_key[2:42])  # the added keys did not exist
    assert by_key[42][0] == "a" and by_key[42][1]["v"] == {"S": "new a"}  # the load's own write
    assert len(_dump(session, table)) == 3 + 40

    run = run_cli("undo", journal, "--endpoint-url", backend.endpoint_url, env=cli_env(tmp_path))
    assert run.returncode == 0, run.stderr
    assert _dump(session, table) == before


def test_a_load_into_an_empty_table_reads_only_repeated_keys(
    session: Session, backend: Any, tmp_path: Path
) -> None:
    """Empty when the load starts (one consistent Scan of one item): a key not yet written did
    not exist, so nothing is read but the key repeated from an earlier batch; its journal line
    has the load's own first write as the old image, and undo empties the table again."""
    table = _table(session)
    path = tmp_path / "load.jsonl"
    _load_file(path)
    result = session.execute(f"COPY {table} FROM '{path}'")
    result.all()
    title = result.title or ""
    assert "+ 1 Scan, 1 BatchGetItem call · " in title
    journal = title.split(" · journal ")[1]
    entries = answers(journal)
    assert [e["old"] for e in entries[:42]] == [None] * 42
    assert entries[42]["old"]["v"] == {"S": "new a"}
    run = run_cli("undo", journal, "--endpoint-url", backend.endpoint_url, env=cli_env(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "0 skipped" in run.stderr
    assert _dump(session, table) == []


def test_keys_seen_never_forgets() -> None:
    seen = KeysSeen()
    keys = [("S", f"k{i}") for i in range(20000)]
    assert sum(seen.add(k) for k in keys) < 5  # false positives: rare
    assert all(seen.add(k) for k in keys)  # a key added is always found


def test_undo_leaves_an_item_changed_after_the_load(session: Session, tmp_path: Path) -> None:
    table = _table(session, BEFORE)
    path = tmp_path / "load.jsonl"
    _load_file(path)
    result = session.execute(f"COPY {table} FROM '{path}'")
    result.all()
    journal = (result.title or "").split(" · journal ")[1]
    session.execute(f"UPDATE {table} SET v = 'someone else' WHERE pk = 'new05' AND sk = 5").all()
    rows = session.execute(f"UNDO '{journal}'").all()
    assert [(r["pk"], r["sk"]) for r in rows] == [("new05", Decimal(5))]  # listed, not undone
    assert [i["pk"]["S"] for i in _dump(session, table)] == ["a", "b", "keep", "new05"]


def test_journal_off_reads_nothing_and_keeps_no_journal(backend: Any, tmp_path: Path) -> None:
    session = Session(backend.client(), settings=Settings(journal_dir="off"))
    calls: list[str] = []
    real = session.client.batch_get_item

    def counted(**kwargs: Any) -> dict:
        calls.append("BatchGetItem")
        return real(**kwargs)

    session.client.batch_get_item = counted  # type: ignore[method-assign]
    table = _table(session, BEFORE)
    path = tmp_path / "load.jsonl"
    _load_file(path)
    result = session.execute(f"COPY {table} FROM '{path}'")
    result.all()
    assert calls == []
    title = result.title or ""
    assert " · journal " not in title and "BatchGetItem" not in title
    assert session.last_write is None
    assert len(_dump(session, table)) == 43


def test_journal_file_given_is_appended(backend: Any, tmp_path: Path) -> None:
    """--journal FILE: the load appends to it (like every write), even when nothing changed."""
    journal = tmp_path / "mine.jsonl"
    session = Session(backend.client())
    session.journal_file = str(journal)
    table = _table(session)
    path = tmp_path / "load.jsonl"
    path.write_text(files.item_json({"pk": "z", "sk": Decimal(0)}) + "\n")
    session.execute(f"COPY {table} FROM '{path}'").all()
    (entry,) = answers(journal)
    assert entry["old"] is None


def test_explain_prices_the_journal_reads(session: Session, tmp_path: Path) -> None:
    """EXPLAIN COPY FROM reads the file, not the table: the items and WCU exactly for a small
    file, scaled from the first 1000 items for a larger one. The journal's reads: one Scan of
    one item into an empty table, a consistent read per key into one with items; none with the
    journal off. Nothing is written."""
    table = _table(session)
    path = tmp_path / "load.jsonl"
    path.write_text(
        "".join(
            files.item_json({"pk": f"k{i}", "sk": Decimal(i), "v": "x" * 1500}) + "\n"
            for i in range(2500)
        )
    )
    small = tmp_path / "small.csv"
    small.write_text("pk,sk\na,1\nb,2\n")
    result = session.execute(f"EXPLAIN COPY {table} FROM '{small}'")
    lines = [r["plan"] for r in result.all()]
    assert lines[1] == "estimate: 2 items, ~1 RCU read + ~2 WCU written"
    assert any("client.batch_get_item" in line for line in lines)
    assert result.document["requests"][1]["params"]["RequestItems"][table]["ConsistentRead"]
    big = [r["plan"] for r in session.execute(f"EXPLAIN COPY {table} FROM '{path}'").all()]
    assert big[1] == "estimate: up to ~2500 items, ~1 RCU read + ~5000 WCU written"
    session.execute(f"COPY {table} FROM '{small}'").all()
    session.refresh()
    if session.table(table).item_count:  # DescribeTable's count (AWS: up to 6 hours late)
        full = [r["plan"] for r in session.execute(f"EXPLAIN COPY {table} FROM '{path}'").all()]
        assert full[1] == "estimate: up to ~2500 items, ~2501 RCU read + ~5000 WCU written"
    session.execute("SET journal_dir = off").all()
    off = [r["plan"] for r in session.execute(f"EXPLAIN COPY {table} FROM '{small}'").all()]
    assert off[1] == "estimate: 2 items, ~0 RCU read + ~2 WCU written"
    assert not any("batch_get_item" in line or "client.scan" in line for line in off)
    assert len(_dump(session, table)) == 2


def test_plan_prices_a_read_per_key_when_the_table_has_items() -> None:
    """Pure: with DescribeTable's count above 0 every key is priced as a consistent read of
    the table's average item (grammar/tables.json's big: 536 bytes, 1 unit), plus the Scan
    that tells an empty table."""
    tables = json.loads((Path(__file__).parent.parent / "grammar" / "tables.json").read_text())
    table = table_info(tables["big"])
    statement = ast.CopyFrom("big", "f.jsonl", "jsonl")
    measure = FileMeasure(100, Decimal(100), whole=False, scale=2.5)
    plan = plan_copy_from(statement, table, measure, journal=True)
    assert plan.estimate.text() == "up to ~250 items, ~251 RCU read + ~250 WCU written"
    assert [r.operation for r in plan.requests] == ["Scan", "BatchGetItem", "BatchWriteItem"]
    plan = plan_copy_from(statement, table, measure, journal=False)
    assert [r.operation for r in plan.requests] == ["BatchWriteItem"]
    assert plan.lines()[-1] == "no undo journal (journal_dir is off): nothing is read"
