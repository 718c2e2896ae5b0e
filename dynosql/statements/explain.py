"""EXPLAIN [ANALYZE] of any statement: its kind's own EXPLAIN, through the one registry.

EXPLAIN sends nothing but DescribeTable, so it declares no effects; EXPLAIN ANALYZE runs the
statement, so it declares the statement's effects and Scan (the guards see it as the
statement itself)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.errors import PlanError
from dynosql.guards import NOTHING, Effects, Steps
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements import kind_of
from dynosql.statements.kind import Kind, Planned, as_steps

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.model import Plan


def label(explain: ast.Explain) -> str:
    inner = kind_of(explain.statement).label(explain.statement)
    return f"EXPLAIN ANALYZE {inner}" if explain.analyze else f"EXPLAIN {inner}"


def plan(ctx: Context, explain: ast.Explain, _explaining: bool) -> Planned[ast.Explain]:
    """The explained statement planned once, as its kind plans it (for EXPLAIN: nothing read
    but table descriptions); EXPLAIN ANALYZE sends its Scan, so the guards see that."""
    statement = explain.statement
    kind = kind_of(statement)
    if kind.explain is None:
        raise PlanError(f"EXPLAIN of {kind.label(statement)} is not supported")
    if explain.program:
        return Planned(explain, _program_plan(ctx, statement))
    if explain.partiql:
        return Planned(explain, _partiql(ctx, statement))
    inner = kind.plan(ctx, statement, True)
    return Planned(explain, inner, inner.scans if explain.analyze else ())


def run(ctx: Context, planned: Planned[ast.Explain]) -> Steps[Result]:
    explain = planned.statement
    statement = explain.statement
    kind = kind_of(statement)
    if explain.program:
        return program(planned.plan)
    if explain.partiql:
        return Result.plan(planned.plan.lines(), planned.plan.document())
    assert kind.explain is not None  # refused when planned
    result = yield from as_steps(kind.explain(ctx, planned.plan, explain.analyze))
    if explain.rate is None:
        return result
    return priced(ctx, result, explain.rate, kind.label(statement))


def _program_plan(ctx: Context, statement: ast.Statement) -> Plan:
    from dynosql.statements.select import plan_of

    if not isinstance(statement, ast.Select):
        raise PlanError("EXPLAIN (FORMAT PYTHON) writes the requests of a SELECT")
    if statement.export is not None or ctx.settings.engine != "dynamodb":
        raise PlanError("EXPLAIN (FORMAT PYTHON) writes DynamoDB requests: use --engine dynamodb")
    # the plan DynamoDB would run, whatever this endpoint is (moto's workarounds stay out); a
    # sample's seeded segments as EXPLAIN shows them (plan_of seeds it)
    return plan_of(ctx, statement, ctx.options().on_dynamodb())


def program(plan: Plan) -> Result:
    """EXPLAIN (FORMAT PYTHON): the SELECT's plan as a runnable boto3 program."""
    from dynosql.plan.program import program as write_program

    text = write_program(plan, f"{plan.label}: the requests dynosql plans")
    return Result.plan(text.splitlines(), {"program": text})


def _partiql(ctx: Context, statement: ast.Statement) -> Any:
    """EXPLAIN (FORMAT PARTIQL): the PartiQL statements that do what the statement does, as
    DynamoDB plans it (the embedded server's workarounds, such as conditions moved
    client-side, are not DynamoDB's), and notes for what PartiQL cannot do."""
    from dynosql.plan import partiql as translate
    from dynosql.plan.write import WriteOptions, plan_write
    from dynosql.statements.select import plan_of

    options = dataclasses.replace(ctx.options(), typed_filters=True, projections=True)
    if isinstance(statement, ast.Select):
        if statement.export is not None or ctx.settings.engine != "dynamodb":
            raise PlanError(
                "EXPLAIN (FORMAT PARTIQL) writes DynamoDB statements: use --engine dynamodb"
            )
        return translate.for_select(plan_of(ctx, statement, options))  # a sample: seeded
    assert isinstance(statement, ast.Insert | ast.Update | ast.Delete)
    source = None
    if isinstance(statement, ast.Insert) and statement.select is not None:
        source = ctx.table(statement.select.table)
    journal = ctx.journal_target() is not None
    plan = plan_write(statement, ctx.table(statement.table), WriteOptions(options, journal), source)
    return translate.for_write(plan)


def priced(ctx: Context, result: Result, rate: Decimal, label: str) -> Result:
    """EXPLAIN … AT n PER SECOND: the plan, then its units per month at that rate, on-demand
    and provisioned (engines/prices.py's constants; --prices overrides). Priced from the
    plan's estimate, with ANALYZE too (what one run happened to cost is beside it)."""
    from dynosql.engines.prices import Monthly, parse_prices

    document = result.document if isinstance(result.document, dict) else {}
    estimate = document.get("estimate")
    if not isinstance(estimate, dict) or "rcu" not in estimate:
        raise PlanError(
            f"AT … PER SECOND prices a SELECT or a write from its estimate; {label} has none"
        )
    try:
        prices = parse_prices(ctx.settings.prices)
    except ValueError as err:
        raise PlanError(f"--prices: {err}") from None
    monthly = Monthly(rate, Decimal(estimate["rcu"]), Decimal(estimate.get("wcu", 0)), prices)
    lines = [row["plan"] for row in result.rows] + monthly.lines()
    stats = result.stats if result.stats.requests else None  # EXPLAIN ANALYZE's
    return Result.plan(lines, {**document, "per_month": monthly.document()}, stats)


def effects(explain: ast.Explain) -> Effects:
    if not explain.analyze:
        return NOTHING
    kind = kind_of(explain.statement)
    found = kind.effects(explain.statement)
    if kind.transactional:  # EXPLAIN ANALYZE runs it now: COMMIT or ROLLBACK cannot reach it
        return dataclasses.replace(found, rollback=False)
    return found


KINDS = {
    ast.Explain: Kind(
        label, run, effects, plan=plan, example=("EXPLAIN ANALYZE DELETE FROM {t} WHERE pk = 'p'",)
    )
}
