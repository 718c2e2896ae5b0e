"""BEGIN … COMMIT: one TransactWriteItems, all or nothing.

The writes between BEGIN and COMMIT are planned (and checked: keys, types, sizes) when they are
given, and sent at COMMIT as one TransactWriteItems: at most 100 actions, never two on one item
(both refused before any write). The keys of an UPDATE/DELETE … WHERE are read at COMMIT.
ROLLBACK discards the queued writes; nothing was sent for them. Outside BEGIN … COMMIT each
statement is its own: its items are written one by one, not atomically.

TransactWriteItems returns no old images, so for the journal the items are read (strongly
consistent GetItem) just before the transaction is sent, and each action's condition requires
the item as read: every attribute equal, or the item absent (plan.as_read). An item changed by
someone else in between cancels the transaction, nothing written, so the journaled old images
are exactly the items the transaction changed. A transaction costs twice the WCU of the same
writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.errors import ConditionError, ExecutionError, PlanError, classify
from dynosql.guards import NOTHING, Ask, Effects, Steps, Verdict
from dynosql.journal import refusal
from dynosql.plan import cost
from dynosql.plan.as_read import attribute_paths, require_as_read
from dynosql.plan.expressions import MAX_EXPRESSION_BYTES
from dynosql.plan.port import TransactionCancelled, Writes
from dynosql.plan.schema import TableInfo
from dynosql.plan.write import MAX_TRANSACTION_ACTIONS, WritePlan
from dynosql.result import Changes, Result, WriteStats, carried, counted
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, ScanCheck, unplanned
from dynosql.statements.write import (
    CLASSES,
    _targets,
    planned,
    question,
    read_decides,
    unbounded_why,
    verb_of,
)
from dynosql.statements.write import effects as write_effects
from dynosql.statements.write_one import new_image

if TYPE_CHECKING:
    from dynosql.context import Context


@dataclass
class Queued:
    statement: ast.Write | ast.ConditionCheck
    plan: WritePlan


@dataclass(frozen=True)
class Transaction:
    queued: tuple[Queued, ...] = ()


def _begin_commit(ctx: Context, planned: Planned[ast.Transaction]) -> Steps[Result]:
    """BEGIN opens a transaction (the session keeps it: `Result.changes`); COMMIT and ROLLBACK
    end the one the context holds (the session has let it go: `Effects.ends_transaction`)."""
    statement = planned.statement
    if statement.action == "begin":
        if ctx.transaction is not None:
            raise PlanError("already in a transaction: COMMIT or ROLLBACK it first")
        result = Result.status("BEGIN: writes are queued until COMMIT (one TransactWriteItems)")
        result.change(Changes(Transaction()))
        return result
    transaction = ctx.transaction
    if transaction is None:
        raise PlanError(f"{statement.action.upper()} without BEGIN")
    if statement.action == "rollback":
        n = len(transaction.queued)
        return Result.status(
            f"ROLLBACK: {n} queued statement{'s' if n != 1 else ''} discarded, nothing was written"
        )
    return (yield from _commit(ctx, transaction))


def _queue(ctx: Context, planned: Planned[ast.Write | ast.ConditionCheck]) -> Result:
    """A write inside BEGIN … COMMIT: planned and checked now, sent at COMMIT (the session
    keeps the transaction with it queued: `Result.changes`)."""
    transaction: Transaction = ctx.transaction
    statement, plan = planned.statement, planned.plan
    verb = verb_of(statement)  # (unbounded: refused now, by the pipeline, as alone)
    known = sum(len(q.plan.items or q.plan.keys or []) for q in transaction.queued)
    known += len(plan.items or plan.keys or [])
    if known > MAX_TRANSACTION_ACTIONS:  # refused now, not at COMMIT: nothing read or sent
        raise PlanError(
            f"a transaction takes at most {MAX_TRANSACTION_ACTIONS} actions (DynamoDB's limit); "
            f"with this {verb} it would have {known}"
        )
    queued = (*transaction.queued, Queued(statement, plan))
    n = len(queued)
    result = Result.status(
        f"{verb} {plan.table.name} queued ({n} statement{'s' if n != 1 else ''} in the transaction)"
    )
    result.change(Changes(Transaction(queued)))
    return result


# --- what each class of queued statement is in the transaction -----------------------------

_CHANGED = "the item changed after it was read (or no longer matches the WHERE, or is gone)"


@dataclass(frozen=True)
class InTransaction:
    """What one class of queued statement is in the TransactWriteItems that COMMIT sends: its
    action's name; whether its item is read first (the old image the journal keeps, required
    as read: INSERT's own condition says the item does not exist, a check changes nothing);
    whether it changes its item (a check does not: no image, no cost, no journal line); and
    why its failed condition cancelled the transaction."""

    action: str
    reads_first: Callable[[Any], bool]
    refused: Callable[[Any], str]
    changes: bool = True


IN_TRANSACTION: dict[type, InTransaction] = {
    ast.Insert: InTransaction(
        "Put",
        lambda statement: statement.replace,  # UPSERT, REPLACE: whatever was there is undone
        lambda statement: _CHANGED if statement.replace else "its key already exists",
    ),
    ast.Update: InTransaction("Update", lambda _: True, lambda _: _CHANGED),
    ast.Delete: InTransaction("Delete", lambda _: True, lambda _: _CHANGED),
    # PartiQL's EXISTS: its own condition, nothing read before it
    ast.ConditionCheck: InTransaction(
        "ConditionCheck",
        lambda _: False,
        lambda _: "no such item, or it does not match the WHERE",
        changes=False,
    ),
}


@dataclass
class _Action:
    queued: Queued
    target: dict[str, Any]
    key: dict[str, Any]
    request: dict[str, Any]

    @property
    def cls(self) -> InTransaction:
        return IN_TRANSACTION[type(self.queued.statement)]


def _commit(ctx: Context, transaction: Transaction) -> Steps[Result]:
    """Read the keys, guard the whole as its statements would be guarded one by one, send one
    TransactWriteItems."""
    stats = WriteStats(
        verb="COMMIT",
        table=", ".join(sorted({q.plan.table.name for q in transaction.queued})) or "-",
    )
    stats.capacity_estimated = ctx.estimating
    try:
        with carried(stats):  # stopped midway: the session still learns what it read
            return (yield from _commit_read(ctx, transaction, stats))
    finally:
        stats.finish()


def _commit_read(ctx: Context, transaction: Transaction, stats: WriteStats) -> Steps[Result]:
    actions: list[_Action] = []
    dry = False
    for q in transaction.queued:  # asked about as each statement alone would be
        found = [
            _Action(q, target, q.plan.key_of(target), _action(q.plan, target))
            for target in _targets(ctx, q.plan, stats)
        ]
        asked = question(q.plan, len(found)) if read_decides(q.plan) else ""
        unbounded = unbounded_why(q.statement, q.plan) is not None
        dry = (yield Ask(len(found), asked, unbounded=unbounded)) is Verdict.DRY
        actions.extend(found)
    stats.matched = len(actions)
    if len(actions) > MAX_TRANSACTION_ACTIONS:
        raise PlanError(
            f"a transaction takes at most {MAX_TRANSACTION_ACTIONS} actions (DynamoDB's limit); "
            f"this one has {len(actions)}: nothing was written"
        )
    seen: dict[tuple[Any, ...], int] = {}
    for n, a in enumerate(actions, 1):
        ident = (a.queued.plan.table.name, values.hashable(a.key))
        if ident in seen:
            raise PlanError(
                f"the transaction writes the item {_show(a.key)} of {a.queued.plan.table.name} "
                f"twice (actions {seen[ident]} and {n}): DynamoDB refuses that; nothing was written"
            )
        seen[ident] = n
    if dry or not actions:
        stats.dry_run = dry
        return Result.status(stats.footer(False), stats)
    writer = ctx.port.writer(stats, transactional=True)
    olds = [_current(writer, a) for a in actions]
    items = [_exact(a, old, n) for n, (a, old) in enumerate(zip(actions, olds, strict=True), 1)]
    news = [_image(a, old) for a, old in zip(actions, olds, strict=True)]
    images = [
        (old, new, a.queued.plan.table)
        for a, old, new in zip(actions, olds, news, strict=True)
        if a.cls.changes
    ]
    total = sum(
        (cost.item_write(*i, values.item_size, transactional=True).total for i in images),
        Decimal(0),
    )
    what = f"COMMIT of {counted(len(actions), 'write')}"
    yield Ask(wcu=total, why="a transaction is all or nothing", what=what)
    journal = ctx.open_journal("transaction")
    try:
        if journal is not None:  # write-ahead: every key is on disk before the request is sent
            text = "; ".join(q.statement.source for q in transaction.queued)
            journal.begin(
                stats.table,
                (),
                f"BEGIN; {text}; COMMIT",
                ctx.write_target(stats.table),
                tables={q.plan.table.name: q.plan.table for q in transaction.queued}.values(),
            )
            stats.journal = str(journal.path)
            with journal.group():  # one fsync for every action's intent
                for a, old, new in zip(actions, olds, news, strict=True):
                    if not a.cls.changes:
                        continue  # a condition check writes nothing: nothing to undo
                    # the images are exact (each action requires its item as read): should the
                    # answer be lost, undo can tell whether the transaction applied
                    journal.intent(a.queued.plan.table.name, a.key, (old, new))
        try:
            _send(writer, items, actions, images)
        except (ExecutionError, ConditionError) as err:
            cause = err.__cause__
            if journal is not None and cause is not None and classify(cause).code in _NOT_SENT:
                why = refusal(err) or "TransactionCanceledException"
                for a in actions:  # cancelled (or refused): nothing was written, said so
                    if a.cls.changes:
                        journal.refused(a.queued.plan.table.name, a.key, why)
            raise
        for a, old, new in zip(actions, olds, news, strict=True):
            if not a.cls.changes:
                continue
            stats.changed += 1
            if journal is not None:
                journal.record(a.queued.plan.table.name, a.key, old, new)
    finally:
        if journal is not None and not journal.finish(keep=ctx.keep_journal()):
            stats.journal = None  # nothing written: nothing to undo
    return Result.status(stats.footer(False), stats)


def _image(a: _Action, old: dict[str, Any] | None) -> dict[str, Any] | None:
    """The item as the action leaves it (a check: as it is)."""
    statement = a.queued.statement
    assignments = CLASSES[type(statement)].assignments(statement)
    return new_image(a.queued.plan.kind, old, a.target, assignments)


# answers after which nothing of the transaction was written
_NOT_SENT = frozenset(
    {"TransactionCanceledException", "UnknownOperationException", "ValidationException"}
)


def _action(plan: WritePlan, target: dict[str, Any]) -> dict[str, Any]:
    """The plan's write for one target (the item to put, or the key or item the read found),
    less what a transaction cannot take; as_read paths required as the WHERE's read saw them."""
    params = require_as_read(plan.request(target), target, plan.as_read)
    return {k: v for k, v in params.items() if k not in ("ReturnValues", "ReturnConsumedCapacity")}


def _exact(a: _Action, old: dict[str, Any] | None, n: int) -> dict[str, Any]:
    """The TransactWriteItems action of `a`, requiring the item as its GetItem read it: every
    attribute of `old` equal (None: the item absent). So the old image journaled for undo is
    the item the transaction changed: a change by another client between the read and the
    commit cancels the transaction (nothing written) instead of being overwritten now and put
    back stale by undo. (An attribute *added* in between cannot be named: see plan.as_read.)"""
    plan = a.queued.plan
    body = a.request
    if a.cls.reads_first(a.queued.statement):
        paths = (
            attribute_paths(old)
            if old is not None
            else (ast.Path((plan.table.keys.pk,), plan.table.keys.pk),)
        )
        body = require_as_read(body, old, paths)
    condition = body.get("ConditionExpression", "")
    if len(condition.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        raise PlanError(
            f"action {n} ({verb_of(a.queued.statement)} {plan.table.name} {_show(a.key)}): the "
            "item has too many attributes to require them all as read in one condition "
            "(DynamoDB's 4 KB expression limit), so its undo could not be exact; write it "
            "outside BEGIN … COMMIT: nothing was written"
        )
    return {a.cls.action: body}


def _current(writer: Writes, a: _Action) -> dict[str, Any] | None:
    """The item as it is before the transaction, for the journal (None: not read, see
    `InTransaction.reads_first`)."""
    if not a.cls.reads_first(a.queued.statement):
        return None
    return writer.read_item(a.queued.plan.table.name, values.encode_item(a.key))


def _send(
    writer: Writes,
    items: list[dict[str, Any]],
    actions: list[_Action],
    images: list[tuple[dict[str, Any] | None, dict[str, Any] | None, TableInfo]],
) -> None:
    params = {"TransactItems": items, "ReturnConsumedCapacity": "TOTAL"}
    try:
        writer.transact(params, images)  # a conflict is sent again, with a new token (the port)
    except TransactionCancelled as err:
        # a failed condition is the statement's (ConditionError), anything else the service's
        failed = "ConditionalCheckFailed" in err.codes
        error = ConditionError if failed else ExecutionError
        raise error(_cancelled(actions, err.codes, err.reason)) from err.__cause__


def _cancelled(actions: list[_Action], codes: list[str | None], message: str) -> str:
    for n, (a, code) in enumerate(zip(actions, codes, strict=False), 1):
        if code == "ConditionalCheckFailed":
            verb, why = verb_of(a.queued.statement), a.cls.refused(a.queued.statement)
            return (
                f"transaction cancelled, nothing was written: action {n} ({verb} "
                f"{a.queued.plan.table.name} {_show(a.key)}) failed its condition: {why}"
            )
    return f"transaction cancelled, nothing was written: {message}"


def _show(key: dict[str, Any]) -> str:
    import json

    return json.dumps(values.to_json(key), ensure_ascii=False, default=str)


def _plan(ctx: Context, statement: ast.Transaction, _explaining: bool) -> Planned[ast.Transaction]:
    """COMMIT sends the queued writes' reads: each is judged by the same Scan guards as the
    statement alone would be (they were planned when queued)."""
    if statement.action != "commit" or ctx.transaction is None:
        return Planned(statement)
    checks = [
        ScanCheck(read, [], verb_of(q.statement))
        for q in ctx.transaction.queued
        if (read := q.plan.source if q.plan.source is not None else q.plan.read) is not None
    ]
    return Planned(statement, scans=tuple(checks))


def _check_alone(ctx: Context, statement: ast.ConditionCheck) -> Result:
    """EXISTS(SELECT …) outside BEGIN … COMMIT: refused (PartiQL takes it in a transaction
    only, where it can cancel the others)."""
    raise PlanError(
        "EXISTS(SELECT …) is a transaction's condition check: write it between BEGIN and "
        "COMMIT, with the writes it guards (a SELECT reads the item)"
    )


def _effects(statement: ast.Transaction) -> Effects:
    if statement.action == "begin":
        return NOTHING
    if statement.action == "rollback":
        return Effects(ends_transaction=True)
    return Effects(writes=True, ends_transaction=True, many=True, all_or_nothing=True)


def _label(statement: ast.Transaction) -> str:
    return statement.action.upper()


KINDS: dict[type, Kind[Any]] = {
    ast.Transaction: Kind(
        _label,
        _begin_commit,
        _effects,
        plan=_plan,
        example=("BEGIN", "UPDATE {t} SET v = 7 WHERE pk = 'p' AND sk = 1", "COMMIT"),
    ),
    ast.ConditionCheck: Kind(
        lambda _: "EXISTS",
        unplanned(_check_alone),
        transactional=True,
        example=("EXISTS(SELECT * FROM {t} WHERE pk = 'p' AND sk = 1)",),
    ),
}


def _queued_plan(
    ctx: Context, statement: ast.Write | ast.ConditionCheck, _explaining: bool
) -> Planned[Any]:
    if getattr(statement, "returning", None) is not None:
        raise PlanError("RETURNING is not supported inside a transaction")
    return planned(ctx, statement, transactional=True)


# a write inside BEGIN … COMMIT (statements.kind_for picks it): queued, guarded again at COMMIT
QUEUED: Kind[Any] = Kind(verb_of, _queue, write_effects, plan=_queued_plan)
