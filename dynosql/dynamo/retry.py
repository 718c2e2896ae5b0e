"""How long to wait before sending again, and the one way dynosql waits.

Every retry and pacing wait goes through a ``Sleep`` the caller passes in (``Session.sleep``,
by default ``time.sleep``): the test suite runs its fault tests with waits capped at a few
milliseconds by giving a Session its own sleep, instead of patching ``time.sleep`` for the
whole process (which would also speed up the servers and the other threads under test).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable

from dynosql.dynamo.budget import Cancelled

Sleep = Callable[[float], None]

RETRY_BASE_SECONDS = 0.2  # errors worth a retry: throttles, 5xx, dropped connections
RETRY_CAP_SECONDS = 5.0
UNPROCESSED_BASE_SECONDS = 0.05  # keys or items a batch call left unprocessed
UNPROCESSED_CAP_SECONDS = 2.0


def retry_delay(attempt: int) -> float:
    """Exponential backoff with full jitter (AWS's advice for throttles): 0..min(cap, base·2^n)."""
    return random.uniform(0, min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2**attempt))


def unprocessed_delay(attempt: int) -> float:
    """Backoff for a batch's unprocessed part: half to all of min(2 s, 50 ms·2^n); the part
    is sent again at once otherwise, and DynamoDB leaves it unprocessed again."""
    return min(UNPROCESSED_CAP_SECONDS, UNPROCESSED_BASE_SECONDS * 2**attempt) * random.uniform(
        0.5, 1.0
    )


def pause(seconds: float, cancel: threading.Event, sleep: Sleep = time.sleep) -> None:
    """Wait in slices of at most 0.1 s, leaving early (Cancelled) once ``cancel`` is set."""
    slices = max(1, math.ceil(seconds / 0.1))
    for _ in range(slices):
        if cancel.is_set():
            raise Cancelled()
        sleep(seconds / slices)
