"""ONE retry policy: every DynamoDB request dynosql sends, and every wait between them.

`RetryPolicy.call` (or `send`, which also says how many times the request went) is the one loop
around a request: reads (Query, Scan, GetItem, BatchGetItem), writes (PutItem, UpdateItem,
DeleteItem, BatchWriteItem, TransactWriteItems), table changes (CreateTable, UpdateTable,
DeleteTable, UpdateTimeToLive) and the DescribeTable polls that wait for them, undo and COPY.

- What is sent again is decided by `dynosql.errors.classify`, the one classifier: throttles (up
  to `THROTTLE_TRIES` tries: they pass, given time), HTTP 5xx and connections dropped while a
  request was under way (`TRANSIENT_TRIES`), and a write that met a transaction under way
  (TransactionConflictException: nothing was applied; `CONFLICT_ROUNDS` more rounds). Nothing
  else: a refusal, a failed condition, bad credentials are final. A try counts botocore's own
  attempts (`attempts`): a client made with fewer botocore attempts (the tests' quick clients
  make one) gets as many tries from dynosql.
- How long between tries: exponential backoff with full jitter, 0..min(5 s, 0.2 s·2^n) (AWS's
  advice for throttles).
- The deadline (the ``deadline`` setting): one request, its retries included, gives up once
  another round would not fit; the error says so.
- Cancellation (Ctrl-C, SIGTERM, `Session.cancel`: the ``cancel`` event): no try starts once it
  is set, and every wait leaves at once (`Cancelled`, a KeyboardInterrupt). A request already
  on the wire is not cut: a write's answer is still journaled.
- One injectable sleep: every wait goes through `wait`, which sleeps through ``sleep`` (the
  Session's, by default ``time.sleep``): the fault tests give a Session a quick one instead of
  patching ``time.sleep`` for the whole process (which would also speed up the servers and the
  other threads under test).

Around the single request, the loops that send *another* request go through the same policy:
`rounds` (a batch's unprocessed keys or items, sent again with `unprocessed_delay`; a
transaction cancelled by a conflict, sent again with a new token after `conflict_delay`) and
`polls` (waiting for a table or an index to become ACTIVE or go, within an overall timeout).
Each of their waits is cancellable, and each request they send has its own deadline.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from dynosql.dynamo.budget import Cancelled
from dynosql.errors import DynosqlError, ExecutionError, Failure, classify, translate_error

Sleep = Callable[[float], None]
T = TypeVar("T")

RETRY_BASE_SECONDS = 0.2  # errors worth a retry: throttles, 5xx, dropped connections
RETRY_CAP_SECONDS = 5.0
# Tries of one request in all, botocore's own attempts included
THROTTLE_TRIES = 21  # throttles pass, given time
TRANSIENT_TRIES = 9  # 5xx and dropped connections
CONFLICT_ROUNDS = 6  # TransactionConflictException on a single write: rounds after the first
UNPROCESSED_BASE_SECONDS = 0.05  # keys or items a batch call left unprocessed
UNPROCESSED_CAP_SECONDS = 2.0
MAX_UNPROCESSED_ROUNDS = 12  # calls of a batch whose part came back unprocessed
CONFLICT_BASE_SECONDS = 0.1  # a transaction cancelled by a conflict
TRANSACTION_ROUNDS = 6  # calls of a transaction cancelled by conflicts (each a new token)
POLL_FIRST_SECONDS = 0.02  # a DDL wait: local servers are done at once
POLL_CAP_SECONDS = 5.0
WAIT_SLICE_SECONDS = 0.1  # a wait looks at the cancel event this often


def retry_delay(attempt: int) -> float:
    """Exponential backoff with full jitter (AWS's advice for throttles): 0..min(cap, base·2^n)."""
    return random.uniform(0, min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2**attempt))


def unprocessed_delay(attempt: int) -> float:
    """Backoff for a batch's unprocessed part: half to all of min(2 s, 50 ms·2^n); the part
    is sent again at once otherwise, and DynamoDB leaves it unprocessed again."""
    return min(UNPROCESSED_CAP_SECONDS, UNPROCESSED_BASE_SECONDS * 2**attempt) * random.uniform(
        0.5, 1.0
    )


def conflict_delay(attempt: int) -> float:
    """Backoff for a transaction cancelled by a conflict: 0..100 ms·2^n (full jitter)."""
    return random.uniform(0, CONFLICT_BASE_SECONDS * 2**attempt)


def botocore_attempts(client: Any) -> int:
    """The attempts botocore makes of each call of this client before dynosql sees an error."""
    retries = getattr(getattr(getattr(client, "meta", None), "config", None), "retries", None)
    if not isinstance(retries, dict):
        return 1
    total = retries.get("total_max_attempts")
    if total is None and retries.get("max_attempts") is not None:
        total = retries["max_attempts"] + 1
    return max(1, int(total or 3))


@dataclass
class Sent(Generic[T]):
    """What became of one request: DynamoDB's answer (`value`), or the error answer the caller
    asked to take itself (`error`: a failed condition, a table that is not there), and how many
    times dynosql sent it (botocore's own retries behind each not counted)."""

    value: T  # None when `error` is set
    tries: int
    error: Exception | None = None


class RetryPolicy:
    """The deadline, the cancel event, the sleep and the client's botocore attempts for every
    request of a statement (see the module's docstring). `once()` sends a request once."""

    def __init__(
        self,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        sleep: Sleep = time.sleep,
        attempts: int = 1,
        retrying: bool = True,
    ):
        self.deadline = deadline  # seconds for one request, its retries included; None: none
        self.cancel = cancel if cancel is not None else threading.Event()
        self.sleep = sleep
        self.attempts = max(1, attempts)  # botocore's own tries behind each of ours
        self.retrying = retrying

    @classmethod
    def for_client(
        cls,
        client: Any,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        sleep: Sleep = time.sleep,
    ) -> RetryPolicy:
        """The policy for the requests of `client`, as many tries behind each of ours as its
        botocore config makes: a session's port gives its ``deadline`` setting, its Ctrl-C
        event and its sleep; a caller with no session (the loader of the example and test
        tables, a writer made without one) gives none of them."""
        return cls(deadline, cancel, sleep, botocore_attempts(client))

    @classmethod
    def once(cls) -> RetryPolicy:
        """Send once, errors translated (botocore's own attempts still apply): for a caller not
        given a session's policy, which would not know its deadline."""
        return cls(retrying=False)

    # --- one request -----------------------------------------------------------------------

    def call(self, fn: Callable[..., T], *args: Any, what: str = "requests", **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` (one DynamoDB request), sent again while that can help (see the
        module's docstring); a `DynosqlError` when it cannot (the cause chained), `Cancelled`
        on cancel. `what` names the requests in the error (``reads``, ``writes``)."""
        return self.send(fn, *args, what=what, **kwargs).value

    def send(
        self,
        fn: Callable[..., T],
        *args: Any,
        what: str = "requests",
        answers: Collection[str] = (),
        in_flight: bool = False,
        **kwargs: Any,
    ) -> Sent[T]:
        """`call`, saying how many times the request went; an error whose code is in `answers`
        is returned (`Sent.error`), not raised: an answer the caller acts on. `in_flight`: the
        caller is already committed to the request (a write whose intent is journaled), so its
        first try goes even once the cancel event is set; only the waits before its retries
        stop. Otherwise nothing is sent once it is set."""
        if self.cancel.is_set() and not in_flight:
            raise Cancelled()
        started = time.monotonic()
        attempt = 0
        while True:
            round_started = time.monotonic()
            try:
                return Sent(fn(*args, **kwargs), attempt + 1)
            except Exception as err:  # one place turns AWS and connection errors into sentences
                failure = classify(err)
                if failure.code in answers:
                    return Sent(cast(T, None), attempt + 1, err)
                rounds = self.budget(failure)
                wait = retry_delay(attempt)
                now = time.monotonic()
                spent = now - started
                # another round like this one (botocore's attempts included) must fit too
                late = (
                    self.deadline is not None
                    and spent + wait + (now - round_started) > self.deadline
                )
                if attempt >= rounds or late:
                    error = self._gave_up(err, failure, what, spent if late else None, rounds)
                    if error is err:
                        raise
                    raise error from err
            self.wait(wait)
            attempt += 1

    def budget(self, failure: Failure) -> int:
        """How many rounds (of `attempts` botocore tries each) a failure deserves after the
        first: throttles many (they pass), 5xx and dropped connections a few, a write that met
        a transaction `CONFLICT_ROUNDS`, anything else none."""
        if not self.retrying:
            return 0
        if failure.kind == "conflict":
            return CONFLICT_ROUNDS
        if failure.kind == "throttle":
            tries = THROTTLE_TRIES
        elif failure.transient:
            tries = TRANSIENT_TRIES
        else:
            return 0
        return -(-tries // self.attempts) - 1

    def _gave_up(
        self, err: Exception, failure: Failure, what: str, spent: float | None, rounds: int
    ) -> Exception:
        """The error to raise when no try is left: the sentence for `err`, and when the deadline
        (not the tries) ended a request that was being retried, how long it tried."""
        error = translate_error(err, what)
        if spent is not None and isinstance(error, DynosqlError):
            if rounds > 0 or failure.kind == "connection":
                return ExecutionError(
                    f"{error} (gave up after {spent:.0f} s; the deadline setting is "
                    f"{self.deadline:g} s)"
                )
        return error

    # --- waiting, and the loops around requests ----------------------------------------------

    def wait(self, seconds: float) -> None:
        """The one way dynosql waits: through `sleep`, in slices of at most 0.1 s, leaving early
        (`Cancelled`) once the cancel event is set."""
        slices = max(1, math.ceil(seconds / WAIT_SLICE_SECONDS))
        for _ in range(slices):
            if self.cancel.is_set():
                raise Cancelled()
            self.sleep(seconds / slices)
        if self.cancel.is_set():  # no try starts once it is set
            raise Cancelled()

    def rounds(self, count: int, delay: Callable[[int], float]) -> Iterator[int]:
        """0 .. count-1, for a loop that sends another request while a part is left (a batch's
        unprocessed keys or items, a transaction cancelled by a conflict): `delay(n)` is waited
        before round n + 1 (cancellable). The loop breaks when done; when the rounds run out,
        what is left is the loop's own error (``for … else``)."""
        for attempt in range(count):
            if attempt:
                self.wait(delay(attempt - 1))
            yield attempt

    def polls(
        self, timeout: float, first: float = POLL_FIRST_SECONDS, cap: float = POLL_CAP_SECONDS
    ) -> Iterator[float]:
        """The seconds since the first poll, once per poll, for a loop that polls until something
        is done (a table or index becoming ACTIVE, or gone): quickly at first (`first`, doubling
        up to `cap`), each wait cancellable. It ends once `timeout` seconds have passed after a
        poll that was not done: the loop then says so (``for … else``)."""
        started = time.monotonic()
        pause = first
        while True:
            yield time.monotonic() - started
            if time.monotonic() - started > timeout:
                return
            self.wait(pause)
            pause = min(pause * 2, cap)


__all__ = [
    "Cancelled",
    "RetryPolicy",
    "Sent",
    "Sleep",
    "botocore_attempts",
    "conflict_delay",
    "retry_delay",
    "unprocessed_delay",
]
