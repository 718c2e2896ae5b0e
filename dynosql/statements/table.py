"""Running table statements: the planned calls (dynosql/plan/ddl.py), the guards around them,
and the wait until DynamoDB has done the work (CreateTable, UpdateTable and DeleteTable return
at once; the table or index becomes ACTIVE, or goes, later).

Guards: ``--read-only`` refuses every table statement; DROP TABLE refuses a table with deletion
protection, and asks first (with the item count and size) through the front door's
``Session.confirm``; where nobody can be asked (a script) it is refused unless ``--yes``.
After any change the session's catalog cache is forgotten (``Session.refresh``), the REPL's
completion included.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from dynosql.dynamo.catalog import describe
from dynosql.dynamo.retry import RetryPolicy
from dynosql.errors import ExecutionError, GuardError, PlanError
from dynosql.plan.ddl import Call, DdlPlan, plan_ddl, show_create
from dynosql.result import Result, format_bytes
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.session import Session

WAIT_TIMEOUT = 30 * 60.0  # a GSI backfill on a large table takes a while
UNSTARTED_TIMEOUT = 3.0  # AWS lists a new index (CREATING) or a dropped one (DELETING) at once


def _plan(session: Session, statement: ast.Ddl) -> tuple[DdlPlan, Any]:
    """The plan, on the table as it is now (not as cached)."""
    session.refresh()
    table = None if isinstance(statement, ast.CreateTable) else session.table(statement.table)
    ttl = None
    if isinstance(statement, ast.AlterTable) and statement.ttl_off:
        ttl = ttl_attribute(session, statement.table)
    return plan_ddl(statement, table, ttl), table


def explain_ddl(session: Session, statement: ast.Ddl) -> Result:
    """EXPLAIN CREATE/ALTER/DROP: the requests it would send, in order; nothing is sent."""
    plan, _table = _plan(session, statement)
    lines = [plan.label]
    for i, call in enumerate(plan.calls, 1):
        title = "request" if len(plan.calls) == 1 else f"request {i} of {len(plan.calls)}"
        lines.append(f"{title}: {call.operation}")
        lines.extend("  " + line for line in json.dumps(call.params, indent=2).splitlines())
    if plan.backfill is not None:
        lines.append(f"estimate: {plan.backfill.text()}")
    if plan.wait:
        lines.append(f"then: wait until {_WAITS[plan.wait].format(plan=plan)}")
    result = Result(["plan"], iter([{"plan": line} for line in lines]), kind="plan")
    result.document = plan.document()
    return result


_WAITS = {
    "active": "{plan.table} and its indexes are ACTIVE",
    "gone": "{plan.table} is gone",
    "index": "index {plan.index} is ACTIVE (backfilled)",
    "index_gone": "index {plan.index} is gone",
}


def run_ddl(session: Session, statement: ast.Ddl) -> Result:
    """Plan, guard, send, wait; a status Result saying what happened."""
    refuse_if_read_only(session, _label(statement))
    started = time.monotonic()
    plan, table = _plan(session, statement)
    if session.settings.dry_run:  # like a write's dry run: planned, priced, nothing sent
        calls = ", ".join(call.operation for call in plan.calls)
        cost = f" ({plan.backfill.text()})" if plan.backfill is not None else ""
        title = f"{plan.label} dry run: would send {calls}{cost}; nothing was sent"
        return Result([], iter(()), kind="status", title=title)
    if isinstance(statement, ast.DropTable) and table is not None:
        if not _confirmed(session, table):
            return Result([], iter(()), kind="status", title=f"cancelled: {table.name} was kept")
    if plan.backfill is not None and plan.backfill.items:
        session.tell(f"{plan.label}: {plan.backfill.text()}")
    try:
        for call in plan.calls:
            send(session, call)
        _wait(session, plan)
    finally:
        session.refresh()
    elapsed = time.monotonic() - started
    return Result([], iter(()), kind="status", title=f"{plan.label} · done · {elapsed:.1f}s")


def _label(statement: Any) -> str:
    words = {
        ast.CreateTable: "CREATE TABLE",
        ast.CreateIndex: "CREATE INDEX",
        ast.DropIndex: "DROP INDEX",
        ast.AlterTable: "ALTER TABLE",
        ast.DropTable: "DROP TABLE",
        ast.CopyFrom: "COPY FROM",
    }
    return words.get(type(statement), type(statement).__name__)


def refuse_if_read_only(session: Session, what: str) -> None:
    if getattr(session.settings, "read_only", False):
        raise GuardError(f"refused: {what} changes a table and --read-only is set")


def _confirmed(session: Session, table: Any) -> bool:
    size = format_bytes(table.size_bytes)
    what = f"DROP TABLE {table.name} deletes {table.item_count} items ({size})"
    return session.confirmed(
        f"{what} and cannot be undone. Drop it?", f"refused: {what}; in a script this needs --yes"
    )


def send(session: Session, call: Call) -> dict[str, Any]:
    try:
        return RetryPolicy.of(session).call(getattr(session.client, call.method), **call.params)
    except Exception as err:
        if type(err).__name__ == "ParamValidationError":  # botocore's own check, before sending
            detail = " ".join(str(err).split("\n")[1:]) or str(err)
            raise ExecutionError(f"{call.operation} refused by boto3: {detail}") from err
        raise


def ttl_attribute(session: Session, table: str) -> str | None:
    """The TTL attribute when TTL is enabled (or being enabled), else None."""
    answer = RetryPolicy.of(session).call(session.client.describe_time_to_live, TableName=table)
    spec = answer.get("TimeToLiveDescription") or {}
    if spec.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        return spec.get("AttributeName")
    return None


def show_create_table(session: Session, statement: ast.ShowCreateTable) -> Result:
    """SHOW CREATE TABLE: DescribeTable (fresh) and DescribeTimeToLive."""
    session.refresh()
    info = session.table(statement.table)
    try:
        ttl = ttl_attribute(session, statement.table)
    except ExecutionError:
        ttl = None  # a backend without TTL (dynalite answers UnknownOperation)
    text = show_create(info.raw, ttl)
    return Result(["statement"], iter([{"statement": text}]), kind="rows")


# --- waiting ---------------------------------------------------------------------------------


def _describe(session: Session, table: str) -> dict[str, Any] | None:
    return describe(RetryPolicy.of(session), session.client, table)


def _state(plan: DdlPlan, table: dict[str, Any] | None) -> tuple[bool, str]:
    """Whether the wait is over, and a line saying where things stand."""
    if plan.wait == "gone":
        return table is None, f"{plan.table} is {table['TableStatus'] if table else 'gone'}"
    if table is None:
        raise ExecutionError(f"table {plan.table} disappeared while waiting for it")
    status = table["TableStatus"]
    gsis = {ix["IndexName"]: ix for ix in table.get("GlobalSecondaryIndexes") or []}
    if plan.wait == "active":
        busy = [name for name, ix in gsis.items() if ix.get("IndexStatus", "ACTIVE") != "ACTIVE"]
        text = f"{plan.table} is {status}" + (
            f", indexes {', '.join(busy)} not yet" if busy else ""
        )
        return status == "ACTIVE" and not busy, text
    index = gsis.get(plan.index or "")
    if plan.wait == "index_gone":
        return index is None, f"index {plan.index} is {index['IndexStatus'] if index else 'gone'}"
    if index is None:
        return False, f"index {plan.index} is not listed yet"
    index_status = index.get("IndexStatus", "ACTIVE")
    text = f"index {plan.index} is {index_status}"
    if index.get("Backfilling"):
        text += f" (backfilling, {index.get('ItemCount', 0)} entries so far)"
    return index_status == "ACTIVE" and not index.get("Backfilling"), text


def _under_way(plan: DdlPlan, text: str) -> bool:
    """Whether DescribeTable shows the index change begun (AWS shows it at once: CREATING or
    DELETING). dynalite accepts a GSI change and never makes it: say so rather than wait."""
    if plan.wait == "index":
        return "not listed" not in text
    if plan.wait == "index_gone":
        return not text.endswith("is ACTIVE")
    return True


def _wait(session: Session, plan: DdlPlan, timeout: float = WAIT_TIMEOUT) -> None:
    """Poll DescribeTable until the change is done: quickly at first (local servers are done
    at once), then every few seconds, saying where things stand on a terminal."""
    if plan.wait is None:
        return
    status = getattr(session.progress, "status", None)
    text = ""
    for elapsed in RetryPolicy.of(session).polls(timeout):  # cancellable, within `timeout`
        done, text = _state(plan, _describe(session, plan.table))
        if done:
            return
        if elapsed > UNSTARTED_TIMEOUT and not _under_way(plan, text):
            raise ExecutionError(
                f"the server accepted {plan.label} but has not started it after "
                f"{UNSTARTED_TIMEOUT:.0f}s ({text}); this server may not implement it"
            )
        if status is not None and elapsed > 1.0:
            status(f"… waiting: {text}, {elapsed:.0f}s")
    raise ExecutionError(f"gave up waiting after {timeout:.0f}s: {text}")


__all__ = ["PlanError", "refuse_if_read_only", "run_ddl", "show_create_table"]
