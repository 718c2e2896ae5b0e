"""botocore clients for the tests, made once and handed out again when nothing holds them.

A botocore client costs some 5 ms of CPU to make (it copies the session's event handlers,
resolves its endpoint, builds its class), and the tests asked for about 600 of them in the fast
loop alone. A client is handed out again only when it is as new:

- nothing outside the pool refers to it any more (its reference count is what it was when the
  pool alone held it): the test, session or thread that had it is gone;
- its event handlers are the ones it was made with. dynosql's own, registered by a Session
  under ``dynosql-…`` unique ids (`dynamo.wire`, `dynamo.capabilities`), are taken off again; any
  other handler a test added (a recorder, a Stubber, a fault) retires the client for good;
- no attribute was set on it (a test that replaced a method and did not put it back);
- its retry quota (botocore's standard retries keep one per client) is whole.

Clients made with a configuration of their own (``client(read_timeout=…)``) are never pooled.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

OURS = "dynosql-"


def _emitter(client: Any) -> Any:
    return client.meta.events._emitter


def _registered(client: Any) -> Iterator[tuple[str, Any]]:
    """(event name, handler) for every handler registered on `client`."""
    stack: list[tuple[str, Any]] = [("", _emitter(client)._handlers._root)]
    while stack:
        path, node = stack.pop()
        values = node.get("values")
        if values is not None:
            for handler in (*values.first, *values.middle, *values.last):
                yield path, handler
        for chunk, child in node["children"].items():
            stack.append((f"{path}.{chunk}" if path else chunk, child))


def _handler_count(client: Any) -> int:
    return sum(1 for _ in _registered(client))


@dataclass
class _Entry:
    client: Any
    free_refs: int = 0  # sys.getrefcount(client) when only this entry refers to it
    handlers: int = 0
    unique_ids: frozenset[str] = frozenset()
    attributes: frozenset[str] = frozenset()


@dataclass
class ClientPool:
    entries: dict[Any, list[_Entry]] = field(default_factory=dict)
    made: int = 0
    reused: int = 0

    def take(self, key: Any, make: Callable[[], Any]) -> Any:
        kept = self.entries.setdefault(key, [])
        for entry in list(kept):
            if sys.getrefcount(entry.client) != entry.free_refs:
                continue  # still held somewhere
            if self._as_new(entry):
                self.reused += 1
                return entry.client
            kept.remove(entry)  # changed by a test: never handed out again
        entry = _Entry(make())
        emitter = _emitter(entry.client)
        entry.handlers = _handler_count(entry.client)
        entry.unique_ids = frozenset(emitter._unique_id_handlers)
        entry.attributes = frozenset(vars(entry.client))
        entry.free_refs = sys.getrefcount(entry.client)
        kept.append(entry)
        self.made += 1
        return entry.client

    @staticmethod
    def _as_new(entry: _Entry) -> bool:
        client, emitter = entry.client, _emitter(entry.client)
        if frozenset(vars(client)) != entry.attributes:
            return False
        added = set(emitter._unique_id_handlers) - entry.unique_ids
        if not all(u.startswith(OURS) for u in added):
            return False
        if not entry.unique_ids <= set(emitter._unique_id_handlers):
            return False
        for unique_id in added:  # dynosql's own, registered by a Session: off again
            ours = emitter._unique_id_handlers[unique_id]["handler"]
            for event in [event for event, handler in _registered(client) if handler is ours]:
                client.meta.events.unregister(event, unique_id=unique_id)
        return (
            set(emitter._unique_id_handlers) == entry.unique_ids
            and _handler_count(client) == entry.handlers
            and _retry_quota_full(emitter)
        )


def _retry_quota_full(emitter: Any) -> bool:
    """botocore's standard retries keep a retry quota per client, spent by failed attempts and
    refilled slowly by successes: a client a test spent some of would retry less for the next."""
    for spec in emitter._unique_id_handlers.values():
        checker = getattr(getattr(spec["handler"], "__self__", None), "_retry_quota", None)
        quota = getattr(checker, "_quota", None)
        if quota is not None and quota._available_capacity != quota._max_capacity:
            return False
    return True


POOL = ClientPool()
