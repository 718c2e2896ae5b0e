"""One retry policy (dynosql/dynamo/retry.py) for every request: reads, writes, transactions,
table changes and their waits.

The policy's rules are checked on their own first (a fake request raising botocore's errors;
the sleep injected, so nothing waits unless the deadline is under test). Then through the real
path, on moto and dynalite behind tests/faultproxy.py: a CREATE TABLE throttled twice, a write
retried until the deadline, Ctrl-C (the session's cancel event) during a DDL wait and during a
write's backoff, transactions cancelled by conflicts (moto: dynalite has no transactions).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend, quick_session, unique_name
from botocore.exceptions import ClientError, ReadTimeoutError
from faultproxy import FaultProxy
from test_writes import _create, _table

from dynosql.dynamo.budget import Cancelled
from dynosql.dynamo.retry import (
    CONFLICT_ROUNDS,
    THROTTLE_TRIES,
    TRANSACTION_ROUNDS,
    TRANSIENT_TRIES,
    RetryPolicy,
)
from dynosql.dynamo.writer import Writer
from dynosql.errors import DynosqlError, ExecutionError
from dynosql.result import WriteStats
from dynosql.session import Settings
from dynosql.statements.write_one import Outcome

# --- the policy on its own --------------------------------------------------------------------


def _error(code: str, status: int = 400) -> ClientError:
    return ClientError(
        {
            "Error": {"Code": code, "Message": f"{code} (test)"},
            "ResponseMetadata": {"HTTPStatusCode": status},
        },
        "PutItem",
    )


class Flaky:
    """A request that fails with `errors` in turn (the last one for ever when `forever`)."""

    def __init__(self, *errors: Exception, forever: bool = False):
        self.errors = list(errors)
        self.forever = forever
        self.calls: list[dict] = []

    def __call__(self, **params: Any) -> dict:
        self.calls.append(params)
        if self.errors:
            error = self.errors[0] if self.forever else self.errors.pop(0)
            raise error
        return {"ok": True}


def _no_wait(seconds: float) -> None:
    pass


def test_throttles_and_5xx_are_sent_again_as_the_same_request() -> None:
    slept: list[float] = []
    send = Flaky(_error("ThrottlingException"), _error("InternalServerError", 500))
    assert RetryPolicy(sleep=slept.append).call(send, TableName="t") == {"ok": True}
    assert send.calls == [{"TableName": "t"}] * 3
    assert slept and all(0 <= s <= 0.1 for s in slept)  # waits in slices of at most 0.1 s
    assert sum(slept) <= 0.2 + 0.4


@pytest.mark.parametrize(
    "error, attempts, tries",
    [
        (_error("ProvisionedThroughputExceededException"), 1, THROTTLE_TRIES),
        (_error("ThrottlingException"), 3, 7),  # botocore's 3 attempts behind each try
        (_error("InternalServerError", 500), 1, TRANSIENT_TRIES),
        (_error("InternalServerError", 500), 3, 3),
        (ReadTimeoutError(endpoint_url="http://x"), 1, TRANSIENT_TRIES),  # a dropped answer
        (_error("TransactionConflictException"), 3, CONFLICT_ROUNDS + 1),
        (_error("ValidationException"), 1, 1),  # a refusal is final
        (_error("UnrecognizedClientException"), 1, 1),
    ],
    ids=["throttle", "throttle-3", "5xx", "5xx-3", "dropped", "conflict", "refused", "creds"],
)
def test_what_is_retried_and_how_often(error: Exception, attempts: int, tries: int) -> None:
    send = Flaky(error, forever=True)
    with pytest.raises(DynosqlError) as caught:
        RetryPolicy(sleep=_no_wait, attempts=attempts).call(send, what="writes")
    assert len(send.calls) == tries
    assert caught.value.__cause__ is error
    if "Throttl" in str(error) or "Provisioned" in str(error):
        assert str(caught.value).startswith("DynamoDB kept throttling the writes after retries")


def test_once_sends_once() -> None:
    send = Flaky(_error("ThrottlingException"), forever=True)
    with pytest.raises(ExecutionError, match="kept throttling the requests"):
        RetryPolicy.once().call(send)
    assert len(send.calls) == 1


def test_an_answer_the_caller_takes_is_returned_with_the_tries() -> None:
    send = Flaky(_error("ThrottlingException"), _error("ConditionalCheckFailedException"))
    sent = RetryPolicy(sleep=_no_wait).send(send, answers=("ConditionalCheckFailedException",))
    assert sent.tries == 2 and sent.value is None
    assert isinstance(sent.error, ClientError)


def test_the_deadline_ends_the_retries() -> None:
    """Real waits: the retries stop once another round would not fit in the deadline."""
    send = Flaky(_error("ThrottlingException"), forever=True)
    started = time.monotonic()
    with pytest.raises(ExecutionError) as caught:
        RetryPolicy(deadline=0.5).call(send, what="writes")
    took = time.monotonic() - started
    assert took < 1.0, took
    assert 1 < len(send.calls) < THROTTLE_TRIES
    message = str(caught.value)
    assert message.startswith("DynamoDB kept throttling the writes after retries")
    assert "the deadline setting is 0.5 s" in message


def test_cancel_stops_a_backoff_and_sends_nothing_more() -> None:
    cancel = threading.Event()
    slept: list[float] = []

    def ctrl_c(seconds: float) -> None:  # Ctrl-C arrives while the request waits
        slept.append(seconds)
        cancel.set()

    send = Flaky(_error("ThrottlingException"), forever=True)
    with pytest.raises(Cancelled):
        RetryPolicy(cancel=cancel, sleep=ctrl_c).call(send)
    assert len(send.calls) == 1 and len(slept) == 1
    assert issubclass(Cancelled, KeyboardInterrupt)
    with pytest.raises(Cancelled):  # once cancelled, nothing is sent at all
        RetryPolicy(cancel=cancel, sleep=ctrl_c).call(send)
    assert len(send.calls) == 1


def test_rounds_wait_between_rounds_and_stop_on_cancel() -> None:
    slept: list[float] = []
    policy = RetryPolicy(sleep=slept.append)
    assert list(policy.rounds(3, lambda n: 0.05 * (n + 1))) == [0, 1, 2]
    assert slept == pytest.approx([0.05, 0.1])  # before round 2 and round 3, none after
    cancel = threading.Event()
    policy = RetryPolicy(cancel=cancel, sleep=lambda s: cancel.set())
    seen = []
    with pytest.raises(Cancelled):
        for n in policy.rounds(5, lambda n: 1.0):
            seen.append(n)
    assert seen == [0]


def test_polls_end_after_the_timeout_and_stop_on_cancel() -> None:
    polls = list(RetryPolicy().polls(0.15, first=0.02, cap=0.05))
    assert 3 <= len(polls) <= 8
    assert polls == sorted(polls) and polls[-1] > 0.1
    cancel = threading.Event()
    waits: list[float] = []

    def third_wait_cancels(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:
            cancel.set()

    seen = []
    with pytest.raises(Cancelled):
        for elapsed in RetryPolicy(cancel=cancel, sleep=third_wait_cancels).polls(60):
            seen.append(elapsed)
    assert len(seen) == 3
    assert waits == pytest.approx([0.02, 0.04, 0.08])


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals: main thread"
)
@pytest.mark.parametrize("workers", [1, 4])
def test_ctrl_c_while_writing_stops_a_write_waiting_to_be_sent_again(workers: int) -> None:
    """SIGINT during Writer.run is deferred (the writes in flight finish and are journaled),
    and it sets the policy's cancel event: a write in its backoff stops at once, and writes
    not yet started are never sent."""
    policy = RetryPolicy()  # real waits
    writer = Writer(None, WriteStats(), policy=policy, workers=workers)
    started_writes: list[int] = []

    def write_one(target: dict) -> Outcome:
        started_writes.append(target["n"])
        if target["n"] == 0:
            os.kill(os.getpid(), signal.SIGINT)
            policy.wait(30)  # a long backoff
        return Outcome(target, True)

    done: list[Outcome] = []
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when pytest runs in the background
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        writer.run([{"n": i} for i in range(50)], write_one, done.append)
    assert time.monotonic() - started < 5
    assert 0 in started_writes and len(started_writes) < 50
    assert policy.cancel.is_set()
    assert signal.getsignal(signal.SIGINT) is before  # restored


# --- through the real path: table changes ------------------------------------------------------


@pytest.fixture
def proxy(backend: Backend) -> Iterator[FaultProxy]:
    with FaultProxy(backend.endpoint_url) as p:
        yield p


def test_a_ddl_call_throttled_twice_then_succeeds(backend: Backend, proxy: FaultProxy) -> None:
    """DDL calls were sent once; now they go through the policy like every request."""
    session = quick_session(proxy.url)  # one botocore attempt a try: every retry is dynosql's
    session.assume_yes = True
    name = unique_name("ddl")
    proxy.fail("CreateTable", "throttling", calls=[1, 2])
    proxy.fail("DescribeTable", "throttle", calls=[1])  # the wait's first poll too
    session.execute(f"CREATE TABLE {name} (pk S, PRIMARY KEY (pk))").all()
    assert [c.action for c in proxy.calls("CreateTable")] == ["throttling", "throttling", "forward"]
    assert proxy.calls("DescribeTable")[0].action == "throttle"
    assert backend.client().describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    proxy.fail("DeleteTable", "500", calls=[1])
    session.execute(f"DROP TABLE {name}").all()
    assert [c.action for c in proxy.calls("DeleteTable")] == ["500", "forward"]
    assert name not in backend.client().list_tables()["TableNames"]


def test_the_loader_of_test_and_example_tables_goes_through_the_policy(
    moto_backend: Backend,
) -> None:
    """The loader (tables and items outside any statement) sent its requests once and kept a
    BatchWriteItem loop of its own: a throttled CreateTable, DescribeTable poll or
    BatchWriteItem is now sent again by the one policy, and its items go through the edge's
    one batch loop."""
    from dynosql.dynamo import loader

    with FaultProxy(moto_backend.endpoint_url) as proxy:
        client = quick_session(proxy.url).client  # one botocore attempt: every retry is ours
        name = unique_name("loaded")
        proxy.fail("CreateTable", "throttling", calls=[1])
        proxy.fail("DescribeTable", "throttle", calls=[1])
        proxy.fail("BatchWriteItem", "throttle", calls=[1])
        table = {
            "TableName": name,
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        }
        assert loader.create_table(client, table)["TableStatus"] == "ACTIVE"
        assert loader.write_items(client, name, [{"pk": f"k{i}"} for i in range(30)]) == 30
        assert [c.action for c in proxy.calls("CreateTable")] == ["throttling", "forward"]
        assert proxy.calls("DescribeTable")[0].action == "throttle"
        actions = [c.action for c in proxy.calls("BatchWriteItem")]
        assert actions == ["throttle", "forward", "forward"]
    assert moto_backend.client().scan(TableName=name, Select="COUNT")["Count"] == 30


def test_a_table_change_whose_answer_was_lost_is_done_not_an_error(
    backend: Backend, proxy: FaultProxy
) -> None:
    """CreateTable and DeleteTable applied, their answers lost: the retry meets "already
    exists" / "not found", which here means the earlier try did the work (it was an error
    before: the table was made, and the statement said it failed)."""
    session = quick_session(proxy.url)
    session.assume_yes = True
    name = unique_name("ddl")
    proxy.fail("CreateTable", "lost", calls=[1])
    session.execute(f"CREATE TABLE {name} (pk S, sk N, PRIMARY KEY (pk, sk))").all()
    assert [c.action for c in proxy.calls("CreateTable")] == ["lost", "forward"]
    assert backend.client().describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    # on the first try "already exists" is the user's mistake, and says so
    with pytest.raises(DynosqlError, match=r"^table ddl\S+ already exists$"):
        session.execute(f"CREATE TABLE {name} (pk S, sk N, PRIMARY KEY (pk, sk))").all()
    proxy.fail("DeleteTable", "lost", calls=[1])
    session.execute(f"DROP TABLE {name}").all()
    assert [c.action for c in proxy.calls("DeleteTable")] == ["lost", "forward"]
    assert name not in backend.client().list_tables()["TableNames"]


def test_ctrl_c_during_a_ddl_wait(backend: Backend, proxy: FaultProxy) -> None:
    """A table that stays CREATING: the wait polls, and stops at its next wait once the
    session is cancelled (Ctrl-C, or Session.cancel from another thread)."""
    session = quick_session(proxy.url)
    waits: list[float] = []

    def third_wait_cancels(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:
            session.cancel()

    session.port.sleep = third_wait_cancels
    proxy.fail("DescribeTable", "creating")
    name = unique_name("ddl")
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            session.execute(f"CREATE TABLE {name} (pk S, PRIMARY KEY (pk))").all()
        assert time.monotonic() - started < 5
        assert len(proxy.calls("DescribeTable")) == 3  # one poll per wait, none after Ctrl-C
    finally:
        backend.delete_table(name)


# --- through the real path: writes -------------------------------------------------------------


def test_a_write_retry_honours_the_deadline(
    backend: Backend, proxy: FaultProxy, tmp_path: Path
) -> None:
    """A write throttled for ever gives up within the deadline setting (writes had none),
    real waits included, and says so; undo lists the write as unknown (sent, no answer)."""
    name = _create(backend)
    settings = Settings(deadline=Decimal(1), journal_dir=str(tmp_path))
    session = quick_session(proxy.url, settings)
    session.sleep = time.sleep  # real backoff: the deadline is what is under test
    proxy.fail("PutItem", "throttle")
    started = time.monotonic()
    with pytest.raises(DynosqlError) as caught:
        session.execute(f"INSERT INTO {name} (pk, sk, s) VALUES ('new', 1, 'x')").all()
    took = time.monotonic() - started
    assert took < 3, took
    message = str(caught.value)
    assert "kept throttling the writes" in message and "the deadline setting is 1 s" in message
    throttled = proxy.calls("PutItem")
    assert 1 < len(throttled) < THROTTLE_TRIES
    assert {json.dumps(c.body["Item"], sort_keys=True) for c in throttled} == {
        json.dumps(throttled[0].body["Item"], sort_keys=True)
    }
    proxy.reset_rules()
    listed = session.undo(session.last_write.journal).all()
    assert [(r["pk"], r["state"][:7]) for r in listed] == [("new", "unknown")]


def test_ctrl_c_during_a_writes_backoff(
    backend: Backend, proxy: FaultProxy, tmp_path: Path
) -> None:
    """Every write throttled; Ctrl-C (the session's cancel) during the first backoff: no write
    is sent again, none not yet started is sent at all, and the journal holds an intent for
    exactly the writes that were sent (undo lists them as unknown, restores nothing)."""
    name = _create(backend)
    before = _table(backend, name)
    session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
    session.port.sleep = lambda seconds: session.cancel()
    proxy.fail("PutItem", "throttle")
    rows = ", ".join(f"('c{i}', {i}, 'x')" for i in range(40))
    with pytest.raises(KeyboardInterrupt):
        session.execute(f"INSERT INTO {name} (pk, sk, s) VALUES {rows}").all()
    sent = [c.body["Item"]["pk"]["S"] for c in proxy.calls("PutItem")]
    assert len(sent) == len(set(sent))  # none sent twice
    assert 1 <= len(sent) <= 8  # at most the writes in flight (8 workers)
    assert _table(backend, name) == before
    proxy.reset_rules()
    session.context.cancelled.clear()
    listed = session.undo(session.last_write.journal).all()
    assert sorted(r["pk"] for r in listed) == sorted(sent)
    assert all(r["state"].startswith("unknown") for r in listed)


# --- through the real path: transactions (moto: dynalite has none) -----------------------------


def _transaction(name: str) -> str:
    return f"""
        BEGIN;
        UPDATE {name} SET n = n + 1 WHERE pk = 'a' AND sk = 1;
        INSERT INTO {name} (pk, sk, s) VALUES ('tx', 1, 'new');
        COMMIT;
    """


def test_a_transaction_cancelled_by_conflicts_is_sent_again_with_new_tokens(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name = _create(moto_backend)
    with FaultProxy(moto_backend.endpoint_url) as proxy:
        proxy.fail("TransactWriteItems", "conflict", calls=[1, 2])
        proxy.fail("TransactWriteItems", "throttle", calls=[3])  # a retry keeps its token
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        results = list(session.run(_transaction(name)))
        calls = proxy.calls("TransactWriteItems")
    assert results[-1].footer().startswith(f"COMMIT {name}: 2 matched, 2 written")
    assert [c.action for c in calls] == ["conflict", "conflict", "throttle", "forward"]
    tokens = [c.body["ClientRequestToken"] for c in calls]
    assert len(set(tokens[:3])) == 3 and tokens[3] == tokens[2]
    after = _table(moto_backend, name)
    assert after[("tx", Decimal(1))]["s"] == "new"


def test_a_transaction_still_in_progress_is_sent_again_with_its_token(
    moto_backend: Backend, tmp_path: Path
) -> None:
    """TransactionInProgressException (the same token is still being applied, e.g. after a
    lost answer) was an error; DynamoDB's advice is to send the same request again: its token
    makes it idempotent, and the answer is the first one's."""
    name = _create(moto_backend)
    with FaultProxy(moto_backend.endpoint_url) as proxy:
        proxy.fail("TransactWriteItems", "in_progress", calls=[1, 2])
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        results = list(session.run(_transaction(name)))
        calls = proxy.calls("TransactWriteItems")
    assert results[-1].footer().startswith(f"COMMIT {name}: 2 matched, 2 written")
    assert [c.action for c in calls] == ["in_progress", "in_progress", "forward"]
    assert len({c.body["ClientRequestToken"] for c in calls}) == 1
    assert _table(moto_backend, name)[("tx", Decimal(1))]["s"] == "new"


def test_a_transaction_conflicting_every_time_writes_nothing(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name = _create(moto_backend)
    before = _table(moto_backend, name)
    with FaultProxy(moto_backend.endpoint_url) as proxy:
        proxy.fail("TransactWriteItems", "conflict")
        session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
        session.assume_yes = True
        with pytest.raises(DynosqlError, match="transaction cancelled, nothing was written"):
            list(session.run(_transaction(name)))
        assert len(proxy.calls("TransactWriteItems")) == TRANSACTION_ROUNDS
    assert _table(moto_backend, name) == before


def test_a_single_write_that_meets_a_transaction_is_sent_again(
    backend: Backend, proxy: FaultProxy, tmp_path: Path
) -> None:
    name = _create(backend)
    proxy.fail("UpdateItem", "write_conflict", calls=[1, 2])
    session = quick_session(proxy.url, Settings(journal_dir=str(tmp_path)))
    result = session.execute(f"UPDATE {name} SET s = 'changed' WHERE pk = 'a' AND sk = 1")
    result.all()
    assert result.stats.changed == 1
    assert [c.action for c in proxy.calls("UpdateItem")] == [
        "write_conflict",
        "write_conflict",
        "forward",
    ]
    assert _table(backend, name)[("a", Decimal(1))]["s"] == "changed"


# --- the catalog ------------------------------------------------------------------------------


def test_the_catalog_sends_once_unless_given_a_policy(backend: Backend, proxy: FaultProxy) -> None:
    """Catalog and probe go through the policy they are given (the Session's, once it passes
    it); without one, a request is sent once, as before."""
    from dynosql.dynamo.capabilities import DYNAMODB, probe
    from dynosql.dynamo.catalog import Catalog

    name = _create(backend)
    client = quick_session(proxy.url).client
    proxy.fail("DescribeTable", "throttle", calls=[1, 2])
    proxy.fail("ListTables", "500", calls=[1, 2])
    once = Catalog(client, lambda: DYNAMODB, lambda table: [])
    with pytest.raises(DynosqlError, match="kept throttling"):
        once.table(name)
    with pytest.raises(DynosqlError, match="InternalServerError"):
        probe(client)
    retried = Catalog(
        client, lambda: DYNAMODB, lambda table: [], policy=lambda: RetryPolicy(sleep=_no_wait)
    )
    assert retried.table(name).name == name
    assert probe(client, RetryPolicy(sleep=_no_wait)).backend in ("dynamodb", "moto")
    assert [c.action for c in proxy.calls("DescribeTable")] == ["throttle", "throttle", "forward"]
    assert [c.action for c in proxy.calls("ListTables")] == ["500", "500", "forward"]
