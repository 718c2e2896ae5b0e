"""A fault-injecting HTTP proxy for DynamoDB servers, on loopback, for the fault tests.

``FaultProxy(upstream_url).start()`` listens on 127.0.0.1 (a port the OS picks) and forwards
every request to the real server (moto or dynalite) unchanged, except the calls a rule picks.
A rule names a DynamoDB operation (the ``X-Amz-Target`` suffix: ``Query``, ``Scan``,
``BatchGetItem``, ...), which of its calls to hit (1-based, counted per rule over the calls
that match it; ``None`` means every call) and an optional predicate on the JSON request body
(e.g. "a Scan of segment 2 that carries ExclusiveStartKey"). What the proxy does instead:

- ``throttle``: 400 ``ProvisionedThroughputExceededException`` (what DynamoDB sends when a
  table's provisioned reads are exhausted);
- ``throttling``: 400 ``ThrottlingException`` (control-plane / account-level throttling);
- ``500``: 500 ``InternalServerError``;
- ``reset``: the TCP connection is reset (SO_LINGER 0) before any byte of the answer;
- ``expired``: 400 ``ExpiredTokenException`` (credentials that expired after a refresh);
- ``hang``: the request is read and never answered (a hung endpoint), until the proxy stops;
- ``lost``: the call goes to the server (which applies it), then the connection is reset
  instead of answering: a write that happened but whose answer never arrived;
- ``unprocessed``: the call goes to the server, then the answer is rewritten so that the
  second half of the requested keys (a single key: that key) come back as ``UnprocessedKeys``
  instead of items (BatchGetItem), or the second half of the write requests come back as
  ``UnprocessedItems`` (BatchWriteItem); the x-amz-crc32 header is recomputed so botocore
  accepts the answer.
- ``conflict``: 400 ``TransactionCanceledException`` whose CancellationReasons say
  ``TransactionConflict`` for the first action (``None`` for the others): a TransactWriteItems
  that met another transaction, nothing written;
- ``in_progress``: 400 ``TransactionInProgressException`` (a TransactWriteItems whose
  ClientRequestToken belongs to a transaction still being applied);
- ``write_conflict``: 400 ``TransactionConflictException`` (a single write that met a
  transaction under way on its item: nothing written);
- ``creating``: the call goes to the server, then a DescribeTable answer says the table is
  ``CREATING`` (a table change DynamoDB has not finished).

Every request that reaches the proxy is logged in ``proxy.log`` (operation, parsed body,
what was done), so tests can check what the client sent on a retry.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import struct
import threading
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ACTIONS = (
    "throttle",
    "throttling",
    "500",
    "reset",
    "unprocessed",
    "hang",
    "expired",
    "lost",
    "conflict",
    "write_conflict",
    "in_progress",
    "creating",
)
TARGET_PREFIX = "DynamoDB_20120810."
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "date", "server"}


@dataclass
class Rule:
    operation: str
    action: str
    calls: frozenset[int] | None  # 1-based call numbers among matching calls; None = all
    match: Callable[[dict], bool] | None = None
    seen: int = 0  # matching calls so far
    hits: int = 0  # calls this rule answered

    def applies(self, operation: str, body: dict) -> bool:
        """Count the call if it matches; True when this call is one the rule answers."""
        if operation != self.operation:
            return False
        if self.match is not None and not self.match(body):
            return False
        self.seen += 1
        return self.calls is None or self.seen in self.calls


@dataclass
class Call:
    operation: str
    body: dict
    action: str  # "forward" or one of ACTIONS
    at: float = field(default_factory=time.monotonic)  # when the request arrived
    answer: dict | None = None  # a forwarded call's JSON answer, as the client received it
    delivered: bool | None = None  # an answer written whole (True) or its client gone (False)


@dataclass
class _State:
    rules: list[Rule] = field(default_factory=list)
    log: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)  # releases hung calls


class FaultProxy:
    """A threaded loopback proxy in front of one DynamoDB endpoint."""

    def __init__(self, upstream_url: str):
        parsed = urllib.parse.urlsplit(upstream_url)
        self.upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self.state = _State()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FaultProxy:
        handler = type("Handler", (_Handler,), {"proxy": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # polled every 10 ms, not every 0.5 s: stop() (every fault test) waits for the next poll
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the proxy first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # --- rules -------------------------------------------------------------------------------

    def fail(
        self,
        operation: str,
        action: str,
        calls: Iterable[int] | None = None,
        match: Callable[[dict], bool] | None = None,
    ) -> Rule:
        """Answer calls ``calls`` (1-based; None = every call) of ``operation`` with ``action``."""
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}")
        rule = Rule(operation, action, None if calls is None else frozenset(calls), match)
        with self.state.lock:
            self.state.rules.append(rule)
        return rule

    def reset_rules(self) -> None:
        with self.state.lock:
            self.state.rules.clear()
            self.state.log.clear()
        # calls hung by the last test end now (their clients are gone)
        self.state.stopping.set()
        self.state.stopping = threading.Event()

    @property
    def log(self) -> list[Call]:
        with self.state.lock:
            return list(self.state.log)

    def calls(self, operation: str) -> list[Call]:
        return [c for c in self.log if c.operation == operation]

    def _decide(self, operation: str, body: dict) -> tuple[str, Call]:
        with self.state.lock:
            action = "forward"
            for rule in self.state.rules:
                # every rule sees every call (so call numbers stay independent of other rules);
                # the first rule that picks the call decides
                if rule.applies(operation, body) and action == "forward":
                    rule.hits += 1
                    action = rule.action
            call = Call(operation, body, action)
            self.state.log.append(call)
            return action, call


_ERRORS = {
    "throttle": (
        400,
        "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
        "The level of configured provisioned throughput for the table was exceeded. "
        "Consider increasing your provisioning level with the UpdateTable API.",
    ),
    "throttling": (
        400,
        "com.amazonaws.dynamodb.v20120810#ThrottlingException",
        "Rate of requests exceeds the allowed throughput.",
    ),
    "expired": (
        400,
        "com.amazon.coral.service#ExpiredTokenException",
        "The security token included in the request is expired",
    ),
    "500": (
        500,
        "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "Internal server error (injected by the test proxy)",
    ),
    "in_progress": (
        400,
        "com.amazonaws.dynamodb.v20120810#TransactionInProgressException",
        "The transaction with the given request token is already in progress.",
    ),
    "write_conflict": (
        400,
        "com.amazonaws.dynamodb.v20120810#TransactionConflictException",
        "Transaction is ongoing for the item",
    ),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as botocore's pool expects
    # the headers and the body go out in two writes: with Nagle's algorithm the body waited
    # for the client's delayed ACK of the headers (about 40 ms a call)
    disable_nagle_algorithm = True
    proxy: FaultProxy

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        pass

    def do_GET(self) -> None:  # readiness probes and the like: pass through
        self._forward(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        target = self.headers.get("X-Amz-Target", "")
        operation = target[len(TARGET_PREFIX) :] if target.startswith(TARGET_PREFIX) else target
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        action, call = self.proxy._decide(operation, body)
        if action == "forward":
            self._forward(raw, call=call)
        elif action == "reset":
            self._reset()
        elif action == "hang":
            self.proxy.state.stopping.wait()
            self.close_connection = True
        elif action == "lost":
            self._forward(raw, call=call, lose=True)
        elif action == "unprocessed":
            self._forward(raw, rewrite=lambda status, data: _unprocess(body, status, data))
        elif action == "creating":
            self._forward(raw, rewrite=_creating)
        elif action == "conflict":
            reasons = [{"Code": "None"} for _ in body.get("TransactItems", [])] or [{}]
            reasons[0] = {"Code": "TransactionConflict", "Message": "Transaction is ongoing"}
            payload = json.dumps(
                {
                    "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                    "message": "Transaction cancelled, please refer cancellation reasons for "
                    "specific reasons [TransactionConflict]",
                    "CancellationReasons": reasons,
                }
            ).encode()
            self._answer(400, {"Content-Type": "application/x-amz-json-1.0"}, payload)
        else:
            status, error_type, message = _ERRORS[action]
            payload = json.dumps({"__type": error_type, "message": message}).encode()
            self._answer(status, {"Content-Type": "application/x-amz-json-1.0"}, payload)

    # --- answers -----------------------------------------------------------------------------

    def _forward(
        self,
        raw: bytes,
        rewrite: Callable[[int, bytes], bytes] | None = None,
        call: Call | None = None,
        lose: bool = False,
    ) -> None:
        host, port = self.proxy.upstream
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers["Content-Length"] = str(len(raw))
            conn.request(self.command, self.path, body=raw, headers=headers)
            response = conn.getresponse()
            data = response.read()
            status = response.status
            out_headers = {k: v for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP}
        finally:
            conn.close()
        if lose:  # the server has done it; the client never hears
            self._reset()
            return
        if rewrite is not None:
            data = rewrite(status, data)
            out_headers = {k: v for k, v in out_headers.items() if k.lower() != "x-amz-crc32"}
            out_headers["x-amz-crc32"] = str(zlib.crc32(data) & 0xFFFFFFFF)
        if call is not None:
            try:
                call.answer = json.loads(data or b"{}")
            except ValueError:
                call.answer = None
        self._answer(status, out_headers, data, call)

    def _answer(
        self, status: int, headers: dict[str, str], data: bytes, call: Call | None = None
    ) -> None:
        """Write the answer; a client that gave up waiting for it (its read timeout, its
        deadline) is no fault of the proxy's: without this the server's thread printed a
        BrokenPipeError traceback into the stderr of the in-process ``dynosql`` under test."""
        try:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except ConnectionError:  # BrokenPipeError, ConnectionResetError
            self.close_connection = True
            self.wfile = io.BytesIO()  # finish() flushes into nothing
            if call is not None:
                call.delivered = False
            return
        if call is not None:
            call.delivered = True

    def _reset(self) -> None:
        """Drop the connection with a TCP RST: no status line, no body."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass
        self.wfile = io.BytesIO()  # finish() flushes into nothing


def _creating(status: int, data: bytes) -> bytes:
    """A DescribeTable answer whose table is still being created."""
    if status != 200:
        return data
    answer = json.loads(data)
    answer.get("Table", {})["TableStatus"] = "CREATING"
    return json.dumps(answer).encode()


def _unprocess(request: dict, status: int, data: bytes) -> bytes:
    """A BatchGetItem answer with the second half of each table's keys (at least one) left
    unprocessed; for BatchWriteItem, the second half of the write requests reported back as
    UnprocessedItems (the server did write them: sending them again must be harmless)."""
    if status != 200:
        return data
    answer = json.loads(data)
    if any(isinstance(v, list) for v in request.get("RequestItems", {}).values()):
        unprocessed_items = answer.setdefault("UnprocessedItems", {})
        for table, writes in request.get("RequestItems", {}).items():
            held = writes[len(writes) // 2 :]
            already = [w for w in unprocessed_items.get(table, []) if w not in held]
            unprocessed_items[table] = already + held
        return json.dumps(answer).encode()
    responses = answer.setdefault("Responses", {})
    unprocessed = answer.setdefault("UnprocessedKeys", {})
    for table, spec in request.get("RequestItems", {}).items():
        keys = spec.get("Keys", [])
        if not keys:
            continue
        held_back = keys[len(keys) // 2 :]
        names = set().union(*(k.keys() for k in held_back))

        def key_of(item: dict, names: set[str] = names) -> str:
            return json.dumps({n: item.get(n) for n in sorted(names)}, sort_keys=True)

        back = {key_of(k) for k in held_back}
        responses[table] = [i for i in responses.get(table, []) if key_of(i) not in back]
        # keep what the server itself left unprocessed (dynalite caps an answer's size)
        already = (unprocessed.get(table) or {}).get("Keys", [])
        more = [k for k in already if key_of(k) not in back]
        unprocessed[table] = {**spec, "Keys": more + held_back}
    return json.dumps(answer).encode()
