"""Running table statements: the planned calls (dynosql/plan/ddl.py), the guards around them,
and the wait until DynamoDB has done the work (CreateTable, UpdateTable and DeleteTable return
at once; the table or index becomes ACTIVE, or goes, later).

Guards (dynosql.guards, from the effects each statement declares): ``--read-only`` refuses
every table change, and so does BEGIN … COMMIT (a table change cannot be rolled back); DROP
TABLE refuses a table with deletion protection; DROP TABLE, DROP INDEX, SET TTL (with how many
sampled items already hold a past time) and DELETION PROTECTION OFF ask first through the
front door; where nobody can be asked (a script) they are refused unless ``--yes``. After any
change the catalog cache is forgotten (``Context.refresh``), the REPL's completion included.
"""

from __future__ import annotations

import json
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.errors import ExecutionError
from dynosql.guards import NOTHING, Ask, Effects, Steps, Verdict
from dynosql.plan.ddl import DdlPlan, plan_ddl, show_create
from dynosql.result import Result, format_bytes
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context

WAIT_TIMEOUT = 30 * 60.0  # a GSI backfill on a large table takes a while
UNSTARTED_TIMEOUT = 3.0  # AWS lists a new index (CREATING) or a dropped one (DELETING) at once


def _plan(ctx: Context, statement: ast.Ddl) -> tuple[DdlPlan, Any]:
    """The plan, on the table as it is now (not as cached)."""
    ctx.refresh()
    table = None if isinstance(statement, ast.CreateTable) else ctx.table(statement.table)
    ttl = None
    if isinstance(statement, ast.AlterTable) and statement.ttl_off:
        ttl = ttl_attribute(ctx, statement.table)
    return plan_ddl(statement, table, ttl), table


def _planned(ctx: Context, statement: ast.Ddl, _explaining: bool) -> Planned[ast.Ddl]:
    return Planned(statement, _plan(ctx, statement))


def explain_ddl(ctx: Context, planned: Planned[ast.Ddl]) -> Result:
    """EXPLAIN CREATE/ALTER/DROP: the requests it would send, in order; nothing is sent."""
    plan, _table = planned.plan
    lines = [plan.label]
    for i, call in enumerate(plan.calls, 1):
        title = "request" if len(plan.calls) == 1 else f"request {i} of {len(plan.calls)}"
        lines.append(f"{title}: {call.operation}")
        lines.extend("  " + line for line in json.dumps(call.params, indent=2).splitlines())
    if plan.backfill is not None:
        lines.append(f"estimate: {plan.backfill.text()}")
    if plan.wait:
        lines.append(f"then: wait until {_WAITS[plan.wait].format(plan=plan)}")
    return Result.plan(lines, plan.document())


_WAITS = {
    "active": "{plan.table} and its indexes are ACTIVE",
    "gone": "{plan.table} is gone",
    "index": "index {plan.index} is ACTIVE (backfilled)",
    "index_gone": "index {plan.index} is gone",
}


def run_ddl(ctx: Context, planned: Planned[ast.Ddl]) -> Steps[Result]:
    """Hand the pipeline the change (its backfill's price; then, for one that loses data or
    a protection, the question), send, wait; a status Result saying what happened."""
    started = time.monotonic()
    statement = planned.statement
    plan, table = planned.plan
    backfill = plan.backfill if plan.backfill is not None and plan.backfill.items else None
    verdict = yield Ask(
        wcu=None if backfill is None else backfill.wcu,
        why="an index backfill cannot be stopped once begun",
        what=plan.label,
    )
    if verdict is Verdict.DRY:  # like a write's dry run: planned, priced, nothing sent
        calls = ", ".join(call.operation for call in plan.calls)
        cost = f" ({plan.backfill.text()})" if plan.backfill is not None else ""
        return Result.status(f"{plan.label} dry run: would send {calls}{cost}; nothing was sent")
    asked = _destructive(ctx, statement, table)  # (SET TTL reads a sample to say how much)
    if asked is not None:
        question, refusal = asked
        if (yield Ask(question=question, refusal=refusal, declined=None)) is Verdict.KEPT:
            return Result.status(f"cancelled: {statement.table} was kept")
    if backfill is not None:
        ctx.tell(f"{plan.label}: {backfill.text()}")
    try:
        for call in plan.calls:
            ctx.port.change_table(call)
        _wait(ctx, plan)
    finally:
        ctx.refresh()
    elapsed = time.monotonic() - started
    return Result.status(f"{plan.label} · done · {elapsed:.1f}s")


def _label(statement: ast.Ddl | ast.ShowCreateTable) -> str:
    words = {
        ast.CreateTable: "CREATE TABLE",
        ast.CreateIndex: "CREATE INDEX",
        ast.DropIndex: "DROP INDEX",
        ast.AlterTable: "ALTER TABLE",
        ast.DropTable: "DROP TABLE",
        ast.ShowCreateTable: "SHOW CREATE TABLE",
    }
    return words.get(type(statement), type(statement).__name__)


def _destructive(ctx: Context, statement: ast.Ddl, table: Any) -> tuple[str, str] | None:
    """The question (and the refusal for a script) before a change that loses data or a
    protection: DROP TABLE, DROP INDEX, SET TTL, DELETION PROTECTION OFF; else None."""
    if table is None:
        return None
    what: str | None = None
    if isinstance(statement, ast.DropTable):
        what = (
            f"DROP TABLE {table.name} deletes {table.item_count} items "
            f"({format_bytes(table.size_bytes)}) and cannot be undone"
        )
        ask = "Drop it?"
    elif isinstance(statement, ast.DropIndex):
        index = table.index(statement.index)
        what = (
            f"DROP INDEX {statement.index} deletes the index of {table.name} "
            f"({index.item_count} entries, {format_bytes(index.size_bytes)}): reads through it "
            "stop working, and rebuilding it means a full backfill"
        )
        ask = "Drop it?"
    elif isinstance(statement, ast.AlterTable) and statement.ttl is not None:
        what = (
            f"SET TTL {statement.ttl} on {table.name} {_expiring(ctx, table.name, statement.ttl)}"
        )
        ask = "Turn TTL on?"
    elif isinstance(statement, ast.AlterTable) and statement.deletion_protection is False:
        what = (
            f"DELETION PROTECTION OFF lets DROP TABLE (or anyone with DeleteTable) delete "
            f"{table.name} ({table.item_count} items)"
        )
        ask = "Turn it off?"
    if what is None:
        return None
    return f"{what}. {ask}", f"refused: {what}; in a script this needs --yes"


TTL_HORIZON = 5 * 365 * 24 * 3600  # DynamoDB's TTL ignores times more than five years past


def _expiring(ctx: Context, table: str, attribute: str) -> str:
    """How many sampled items DynamoDB's TTL would delete at once: a Number of epoch seconds in
    the past (but within five years, which TTL skips)."""
    sample = ctx.sample(table)
    if not sample:
        return "makes DynamoDB delete every item whose attribute holds a past time (no sample read)"
    now = time.time()
    past = sum(
        1
        for item in sample
        if isinstance(item.get(attribute), Decimal) and now - TTL_HORIZON <= item[attribute] <= now
    )
    return (
        f"makes DynamoDB delete every item whose {attribute} holds a past time: {past} of "
        f"{len(sample)} sampled items already do"
    )


def ttl_attribute(ctx: Context, table: str) -> str | None:
    """The TTL attribute when TTL is enabled (or being enabled), else None."""
    return ctx.port.ttl_attribute(table)


def show_create_table(ctx: Context, statement: ast.ShowCreateTable) -> Result:
    """SHOW CREATE TABLE: DescribeTable (fresh) and DescribeTimeToLive."""
    ctx.refresh()
    info = ctx.table(statement.table)
    try:
        ttl = ttl_attribute(ctx, statement.table)
    except ExecutionError:
        ttl = None  # a backend without TTL (dynalite answers UnknownOperation)
    text = show_create(info.raw, ttl)
    return Result(["statement"], iter([{"statement": text}]))


# --- waiting ---------------------------------------------------------------------------------


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


def _wait(ctx: Context, plan: DdlPlan, timeout: float = WAIT_TIMEOUT) -> None:
    """Poll DescribeTable until the change is done: quickly at first (local servers are done
    at once), then every few seconds, saying where things stand on a terminal."""
    if plan.wait is None:
        return
    status = getattr(ctx.doors.progress, "status", None)
    text = ""
    for elapsed, described in ctx.port.watch_table(plan.table, timeout):  # cancellable
        done, text = _state(plan, described)
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


def _effects(statement: ast.Ddl | ast.ShowCreateTable) -> Effects:
    if isinstance(statement, ast.ShowCreateTable):
        return NOTHING
    deletes = isinstance(statement, ast.DropTable | ast.DropIndex) or (
        isinstance(statement, ast.AlterTable) and statement.ttl is not None
    )
    protection_off = (
        isinstance(statement, ast.AlterTable) and statement.deletion_protection is False
    )
    return Effects(
        schema=True,
        deletes=deletes,
        protection_off=protection_off,
        rollback=False,
        all_or_nothing=_backfills(statement),
        destructive=deletes or protection_off,
    )


def _backfills(statement: ast.Ddl) -> bool:
    """Whether the change may build an index over the table's items (CREATE INDEX: a GSI's
    backfill)."""
    return isinstance(statement, ast.CreateIndex)


def _explain(ctx: Context, planned: Planned[ast.Ddl], _analyze: bool) -> Result:
    return explain_ddl(ctx, planned)


DDL: Kind[Any] = Kind(_label, run_ddl, _effects, _explain, plan=_planned)
KINDS: dict[type, Kind[Any]] = {
    ast.CreateTable: DDL,
    ast.CreateIndex: DDL,
    ast.DropIndex: DDL,
    ast.AlterTable: DDL,
    ast.DropTable: DDL,
    ast.ShowCreateTable: Kind(_label, unplanned(show_create_table), _effects),
}
