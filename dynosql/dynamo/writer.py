"""Run writes with boto3: concurrent conditional writes, batches, retries, pacing, capacity.

- `Writer.run`: one PutItem/UpdateItem/DeleteItem per target, several in flight (threads). A
  failed condition (ConditionalCheckFailedException) is not an error: the item is skipped and
  counted. Every request goes through the statement's `RetryPolicy` (dynamo.retry: throttles,
  5xx, dropped connections and transaction conflicts retried with backoff, within the
  deadline). Every write that succeeded is in the journal (flushed) before the next one starts
  counting; on Ctrl-C, --max-wcu or an error no new write starts and the ones in flight finish
  (and are journaled) before the exception goes on. Ctrl-C also sets the policy's cancel event:
  a write waiting to be sent again stops there (its intent stays unanswered: undo lists it).
- `write_batches`: BatchWriteItem, 25 requests a call, UnprocessedItems sent again with
  exponential backoff (the policy's rounds); reusable (UPSERT without a journal, COPY FROM).
- `Writer.transact`: TransactWriteItems, sent again with a new token after a conflict.
- Capacity: ReturnConsumedCapacity=TOTAL, summed; on a backend that reports none (moto) each
  write is estimated by values.write_units from the images and labelled ``est.``.
"""

from __future__ import annotations

import json
import signal
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from dynosql import values
from dynosql.dynamo.budget import Cancelled
from dynosql.dynamo.capabilities import FAILED_WRITE_HEADER
from dynosql.dynamo.reader import _reported
from dynosql.dynamo.retry import (
    MAX_UNPROCESSED_ROUNDS,
    TRANSACTION_ROUNDS,
    RetryPolicy,
    conflict_delay,
    unprocessed_delay,
)
from dynosql.errors import ExecutionError, GuardError, classify
from dynosql.plan import cost
from dynosql.plan.port import ConditionFailure, Ledger, TransactionCancelled
from dynosql.plan.schema import TableInfo
from dynosql.result import WriteStats, counted, format_capacity
from dynosql.values import write_units

T = TypeVar("T")
CONDITION_FAILED = "ConditionalCheckFailedException"
_METHODS = {"PutItem": "put_item", "UpdateItem": "update_item", "DeleteItem": "delete_item"}
_OPERATIONS = {
    **{method: operation for operation, method in _METHODS.items()},
    "batch_write_item": "BatchWriteItem",
    "transact_write_items": "TransactWriteItems",
}
BATCH_SIZE = 25
WORKERS = 8


@dataclass
class WriteLimits:
    """Guards on a statement's writes: a cap and a pace (capacity units per second)."""

    max_wcu: Decimal | None = None
    rate_limit: Decimal | None = None


# --- one write per target ----------------------------------------------------------------------


def _condition_failure(err: Exception, attempt: int) -> ConditionFailure:
    """A ConditionalCheckFailed answer as the port gives it back: the item (when the request
    asked for it and the backend gave it), and whether the request had been sent before."""
    answer = getattr(err, "response", None) or {}
    item = answer.get("Item")
    return ConditionFailure(
        values.decode_item(item) if item else None, _sent_again(answer, attempt)
    )


def _failed_write_units(err: Exception) -> Decimal:
    """What a write whose condition failed consumed, where the backend says (the embedded
    server's `capabilities.FAILED_WRITE_HEADER`); DynamoDB's own error answers carry no figure."""
    answer = getattr(err, "response", None) or {}
    headers = (answer.get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
    text = headers.get(FAILED_WRITE_HEADER)
    return _reported(json.loads(text)) if text else Decimal(0)


def _sent_again(answer: dict[str, Any], attempt: int) -> bool:
    """Whether the request that got `answer` had been sent before: by dynosql (`attempt`) or
    by botocore's own retries (the answer's RetryAttempts)."""
    retries = (answer.get("ResponseMetadata") or {}).get("RetryAttempts") or 0
    return attempt > 0 or retries > 0


class Writer:
    """Sends writes for one statement: retries, capacity, pacing, the journal."""

    def __init__(
        self,
        client: Any,
        stats: WriteStats,
        *,
        estimating: bool = False,
        limits: WriteLimits | None = None,
        workers: int = WORKERS,
        transactional: bool = False,
        policy: RetryPolicy | None = None,
        ledger: Ledger | None = None,
        gate: Callable[[str], None] = lambda _method: None,
    ):
        self.client = client
        self.ledger = ledger  # the session's: each answer's units go there as they come
        self.gate = gate  # the port's: refuses a change the guards have not let through
        # every request's retries, the deadline, the cancel event and the one sleep
        self.policy = policy if policy is not None else RetryPolicy.for_client(client)
        self.stats = stats
        self.estimating = estimating
        self.limits = limits or WriteLimits()
        self.workers = workers
        self.transactional = transactional
        stats.wcu_estimated = estimating

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """One request, retried while retrying can help; None when its condition failed."""
        return self.call_or_failure(method, params)[0]

    def send(
        self,
        operation: str,
        params: dict[str, Any],
        table: TableInfo,
        image: Callable[[dict[str, Any] | None], dict[str, Any] | None],
    ) -> tuple[dict[str, Any] | None, ConditionFailure | None, bool]:
        """`call_or_failure` of a PutItem, UpdateItem or DeleteItem, by DynamoDB's name.
        Where the backend reports no capacity, the write is estimated here, once: from the
        item before (the answer's ALL_OLD attributes) and `image` of it (the item after), or,
        when its condition failed, from the item put or the table's average item size."""
        response, failure, retried = self.call_or_failure(_METHODS[operation], params)
        if self.estimating:
            self._add(self._estimate(params, response, table, image))
        return response, failure, retried

    def _estimate(
        self,
        params: dict[str, Any],
        response: dict[str, Any] | None,
        table: TableInfo,
        image: Callable[[dict[str, Any] | None], dict[str, Any] | None],
    ) -> Decimal:
        if response is None:  # a failed condition is billed like the write (size: a guess)
            put = params.get("Item")
            guess = values.decode_item(put) if put else {"": "x" * table.average_item_size}
            return self._item_units(guess)
        attributes = response.get("Attributes")
        old = values.decode_item(attributes) if attributes else None
        return self._change_units(old, image(old), table)

    def read_item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        """The item under `key` (wire form) as it is now: one strongly consistent GetItem,
        decoded; None when there is none."""
        got = self.call("get_item", {"TableName": table, "Key": key, "ConsistentRead": True})
        item = (got or {}).get("Item")
        return values.decode_item(item) if item else None

    def call_or_failure(
        self, method: str, params: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, ConditionFailure | None, bool]:
        """`call`, what DynamoDB said when the condition failed (see ConditionFailure), and
        whether the request was sent more than once (an earlier attempt may have applied)."""
        if method != "get_item":
            self.gate(_OPERATIONS.get(method, method))
        # in flight: its intent is journaled (Writer.run starts no write once cancelled)
        sent = self.policy.send(
            getattr(self.client, method),
            what="writes",
            answers=(CONDITION_FAILED,),
            in_flight=True,
            **params,
        )
        again = sent.tries - 1
        if sent.error is not None:
            with self.stats.lock:
                self.stats.requests += 1
            if not self.estimating:  # billed all the same; the embedded server says how much
                self._add(_failed_write_units(sent.error))
            failed = _condition_failure(sent.error, again)
            return None, failed, failed.retried
        response: dict[str, Any] = sent.value
        with self.stats.lock:
            self.stats.requests += 1
        if not self.estimating:
            self._add(_reported(response.get("ConsumedCapacity")))
        return response, None, _sent_again(response, again)

    def _add(self, units: Decimal) -> None:
        """Units one answer consumed: the statement's, and the session's ledger."""
        with self.stats.lock:
            self.stats.wcu += units
        if self.ledger is not None and units:
            self.ledger.charge(wcu=units)

    def transact(
        self,
        params: dict[str, Any],
        images: Iterable[tuple[dict[str, Any] | None, dict[str, Any] | None, TableInfo]] = (),
    ) -> dict[str, Any]:
        """One TransactWriteItems of `params` (without its ClientRequestToken). Each round has
        its own token, the same on every retry of the round, so that DynamoDB applies it once
        even when an answer is lost and the request is sent again (within 10 minutes). A
        round cancelled by a conflict (TransactionCanceledException with a TransactionConflict
        reason: nothing was written) is followed by another, with a new token, up to
        `TRANSACTION_ROUNDS` in all; any other cancellation is `TransactionCancelled`. Where
        the backend reports no capacity, the transaction is estimated from `images` (each
        action's item before and after, and its table) once it is written."""
        for attempt in self.policy.rounds(TRANSACTION_ROUNDS, conflict_delay):
            request = {**params, "ClientRequestToken": uuid.uuid4().hex}
            try:
                response = self.call("transact_write_items", request)
            except ExecutionError as err:
                cause = err.__cause__
                failure = classify(cause) if cause is not None else None
                if failure is None:
                    raise
                if failure.code == "UnknownOperationException":
                    raise ExecutionError(
                        "this endpoint has no TransactWriteItems (dynalite, for one, lacks it): "
                        "nothing was written"
                    ) from cause
                if failure.code != "TransactionCanceledException":
                    raise
                reasons = getattr(cause, "response", {}).get("CancellationReasons") or []
                codes = [r.get("Code") for r in reasons]
                if "TransactionConflict" in codes and attempt + 1 < TRANSACTION_ROUNDS:
                    continue
                raise TransactionCancelled(codes, failure.message) from cause
            assert response is not None  # no condition of its own: a failure is a cancellation
            if self.estimating:
                self._add(sum((self._change_units(*i) for i in images), Decimal(0)))
            return response
        raise AssertionError("unreachable: the last round returns or raises")

    def _change_units(
        self, old: dict[str, Any] | None, new: dict[str, Any] | None, table: TableInfo
    ) -> Decimal:
        """WCU of writing `new` over `old` (decoded; None: absent) in `table`, its index writes
        included (plan.cost.item_write)."""
        return cost.item_write(old, new, table, values.item_size, self.transactional).total

    def _item_units(self, image: dict[str, Any]) -> Decimal:
        return write_units(values.item_size(image), self.transactional)

    def pace(self) -> None:
        """--rate-limit: keep the statement under N units a second (a token bucket)."""
        limits, stats = self.limits, self.stats
        if limits.rate_limit:
            ahead = float(stats.wcu / limits.rate_limit) - stats.elapsed
            if ahead > 0:
                self.policy.wait(ahead)

    def _within_cap(self, pending: set[Future[Any]], done: Callable[[Any], None]) -> None:
        """--max-wcu: a write starts only while what is written plus what is in flight (each at
        least 1 WCU) stays within the cap; else the statement stops (GuardError, exit 3)."""
        cap, stats = self.limits.max_wcu, self.stats
        assert cap is not None
        while pending and stats.wcu + len(pending) + 1 > cap:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            pending -= finished  # in place: the caller's set must not see them again
            _settle(finished, done)
        if stats.wcu + 1 > cap:
            raise GuardError(
                f"stopped: the statement wrote {format_capacity(stats.wcu)} WCU and another write "
                f"would pass --max-wcu {format_capacity(cap)} (what was written is in the journal)"
            )

    def run(
        self,
        targets: Iterable[T],
        write_one: Callable[[T], Any],
        done: Callable[[Any], None],
    ) -> None:
        """`write_one` for every target, `workers` at a time; `done` (in this thread) for each
        outcome as it completes. Stops starting new writes on the first exception (including
        KeyboardInterrupt), lets the ones in flight finish and report, then raises it."""
        if self.workers == 1:
            self._run_inline(targets, write_one, done)
            return
        pending: set[Future[Any]] = set()
        stop: BaseException | None = None
        pool = ThreadPoolExecutor(max_workers=self.workers)
        it: Iterator[T] = iter(targets)
        interrupted = _defer_interrupts(self.policy.cancel)
        try:
            try:
                for target in it:
                    if interrupted.is_set():
                        raise KeyboardInterrupt
                    if self.policy.cancel.is_set():  # Session.cancel from another thread
                        raise Cancelled()
                    self.pace()
                    if self.limits.max_wcu is not None:
                        self._within_cap(pending, done)
                    pending.add(pool.submit(self._unless_cancelled, write_one, target))
                    if len(pending) >= self.workers * 2:
                        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                        pending -= finished
                        _settle(finished, done)
            except BaseException as err:  # Ctrl-C, a guard, a failed write: stop starting more
                stop = err
            # the writes in flight finish and are journaled, whatever happened
            while pending:
                try:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                except (
                    BaseException
                ) as err:  # a second Ctrl-C: keep waiting, the journal must be complete
                    stop = stop or err
                    continue
                try:
                    _settle(finished, done)
                except BaseException as err:
                    stop = stop or err
        finally:
            pool.shutdown(wait=True)
            interrupted.restore()
        if stop is None and interrupted.is_set():
            stop = KeyboardInterrupt()
        if stop is not None:
            raise stop

    def _run_inline(
        self,
        targets: Iterable[T],
        write_one: Callable[[T], Any],
        done: Callable[[Any], None],
    ) -> None:
        """`run` with one worker: each write in this thread, reported before the next starts
        (no pool: COPY FROM sends every batch this way, and a thread per batch cost more CPU
        than the batch)."""
        interrupted = _defer_interrupts(self.policy.cancel)
        try:
            for target in targets:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                if self.policy.cancel.is_set():
                    raise Cancelled()
                self.pace()
                if self.limits.max_wcu is not None:
                    self._within_cap(set(), done)
                done(write_one(target))
        finally:
            interrupted.restore()
        if interrupted.is_set():
            raise KeyboardInterrupt

    def _unless_cancelled(self, write_one: Callable[[T], Any], target: T) -> Any:
        """`write_one`, unless the statement was cancelled before it started (a write queued
        behind the ones in flight is then never sent, and never journaled)."""
        if self.policy.cancel.is_set():
            raise Cancelled()
        return write_one(target)


def _settle(finished: Iterable[Future[Any]], done: Callable[[Any], None]) -> None:
    """`done` for every finished write, even when one of them failed (its error is raised
    after the others are reported: a successful write is never left out of the journal)."""
    first: BaseException | None = None
    for f in finished:
        try:
            done(f.result())
        except BaseException as err:
            first = first or err
    if first is not None:
        raise first


class _Deferred(threading.Event):
    """Ctrl-C while writing: noted, acted on between writes (never between a write and its
    journal line); it also sets the statement's cancel event, so that a write waiting to be
    sent again stops waiting."""

    def __init__(self, cancel: threading.Event | None = None) -> None:
        super().__init__()
        self.previous: Any = None
        self.installed = False
        self.cancel = cancel

    def interrupt(self, *_: Any) -> None:
        self.set()
        if self.cancel is not None:
            self.cancel.set()

    def restore(self) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self.previous or signal.default_int_handler)
            self.installed = False


def _defer_interrupts(cancel: threading.Event | None = None) -> _Deferred:
    event = _Deferred(cancel)
    if threading.current_thread() is threading.main_thread():
        try:
            event.previous = signal.signal(signal.SIGINT, event.interrupt)
            event.installed = True
        except ValueError:  # pragma: no cover - not the main interpreter
            pass
    return event


# --- BatchWriteItem ----------------------------------------------------------------------------


def write_batches(
    client: Any,
    table: str,
    requests: Iterable[dict[str, Any]],
    *,
    stats: WriteStats | None = None,
    estimating: bool = False,
    limits: WriteLimits | None = None,
    workers: int = 4,
    on_written: Callable[[list[dict[str, Any]]], Decimal | None] | None = None,
    on_sending: Callable[[list[dict[str, Any]]], None] | None = None,
    policy: RetryPolicy | None = None,
    ledger: Ledger | None = None,
    gate: Callable[[str], None] = lambda _method: None,
) -> WriteStats:
    """Send BatchWriteItem write requests (``{"PutRequest": {"Item": wire}}`` or
    ``{"DeleteRequest": {"Key": wire}}``; see `put_requests`) to `table`, 25 a call, `workers`
    calls in flight. UnprocessedItems are sent again with exponential backoff and jitter (up to
    12 rounds, then ExecutionError); throttles, 5xx and dropped connections are retried (all
    through `policy`: its deadline, its cancel event, its sleep).
    `on_sending` gets each batch just before its first call (the journal's write-ahead intents:
    a batch never sent, after --max-wcu or Ctrl-C stopped the load, has none);
    `on_written` gets each group of requests once DynamoDB has processed them, and may return
    estimated WCU their own sizes do not count (an overwrite is billed for the larger image:
    COPY FROM's journal knows the old ones), counted where capacity is estimated. Returns the
    stats: ``changed`` = requests processed, ``wcu`` reported (or estimated: 1 KB units of each
    put item, 1 per delete). Ctrl-C stops new calls; calls in flight finish first.
    Never sends two requests for one key in a call (DynamoDB refuses that): the caller must
    not repeat keys within 25 requests."""
    stats = stats if stats is not None else WriteStats(verb="BATCH", table=table)
    writer = Writer(
        client,
        stats,
        estimating=estimating,
        limits=limits,
        workers=workers,
        policy=policy,
        ledger=ledger,
        gate=gate,
    )

    def batches() -> Iterator[list[dict[str, Any]]]:
        chunk: list[dict[str, Any]] = []
        for request in requests:
            chunk.append(request)
            if len(chunk) == BATCH_SIZE:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    def send(chunk: list[dict[str, Any]]) -> None:
        pending = chunk
        if on_sending is not None:
            on_sending(chunk)
        for _round in writer.policy.rounds(MAX_UNPROCESSED_ROUNDS, unprocessed_delay):
            response = writer.call(
                "batch_write_item",
                {"RequestItems": {table: pending}, "ReturnConsumedCapacity": "TOTAL"},
            )
            assert response is not None  # BatchWriteItem has no condition
            left = (response.get("UnprocessedItems") or {}).get(table) or []
            done_now = [r for r in pending if r not in left] if left else pending
            if writer.estimating:  # decoding every item costs: only when nothing is reported
                for r in done_now:
                    put = r.get("PutRequest")
                    writer._add(
                        writer._item_units(values.decode_item(put["Item"])) if put else Decimal(1)
                    )
            with stats.lock:
                stats.changed += len(done_now)
            if on_written is not None and done_now:
                extra = on_written(done_now)
                if extra and writer.estimating:
                    writer._add(extra)
            if not left:
                return
            pending = left
        raise ExecutionError(
            f"BatchWriteItem left {counted(len(pending), 'item')} unprocessed after "
            f"{MAX_UNPROCESSED_ROUNDS} attempts (throttled); what was written is counted"
        )

    def count(chunks: Iterable[list[dict[str, Any]]]) -> Iterator[list[dict[str, Any]]]:
        for c in chunks:
            with stats.lock:
                stats.matched += len(c)
            yield c

    writer.run(count(batches()), send, lambda _outcome: None)
    stats.finish()
    return stats
