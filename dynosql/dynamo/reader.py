"""Run a plan with boto3: pages, segments, batches, retries (dynamo.retry's policy), capacity.

Pages stream out lazily: a consumer that stops early (LIMIT) stops the reads. Several requests
(IN, OR branches, parallel Scan segments) run concurrently in threads and are merged. Each page
goes out as read (`plan.port.Page`, tagged with its request): what the client must still check
or deduplicate is `dynosql.evaluate.reads`'s, over what this returns. Capacity is what DynamoDB
reports, summed; on a backend that reports no real figure (the
embedded moto) it is estimated from item sizes by DynamoDB's rules and labelled so.
"""

from __future__ import annotations

import itertools
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from dynosql import values
from dynosql.dynamo import wire as wire_module
from dynosql.dynamo import wiresize
from dynosql.dynamo.budget import BudgetStop, ReadBudget
from dynosql.dynamo.capabilities import ProjectionRefused, without_projection
from dynosql.dynamo.retry import (
    MAX_UNPROCESSED_ROUNDS,
    RetryPolicy,
    Sleep,
    unprocessed_delay,
)
from dynosql.errors import ExecutionError
from dynosql.plan.cost import bytes_per_read_unit
from dynosql.plan.model import Plan, Request
from dynosql.plan.port import Ledger, MoreKeys, Page
from dynosql.result import ProgressSink, Stats
from dynosql.values import read_units

SLOW_ANSWER_SECONDS = 3.0  # a terminal hears about a request that has not answered by then
UNKNOWN_ITEM_BYTES = 4096  # item size assumed for a page's Limit when nothing is known
QUEUE_DEPTH = 4096
# pages (not items) cross from the segment threads to the consumer: a handful in the queue, on
# top of the one each worker holds, keeps memory flat whatever the table's size
PAGE_QUEUE_DEPTH = 4
UNPROJECTED = "dynosql:unprojected"  # marks a response to a request sent without its projection
# requests in flight at once per statement (parallel Scan segments, IN/OR branches); more
# segments than this are read this many at a time. The client's connection pool matches it.
MAX_CONCURRENT_REQUESTS = 32
INTERRUPT_GRACE = 1.0  # seconds Ctrl-C waits for requests in flight before leaving them


@dataclass
class Limits:
    """Guards on a statement's reads."""

    max_rcu: Decimal | None = None
    rate_limit: Decimal | None = None  # RCU per second, reserved before each request
    deadline: float | None = None  # seconds for one request, retries included


T = TypeVar("T")


class Executor:
    def __init__(
        self,
        client: Any,
        estimate_capacity: bool = False,
        limits: Limits | None = None,
        progress: ProgressSink | None = None,
        cancel: threading.Event | None = None,
        unprojectable: set[str] | None = None,
        sleep: Sleep = time.sleep,
        first_page_items: int | None = None,
        ledger: Ledger | None = None,
    ):
        self.client = client
        # the session's ledger: each answer's units go there as they come (None: not counted)
        self.ledger = ledger
        self.first_page_items = first_page_items  # Capabilities.first_page_items
        # tables whose items moto fails to project, learned on the way (see _send); the
        # Session's own set, so that it is remembered for the session
        self.unprojectable = unprojectable if unprojectable is not None else set()
        self.estimate_capacity = estimate_capacity
        self.limits = limits or Limits()
        self.progress = progress
        self.cancel = cancel or threading.Event()
        # every request of the statement: retried, within the deadline, stopped by cancel
        self.policy = RetryPolicy.for_client(client, self.limits.deadline, self.cancel, sleep)
        self._lock = threading.Lock()
        self.budget = self._budget(Stats())

    # --- public ------------------------------------------------------------------------------

    def pages(self, plan: Plan, stats: Stats, whole_first: bool = False) -> Iterator[Page]:
        """The plan's pages (deduplicated and checked by the caller: `dynosql.evaluate.reads`),
        each tagged with the request it answered, a page at a time: a list crosses from a
        segment's thread to the consumer at the cost of one item.

        `whole_first`: a Scan's first page (its first segment's, for a parallel Scan) is sent
        without its FilterExpression and ProjectionExpression, which change what comes back,
        not what is evaluated or billed (Limit and the 1 MB cut count items before the filter,
        and a Scan is billed for every item it evaluates: developerguide/Scan.html
        #Scan.FilterExpression and #Scan.ReadCapacity), and comes back whole (`Page.whole`):
        the hints learn a Scan's attribute names from its own first page, and nothing more is
        read. The next page is asked for once the consumer has taken it."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity
        if plan.operation == "Nothing":
            return iter(())
        if plan.fallback is not None:
            self.budget = self._budget(stats)
            found = self._probe(plan, stats)
            return self._final_total(self._fetched(plan, found, stats), stats)
        whole = _FirstPage(plan) if whole_first and plan.is_scan else None
        streams = _Streams(plan, lambda r, p: self._request_pages(plan, r, p, stats, whole))
        self.budget = self._budget(stats, len(streams))
        pages = streams[0]() if len(streams) == 1 else self._concurrent(streams, PAGE_QUEUE_DEPTH)
        return self._final_total(pages, stats)

    def count_pages(self, plan: Plan, stats: Stats, whole_first: bool = False) -> Iterator[Page]:
        """A Select=COUNT plan's pages: each with DynamoDB's `Page.count`; with `whole_first`,
        the first page as `pages` sends it (back whole, without Select=COUNT: its items are
        counted by the caller)."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity
        whole = _FirstPage(plan) if whole_first and plan.is_scan else None

        def page_counts(request: Request, params: dict[str, Any]) -> Iterator[Page]:
            sent_whole = whole is not None and whole.takes(request, params)
            pages = self._pages(plan, request.operation, params, stats, whole_first=sent_whole)
            for page, items, _sizes in pages:
                if sent_whole:
                    sent_whole = False
                    yield Page(items, request.residual, whole=True)
                else:
                    yield Page([], request.residual, count=page.get("Count", 0))

        streams = _Streams(plan, page_counts)
        self.budget = self._budget(stats, len(streams))
        counts = streams[0]() if len(streams) == 1 else self._concurrent(streams)
        return self._final_total(counts, stats)

    def _budget(self, stats: Stats, streams: int = 1) -> ReadBudget:
        budget = ReadBudget(
            stats,
            self._lock,
            self.limits.max_rcu,
            self.limits.rate_limit,
            self.cancel,
        )
        budget.streams = min(streams, MAX_CONCURRENT_REQUESTS)
        return budget

    def _concurrent(
        self, streams: Sequence[Callable[[], Iterator[Any]]], depth: int = QUEUE_DEPTH
    ) -> Iterator[Any]:
        return _concurrent(
            streams, MAX_CONCURRENT_REQUESTS, self.cancel, self.limits.deadline, depth
        )

    def _final_total(self, stream: Iterator[Any], stats: Stats) -> Iterator[Any]:
        """--max-rcu's stop, reported once every page in flight has come back and been
        counted (the workers are joined before the error gets here)."""
        try:
            yield from stream
        except BudgetStop:
            raise BudgetStop(
                f"stopped: the statement consumed {stats.capacity_text()} (pages in flight "
                f"included), reaching --max-rcu {self.limits.max_rcu}"
            ) from None

    # --- streams -------------------------------------------------------------------------------

    def wire_pages(
        self,
        plan: Plan,
        stats: Stats,
        reduce: Callable[[list[dict[str, Any]], list[int] | None], T],
        reduce_body: Callable[[bytes | str], wire_module.ReducedPage[T] | None] | None = None,
    ) -> Iterator[T]:
        """`reduce` of every page of a plan whose items need no client-side check (a full Scan:
        SHOW HOT KEYS; a Query or Scan counted by its keys: `count_groups.count_wire`), its
        items left in the wire form, with their sizes (`dynosql.dynamo.wiresize`; None when the
        page came back projected or filtered): a caller that needs one attribute decodes nothing
        else. The pages wait as bytes; each is decoded and reduced in the thread that read it,
        one page at a time across the threads, and dropped: only what `reduce` made of it
        waits in the queue (memory: one decoded page, and the bodies of the requests in
        flight, whatever the table's size).

        `reduce_body`, when given, is tried first on each page's bytes: what it returns stands
        for the page (SHOW HOT KEYS reads its counts off the bytes, `dynosql.dynamo.wiretally`); when it
        returns None the page is decoded and `reduce`d."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity
        # pages are reduced as read: no item limit, fetch, dedupe or follow-up plan applies
        assert plan.reads_every_item_once

        one_at_a_time = threading.Lock()

        def pages(request: Request, params: dict[str, Any]) -> Iterator[T]:
            yield from self._pages(
                plan,
                request.operation,
                params,
                stats,
                decode=False,
                one_at_a_time=one_at_a_time,
                consume=reduce,
                consume_body=reduce_body,
            )

        streams = _Streams(plan, pages)
        self.budget = self._budget(stats, len(streams))
        reduced = streams[0]() if len(streams) == 1 else self._concurrent(streams, PAGE_QUEUE_DEPTH)
        return self._final_total(reduced, stats)

    def segment_pages(self, plan: Plan, stats: Stats) -> Iterator[Page]:
        """A sampled Scan's pages, each with its segment's index in the sample and its items
        scanned (before any filter): a segment sample's statistics need per-segment totals."""
        stats.operations.append(plan.label)
        stats.capacity_estimated = self.estimate_capacity
        assert plan.sample is not None
        index_of = {segment: i for i, segment in enumerate(plan.sample.segments)}

        def pages(request: Request, params: dict[str, Any]) -> Iterator[Page]:
            tag = index_of[params["Segment"]]
            for page, items, _sizes in self._pages(plan, request.operation, params, stats):
                scanned = page.get("ScannedCount", page.get("Count", 0))
                if plan.fetch is not None:
                    items = self._fetch(plan, items, stats)
                yield Page(items, request.residual, segment=tag, scanned=scanned)

        streams = _Streams(plan, pages)
        self.budget = self._budget(stats, len(streams))
        return streams[0]() if len(streams) == 1 else self._concurrent(streams)

    def _request_pages(
        self,
        plan: Plan,
        request: Request,
        params: dict[str, Any],
        stats: Stats,
        whole: _FirstPage | None = None,
    ) -> Iterator[Page]:
        """A request's pages: its items (fetched from the base table where the index lacks
        attributes), cut at the request's `max_items`."""
        op = request.operation
        if op == "GetItem":
            self.budget.reserve(self._unit_cost(plan, 1))
            self.budget.settle(self._unit_cost(plan, 1))
            response = self._call("get_item", params, stats, plan)
            item = response.get("Item")
            wire = [item] if item else []
            raw = [values.decode_item(item)] if item else []
            self._charge_gets(plan, stats, params, response, wire, 0 if item else 1)
            self._after_page(stats)
            yield Page(raw, request.residual)
            return
        if op == "BatchGetItem":
            yield Page(list(self._batch_get(plan, params, stats)), request.residual)
            return
        produced = 0
        wanted = None
        if request.max_items is not None:  # no client-side check: every item read is a row
            wanted = lambda: request.max_items - produced  # noqa: E731 - read at each page
        sent_whole = whole is not None and whole.takes(request, params)
        pages = self._pages(plan, op, params, stats, wanted, whole_first=sent_whole)
        for _page, items, _sizes in pages:
            if plan.fetch is not None:
                items = self._fetch(plan, items, stats)
            if request.max_items is not None:
                items = items[: request.max_items - produced]
            produced += len(items)
            yield Page(items, request.residual, whole=sent_whole)
            sent_whole = False
            if request.max_items is not None and produced >= request.max_items:
                return

    def _probe(self, plan: Plan, stats: Stats) -> list[tuple[Request, list[dict[str, Any]]]]:
        """The index keys of each of the plan's Queries, one Query after the other, reading
        at most its Fallback's ``keys`` + 1 entries in all (each page's Limit: what is left,
        plus one); `MoreKeys` when there are more (plan/fallback.py). Limit counts the entries
        evaluated, before any filter: what passes is at most what was counted."""
        assert plan.fallback is not None
        left = [plan.fallback.keys]  # the keys still within the break-even
        found = []
        for request in plan.requests:
            items: list[dict[str, Any]] = []
            params = {**request.params, "Limit": left[0] + 1}
            pages = self._pages(plan, request.operation, params, stats, lambda: left[0] + 1)
            for page, got, _sizes in pages:  # (no page is asked for beyond the one that ends it)
                left[0] -= page.get("ScannedCount", page.get("Count", 0))
                if left[0] < 0:
                    raise MoreKeys(plan.fallback.keys)
                items.extend(got)
            found.append((request, items))
        return found

    def _fetched(
        self, plan: Plan, found: list[tuple[Request, list[dict[str, Any]]]], stats: Stats
    ) -> Iterator[Page]:
        """The items of the keys `_probe` found, fetched from the table, a page a request (cut
        at its `max_items`, as `_request_pages` cuts them)."""
        for request, keys in found:
            items = self._fetch(plan, keys, stats)
            yield Page(items[: request.max_items], request.residual)

    def _pages(
        self,
        plan: Plan,
        op: str,
        params: dict[str, Any],
        stats: Stats,
        wanted: Callable[[], int] | None = None,
        decode: bool = True,
        one_at_a_time: threading.Lock | None = None,
        consume: Callable[[list[dict[str, Any]], list[int] | None], Any] | None = None,
        consume_body: Callable[[bytes | str], wire_module.ReducedPage[Any] | None] | None = None,
        whole_first: bool = False,
    ) -> Iterator[Any]:
        """Each page, with its items decoded once (for the rows), or left in the wire form
        (`decode` False), and their sizes from the wire form (for the bytes read and the
        estimate): None when the items did not come back whole.

        `wanted`: the rows still needed when every item read is a row (a pushed-down LIMIT);
        a continuation page asks for only those (Limit counts items evaluated, and re-sending
        the first page's Limit would read and pay for items nobody wants).

        `one_at_a_time` and `consume`: the pages arrive as bytes (`wire.deferred`); each is
        decoded and `consume`d while holding the lock, and what `consume` returns is yielded
        instead of the page, which is dropped: readers in several threads hold one decoded
        page between them, not one each.

        `whole_first`: the first page is sent without its filter and projection (`items`)."""
        method = "query" if op == "Query" else "scan"
        params = dict(params)
        first_limit = params.get("Limit")
        # this stream's pages so far: items evaluated, their capacity, and of the items that
        # came back whole, how many and their bytes
        seen: list[Any] = [0, Decimal(0), 0, 0]
        while True:
            limit = first_limit
            if wanted is not None and first_limit is not None and "ExclusiveStartKey" in params:
                limit = max(1, min(first_limit, wanted()))
            expected = Decimal(0)
            if self.budget.active:
                expected, limit = self._bound_page(plan, limit, seen)
            if limit is not None:
                params["Limit"] = limit
            sending = params
            if whole_first and "ExclusiveStartKey" not in params:
                sending = _whole_items(params, self.first_page_items)
            self.budget.reserve(expected)
            try:
                with wire_module.deferred() if one_at_a_time else nullcontext():
                    page = self._call(method, sending, stats, plan)
            finally:
                self.budget.settle(expected)
            with one_at_a_time or nullcontext():
                out, last = self._page(
                    plan, page, sending, stats, seen, decode, consume, consume_body
                )
            del page
            yield out
            if not last:
                return
            params["ExclusiveStartKey"] = last

    def _page(
        self,
        plan: Plan,
        page: dict[str, Any],
        params: dict[str, Any],
        stats: Stats,
        seen: list[Any],
        decode: bool,
        consume: Callable[[list[dict[str, Any]], list[int] | None], Any] | None,
        consume_body: Callable[[bytes | str], wire_module.ReducedPage[Any] | None] | None = None,
    ) -> tuple[Any, Any]:
        """One page of `_pages`, counted: (page, items, sizes), or what `consume` (or
        `consume_body`, from the bytes) makes of the items and sizes; and its
        LastEvaluatedKey."""
        # no filter: the items evaluated are the items returned (whole unless projected), and
        # their sizes are what was read
        unfiltered = "FilterExpression" not in params
        reduced = None
        body = page.pop(wire_module.DEFERRED, None)
        if body is not None:  # its capacity is read once it is decoded
            if consume_body is not None and unfiltered and not _projected(params, page):
                reduced = consume_body(body)
            page = wire_module.fill_page(page, body if reduced is None else reduced.envelope)
            if not self.estimate_capacity:
                self._add_capacity(stats, _reported(page.get("ConsumedCapacity")))
        wire = page.get("Items", [])
        items = wire
        if decode:  # an answer sent whole in place of its projection: only what it projects
            names = wire_module.projected_names(params) if page.get(UNPROJECTED) else None
            items = wire_module.decode_items(wire, names)
        scanned = page.get("ScannedCount", page.get("Count", 0))
        sizes = None
        if reduced is None and unfiltered and "Items" in page:
            sizes = _sizes(params, page, wire)
        size = reduced.size if reduced is not None else None if sizes is None else sum(sizes)
        stats_add(self._lock, stats, scanned=scanned, size=size)
        if self.estimate_capacity:
            cost = self._charge_page(plan, stats, page, size, scanned)
        else:
            cost = _reported(page.get("ConsumedCapacity"))
        seen[0] += scanned
        seen[1] += cost
        if size is not None:
            seen[2] += scanned
            seen[3] += size
        self._after_page(stats)
        last = page.get("LastEvaluatedKey")
        if reduced is not None:
            return reduced.value, last
        if consume is not None:  # the page's items live until it returns: nothing to collect
            with wire_module.collector_paused():
                return consume(items, sizes), last
        return (page, items, sizes), last

    # --- BatchGetItem, with UnprocessedKeys retried ------------------------------------------

    def _batch_get(
        self, plan: Plan, params: dict[str, Any], stats: Stats
    ) -> Iterator[dict[str, Any]]:
        request_items = params["RequestItems"]
        table = next(iter(request_items))
        spec = request_items[table]
        names = plan.table.keys.names
        wanted = [values.decode_item(key) for key in spec["Keys"]]
        got: dict[tuple[Any, ...], dict[str, Any]] = {}
        pending: dict[str, Any] = {table: spec}
        for _round in self.policy.rounds(MAX_UNPROCESSED_ROUNDS, unprocessed_delay):
            booked = self._unit_cost(plan, 1) * len(pending[table]["Keys"])
            self.budget.reserve(booked)
            self.budget.settle(booked)
            response = self._call(
                "batch_get_item", {**params, "RequestItems": pending}, stats, plan
            )
            wire = response.get("Responses", {}).get(table, [])
            projected = wire_module.projected_names(spec) if response.get(UNPROJECTED) else None
            items = wire_module.decode_items(wire, projected)
            self._charge_gets(plan, stats, params, response, wire, 0)
            self._after_page(stats)
            for item in items:
                got[values.key_tuple(item, names)] = item
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed.get(table, {}).get("Keys"):
                break
            pending = unprocessed
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
            found = got.get(values.key_tuple(key, names))
            if found is not None:
                yield found

    def _fetch(
        self, plan: Plan, index_items: list[dict[str, Any]], stats: Stats
    ) -> list[dict[str, Any]]:
        """Full items from the base table for items read through a partial-projection index."""
        names = plan.table.keys.names
        out: list[dict[str, Any]] = []
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

    def _bound_page(
        self, plan: Plan, limit: int | None, seen: list[Any]
    ) -> tuple[Decimal, int | None]:
        """This page's expected cost, and its Limit lowered to what the budget allows. The
        average item it assumes: the pages' so far, sized, when they came back whole (seen[2]
        items, seen[3] bytes); else the table's (index's) own, as the estimate assumes; else
        what the pages so far cost (rounded up a unit a page, so never too small); else 4 KB."""
        unit = bytes_per_read_unit(plan.consistent)
        if seen[2]:
            item_bytes = max(1, seen[3] // seen[2])
        elif plan.access.item_count and plan.access.size_bytes:
            item_bytes = _average_size(plan)
        elif seen[0]:
            item_bytes = max(1, int(seen[1] * unit / seen[0]))
        else:
            item_bytes = UNKNOWN_ITEM_BYTES
        allowed = self.budget.page_items(item_bytes, plan.consistent)
        if allowed is not None:
            limit = allowed if limit is None else min(limit, allowed)
        items = limit if limit is not None else 1024 * 1024 // item_bytes
        return max(self._unit_cost(plan, 1), Decimal(items * item_bytes) / unit), limit

    def _call(
        self, method: str, params: dict[str, Any], stats: Stats, plan: Plan | None = None
    ) -> dict[str, Any]:
        # retried as the same request (pagination resumes from the same ExclusiveStartKey, so
        # nothing is read twice)
        response = self.policy.call(self._send, method, params, what="reads")
        stats_add(self._lock, stats, requests=1)
        if not self.estimate_capacity and wire_module.DEFERRED not in response:
            self._add_capacity(stats, _reported(response.get("ConsumedCapacity")))
        return response

    def query_page(self, params: dict[str, Any], stats: Stats) -> dict[str, Any]:
        """One Query request as given (retried, within the deadline, moto's projection
        failure answered without the projection), for callers that walk keys themselves."""
        page = self._call("query", params, stats)
        if self.estimate_capacity:  # the items evaluated, as far as they came back
            size = sum(map(wiresize.item_size, page.get("Items", [])))
            self._add_capacity(stats, read_units(size))
        return page

    def sample(self, table: str, limit: int, stats: Stats) -> list[dict[str, Any]]:
        """The first page of a Scan with `limit` (a few items to learn a table from)."""
        params = {"TableName": table, "Limit": limit, "ReturnConsumedCapacity": "TOTAL"}
        stats.operations.append(f"Scan {table} (sample of {limit})")
        stats.capacity_estimated = self.estimate_capacity
        page = self._call("scan", params, stats)
        wire = page.get("Items", [])
        size = sum(map(wiresize.item_size, wire))
        stats_add(self._lock, stats, scanned=len(wire), size=size)
        if self.estimate_capacity:
            self._add_capacity(stats, read_units(size))
        return [values.decode_item(i) for i in wire]

    def _unit_cost(self, plan: Plan, size: int) -> Decimal:
        return read_units(size, plan.consistent)

    def _charge_gets(
        self,
        plan: Plan,
        stats: Stats,
        params: dict[str, Any],
        response: dict[str, Any],
        wire: list[Any],
        misses: int,
    ) -> None:
        """The bytes of items read whole; estimated capacity: each item rounded up to 4 KB on
        its own (GetItem, BatchGetItem), a miss costs one unit."""
        sizes = _sizes(params, response, wire)
        stats_add(self._lock, stats, scanned=len(wire), size=None if sizes is None else sum(sizes))
        if not self.estimate_capacity:
            return
        if sizes is None:
            sizes = [plan.table.average_item_size] * len(wire)
        cost = sum((self._unit_cost(plan, size) for size in sizes), Decimal(0))
        cost += self._unit_cost(plan, 1) * misses
        self._add_capacity(stats, cost)

    def _send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One call. A table whose items moto failed to project is read whole from then on:
        the request goes again at once without its ProjectionExpression (same cost, the
        client picks the attributes), and the response says so (UNPROJECTED)."""
        table = _table_of(params)
        if table in self.unprojectable:
            stripped = without_projection(params)
            if stripped is not params:
                return {**self._send_once(method, stripped), UNPROJECTED: True}
        try:
            return self._send_once(method, params)
        except ProjectionRefused:
            with self._lock:
                self.unprojectable.add(table)
            return {**self._send_once(method, without_projection(params)), UNPROJECTED: True}

    def _send_once(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One call; on a terminal, a note when the answer is slow in coming."""
        waiting = getattr(self.progress, "waiting", None)
        if waiting is None:
            return getattr(self.client, method)(**params)
        timer = threading.Timer(SLOW_ANSWER_SECONDS, waiting, (method, self.limits.deadline))
        timer.daemon = True
        timer.start()
        try:
            return getattr(self.client, method)(**params)
        finally:
            timer.cancel()

    def _charge_page(
        self, plan: Plan, stats: Stats, page: dict[str, Any], size: int | None, scanned: int
    ) -> Decimal:
        """Estimated: a Query/Scan page costs the total size of the items it evaluated, rounded
        up to 4 KB once. Exact when every evaluated item came back whole (`size` known); else
        from averages."""
        if size is None:
            size = scanned * _average_size(plan)
        cost = read_units(size, plan.consistent)
        self._add_capacity(stats, cost)
        return cost

    def _add_capacity(self, stats: Stats, amount: Decimal) -> None:
        with self._lock:
            stats.capacity += amount
        if self.ledger is not None:
            self.ledger.charge(rcu=amount)

    def _after_page(self, stats: Stats) -> None:
        limits = self.limits
        if limits.max_rcu is not None and stats.capacity > limits.max_rcu:
            raise BudgetStop(f"stopped: more than --max-rcu {limits.max_rcu}")
        if self.progress is not None:
            self.progress(stats)


def stats_add(
    lock: threading.Lock, stats: Stats, requests: int = 0, scanned: int = 0, size: int | None = 0
) -> None:
    """Add to a statement's counts; `size` None: items were read that did not come back whole
    (their bytes are unknown from then on)."""
    with lock:
        stats.requests += requests
        stats.items_scanned += scanned
        if size is None:
            stats.bytes_exact = False
        else:
            stats.bytes_read += size


def _average_size(plan: Plan) -> int:
    access = plan.access
    if access.item_count and access.size_bytes:
        return max(1, access.size_bytes // access.item_count)
    return plan.table.average_item_size


class _FirstPage:
    """Which page `Executor.pages` sends whole (`whole_first`): the first page of the plan's
    first request (its Segment 0), whatever thread reads it."""

    def __init__(self, plan: Plan):
        self.first = plan.requests[0] if plan.requests else None

    def takes(self, request: Request, params: dict[str, Any]) -> bool:
        return request is self.first and params.get("Segment", 0) == 0


def _whole_items(params: dict[str, Any], most: int | None = None) -> dict[str, Any]:
    """A Scan request without what shapes its answer (filter, projection), and so without the
    placeholders only they used (DynamoDB rejects unused ones): the same items evaluated, the
    same page cut (Limit and the 1 MB count items before the filter), the same bill and the
    same number of requests; whole items come back (up to 1 MB: on moto, which takes about a
    millisecond an item to answer, a page of a few thousand items would add seconds: there
    `most` cuts the page, and the Scan goes on from its end; the same items are evaluated, and
    the bill can differ by the rounding of one more page, in one more request)."""
    shaping = ("FilterExpression", "ProjectionExpression", "Select")
    if not any(k in params for k in shaping):
        return params
    out = {k: v for k, v in params.items() if k not in shaping}
    if "KeyConditionExpression" not in params:
        out.pop("ExpressionAttributeNames", None)
        out.pop("ExpressionAttributeValues", None)
    if most is not None:
        out["Limit"] = min(params.get("Limit") or most, most)
    return out


def _has_projection(params: dict[str, Any]) -> bool:
    if "ProjectionExpression" in params:
        return True
    return any("ProjectionExpression" in spec for spec in params.get("RequestItems", {}).values())


def _projected(params: dict[str, Any], response: dict[str, Any]) -> bool:
    """Whether the response's items were projected (the request's ProjectionExpression was
    sent, not dropped for moto)."""
    return _has_projection(params) and not response.get(UNPROJECTED)


def _sizes(
    params: dict[str, Any], page: dict[str, Any], wire: list[dict[str, Any]]
) -> list[int] | None:
    """The size of each of a page's items, or None when they came back projected."""
    if _projected(params, page):
        return None
    return list(map(wiresize.item_size, wire))


def _table_of(params: dict[str, Any]) -> str:
    if "TableName" in params:
        return str(params["TableName"])
    return next(iter(params.get("RequestItems") or {"": None}))


def _reported(consumed: Any) -> Decimal:
    if not consumed:
        return Decimal(0)
    if isinstance(consumed, list):
        return sum((_reported(c) for c in consumed), Decimal(0))
    return Decimal(str(consumed.get("CapacityUnits", 0)))


_DONE = object()


class _Streams(Sequence[Any]):
    """One stream per request, and per Scan segment, each made when a worker takes it."""

    def __init__(self, plan: Plan, make: Callable[[Request, dict[str, Any]], Iterator[Any]]):
        self.plan = plan
        self.make = make
        sample = plan.sample
        # a sample reads some of the segments; a parallel Scan all of them
        self.segments: Sequence[int] = (
            sample.segments if sample is not None else range(plan.segments)
        )
        self.total = sample.total if sample is not None else plan.segments
        self.per = [
            len(self.segments) if r.operation == "Scan" and self.total > 1 else 1
            for r in plan.requests
        ]

    def __len__(self) -> int:
        return sum(self.per)

    def __getitem__(self, index: int) -> Callable[[], Iterator[Any]]:  # type: ignore[override]
        if not 0 <= index < len(self):
            raise IndexError(index)
        return next(itertools.islice(iter(self), index, None))

    def __iter__(self) -> Iterator[Callable[[], Iterator[Any]]]:
        for request, n in zip(self.plan.requests, self.per, strict=True):
            if request.operation != "Scan" or self.total <= 1:
                yield self._stream(request, request.params)
                continue
            for i in itertools.islice(self.segments, n):
                params = {**request.params, "Segment": i, "TotalSegments": self.total}
                yield self._stream(request, params)

    def _stream(self, request: Request, params: dict[str, Any]) -> Callable[[], Iterator[Any]]:
        return lambda: self.make(request, params)


def _concurrent(
    streams: Sequence[Callable[[], Iterator[Any]]],
    workers: int = MAX_CONCURRENT_REQUESTS,
    cancel: threading.Event | None = None,
    grace: float | None = None,
    depth: int = QUEUE_DEPTH,
) -> Iterator[Any]:
    """Run several streams (of items, pages, counts) in threads and yield what they give as
    it arrives, at most `depth` of them waiting.

    When the consumer stops (LIMIT reached, an error), the workers stop at their next page, and
    the pages in flight are waited for (up to `grace` seconds in all: they are paid for and
    belong in the statement's capacity). On Ctrl-C or `cancel`, nothing is waited for beyond
    INTERRUPT_GRACE: a request to an endpoint that does not answer is abandoned with its
    (daemon) thread.
    """
    out: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    pending = iter(streams)  # made one at a time: a million segments are not a million objects
    lock = threading.Lock()

    def worker() -> None:
        while not stop.is_set():
            with lock:
                stream = next(pending, None)
            if stream is None:
                break
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
        interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt) or (
            cancel is not None and cancel.is_set()
        )
        if interrupted and cancel is not None:
            cancel.set()
        wait = INTERRUPT_GRACE if interrupted else (grace if grace is not None else 60.0)
        end = time.monotonic() + wait
        for t in threads:
            t.join(timeout=max(0.0, end - time.monotonic()))
