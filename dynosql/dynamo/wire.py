"""Reading DynamoDB's read responses without botocore's shape-driven parser.

botocore parses every response by walking its service model: for a Scan page of a thousand
items that is a Python call per attribute value, and it was the largest part of dynosql's client
CPU (41% of a GROUP BY over 100k items). DynamoDB's wire format is plain JSON in which every
value already says its type, so the JSON decoder (in C) gives us the items as they are; dynosql
decodes them into its own values once, in `dynosql.values.decode_item`.

botocore stays in charge of everything else: signing, endpoints, retries, and errors. For the
read operations only (GetItem, Query, Scan, BatchGetItem), a ``before-parse`` handler on the
session's client takes the body of a successful (2xx) response, decodes it with ``json.loads`` and hands it
over through botocore's ``customized_response_dict``; the body botocore then parses is empty.
Anything unexpected (not JSON, not an object) is left to botocore, which reports it as before.

What changes for a caller of those operations: item values of type B and BS arrive as the
base64 text of the wire (`dynosql.values.decode` accepts both). Keys that go back into a
request — ``LastEvaluatedKey``, ``UnprocessedKeys`` — are converted to botocore's form here,
so paging and retries work as they always did.
"""

from __future__ import annotations

import base64
import gc
import json
import re
import threading
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from dynosql import values
from dynosql.errors import ExecutionError

T = TypeVar("T")

OPERATIONS = ("GetItem", "Query", "Scan", "BatchGetItem")
_EMPTY = b"{}"


def install(client: Any) -> None:
    """Read `client`'s GetItem, Query, Scan and BatchGetItem responses with the JSON decoder (a client
    that is not botocore's, such as a test's stand-in, is left alone)."""
    events = getattr(getattr(client, "meta", None), "events", None)
    if events is None:
        return
    for operation in OPERATIONS:
        events.register(
            f"before-parse.dynamodb.{operation}",
            _take_body,
            unique_id=f"dynosql-wire-{operation}",
        )


def _take_body(
    response_dict: dict[str, Any], customized_response_dict: dict[str, Any], **_: Any
) -> None:
    if not 200 <= int(response_dict.get("status_code") or 0) < 300:
        return  # an error: botocore's parser reads its code and message
    body = response_dict.get("body")
    if getattr(_deferral, "on", False) and isinstance(body, bytes | str):
        customized_response_dict[DEFERRED] = body  # decoded later by `fill_page`
        response_dict["body"] = _EMPTY
        return
    data = _decoded(body)
    if data is None:
        return
    customized_response_dict.update(data)
    response_dict["body"] = _EMPTY


def _decoded(body: Any) -> dict[str, Any] | None:
    """A response body as the response dict botocore would give; None when it is not one."""
    try:
        data = _loads(body)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    if "LastEvaluatedKey" in data:
        data["LastEvaluatedKey"] = _key(data["LastEvaluatedKey"])
    unprocessed = data.get("UnprocessedKeys")
    if unprocessed:
        for spec in unprocessed.values():
            spec["Keys"] = [_key(k) for k in spec.get("Keys", [])]
    return data


@dataclass
class ReducedPage(Generic[T]):
    """A deferred page reduced straight from its bytes (`Executor.wire_pages`): what the
    reader made of its items, the page's other fields as a JSON body with no items, and the
    items' total size in bytes."""

    value: T
    envelope: bytes
    size: int


DEFERRED = "dynosql_body"  # a deferred page's body, until `fill_page`
_deferral = threading.local()


@contextmanager
def deferred() -> Iterator[None]:
    """Within it, this thread's read responses are not decoded: the page holds its body (under
    `DEFERRED`) until it is taken out and given to `fill_page`. A reader of many threads then decodes one page at a time (under a lock of
    its own) and drops it before the next, so pages wait as bytes, not as Python objects."""
    _deferral.on = True
    try:
        yield
    finally:
        _deferral.on = False


def fill_page(page: dict[str, Any], body: bytes | str) -> dict[str, Any]:
    """`page` (a deferred page whose body was taken out) with `body` decoded into it: the
    body as read, or a shorter one that says the same of everything but the items."""
    data = _decoded(body)
    if data is None:
        raise ExecutionError("the server's answer to a read is not a DynamoDB JSON object")
    page.update(data)
    return page


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a page is decoded. A 1 MB page is some
    100,000 containers, all alive until the page is read: every few hundred of them the
    collector would walk the young ones again, and now and then the whole heap (about half
    the CPU of decoding a page of whole items, measured). Neither JSON nor the decoded items
    hold reference cycles, so there is nothing for it to find. Another thread decoding at the
    same time may find it paused or resumed early; either is harmless. A collector paused by
    someone else stays paused."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _loads(body: bytes | str) -> Any:
    """``json.loads``, the collector paused."""
    with collector_paused():
        return json.loads(body)


def decode_items(
    items: list[dict[str, Any]], names: AbstractSet[str] | None = None
) -> list[dict[str, Any]]:
    """A page's items as Python values (`values.decode_item`, only `names` when given), the
    collector paused: decoding a page of keys into 20,000 small dicts set it off dozens of
    times (a third of a GROUP BY's decoding CPU, profiled)."""
    with collector_paused():
        return [values.decode_item(i, names) for i in items]


def _key(key: dict[str, Any]) -> dict[str, Any]:
    """A key in botocore's form: B values as bytes (keys are S, N or B, never nested)."""
    return {
        name: {"B": base64.b64decode(value["B"])} if "B" in value else value
        for name, value in key.items()
    }


_PATH_HEAD = re.compile(r"\s*([^.\[\s]+)")


def projected_names(params: dict[str, Any]) -> frozenset[str] | None:
    """The top-level attributes a Query or Scan request projects (each path's first name, its
    placeholder resolved), or None when it projects nothing (whole items) or cannot be read.

    The planner projects exactly what the statement needs on each item (keys, selected paths,
    client-side filter paths, GROUP BY, aggregate and ORDER BY inputs): when the server answers
    with whole items instead (moto's refusal, `capabilities.ProjectionRefused`), only these are
    decoded."""
    text = params.get("ProjectionExpression")
    if not isinstance(text, str):
        return None
    aliases = params.get("ExpressionAttributeNames") or {}
    names = set()
    for path in text.split(","):
        head = _PATH_HEAD.match(path)
        if head is None:
            return None
        name = head.group(1)
        if name.startswith("#"):
            if name not in aliases:
                return None
            name = aliases[name]
        names.add(name)
    return frozenset(names)
