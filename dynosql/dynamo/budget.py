"""One read budget per statement, shared by every worker: ``--max-rcu`` and ``--rate-limit``.

Capacity is reserved *before* a request is sent, so the statement never runs ahead:

- ``--rate-limit R``: a request may start only when everything consumed or reserved before it
  fits in R × the seconds since the statement began; then it reserves its expected cost.
  Eight segments therefore share R, instead of each sending its first page at once.
- ``--max-rcu M``: a request is sent only while consumed + reserved stays under M; when the
  budget is gone the statement stops with a GuardError (the caller reports the total once the
  pages in flight have finished).
- Both bound each Query/Scan page's ``Limit`` (items evaluated), not a whole 1 MB page: to
  the whole 4 KB units one second of the rate buys, at least eight of them
  (`dynosql.plan.cost.paced_page_items`, the rule the estimates use, so that a page cut for the
  rate is not billed a unit it does not read), and to the stream's share of what is left of M.

The expected cost of a page comes from the average item size: what the pages so far showed
(their items' sizes, when they came back whole), else the table's own figure, else what the
pages so far cost, else 4 KB (a page whose items are larger than thought is paid for by the
next requests waiting longer, never by running ahead).
"""

from __future__ import annotations

import math
import threading
import time
from decimal import Decimal

from dynosql.errors import GuardError
from dynosql.plan.cost import bytes_per_read_unit, paced_page_items
from dynosql.result import Stats

POLL_SECONDS = 0.05


class BudgetStop(GuardError):
    """The budget is spent: the statement stops (reported with the final total)."""


class Cancelled(KeyboardInterrupt):
    """The session was cancelled (Ctrl-C, SIGTERM): a worker stops where it is, and whoever
    sees it treats it as the interrupt it is."""


class ReadBudget:
    def __init__(
        self,
        stats: Stats,
        lock: threading.Lock,
        max_rcu: Decimal | None,
        rate: Decimal | None,
        cancel: threading.Event,
    ):
        self.stats = stats
        self.lock = lock
        self.max_rcu = max_rcu
        self.rate = rate
        self.cancel = cancel
        self.reserved = Decimal(0)
        # the statement's start, not this read's: a statement of several reads (a join's
        # lookups) shares one rate, and what it consumed before counts against that time
        self.started = stats.started
        self.streams = 1  # streams sharing the budget (parallel segments, IN branches)

    @property
    def active(self) -> bool:
        return self.max_rcu is not None or bool(self.rate)

    def page_items(self, item_bytes: int, consistent: bool) -> int | None:
        """A page's Limit under the budget (at least 1), for items of `item_bytes` on average:
        the rate's page (`paced_page_items`), and no more than this stream's share of what is
        left of --max-rcu buys; None when unbounded."""
        caps = []
        if self.rate:
            caps.append(paced_page_items(self.rate, item_bytes, consistent))
        if self.max_rcu is not None:
            with self.lock:
                left = self.max_rcu - self.stats.capacity - self.reserved
            share = max(Decimal(0), left) / max(1, self.streams)
            caps.append(max(1, math.floor(share * bytes_per_read_unit(consistent) / item_bytes)))
        return min(caps) if caps else None

    def reserve(self, cost: Decimal) -> None:
        """Book `cost` RCU for a request about to be sent, waiting first until the rate allows
        it. BudgetStop when --max-rcu has no room left; Cancelled on cancel."""
        while True:
            with self.lock:
                committed = self.stats.capacity + self.reserved
                if self.max_rcu is not None and committed >= self.max_rcu:
                    raise BudgetStop("stopped: --max-rcu reached")
                wait = 0.0
                if self.rate:
                    wait = float(committed / self.rate) - (time.monotonic() - self.started)
                if wait <= 0:
                    self.reserved += cost
                    return
            # a page coming back (cheaper than booked) may free the way early: look again soon
            if self.cancel.wait(min(wait, POLL_SECONDS)):
                raise Cancelled()

    def settle(self, reserved: Decimal) -> None:
        """The request came back (its real cost is in the statement's capacity now)."""
        with self.lock:
            self.reserved -= reserved
