"""BEGIN … COMMIT: one TransactWriteItems, all or nothing.

The writes between BEGIN and COMMIT are planned (and checked: keys, types, sizes) when they are
given, and sent at COMMIT as one TransactWriteItems: at most 100 actions, never two on one item
(both refused before any write). The keys of an UPDATE/DELETE … WHERE are read at COMMIT.
ROLLBACK discards the queued writes; nothing was sent for them. Outside BEGIN … COMMIT each
statement is its own: its items are written one by one, not atomically.

TransactWriteItems returns no old images, so for the journal the items are read (strongly
consistent GetItem) just before the transaction is sent; an item changed by someone else in
between makes undo list that item instead of restoring it (never a wrong overwrite). A
transaction costs twice the WCU of the same writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.dynamo.retry import RetryPolicy
from dynosql.dynamo.writer import TransactionCancelled, Writer, WriteStats, new_image
from dynosql.errors import ExecutionError, GuardError, PlanError, classify
from dynosql.plan.write import MAX_TRANSACTION_ACTIONS, WritePlan, normalize
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements.write import _targets, open_journal, plan_of, refuse_if_read_only, verb_of

if TYPE_CHECKING:
    from dynosql.session import Session


@dataclass
class Queued:
    statement: Any
    plan: WritePlan


@dataclass
class Transaction:
    queued: list[Queued] = field(default_factory=list)


def run_in_transaction(session: Session, statement: ast.Write | ast.Transaction) -> Result:
    if isinstance(statement, ast.Transaction):
        if statement.action == "begin":
            if session.transaction is not None:
                raise PlanError("already in a transaction: COMMIT or ROLLBACK it first")
            session.transaction = Transaction()
            return _status("BEGIN: writes are queued until COMMIT (one TransactWriteItems)")
        if session.transaction is None:
            raise PlanError(f"{statement.action.upper()} without BEGIN")
        transaction, session.transaction = session.transaction, None
        if statement.action == "rollback":
            n = len(transaction.queued)
            return _status(
                f"ROLLBACK: {n} queued statement{'s' if n != 1 else ''} discarded, nothing was written"
            )
        return _commit(session, transaction)
    assert session.transaction is not None
    verb = verb_of(statement)
    refuse_if_read_only(session, verb)
    if getattr(statement, "returning", None) is not None:
        raise PlanError("RETURNING is not supported inside a transaction")
    plan = plan_of(session, statement, transactional=True)
    unguarded = not isinstance(statement, ast.Insert) and statement.where is None
    if plan.kind != "put" and unguarded and not session.can_confirm:
        raise GuardError(f"refused: this {verb} has no WHERE; in a script it needs --yes")
    known = sum(len(q.plan.items or q.plan.keys or []) for q in session.transaction.queued)
    known += len(plan.items or plan.keys or [])
    if known > MAX_TRANSACTION_ACTIONS:  # refused now, not at COMMIT: nothing read or sent
        raise PlanError(
            f"a transaction takes at most {MAX_TRANSACTION_ACTIONS} actions (DynamoDB's limit); "
            f"with this {verb} it would have {known}"
        )
    session.transaction.queued.append(Queued(statement, plan))
    n = len(session.transaction.queued)
    return _status(
        f"{verb} {plan.table.name} queued ({n} statement{'s' if n != 1 else ''} in the transaction)"
    )


def _status(text: str) -> Result:
    return Result([], iter(()), kind="status", title=text)


@dataclass
class _Action:
    queued: Queued
    target: dict
    key: dict
    request: dict


def _commit(session: Session, transaction: Transaction) -> Result:
    stats = WriteStats(
        verb="COMMIT",
        table=", ".join(sorted({q.plan.table.name for q in transaction.queued})) or "-",
    )
    stats.capacity_estimated = session.estimating
    actions: list[_Action] = []
    for q in transaction.queued:
        for target in _targets(session, q.plan, stats):
            key = q.plan.key_of(target)
            actions.append(_Action(q, target, key, _action(q.plan, target)))
    stats.matched = len(actions)
    if len(actions) > MAX_TRANSACTION_ACTIONS:
        raise PlanError(
            f"a transaction takes at most {MAX_TRANSACTION_ACTIONS} actions (DynamoDB's limit); "
            f"this one has {len(actions)}: nothing was written"
        )
    seen: dict[tuple, int] = {}
    for n, a in enumerate(actions, 1):
        ident = (a.queued.plan.table.name, values.hashable(a.key))
        if ident in seen:
            raise PlanError(
                f"the transaction writes the item {_show(a.key)} of {a.queued.plan.table.name} "
                f"twice (actions {seen[ident]} and {n}): DynamoDB refuses that; nothing was written"
            )
        seen[ident] = n
    if session.settings.dry_run or not actions:
        stats.dry_run = session.settings.dry_run
        stats.finish()
        return _status(stats.footer(False))
    writer = Writer(
        session.client,
        stats,
        estimating=session.estimating,
        transactional=True,
        policy=RetryPolicy.of(session),
    )
    olds = [_current(writer, a) for a in actions]
    journal = open_journal(session, "transaction")
    try:
        if journal is not None:  # write-ahead: every key is on disk before the request is sent
            journal.begin(stats.table, (), "COMMIT")
            stats.journal = str(journal.path)
            for a in actions:
                journal.intent(a.queued.plan.table.name, a.key)
        try:
            _send(session, writer, actions)
        except ExecutionError as err:
            cause = err.__cause__
            if journal is not None and cause is not None and classify(cause).code in _NOT_SENT:
                for a in actions:  # cancelled (or refused): nothing was written
                    journal.unchanged(a.queued.plan.table.name, a.key)
            raise
        for a, old in zip(actions, olds, strict=True):
            assignments = (
                normalize(a.queued.statement.assignments)
                if isinstance(a.queued.statement, ast.Update)
                else ()
            )
            new = new_image(a.queued.plan.kind, old, a.target, assignments)
            writer.charge(writer.item_units(old, new))
            stats.changed += 1
            if journal is not None:
                journal.record(a.queued.plan.table.name, a.key, old, new)
    finally:
        if journal is not None and not journal.finish(keep=bool(session.journal_file)):
            stats.journal = None  # nothing written: nothing to undo
        stats.finish()
    return _status(stats.footer(False))


# answers after which nothing of the transaction was written
_NOT_SENT = frozenset(
    {"TransactionCanceledException", "UnknownOperationException", "ValidationException"}
)


def _action(plan: WritePlan, target: dict) -> dict:
    """One TransactWriteItems action: the plan's write, less what a transaction cannot take."""
    params = plan.request(target)
    body = {k: v for k, v in params.items() if k not in ("ReturnValues", "ReturnConsumedCapacity")}
    kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}[plan.operation]
    return {kind: body}


def _current(writer: Writer, a: _Action) -> dict | None:
    if a.queued.plan.kind == "put" and not a.queued.statement.replace:
        return None  # INSERT: the condition says it does not exist
    return writer.read_item(a.queued.plan.table.name, values.encode_item(a.key))


def _send(session: Session, writer: Writer, actions: list[_Action]) -> None:
    params = {"TransactItems": [a.request for a in actions], "ReturnConsumedCapacity": "TOTAL"}
    try:
        writer.transact(params)  # a conflict is sent again, with a new token (dynamo.writer)
    except TransactionCancelled as err:
        raise ExecutionError(_cancelled(actions, err.codes, err.reason)) from err.__cause__


def _cancelled(actions: list[_Action], codes: list[str | None], message: str) -> str:
    for n, (a, code) in enumerate(zip(actions, codes, strict=False), 1):
        if code == "ConditionalCheckFailed":
            verb = verb_of(a.queued.statement)
            why = (
                "its key already exists"
                if verb == "INSERT"
                else "it no longer matches the WHERE (or is gone)"
            )
            return (
                f"transaction cancelled, nothing was written: action {n} ({verb} "
                f"{a.queued.plan.table.name} {_show(a.key)}) failed its condition: {why}"
            )
    return f"transaction cancelled, nothing was written: {message}"


def _show(key: dict) -> str:
    import json

    return json.dumps(values.to_json(key), ensure_ascii=False, default=str)


__all__ = ["Transaction", "run_in_transaction"]
