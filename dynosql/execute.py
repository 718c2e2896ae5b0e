"""Run a plan with boto3: pages, segments, batches, retries, capacity.

Items stream out lazily: a consumer that stops early (LIMIT) stops the reads. Several requests
(IN, OR branches, parallel Scan segments) run concurrently in threads and are merged.
Capacity is what DynamoDB reports, summed; on a backend that reports no real figure (the
embedded moto) it is estimated from item sizes by DynamoDB's rules and labelled so.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from . import values
from .errors import ExecutionError, GuardError, classify, translate_error
from .evaluate.predicate import matches
from .plan.cost import read_units
from .plan.model import Plan, Request
from .result import ProgressSink, Stats

MAX_UNPROCESSED_ROUNDS = 12
RETRY_ROUNDS = 6  # for throttles, on top of botocore's own attempts
RETRY_ROUNDS_OTHER = 2  # for 5xx and dropped connections
RETRY_BASE_SECONDS = 0.2
RETRY_CAP_SECONDS = 5.0
QUEUE_DEPTH = 4096


@dataclass
class Limits:
    """Guards on a statement's reads."""

    max_rcu: Decimal | None = None
    rate_limit: Decimal | None = None  # RCU per second, a token bucket on consumed capacity


class _Stop(Exception):
    pass


class Executor:
    def __init__(
        self,
        client: Any,
        estimate_capacity: bool = False,
        limits: Limits | None = None,
        progress: ProgressSink | None = None,
    ):
        self.client = client
        self.estimate_capacity = estimate_capacity
        self.limits = limits or Limits()
        self.progress = progress
        self._lock = threading.Lock()

    # --- public ------------------------------------------------------------------------------

    def items(self, plan: Plan, stats: Stats) -> Iterator[dict]:
        """Every item the plan reads that passes its client-side checks (deduplicated)."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity
        if plan.operation == "Nothing":
            return iter(())
        streams = self._streams(plan, stats)
        merged = streams[0]() if len(streams) == 1 else _concurrent(streams)
        if plan.dedupe:
            merged = _dedupe(merged, plan.table.keys.names)
        return merged

    def count(self, plan: Plan, stats: Stats) -> int:
        """The item count of a Select=COUNT plan."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity

        def counts(operation: str, params: dict) -> Callable[[], Iterator[int]]:
            return lambda: (
                pg.get("Count", 0) for pg, _ in self._pages(plan, operation, params, stats)
            )

        streams = [
            counts(request.operation, params)
            for request in plan.requests
            for params in self._segment_requests(plan, request)
        ]
        return sum(streams[0]() if len(streams) == 1 else _concurrent(streams))

    # --- streams -------------------------------------------------------------------------------

    def _streams(self, plan: Plan, stats: Stats) -> list[Callable[[], Iterator[dict]]]:
        def stream(request: Request, params: dict) -> Callable[[], Iterator[dict]]:
            return lambda: self._request_items(plan, request, params, stats)

        return [
            stream(request, params)
            for request in plan.requests
            for params in self._segment_requests(plan, request)
        ]

    def tagged_pages(self, plan: Plan, stats: Stats) -> Iterator[tuple[int, int, list[dict]]]:
        """A Scan plan's pages as (request index, items scanned, items that pass the client's
        checks): a segment sample's statistics need per-segment totals, the items scanned
        (before any filter) included."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity

        def stream(i: int, request: Request, params: dict) -> Callable[[], Iterator[Any]]:
            def pages() -> Iterator[tuple[int, int, list[dict]]]:
                for page, items in self._pages(plan, request.operation, params, stats):
                    scanned = page.get("ScannedCount", page.get("Count", 0))
                    if plan.fetch is not None:
                        items = self._fetch(plan, items, stats)
                    yield i, scanned, [x for x in items if matches(request.residual, x)]

            return pages

        streams = [
            stream(i, request, params)
            for i, (request, params) in enumerate(
                (r, p) for r in plan.requests for p in self._segment_requests(plan, r)
            )
        ]
        return streams[0]() if len(streams) == 1 else _concurrent(streams)

    def _segment_requests(self, plan: Plan, request: Request) -> list[dict]:
        if request.operation == "Scan" and plan.sample is not None:
            total = plan.sample.total
            return [
                {**request.params, "Segment": i, "TotalSegments": total}
                for i in plan.sample.segments
            ]
        if request.operation == "Scan" and plan.segments > 1:
            return [
                {**request.params, "Segment": i, "TotalSegments": plan.segments}
                for i in range(plan.segments)
            ]
        return [request.params]

    def _request_items(
        self, plan: Plan, request: Request, params: dict, stats: Stats
    ) -> Iterator[dict]:
        op = request.operation
        if op == "GetItem":
            response = self._call("get_item", params, stats, plan)
            item = response.get("Item")
            raw = [values.decode_item(item)] if item else []
            self._charge_gets(plan, stats, params, raw, 0 if item else 1)
            self._after_page(stats)
            stats_add(self._lock, stats, scanned=len(raw))
            yield from (i for i in raw if matches(request.residual, i))
            return
        if op == "BatchGetItem":
            for item in self._batch_get(plan, params, stats):
                if matches(request.residual, item):
                    yield item
            return
        produced = 0
        for _page, items in self._pages(plan, op, params, stats):
            if plan.fetch is not None:
                items = self._fetch(plan, items, stats)
            for item in items:
                if matches(request.residual, item):
                    yield item
                    produced += 1
            if request.max_items is not None and produced >= request.max_items:
                return

    def _pages(
        self, plan: Plan, op: str, params: dict, stats: Stats
    ) -> Iterator[tuple[dict, list[dict]]]:
        """Each page, with its items decoded once (for the rows and for the estimate)."""
        method = "query" if op == "Query" else "scan"
        params = dict(params)
        while True:
            page = self._call(method, params, stats, plan)
            items = [values.decode_item(i) for i in page.get("Items", [])]
            scanned = page.get("ScannedCount", page.get("Count", 0))
            stats_add(self._lock, stats, scanned=scanned)
            if self.estimate_capacity:
                self._charge_page(plan, stats, params, page, items, scanned)
            self._after_page(stats)
            yield page, items
            last = page.get("LastEvaluatedKey")
            if not last:
                return
            params["ExclusiveStartKey"] = last

    # --- BatchGetItem, with UnprocessedKeys retried ------------------------------------------

    def _batch_get(self, plan: Plan, params: dict, stats: Stats) -> Iterator[dict]:
        request_items = params["RequestItems"]
        table = next(iter(request_items))
        spec = request_items[table]
        names = plan.table.keys.names
        wanted = [values.decode_item(key) for key in spec["Keys"]]
        got: dict[tuple, dict] = {}
        pending: dict[str, Any] = {table: spec}
        for attempt in range(MAX_UNPROCESSED_ROUNDS):
            response = self._call(
                "batch_get_item", {**params, "RequestItems": pending}, stats, plan
            )
            items = [values.decode_item(i) for i in response.get("Responses", {}).get(table, [])]
            self._charge_gets(plan, stats, params, items, 0)
            self._after_page(stats)
            for item in items:
                got[key_tuple(item, names)] = item
            stats_add(self._lock, stats, scanned=len(items))
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed.get(table, {}).get("Keys"):
                break
            pending = unprocessed
            time.sleep(min(2.0, 0.05 * 2**attempt) * random.uniform(0.5, 1.0))
        else:
            raise ExecutionError(
                f"BatchGetItem left keys unprocessed after {MAX_UNPROCESSED_ROUNDS} attempts "
                "(throttled); try again or lower the read rate"
            )
        if self.estimate_capacity:
            # a key that matched nothing still costs a read unit
            misses = len(wanted) - len(got)
            self._add_capacity(stats, self._unit_cost(plan, 1) * misses)
        for key in wanted:  # in the order asked for: a key-ordered read stays ordered
            found = got.get(key_tuple(key, names))
            if found is not None:
                yield found

    def _fetch(self, plan: Plan, index_items: list[dict], stats: Stats) -> list[dict]:
        """Full items from the base table for items read through a partial-projection index."""
        names = plan.table.keys.names
        out: list[dict] = []
        assert plan.fetch is not None
        template = plan.fetch.params
        table = plan.table.name
        for start in range(0, len(index_items), 100):
            chunk = index_items[start : start + 100]
            keys = [values.encode_item({n: i[n] for n in names}) for i in chunk]
            spec = {**template["RequestItems"][table], "Keys": keys}
            out.extend(self._batch_get(plan, {**template, "RequestItems": {table: spec}}, stats))
        return out

    # --- calls, errors, capacity ------------------------------------------------------------

    def _call(self, method: str, params: dict, stats: Stats, plan: Plan) -> dict:
        for attempt in range(RETRY_ROUNDS + 1):  # ends by return or raise
            try:
                response = getattr(self.client, method)(**params)
                break
            except Exception as err:  # one place turns AWS and connection errors into sentences
                rounds = retryable(err)
                if attempt >= rounds:
                    raise translate_error(err) from err
                # exponential backoff with full jitter; the same request again (pagination
                # resumes from the same ExclusiveStartKey, so nothing is read twice)
                time.sleep(
                    random.uniform(0, min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2**attempt))
                )
        stats_add(self._lock, stats, requests=1)
        if not self.estimate_capacity:
            self._add_capacity(stats, _reported(response.get("ConsumedCapacity")))
        return response

    def _unit_cost(self, plan: Plan, size: int) -> Decimal:
        return read_units(size, plan.consistent)

    def _charge_gets(
        self, plan: Plan, stats: Stats, params: dict, items: list, misses: int
    ) -> None:
        """Estimated: each item rounded up to 4 KB on its own (GetItem, BatchGetItem)."""
        if not self.estimate_capacity:
            return
        projected = _has_projection(params)
        cost = Decimal(0)
        for item in items:
            size = plan.table.average_item_size if projected else values.item_size(item)
            cost += self._unit_cost(plan, size)
        cost += self._unit_cost(plan, 1) * misses
        self._add_capacity(stats, cost)

    def _charge_page(
        self, plan: Plan, stats: Stats, params: dict, page: dict, items: list[dict], scanned: int
    ) -> None:
        """Estimated: a Query/Scan page costs the total size of the items it evaluated, rounded
        up to 4 KB once. Exact when every evaluated item came back whole; else from averages."""
        whole = "Items" in page and not _has_projection(params)
        if whole and "FilterExpression" not in params:
            size = sum(values.item_size(i) for i in items)
        else:
            size = scanned * _average_size(plan)
        self._add_capacity(stats, read_units(size, plan.consistent))

    def _add_capacity(self, stats: Stats, amount: Decimal) -> None:
        with self._lock:
            stats.capacity += amount

    def _after_page(self, stats: Stats) -> None:
        limits = self.limits
        if limits.max_rcu is not None and stats.capacity > limits.max_rcu:
            raise GuardError(
                f"stopped: the statement consumed {stats.capacity_text()}, more than --max-rcu "
                f"{limits.max_rcu}"
            )
        if limits.rate_limit:
            # token bucket: never run ahead of rate_limit RCU per second on average
            due = float(stats.capacity / limits.rate_limit)
            ahead = due - stats.elapsed
            if ahead > 0:
                time.sleep(ahead)
        if self.progress is not None:
            self.progress(stats)


def retryable(err: Exception) -> int:
    """How many more rounds an error deserves: throttles many (they pass), server errors and
    dropped connections a few (botocore already retried them), anything else none."""
    failure = classify(err)
    if failure.kind == "throttle":
        return RETRY_ROUNDS
    return RETRY_ROUNDS_OTHER if failure.transient else 0


def stats_add(lock: threading.Lock, stats: Stats, requests: int = 0, scanned: int = 0) -> None:
    with lock:
        stats.requests += requests
        stats.items_scanned += scanned


def _average_size(plan: Plan) -> int:
    access = plan.access
    if access.item_count and access.size_bytes:
        return max(1, access.size_bytes // access.item_count)
    return plan.table.average_item_size


def _has_projection(params: dict) -> bool:
    if "ProjectionExpression" in params:
        return True
    return any("ProjectionExpression" in spec for spec in params.get("RequestItems", {}).values())


def _reported(consumed: Any) -> Decimal:
    if not consumed:
        return Decimal(0)
    if isinstance(consumed, list):
        return sum((_reported(c) for c in consumed), Decimal(0))
    return Decimal(str(consumed.get("CapacityUnits", 0)))


def key_tuple(item: dict, names: tuple[str, ...]) -> tuple:
    return tuple(values.hashable(item.get(n, values.MISSING)) for n in names)


def _dedupe(items: Iterator[dict], names: tuple[str, ...]) -> Iterator[dict]:
    seen: set = set()
    for item in items:
        key = key_tuple(item, names)
        if key not in seen:
            seen.add(key)
            yield item


_DONE = object()


def _concurrent(streams: list[Callable[[], Iterator[Any]]], workers: int = 8) -> Iterator[Any]:
    """Run several item streams in threads and yield their items as they arrive.

    When the consumer stops (LIMIT reached, an error), the workers stop at their next page.
    """
    out: queue.Queue = queue.Queue(maxsize=QUEUE_DEPTH)
    stop = threading.Event()
    pending = list(enumerate(streams))
    lock = threading.Lock()

    def worker() -> None:
        while not stop.is_set():
            with lock:
                if not pending:
                    break
                _i, stream = pending.pop(0)
            try:
                for item in stream():
                    while not stop.is_set():
                        try:
                            out.put(item, timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if stop.is_set():
                        return
            except BaseException as err:  # handed to the consumer, raised there
                out.put(err)
                return
        out.put(_DONE)

    threads = [
        threading.Thread(target=worker, daemon=True) for _ in range(min(workers, len(streams)))
    ]
    for t in threads:
        t.start()
    finished = 0
    try:
        while finished < len(threads):
            got = out.get()
            if got is _DONE:
                finished += 1
            elif isinstance(got, BaseException):
                raise got
            else:
                yield got
    finally:
        stop.set()
        # unblock workers waiting on a full queue, then wait for them: a page in flight is
        # still paid for, and must be in the statement's capacity before it is reported
        while True:
            try:
                out.get_nowait()
            except queue.Empty:
                break
        for t in threads:
            t.join(timeout=60)
