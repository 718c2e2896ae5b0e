"""One retry policy (dynosql/dynamo/retry.py) for every request.

The policy's rules are checked on their own (a fake request raising botocore's errors; the
sleep injected, so nothing waits unless the deadline is under test).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from dynosql.dynamo.budget import Cancelled
from dynosql.dynamo.retry import (
    CONFLICT_ROUNDS,
    THROTTLE_TRIES,
    TRANSIENT_TRIES,
    RetryPolicy,
)
from dynosql.errors import DynosqlError, ExecutionError

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
