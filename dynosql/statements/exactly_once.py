"""Exactly once for a non-idempotent UPDATE (``n = n + 1``, ADD of a number, ``list_append``).

A write DynamoDB applied but whose answer was lost (a reset connection, a timeout) is sent again
by botocore or by the executor; ``n = n + 1`` would then apply twice. The plan lists the paths
such an UPDATE reads and writes (`plan.write.guarded_paths`) and its read projects them; here
each write is also conditioned on their values as read (plan.as_read: ``p = :value``, a
missing path ``attribute_not_exists(p)``).

A retried write that already applied then fails its condition. DynamoDB returns the item as it
is (ReturnValuesOnConditionCheckFailure=ALL_OLD; where a backend returns nothing, one strongly
consistent GetItem reads it): if it equals the read's item with this UPDATE applied, the write
was ours and is counted as written, journaled with the old image rebuilt from the read. Only a
failure after a retry is looked at this way: a failure on the first attempt is someone else's
change, skipped and counted as before.
"""

from __future__ import annotations

from typing import Any

from dynosql import values
from dynosql.evaluate.update import UpdateFailed, apply_update
from dynosql.plan.as_read import require_as_read
from dynosql.plan.port import Writes
from dynosql.sql import ast
from dynosql.statements.write_one import Outcome, new_image


def guarded_request(plan: Any, item: dict[str, Any]) -> dict[str, Any]:
    """The write for one item the read found, conditioned on its guarded paths (and on the
    paths of a WHERE part DynamoDB cannot check: see plan.as_read)."""
    return require_as_read(plan.request(plan.key_of(item)), item, plan.as_read_paths)


def write_guarded_item(
    writer: Writes, plan: Any, assignments: tuple[ast.Assignment, ...], item: dict[str, Any]
) -> Outcome:
    """One guarded UpdateItem; a failed condition after a retry is resolved (see above)."""
    request = guarded_request(plan, item)
    response, failure, _retried = writer.send(
        "UpdateItem", request, plan.table, lambda old: new_image(plan.kind, old, item, assignments)
    )
    if response is not None:
        attributes = response.get("Attributes")
        old = values.decode_item(attributes) if attributes else None
        return Outcome(item, True, old, new_image(plan.kind, old, item, assignments))
    if failure is None or not failure.retried:
        return Outcome(item, False)
    current = failure.item
    if current is None:  # the backend did not return the item: read it
        current = writer.read_item(plan.table.name, request["Key"])
    old = applied_before(plan, assignments, item, current)
    if old is None:
        return Outcome(item, False)
    return Outcome(item, True, old, current)


def applied_before(
    plan: Any,
    assignments: tuple[ast.Assignment, ...],
    read: dict[str, Any],
    current: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """The item before this UPDATE when `current` is exactly `read` with it applied (then the
    write that failed its condition was a retry of one that had applied); else None."""
    if current is None:
        return None
    roots = {str(p.root) for p in plan.guards}
    old = {k: v for k, v in current.items() if k not in roots}
    old.update({k: v for k, v in read.items() if k in roots})
    try:
        expected = apply_update(old, assignments)
    except UpdateFailed:
        return None
    return old if values.items_equal(expected, current) else None


__all__ = ["applied_before", "guarded_request", "write_guarded_item"]
