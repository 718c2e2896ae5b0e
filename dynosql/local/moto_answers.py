"""moto's answers to item reads written as DynamoDB writes them, without moto's generic serializer.

moto 5 turns every answer into JSON through a serializer that walks botocore's output shape
value by value (``moto.core.serialize``): for a Scan page of 1,300 small items that is about
0.5 ms of CPU per item, most of the embedded server's time and of the test suite's. For the
operations that return items, the result moto builds is already DynamoDB's wire form (each
value ``{"S": …}``, ``{"N": "…"}``, ``{"B": b"…"}`` …), so ``json.dumps`` of it, Binary in
base64, is the answer the serializer would give. A result holding any other value that is not
plain JSON (a Decimal, a timestamp), and every error, goes through moto's serializer as before. Installed once per process on
moto's own class (moto runs in this process only as dynosql's embedded DynamoDB); a moto whose
internals differ is left as it is. ``tests/test_moto_answers.py`` compares both writers.
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

# Operations whose output is items, counts, keys and capacity: plain JSON values only
ITEM_READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})
CONTENT_TYPE = "application/x-amz-json-1.0"

serializer: Any = None  # moto's own ActionResult.execute_result, once installed


@functools.cache
def answer_item_reads_directly() -> None:
    """Install the direct writer on moto's ActionResult, for DynamoDB's item reads only (once
    per process)."""
    global serializer
    try:
        from moto.core.responses import ActionResult
    except ImportError:  # pragma: no cover - another moto layout
        return
    serialized = serializer = ActionResult.execute_result

    def execute_result(self: Any, context: Any) -> Any:
        if (
            getattr(context.operation_model, "name", None) in ITEM_READS
            and getattr(context.service_model, "service_name", None) == "dynamodb"
        ):
            body = direct_body(self.result)
            if body is not None:
                return 200, {"Content-Type": CONTENT_TYPE}, body
        return serialized(self, context)

    ActionResult.execute_result = execute_result  # type: ignore[method-assign]


def direct_body(result: Any) -> str | None:
    """The JSON moto's serializer writes for `result` (same separators; bytes, which in these
    answers are only Binary values, in base64 as the serializer writes a blob), or None when
    `result` holds any other value that is not plain JSON."""
    if not isinstance(result, dict):
        return None
    try:
        return json.dumps(result, allow_nan=False, default=_blob)
    except (TypeError, ValueError):
        return None


def _blob(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(type(value).__name__)
