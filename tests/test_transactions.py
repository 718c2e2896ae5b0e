"""BEGIN … COMMIT as one TransactWriteItems, on moto and DynamoDB Local: dynalite has no
TransactWriteItems (it answers UnknownOperationException), so these cannot run there."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli
from test_writes import _create, _table

from dynosql import values
from dynosql.dynamo import writer as write_execute
from dynosql.errors import DynosqlError, PlanError
from dynosql.session import Session, Settings, make_client


@pytest.fixture(params=["moto", "ddblocal"])
def server(request: pytest.FixtureRequest) -> Backend:
    """The servers with transactions (DynamoDB Local's runs are slow, as every test's there)."""
    return request.getfixturevalue(f"{request.param}_backend")


def _session(backend: Backend, tmp_path: Path) -> Session:
    client = make_client(endpoint_url=backend.endpoint_url, credentials=("t", "t"))
    session = Session(client, settings=Settings(journal_dir=str(tmp_path)))
    session.assume_yes = True
    return session


def test_commit_sends_one_transaction_and_undo_restores(server: Backend, tmp_path: Path) -> None:
    name = _create(server)
    before = _table(server, name)
    session = _session(server, tmp_path)
    script = f"""
        BEGIN;
        UPDATE {name} SET n = n + 1 WHERE pk = 'a' AND sk = 1;
        DELETE FROM {name} WHERE pk = 'b' AND sk IN (1, 2);
        INSERT INTO {name} (pk, sk, s) VALUES ('t', 1, 'new');
        UPSERT INTO {name} (pk, sk, s) VALUES ('c', 1, 'replaced');
        UPDATE {name} SET flag = TRUE WHERE pk = 'd' AND n > 40;
        COMMIT;
    """
    results = [r for r in session.run(script)]
    footers = [r.footer() for r in results]
    assert footers[0].startswith("BEGIN")
    assert footers[1] == f"UPDATE {name} queued (1 statement in the transaction)"
    assert footers[-1].startswith(f"COMMIT {name}: 7 matched, 7 written")
    after = _table(server, name)
    expected = dict(before)
    a1 = ("a", Decimal(1))
    expected[a1] = {**before[a1], "n": before[a1]["n"] + 1}
    del expected[("b", Decimal(1))], expected[("b", Decimal(2))]
    expected[("t", Decimal(1))] = {"pk": "t", "sk": Decimal(1), "s": "new"}
    expected[("c", Decimal(1))] = {"pk": "c", "sk": Decimal(1), "s": "replaced"}
    for k in (5, 6):
        expected[("d", Decimal(k))] = {**before[("d", Decimal(k))], "flag": True}
    assert after == expected
    path = footers[-1].split("journal ")[1]
    undo = session.undo(path)
    assert undo.all() == [] and undo.stats.changed == 7
    assert _table(server, name) == before


def test_a_failed_condition_cancels_everything(server: Backend, tmp_path: Path) -> None:
    name = _create(server)
    before = _table(server, name)
    session = _session(server, tmp_path)
    with pytest.raises(
        DynosqlError, match=r"transaction cancelled, nothing was written: action 2 \(INSERT"
    ):
        list(
            session.run(f"""
            BEGIN;
            UPDATE {name} SET n = 0 WHERE pk = 'a' AND sk = 1;
            INSERT INTO {name} (pk, sk) VALUES ('a', 2);
            COMMIT;
        """)
        )
    assert _table(server, name) == before
    assert not session.in_transaction


def test_rollback_and_refusals_before_any_write(server: Backend, tmp_path: Path) -> None:
    name = _create(server)
    before = _table(server, name)
    session = _session(server, tmp_path)
    results = list(session.run(f"BEGIN; DELETE FROM {name} WHERE pk = 'a'; ROLLBACK;"))
    assert results[-1].footer() == "ROLLBACK: 1 queued statement discarded, nothing was written"
    assert _table(server, name) == before
    with pytest.raises(PlanError, match="COMMIT without BEGIN"):
        session.execute("COMMIT")
    with pytest.raises(PlanError, match="the transaction writes the item .* twice"):
        list(
            session.run(
                f"BEGIN; UPDATE {name} SET n = 1 WHERE pk = 'a' AND sk = 1; DELETE FROM {name} WHERE pk = 'a' AND n < 20; COMMIT;"
            )
        )
    rows = ", ".join(f"('x', {i})" for i in range(101))
    with pytest.raises(
        PlanError, match="at most 100 actions .* with this INSERT it would have 101"
    ):
        list(session.run(f"BEGIN; INSERT INTO {name} (pk, sk) VALUES {rows}; COMMIT;"))
    session.execute("ROLLBACK")  # the refused INSERT left the transaction open
    # keys only known at COMMIT (a read finds them): refused there, before any write
    many = "; ".join(f"UPDATE {name} SET n = 1 WHERE pk = 'x{i}' AND sk = 1" for i in range(98))
    with pytest.raises(PlanError, match="at most 100 actions .* this one has 104"):
        list(session.run(f"BEGIN; {many}; UPDATE {name} SET n = 2 WHERE pk = 'b'; COMMIT;"))
    assert _table(server, name) == before


def test_transaction_in_a_script(server: Backend, tmp_path: Path) -> None:
    name = unique_name("tx")
    server.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    sql = f"BEGIN; INSERT INTO {name} (id, v) VALUES ('a', 1), ('b', 2); COMMIT;"
    run = run_cli("--endpoint-url", server.endpoint_url, "-e", sql, env=cli_env(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "COMMIT" in run.stderr and "2 written" in run.stderr
    unfinished = run_cli(
        "--endpoint-url",
        server.endpoint_url,
        "-e",
        f"BEGIN; DELETE FROM {name} WHERE id = 'a'",
        env=cli_env(tmp_path),
    )
    assert unfinished.returncode == 1 and "BEGIN without COMMIT" in unfinished.one_error()
    count = run_cli(
        "--endpoint-url",
        server.endpoint_url,
        "--format",
        "csv",
        "-e",
        f"SELECT COUNT(*) FROM {name}",
        env=cli_env(tmp_path),
    )
    assert count.stdout.splitlines()[1] == "2"


def test_dynalite_says_it_has_no_transactions(dynalite_backend: Backend, tmp_path: Path) -> None:
    name = _create(dynalite_backend)
    before = _table(dynalite_backend, name)
    sql = f"BEGIN; UPDATE {name} SET n = 0 WHERE pk = 'a' AND sk = 1; COMMIT;"
    run = run_cli("--endpoint-url", dynalite_backend.endpoint_url, "-e", sql, env=cli_env(tmp_path))
    assert run.returncode == 1
    assert "has no TransactWriteItems" in run.one_error()
    assert _table(dynalite_backend, name) == before


class _Killed(BaseException):
    """The process dying in flight: not an Exception, so nothing on the way catches it."""


def test_a_commit_killed_in_flight_is_undone_from_its_intents(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DynamoDB applied the TransactWriteItems, then the process died before any answer line:
    each action's intent holds the item as its GetItem read it (the action required exactly
    that) and as the action leaves it, so undo restores them all instead of listing them as
    unknown (issue 21, item 6)."""
    name = unique_name("tk")
    moto_backend.create_keyed_table(name)
    moto_backend.put_items(
        name, [{"pk": p, "sk": Decimal(k), "n": Decimal(k)} for p in "ab" for k in (1, 2)]
    )
    before = _table(moto_backend, name)
    session = _session(moto_backend, tmp_path)
    real = write_execute.Writer.call_or_failure

    def call(self: Any, method: str, params: dict) -> Any:
        answer = real(self, method, params)
        if method == "transact_write_items":
            raise _Killed  # applied; no answer line reaches the journal
        return answer

    monkeypatch.setattr(write_execute.Writer, "call_or_failure", call)
    with pytest.raises(_Killed):
        list(
            session.run(
                f"BEGIN; UPDATE {name} SET n = n + 1 WHERE pk = 'a' AND sk = 1; "
                f"DELETE FROM {name} WHERE pk = 'b' AND sk = 2; "
                f"INSERT INTO {name} (pk, sk) VALUES ('t', 1); COMMIT;"
            )
        )
    monkeypatch.undo()
    assert _table(moto_backend, name) != before  # applied
    (path,) = (tmp_path).glob("*.jsonl")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    intents = [x for x in lines if x.get("intent")]
    assert len(intents) == 3 and not [x for x in lines if "old" in x and not x.get("intent")]
    images = {x["key"]["pk"]["S"]: (x["old"], x["new"]) for x in intents}
    assert images["b"][1] is None and images["t"][0] is None  # deleted; inserted
    assert values.decode_item(images["a"][0]) == before[("a", Decimal(1))]
    undo = session.undo(str(path))
    assert undo.all() == [] and undo.stats.changed == 3
    assert _table(moto_backend, name) == before


def test_every_write_class_says_what_it_is_in_a_transaction() -> None:
    """A write statement class that can be queued between BEGIN and COMMIT has its record in
    the transaction (its action, whether its item is read first, why it cancelled): COMMIT
    looks the differences up there instead of branching on the class."""
    from dynosql.statements.transaction import IN_TRANSACTION
    from dynosql.statements.write import CLASSES

    assert set(IN_TRANSACTION) == set(CLASSES)
    assert {c.action for c in IN_TRANSACTION.values()} == {
        "Put",
        "Update",
        "Delete",
        "ConditionCheck",
    }
