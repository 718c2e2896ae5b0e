"""The one guard pipeline, through the real command, on every backend.

Every case here was a seam where a statement family skipped a guard: a TTL that emptied a table
unasked, DDL inside BEGIN … ROLLBACK, transactions that skipped --fail-on-scan, --confirm-over,
--max-wcu and the terminal's question, DROP INDEX and DELETION PROTECTION OFF without a word.
Each refusal happens before the statement changes anything; the tests check the table after.
"""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli

from dynosql.session import Session

EXIT_REFUSED = 3


def _keyed(backend: Backend, items: int = 0, gsi: bool = False) -> str:
    """A table keyed by pk (S), with a GSI on g (S) if asked, holding `items` items."""
    name = unique_name("guard")
    definitions = [{"AttributeName": "pk", "AttributeType": "S"}]
    extra: dict[str, Any] = {}
    if gsi:
        definitions.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ]
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=definitions,
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
    past = int(time.time()) - 3600
    backend.put_items(
        name,
        [{"pk": f"k{i}", "g": f"g{i % 3}", "n": i, "created": past - i} for i in range(items)],
    )
    return name


def _run(backend: Backend, tmp_path: Path, *args: str) -> Any:
    return run_cli("--endpoint-url", backend.endpoint_url, *args, env=cli_env(tmp_path))


def _items(backend: Backend, table: str) -> dict[str, dict]:
    client = backend.client()
    found = client.scan(TableName=table, ConsistentRead=True)["Items"]
    return {item["pk"]["S"]: item for item in found}


# --- destructive schema changes ask, and need --yes in a script --------------------------------


def test_set_ttl_on_past_times_says_how_many_and_needs_yes(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=50)
    run = _run(backend, tmp_path, "-e", f"ALTER TABLE {table} SET TTL created")
    assert run.returncode == EXIT_REFUSED
    error = run.one_error()
    assert "50 of 50 sampled items already do" in error and "needs --yes" in error
    assert len(_items(backend, table)) == 50
    if backend.name == "moto":  # dynalite has no TTL at all
        ttl = backend.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
        assert ttl["TimeToLiveStatus"] == "DISABLED"
        run = _run(backend, tmp_path, "--yes", "-e", f"ALTER TABLE {table} SET TTL created")
        assert run.returncode == 0, run.stderr
        ttl = backend.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
        assert ttl["TimeToLiveStatus"] == "ENABLED"


def test_set_ttl_asks_on_a_terminal_and_no_keeps_it_off(moto_backend: Backend):
    table = _keyed(moto_backend, items=5)
    session = Session(moto_backend.client())
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or False
    result = session.execute(f"ALTER TABLE {table} SET TTL created")
    assert result.title == f"cancelled: {table} was kept"
    assert "5 of 5 sampled items already do" in asked[0] and asked[0].endswith("Turn TTL on?")
    ttl = moto_backend.client().describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "DISABLED"


def test_drop_index_needs_yes(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=3, gsi=True)
    run = _run(backend, tmp_path, "-e", f"DROP INDEX by_g ON {table}")
    assert run.returncode == EXIT_REFUSED
    assert "DROP INDEX by_g deletes the index" in run.one_error()
    assert "needs --yes" in run.one_error()
    described = backend.client().describe_table(TableName=table)["Table"]
    assert [ix["IndexName"] for ix in described["GlobalSecondaryIndexes"]] == ["by_g"]


def test_deletion_protection_off_needs_yes(moto_backend: Backend, tmp_path: Path):
    name = unique_name("guard")
    session = Session(moto_backend.client())
    session.execute(f"CREATE TABLE {name} (pk S, PRIMARY KEY (pk)) DELETION PROTECTION").all()
    run = _run(moto_backend, tmp_path, "-e", f"ALTER TABLE {name} SET DELETION PROTECTION OFF")
    assert run.returncode == EXIT_REFUSED
    assert "DELETION PROTECTION OFF lets DROP TABLE" in run.one_error()
    described = moto_backend.client().describe_table(TableName=name)["Table"]
    assert described["DeletionProtectionEnabled"] is True
    run = _run(
        moto_backend, tmp_path, "--yes", "-e", f"ALTER TABLE {name} SET DELETION PROTECTION OFF"
    )
    assert run.returncode == 0, run.stderr
    described = moto_backend.client().describe_table(TableName=name)["Table"]
    assert described["DeletionProtectionEnabled"] is False


# --- what cannot be rolled back is refused inside BEGIN … COMMIT ------------------------------


@pytest.mark.parametrize(
    ("statement", "label"),
    [
        ("DROP TABLE {t}", "DROP TABLE"),
        ("ALTER TABLE {t} SET BILLING PROVISIONED (1, 1)", "ALTER TABLE"),
        ("CREATE INDEX gx ON {t} (g S)", "CREATE INDEX"),
        ("COPY {t} FROM '{file}'", "COPY FROM"),
        ("UNDO '{file}'", "UNDO"),
    ],
)
def test_what_cannot_be_rolled_back_is_refused_inside_begin(
    backend: Backend, tmp_path: Path, statement: str, label: str
):
    table = _keyed(backend, items=2)
    data = tmp_path / "load.jsonl"
    data.write_text('{"pk": "new"}\n')
    sql = f"BEGIN; {statement.format(t=table, file=data)}; ROLLBACK;"
    run = _run(backend, tmp_path, "--yes", "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert run.one_error() == (
        f"error: refused: {label} cannot be rolled back, so it cannot run inside BEGIN … COMMIT "
        "(nothing was sent); COMMIT or ROLLBACK first"
    )
    assert set(_items(backend, table)) == {"k0", "k1"}
    described = backend.client().describe_table(TableName=table)["Table"]
    assert described["TableStatus"] == "ACTIVE" and not described.get("GlobalSecondaryIndexes")


# --- a transaction is guarded as its statements would be one by one ---------------------------


def test_transaction_refused_by_fail_on_scan(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=4)
    sql = f"BEGIN; UPDATE {table} SET n = 0 WHERE n > 1; COMMIT;"
    run = _run(backend, tmp_path, "--yes", "--fail-on-scan", "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert f"this UPDATE would Scan {table}" in run.one_error()
    assert "--fail-on-scan is set" in run.one_error()
    assert {k: v["n"]["N"] for k, v in _items(backend, table).items()} == {
        f"k{i}": str(i) for i in range(4)
    }


def test_transaction_over_confirm_over_needs_yes(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=4)
    keys = ", ".join(f"'k{i}'" for i in range(3))
    sql = f"BEGIN; UPDATE {table} SET n = 0 WHERE pk IN ({keys}); COMMIT;"
    run = _run(backend, tmp_path, "--confirm-over", "2", "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert f"UPDATE 3 items in {table}" in run.one_error() and "--yes" in run.one_error()
    assert _items(backend, table)["k1"]["n"] == {"N": "1"}


def test_transaction_over_max_wcu_is_refused_whole(backend: Backend, tmp_path: Path):
    table = _keyed(backend)
    rows = ", ".join(f"('t{i}', {i})" for i in range(3))
    sql = f"BEGIN; INSERT INTO {table} (pk, n) VALUES {rows}; COMMIT;"
    run = _run(backend, tmp_path, "--max-wcu", "5", "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert "more than --max-wcu 5" in run.one_error()
    assert "all or nothing" in run.one_error()
    assert _items(backend, table) == {}


def test_transaction_without_where_needs_yes_in_a_script(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=2)
    run = _run(backend, tmp_path, "-e", f"BEGIN; DELETE FROM {table}; COMMIT;")
    assert run.returncode == EXIT_REFUSED
    assert "this DELETE has no WHERE" in run.one_error()
    assert set(_items(backend, table)) == {"k0", "k1"}


def test_transaction_asks_the_terminal_at_commit(moto_backend: Backend, tmp_path: Path):
    table = _keyed(moto_backend, items=3)
    session = Session(moto_backend.client())
    session.settings.journal_dir = str(tmp_path)
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or False
    keys = ", ".join(f"'k{i}'" for i in range(3))
    session.settings.confirm_over = 2
    results = session.run(f"BEGIN; DELETE FROM {table} WHERE pk IN ({keys}); COMMIT;")
    assert next(results).title.startswith("BEGIN")
    assert "queued" in (next(results).title or "")
    with pytest.raises(Exception, match="not confirmed: nothing was written"):
        next(results)
    assert asked == [f"DELETE 3 items from {table} (~6 WCU)?"]  # transactional: twice
    assert set(_items(moto_backend, table)) == {"k0", "k1", "k2"}


# --- the capacity ledger keeps reads and writes apart -----------------------------------------


def test_the_ledger_counts_writes_as_wcu_not_rcu(moto_backend: Backend, tmp_path: Path):
    table = _keyed(moto_backend)
    session = Session(moto_backend.client())
    session.settings.journal_dir = "off"
    session.execute(f"INSERT INTO {table} (pk, n) VALUES ('a', 1), ('b', 2)").all()
    assert session.ledger.rcu == 0 and session.ledger.wcu == Decimal(2)
    data = tmp_path / "load.jsonl"
    data.write_text("".join(f'{{"pk": "c{i}"}}\n' for i in range(3)))
    session.execute(f"COPY {table} FROM '{data}'").all()
    assert session.ledger.rcu == 0 and session.ledger.wcu == Decimal(5)
    session.execute(f"SELECT * FROM {table} WHERE pk = 'a'").all()
    assert session.ledger.rcu == Decimal("0.5") and session.total_capacity == Decimal("0.5")


def test_the_port_settles_every_write_once(moto_backend: Backend) -> None:
    """Where the backend reports no capacity, the port estimates each request from the images
    it is handed, once: a write over an item indexed by the GSI (its table unit and the index's
    delete and put), a non-idempotent UPDATE guarded for exactly once, a failed condition
    (billed all the same) and a transaction (twice); each statement's figure is the ledger's."""
    table = _keyed(moto_backend, gsi=True)
    session = Session(moto_backend.client())
    session.settings.journal_dir = "off"
    session.settings.yes = True
    spent = []
    for sql in (
        f"INSERT INTO {table} (pk, g, n) VALUES ('a', 'x', 1)",  # table 1 + index put 1
        f"UPDATE {table} SET g = 'y' WHERE pk = 'a'",  # 1 + the index's delete and put
        f"UPDATE {table} SET n = n + 1 WHERE pk = 'a'",  # exactly once: 1 + the index's 1
        f"INSERT INTO {table} (pk) VALUES ('a') ON CONFLICT DO NOTHING",  # failed: 1
    ):
        before = session.ledger.wcu
        result = session.execute(sql)
        result.all()
        assert session.ledger.wcu - before == result.stats.wcu, sql
        spent.append(result.stats.wcu)
    assert spent == [Decimal(2), Decimal(3), Decimal(2), Decimal(1)]
    before = session.ledger.wcu
    results = list(session.run(f"BEGIN; INSERT INTO {table} (pk) VALUES ('b'); COMMIT;"))
    assert session.ledger.wcu - before == Decimal(2) == results[-1].stats.wcu


# --- one way a result is made -----------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE {t} SET n = 1 WHERE pk = 'k0' AND contains(g, 'zz') RETURNING *",
        "UPDATE {t} SET n = 1 WHERE contains(g, 'zz') RETURNING *",
        "DELETE FROM {t} WHERE g = 'none' RETURNING *",
        "INSERT INTO {t} SELECT * FROM {t} WHERE g = 'none' RETURNING *",
    ],
)
def test_returning_that_matched_nothing_prints_no_rows(
    backend: Backend, tmp_path: Path, statement: str
):
    """A write with RETURNING answers with rows, also when there are none: `[]` in JSON, as a
    SELECT that matches nothing (it used to print nothing at all)."""
    table = _keyed(backend, items=3)
    run = _run(backend, tmp_path, "--yes", "--format", "json", "-e", statement.format(t=table))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


# --- found by a review of the pipeline (each went through before) ------------------------------


def test_explain_analyze_of_a_write_is_refused_inside_begin(backend: Backend, tmp_path: Path):
    """EXPLAIN ANALYZE runs the write now, where ROLLBACK cannot reach it."""
    table = _keyed(backend, items=2)
    sql = f"BEGIN; EXPLAIN ANALYZE DELETE FROM {table} WHERE pk = 'k0'; ROLLBACK;"
    run = _run(backend, tmp_path, "--yes", "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert "EXPLAIN ANALYZE DELETE cannot be rolled back" in run.one_error()
    assert set(_items(backend, table)) == {"k0", "k1"}


@pytest.mark.parametrize("verb", ["INSERT", "UPSERT", "REPLACE"])
def test_insert_select_over_a_scan_needs_yes(backend: Backend, tmp_path: Path, verb: str):
    source, target = _keyed(backend, items=3), _keyed(backend)
    sql = f"{verb} INTO {target} SELECT * FROM {source}"
    run = _run(backend, tmp_path, "-e", sql)
    assert run.returncode == EXIT_REFUSED
    assert f"this {verb} reads the whole source table (Scan)" in run.one_error()
    assert _items(backend, target) == {}
    run = _run(backend, tmp_path, "--yes", "--confirm-over", "2", "-e", sql)
    assert run.returncode == 0, run.stderr
    assert set(_items(backend, target)) == {"k0", "k1", "k2"}


def test_insert_select_over_confirm_over_asks(moto_backend: Backend, tmp_path: Path):
    source, target = _keyed(moto_backend, items=3), _keyed(moto_backend)
    session = Session(moto_backend.client())
    session.settings.confirm_over = 2
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or False
    keys = ", ".join(f"'k{i}'" for i in range(3))
    with pytest.raises(Exception, match="not confirmed"):
        session.execute(f"INSERT INTO {target} SELECT * FROM {source} WHERE pk IN ({keys})")
    assert asked == [f"INSERT 3 items in {target} (~3 WCU)?"]
    assert _items(moto_backend, target) == {}


def test_show_entities_sample_is_a_scan_under_fail_on_scan(backend: Backend, tmp_path: Path):
    table = _keyed(backend, items=3)
    run = _run(backend, tmp_path, "--fail-on-scan", "-e", f"SHOW ENTITIES FROM {table} SAMPLE 2")
    assert run.returncode == EXIT_REFUSED
    assert f"this SHOW ENTITIES would Scan {table} (~2 items" in run.one_error()


def test_undo_of_many_items_needs_yes(backend: Backend, tmp_path: Path):
    table = _keyed(backend)
    journal = tmp_path / "j.jsonl"
    rows = ", ".join(f"('u{i}', {i})" for i in range(4))
    run = _run(
        backend,
        tmp_path,
        "--journal",
        str(journal),
        "-e",
        f"INSERT INTO {table} (pk, n) VALUES {rows}",
    )
    assert run.returncode == 0, run.stderr
    run = _run(backend, tmp_path, "--confirm-over", "3", "-e", f"UNDO '{journal}'")
    assert run.returncode == EXIT_REFUSED
    assert "UNDO 4 writes" in run.one_error() and "--yes" in run.one_error()
    assert len(_items(backend, table)) == 4
    run = _run(backend, tmp_path, "--confirm-over", "3", "--yes", "-e", f"UNDO '{journal}'")
    assert run.returncode == 0, run.stderr
    assert _items(backend, table) == {}


def test_create_index_backfill_over_max_wcu_is_refused(moto_backend: Backend, tmp_path: Path):
    """Where the table's size is known (moto: measured on a sample; dynalite reports 0 items,
    so its backfill cannot be priced)."""
    backend = moto_backend
    table = _keyed(backend, items=5)
    run = _run(backend, tmp_path, "--max-wcu", "1", "-e", f"CREATE INDEX by_n ON {table} (n N)")
    assert run.returncode == EXIT_REFUSED
    assert "more than --max-wcu 1; an index backfill cannot be stopped" in run.one_error()
    described = backend.client().describe_table(TableName=table)["Table"]
    assert not described.get("GlobalSecondaryIndexes")
