"""One write per target: the conditional PutItem, UpdateItem or DeleteItem a write plan sends for
one item or key, through the port's `Writes`, and what became of it (`Outcome`).

A failed condition is not an error: the item changed since it was read (or, for INSERT, its
key exists), and the write is skipped and counted. A write whose first answer was lost and
whose retry then failed its condition may have applied on the first try: the item is read
again, and if it is as this write leaves it, the write counts as made (`Outcome.uncertain`:
its old image is not known, so undo lists it rather than guess). Non-idempotent UPDATEs
(``n = n + 1``) resolve lost answers exactly instead (`dynosql.statements.exactly_once`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynosql import values
from dynosql.evaluate.update import UpdateFailed, apply_update
from dynosql.plan.as_read import require_as_read
from dynosql.plan.port import Writes


@dataclass
class Outcome:
    """What one write did: `written` False when its condition failed."""

    target: dict[str, Any]
    written: bool
    old: dict[str, Any] | None = None
    new: dict[str, Any] | None = None
    # an earlier attempt of this write may have applied (its answer was lost): the item is as
    # the write leaves it, but its old image is not known; the journal leaves the write's
    # intent unanswered, so undo lists the item instead of restoring a guess
    uncertain: bool = False


@dataclass(frozen=True)
class ItemWrite:
    """What one write does to its item, by kind (put, update, delete; a transaction's check
    leaves it as it is): `after`, the item it leaves (None: absent; raises UpdateFailed where
    DynamoDB would refuse it); `applied`, whether the item read now is as this write leaves it;
    `returns_old`, whether RETURNING's ``*`` is the item before the write (DELETE's)."""

    after: Callable[[dict[str, Any] | None, dict[str, Any], tuple[Any, ...]], dict[str, Any] | None]
    applied: Callable[[dict[str, Any] | None, dict[str, Any], tuple[Any, ...]], bool]
    returns_old: bool = False


def _updated(
    old: dict[str, Any] | None, _target: dict[str, Any], assignments: tuple[Any, ...]
) -> dict[str, Any] | None:
    return None if old is None else apply_update(old, assignments)


def _update_applied(
    current: dict[str, Any] | None, target: dict[str, Any], assignments: tuple[Any, ...]
) -> bool:
    """An idempotent UPDATE's values in place: applying it again changes nothing."""
    try:
        again = _updated(current, target, assignments)
    except UpdateFailed:
        return False
    return current is not None and values.items_equal(again, current)


_PUT = ItemWrite(
    lambda _old, target, _assignments: target,
    lambda current, target, _assignments: values.items_equal(current, target),
)
_UPDATE = ItemWrite(_updated, _update_applied)
_DELETE = ItemWrite(
    lambda _old, _target, _assignments: None,
    lambda current, _target, _assignments: current is None,
    returns_old=True,
)
# by WritePlan.kind (its operation): each write class's plan has one
EACH: dict[str, ItemWrite] = {"put": _PUT, "update": _UPDATE, "delete": _DELETE, "check": _UPDATE}


def new_image(
    kind: str, old: dict[str, Any] | None, target: dict[str, Any], assignments: tuple[Any, ...] = ()
) -> dict[str, Any] | None:
    """The item after one write: the row put, the old item with the changes, or None."""
    try:
        return EACH[kind].after(old, target, assignments)
    except UpdateFailed:  # pragma: no cover - DynamoDB accepted it, so it applies
        return None


def write_item(
    writer: Writes, plan: Any, assignments: tuple[Any, ...], target: dict[str, Any]
) -> Outcome:
    """One conditional PutItem/UpdateItem/DeleteItem of a write plan (target: item or key)."""
    if plan.as_read:  # target: the item the read found; the write requires it as read
        request = require_as_read(plan.request(plan.key_of(target)), target, plan.as_read)
    else:
        request = plan.request(target)
    response, _failure, retried = writer.send(
        plan.operation,
        request,
        plan.table,
        lambda old: new_image(plan.kind, old, target, assignments),
    )
    if response is None:
        if retried:  # perhaps it failed on what its own lost first attempt did
            return _after_lost_answer(writer, plan, assignments, target, request)
        return Outcome(target, False)
    attributes = response.get("Attributes")
    old = values.decode_item(attributes) if attributes else None
    new = new_image(plan.kind, old, target, assignments)
    # sent twice and changing nothing: the first attempt may have applied, and `old` may be
    # its result rather than the item before the statement
    return Outcome(target, True, old, new, uncertain=retried and values.items_equal(old, new))


def _after_lost_answer(
    writer: Writes,
    plan: Any,
    assignments: tuple[Any, ...],
    target: dict[str, Any],
    request: dict[str, Any],
) -> Outcome:
    """A retried write whose condition failed: if the item is now as this write leaves it (the
    row inserted, the item deleted, an idempotent UPDATE's values in place), an earlier
    attempt applied it: written, uncertain. Otherwise it is skipped, as any failed condition."""
    key = request.get("Key") or values.encode_item(plan.key_of(target))
    current = writer.read_item(plan.table.name, key)
    if not EACH[plan.kind].applied(current, target, assignments):
        return Outcome(target, False)
    return Outcome(target, True, None, current, uncertain=True)
