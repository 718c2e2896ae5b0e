"""EXPLAIN [ANALYZE] of any statement: its kind's own EXPLAIN, through the one registry.

EXPLAIN sends nothing but DescribeTable, so it declares no effects; EXPLAIN ANALYZE runs the
statement, so it declares the statement's effects and Scan (the guards see it as the
statement itself)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import TYPE_CHECKING

from dynosql.errors import PlanError
from dynosql.guards import NOTHING, Effects
from dynosql.result import Result
from dynosql.sql import ast
from dynosql.statements import kind_of
from dynosql.statements.kind import Kind, ScanCheck

if TYPE_CHECKING:
    from dynosql.context import Context


def label(explain: ast.Explain) -> str:
    inner = kind_of(explain.statement).label(explain.statement)
    return f"EXPLAIN ANALYZE {inner}" if explain.analyze else f"EXPLAIN {inner}"


def run(ctx: Context, explain: ast.Explain) -> Result:
    statement = explain.statement
    kind = kind_of(statement)
    if kind.explain is None:
        raise PlanError(f"EXPLAIN of {kind.label(statement)} is not supported")
    if explain.program:
        return program(ctx, explain)
    if explain.partiql:
        return partiql(ctx, explain)
    if explain.rate is None:
        return kind.explain(ctx, statement, explain.analyze)
    result = kind.explain(ctx, statement, explain.analyze)
    return priced(ctx, result, explain.rate, kind.label(statement))


def program(ctx: Context, explain: ast.Explain) -> Result:
    """EXPLAIN (FORMAT PYTHON): the SELECT's plan as a runnable boto3 program."""
    from dynosql.plan.program import program as write_program
    from dynosql.statements.select import plan_of

    statement = explain.statement
    assert isinstance(statement, ast.Select)
    if statement.export is not None or ctx.settings.engine != "dynamodb":
        raise PlanError("EXPLAIN (FORMAT PYTHON) writes DynamoDB requests: use --engine dynamodb")
    if statement.sample is not None:  # the program reads the seeded segments EXPLAIN shows
        from dynosql.statements.tablesample import seeded

        statement = seeded(statement)
    # the plan DynamoDB would run, whatever this endpoint is (moto's workarounds stay out)
    plan = plan_of(ctx, statement, ctx.options().on_dynamodb())
    text = write_program(plan, f"{plan.label}: the requests dynosql plans")
    return Result.plan(text.splitlines(), {"program": text})


def partiql(ctx: Context, explain: ast.Explain) -> Result:
    """EXPLAIN (FORMAT PARTIQL): the PartiQL statements that do what the statement does, as
    DynamoDB plans it (the embedded server's workarounds, such as conditions moved
    client-side, are not DynamoDB's), and notes for what PartiQL cannot do."""
    from dynosql.hints import advisor
    from dynosql.plan import partiql as translate
    from dynosql.plan.planner import plan_select
    from dynosql.plan.write import WriteOptions, plan_write

    statement = explain.statement
    options = dataclasses.replace(ctx.options(), typed_filters=True, projections=True)
    if isinstance(statement, ast.Select):
        if statement.export is not None or ctx.settings.engine != "dynamodb":
            raise PlanError(
                "EXPLAIN (FORMAT PARTIQL) writes DynamoDB statements: use --engine dynamodb"
            )
        if statement.sample is not None:
            from dynosql.statements.tablesample import seeded

            statement = seeded(statement)
        statement = advisor.prepare(ctx, statement, read=False)[0]
        found = translate.for_select(plan_select(statement, ctx.table(statement.table), options))
    else:
        assert isinstance(statement, ast.Insert | ast.Update | ast.Delete)
        source = None
        if isinstance(statement, ast.Insert) and statement.select is not None:
            source = ctx.table(statement.select.table)
        journal = ctx.journal_target() is not None
        plan = plan_write(
            statement, ctx.table(statement.table), WriteOptions(options, journal), source
        )
        found = translate.for_write(plan)
    return Result.plan(found.lines(), found.document())


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


def scan_plan(ctx: Context, explain: ast.Explain) -> ScanCheck | None:
    if not explain.analyze:
        return None
    kind = kind_of(explain.statement)
    return None if kind.scan_plan is None else kind.scan_plan(ctx, explain.statement)


KINDS = {ast.Explain: Kind(label, run, effects, None, scan_plan)}
