"""Running table statements: the planned calls (dynosql/plan/ddl.py), the guards around them,
and the wait until DynamoDB has done the work (CreateTable, UpdateTable and DeleteTable return
at once; the table or index becomes ACTIVE, or goes, later).

Guards (dynosql.guards, from the effects each statement declares): ``--read-only`` refuses
every table change, and so does BEGIN … COMMIT (a table change cannot be rolled back); DROP
TABLE refuses a table with deletion protection; DROP TABLE, DROP INDEX, SET TTL (with how many
sampled items already hold a past time) and DELETION PROTECTION OFF ask first through the
front door; where nobody can be asked (a script) they are refused unless ``--yes``. A change is
planned on the table as DescribeTable says it is now; once it is sent, the port forgets what it
had cached of the table (`Port.change_table`), the REPL's completion following.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.errors import ExecutionError
from dynosql.guards import Ask, Effects, Steps, Verdict
from dynosql.plan.ddl import PLANNERS, DdlPlan, show_create
from dynosql.result import Result, format_bytes, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

WAIT_TIMEOUT = 30 * 60.0  # a GSI backfill on a large table takes a while
UNSTARTED_TIMEOUT = 3.0  # AWS lists a new index (CREATING) or a dropped one (DELETING) at once


@dataclass(frozen=True)
class TableChange:
    """What one class of table statement does differently from the others: its label, its
    planner (`plan.ddl.PLANNERS`), its effects, whether it plans on an existing table, and,
    for one that loses data or a protection, what it loses (said in the question) and how
    the question ends."""

    label: str
    effects: Callable[[Any], Effects]
    existing: bool = True  # planned on the table as it is now (all but CREATE TABLE)
    loses: Callable[[Context, Any, TableInfo], tuple[str, str] | None] = lambda *_: None
    example: str = ""  # its kind's example (`Kind.example`)


def _plan(ctx: Context, statement: ast.Ddl, change: TableChange) -> tuple[DdlPlan, Any]:
    """The plan, on the table as it is now (not as cached)."""
    table = ctx.table(statement.table, fresh=True) if change.existing else None
    ttl = None
    if getattr(statement, "ttl_off", False):  # SET TTL OFF names the attribute TTL uses
        ttl = ttl_attribute(ctx, statement.table)
    return PLANNERS[type(statement)](statement, table, ttl), table


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


def run_ddl(ctx: Context, planned: Planned[ast.Ddl], change: TableChange) -> Steps[Result]:
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
    lost = None if table is None else change.loses(ctx, statement, table)
    if lost is not None:  # (SET TTL reads a sample to say how much)
        what, ask = lost
        question, refusal = f"{what}. {ask}", f"refused: {what}; in a script this needs --yes"
        if (yield Ask(question=question, refusal=refusal, declined=None)) is Verdict.KEPT:
            return Result.status(f"cancelled: {statement.table} was kept")
    if backfill is not None:
        ctx.tell(f"{plan.label}: {backfill.text()}")
    for call in plan.calls:
        ctx.port.change_table(call)
    _wait(ctx, plan)
    elapsed = time.monotonic() - started
    return Result.status(f"{plan.label} · done · {elapsed:.1f}s")


def _drop_table(_ctx: Context, statement: ast.DropTable, table: TableInfo) -> tuple[str, str]:
    return (
        f"DROP TABLE {table.name} deletes {table.item_count} {plural(table.item_count, 'item')} "
        f"({format_bytes(table.size_bytes)}) and cannot be undone",
        "Drop it?",
    )


def _drop_index(_ctx: Context, statement: ast.DropIndex, table: TableInfo) -> tuple[str, str]:
    index = table.index(statement.index)
    return (
        f"DROP INDEX {statement.index} deletes the index of {table.name} "
        f"({index.item_count} {plural(index.item_count, 'entry', 'entries')}, "
        f"{format_bytes(index.size_bytes)}): reads through it "
        "stop working, and rebuilding it means a full backfill",
        "Drop it?",
    )


def _alter_loses(
    ctx: Context, statement: ast.AlterTable, table: TableInfo
) -> tuple[str, str] | None:
    """SET TTL (with how many sampled items already hold a past time), DELETION PROTECTION
    OFF; the other changes lose nothing."""
    if statement.ttl is not None:
        expiring = _expiring(ctx, table.name, statement.ttl)
        return f"SET TTL {statement.ttl} on {table.name} {expiring}", "Turn TTL on?"
    if statement.deletion_protection is False:
        return (
            f"DELETION PROTECTION OFF lets DROP TABLE (or anyone with DeleteTable) delete "
            f"{table.name} ({table.item_count} {plural(table.item_count, 'item')})",
            "Turn it off?",
        )
    return None


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
    info = ctx.table(statement.table, fresh=True)
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


CHANGED = Effects(schema=True, rollback=False)  # a table change: ROLLBACK cannot reach it
LOSES = dataclasses.replace(CHANGED, deletes=True, destructive=True)


def _alter_effects(statement: ast.AlterTable) -> Effects:
    off = statement.deletion_protection is False
    if statement.ttl is not None:  # TTL deletes items that already hold a past time
        return LOSES
    return dataclasses.replace(CHANGED, protection_off=off, destructive=off)


CHANGES: dict[type, TableChange] = {
    ast.CreateTable: TableChange(
        "CREATE TABLE",
        lambda _s: CHANGED,
        existing=False,
        example="CREATE TABLE {t}_new (pk S, PRIMARY KEY (pk))",
    ),
    # a GSI's backfill cannot be stopped once begun: --max-wcu refuses it whole
    ast.CreateIndex: TableChange(
        "CREATE INDEX",
        lambda _s: dataclasses.replace(CHANGED, all_or_nothing=True),
        example="CREATE INDEX by_v ON {t} (v N)",
    ),
    ast.DropIndex: TableChange(
        "DROP INDEX", lambda _s: LOSES, loses=_drop_index, example="DROP INDEX gix ON {t}"
    ),
    ast.AlterTable: TableChange(
        "ALTER TABLE", _alter_effects, loses=_alter_loses, example="ALTER TABLE {t} SET TTL v"
    ),
    ast.DropTable: TableChange(
        "DROP TABLE", lambda _s: LOSES, loses=_drop_table, example="DROP TABLE {t}"
    ),
}


def _kind(change: TableChange) -> Kind[Any]:
    return Kind(
        named(change.label),
        lambda ctx, planned: run_ddl(ctx, planned, change),
        change.effects,
        lambda ctx, planned, _analyze: explain_ddl(ctx, planned),
        plan=lambda ctx, statement, _explaining: Planned(statement, _plan(ctx, statement, change)),
        example=(change.example,),
    )


KINDS: dict[type, Kind[Any]] = {
    **{statement: _kind(change) for statement, change in CHANGES.items()},
    ast.ShowCreateTable: Kind(
        named("SHOW CREATE TABLE"),
        unplanned(show_create_table),
        example=("SHOW CREATE TABLE {t}",),
    ),
}
