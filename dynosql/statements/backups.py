"""ALTER TABLE t SET POINT IN TIME RECOVERY ON|OFF: continuous backups (UpdateContinuousBackups).

PITR keeps a 35-day restore window and is what ``--engine export`` (ExportTableToPointInTime)
needs. It is billed per GB-month of the table's size while on (the named price
``pitr_gb_month``, overridable with ``--prices``), so EXPLAIN prices it. Turning it OFF deletes
the restore window: the guard pipeline asks first, like DROP TABLE.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.engines.prices import GB, parse_prices
from dynosql.guards import Ask, Effects, Steps, Verdict
from dynosql.result import Result, format_bytes, plural
from dynosql.sql import ast
from dynosql.statements.kind import Kind, Planned, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context

OPERATION = "UpdateContinuousBackups"


def _params(statement: ast.SetPointInTimeRecovery) -> dict[str, Any]:
    return {
        "TableName": statement.table,
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": statement.enabled},
    }


def _label(statement: ast.SetPointInTimeRecovery) -> str:
    return f"ALTER TABLE {statement.table} SET POINT IN TIME RECOVERY " + (
        "ON" if statement.enabled else "OFF"
    )


def _monthly(ctx: Context, size_bytes: int) -> str:
    price = parse_prices(ctx.settings.prices).pitr_gb_month
    dollars = (Decimal(size_bytes) / GB * price).quantize(Decimal("0.01"))
    return (
        f"PITR storage: ${dollars} a month for {format_bytes(size_bytes)} at ${price}/GB-month "
        "(grows with the table; the restore window is 35 days)"
    )


def explain(ctx: Context, statement: ast.SetPointInTimeRecovery, _analyze: bool) -> Result:
    """The request, and what PITR costs a month at the table's current size."""
    table = ctx.table(statement.table)
    params = _params(statement)
    lines = [
        _label(statement),
        f"request: {OPERATION}",
        f"  TableName: {params['TableName']}",
        f"  PointInTimeRecoveryEnabled: {str(statement.enabled).lower()}",
    ]
    if statement.enabled:
        lines.append(f"estimate: {_monthly(ctx, table.size_bytes)}")
    else:
        lines.append("estimate: no PITR storage charge from now on; the restore window is deleted")
    document = {"operation": OPERATION, "params": params, "table_bytes": table.size_bytes}
    return Result.plan(lines, document)


def run(ctx: Context, statement: ast.SetPointInTimeRecovery) -> Steps[Result]:
    started = time.monotonic()
    table = ctx.table(statement.table)
    ask = Ask()
    if not statement.enabled:  # the pipeline asks (effects: destructive)
        what = (
            f"POINT IN TIME RECOVERY OFF deletes the restore window of {table.name} "
            f"({table.item_count} {plural(table.item_count, 'item')}): it cannot be restored to "
            "an earlier time afterwards"
        )
        refusal = f"refused: {what}; in a script this needs --yes"
        ask = Ask(question=f"{what}. Turn it off?", refusal=refusal, declined=None)
    verdict = yield ask
    if verdict is Verdict.DRY:
        return Result.status(
            f"{_label(statement)} dry run: would send {OPERATION}; nothing was sent"
        )
    if verdict is Verdict.KEPT:
        return Result.status(f"cancelled: {table.name} was kept")
    state = ctx.port.set_point_in_time_recovery(statement.table, statement.enabled)
    elapsed = time.monotonic() - started
    return Result.status(f"{_label(statement)} · {state} · {elapsed:.1f}s")


def effects(statement: ast.SetPointInTimeRecovery) -> Effects:
    off = not statement.enabled
    return Effects(schema=True, deletes=off, protection_off=off, rollback=False, destructive=off)


def _explain(ctx: Context, planned: Planned[ast.SetPointInTimeRecovery], analyze: bool) -> Result:
    return explain(ctx, planned.statement, analyze)


KINDS = {
    ast.SetPointInTimeRecovery: Kind(
        named("ALTER TABLE"),
        unplanned(run),
        effects,
        _explain,
        example=("ALTER TABLE {t} SET POINT IN TIME RECOVERY OFF",),
    )
}
