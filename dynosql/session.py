"""The library API: ``Session(...).execute(sql)``. The CLI and the REPL are thin over this.

A Session owns one DynamoDB client, the catalog cache and the settings a user can change
(``SET segments = 4``). It runs the one direction of flow: parse → plan → execute → evaluate,
handing back ``Result`` objects whose rows stream.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from . import values
from .catalog import Catalog, TableInfo
from .errors import GuardError, PlanError, SqlError, translate_error
from .evaluate.aggregate import count_group, group
from .evaluate.pipeline import aggregate_rows, columns_of, select_rows
from .execute import Executor, Limits
from .plan.model import Plan
from .plan.planner import Options
from .result import Result, Stats
from .settings import BOOLEAN_WORDS, SETTINGS_HELP, Settings, positive_decimal, positive_int
from .sql import ast, parse_script
from .sql.parse import MAX_LIMIT


def make_client(
    endpoint_url: str | None = None,
    region: str | None = None,
    profile: str | None = None,
    credentials: tuple[str, str] | None = None,
) -> Any:
    """A low-level DynamoDB client; the usual AWS environment applies (AWS_PROFILE, AWS_REGION,
    AWS_ENDPOINT_URL_DYNAMODB, SSO and role profiles through boto3 sessions)."""
    import boto3
    from botocore.config import Config

    # boto3 reads only AWS_DEFAULT_REGION; the AWS CLI and SDK v2 also read AWS_REGION (first)
    region = region or os.environ.get("AWS_REGION") or None
    try:
        session = boto3.Session(profile_name=profile, region_name=region)
    except Exception as err:  # ProfileNotFound and friends
        raise translate_error(err) from None
    if session.region_name is None and endpoint_url:
        region = "us-east-1"  # a local endpoint does not care, but botocore insists on one
    # botocore retries a few times quickly (an unreachable endpoint fails in seconds); the
    # executor keeps retrying throttles, 5xx and dropped connections with longer backoff.
    config = Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=3,
        read_timeout=60,
        max_pool_connections=32,
    )
    kwargs: dict[str, Any] = {"config": config}
    if endpoint_url:
        kwargs["endpoint_url"] = endpoint_url
    if region:
        kwargs["region_name"] = region
    if credentials:
        kwargs["aws_access_key_id"], kwargs["aws_secret_access_key"] = credentials
    try:
        return session.client("dynamodb", **kwargs)
    except Exception as err:
        raise translate_error(err) from None


class Session:
    """One connection's worth of state. Thread-compatible, not thread-safe."""

    def __init__(
        self,
        client: Any | None = None,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        profile: str | None = None,
        estimate_capacity: bool = False,
        settings: Settings | None = None,
        params: dict[str, Any] | None = None,
        progress: Callable[[Stats], None] | None = None,
    ):
        self.client = client if client is not None else make_client(endpoint_url, region, profile)
        self.catalog = Catalog(self.client, sample_sizes=estimate_capacity)
        self.estimate_capacity = estimate_capacity
        self.settings = settings or Settings()
        self.params = dict(params or {})
        self.progress = progress
        self.total_capacity = Decimal(0)
        self.local = None  # the embedded server, when Session.local() started one

    @classmethod
    def local(cls, load_examples: bool = True, **kwargs: Any) -> Session:
        """A session on the embedded DynamoDB (moto, in-process), loaded with the examples."""
        from .local import start_local

        server = start_local(load_examples=load_examples)
        session = cls(server.client(), estimate_capacity=True, **kwargs)
        session.local = server
        return session

    def close(self) -> None:
        if self.local is not None:
            self.local.stop()
            self.local = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def endpoint(self) -> str:
        return str(getattr(self.client.meta, "endpoint_url", ""))

    @property
    def region(self) -> str:
        return str(getattr(self.client.meta, "region_name", ""))

    # --- running SQL ---------------------------------------------------------------------------

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> Result:
        """Run exactly one statement (a trailing `;` is fine)."""
        statements = parse_script(sql)
        if len(statements) != 1:
            raise SqlError(f"expected one statement, found {len(statements)}")
        return self.run_statement(statements[0], params)

    def run(self, script: str, params: dict[str, Any] | None = None) -> Iterator[Result]:
        """Run a script: every statement is parsed before the first one is sent, so a typo
        in the last line fails before any read. Consume each Result before the next."""
        statements = parse_script(script)
        for statement in statements:
            yield self.run_statement(statement, params)

    def run_statement(
        self, statement: ast.Statement, params: dict[str, Any] | None = None
    ) -> Result:
        bound = bind(statement, {**self.params, **(params or {})})
        if isinstance(bound, ast.Select):
            return self._select(bound)
        if isinstance(bound, ast.Explain):
            return self._explain(bound)
        if isinstance(bound, ast.ShowTables):
            return self._show_tables()
        if isinstance(bound, ast.Describe):
            from .describe import describe_result

            return describe_result(self.catalog.describe(bound.table))
        if isinstance(bound, ast.ShowHotKeys):
            from .hotkeys import hot_keys

            return hot_keys(self, bound)
        if isinstance(bound, ast.ShowEntities):
            from .entities import show_entities

            return show_entities(self, bound)
        if isinstance(bound, ast.SetOption):
            return self._set(bound)
        raise SqlError(f"cannot run {type(bound).__name__}")

    def plan(self, statement: ast.Select) -> Plan:
        """The plan for a bound SELECT (no reads beyond the cached DescribeTable), with
        table-qualified columns resolved as EXPLAIN and execution resolve them."""
        from . import advisor

        return advisor.prepare(self, statement, read=False)[1]

    def options(self) -> Options:
        return Options(
            consistent=self.settings.consistent,
            segments=self.settings.segments,
            typed_filters=self.catalog.emulator != "moto",
            projections=self.catalog.emulator != "moto",
        )

    @property
    def estimating(self) -> bool:
        """Whether capacity is estimated here (the server's figures are not real)."""
        return self.estimate_capacity or self.catalog.emulator == "moto"

    def describe(self, name: str) -> TableInfo:
        return self.catalog.describe(name)

    def executor(self) -> Executor:
        limits = Limits(max_rcu=self.settings.max_rcu, rate_limit=self.settings.rate_limit)
        return Executor(self.client, self.estimating, limits, self.progress)

    def _select(self, statement: ast.Select) -> Result:
        from . import advisor

        statement, plan, hints = advisor.prepare(self, statement)
        self.guard(plan, hints)
        stats = Stats(expected_items=plan.estimate.items if plan.is_scan else None)
        warnings = [*hints, *plan.warnings]
        result = Result(columns_of(statement, plan.table), iter(()), stats, warnings)
        result.open_columns = statement.items is None
        rows = self._rows(plan, stats, result.notes)
        result.rows = advisor.after_rows(self, rows, plan, result.notes, hints)
        return result

    def _rows(self, plan: Plan, stats: Stats, notes: list[str] | None = None) -> Iterator[dict]:
        statement = plan.statement
        executor = self.executor()
        try:
            if plan.count_only:
                groups = count_group(statement, executor.count(plan, stats))
                yield from aggregate_rows(statement, groups)
            elif statement.is_aggregate:
                groups = group(statement, executor.items(plan, stats))
                yield from aggregate_rows(statement, groups)
            else:
                yield from select_rows(
                    statement, plan.table, executor.items(plan, stats), plan.sort, notes
                )
        finally:
            self.total_capacity += stats.capacity

    def guard(self, plan: Plan, hints: list[str] | None = None) -> None:
        """Refuse a Scan before any request when --fail-on-scan is set (naming the likely
        mistake, when a hint has one)."""
        if plan.is_scan and self.settings.fail_on_scan:
            hinted = "".join(f"; hint: {h}" for h in hints or ())
            raise GuardError(
                f"refused: this statement would Scan {plan.table.name} ({plan.estimate.text()}) "
                f"and --fail-on-scan is set{hinted}"
            )

    def _explain(self, explain: ast.Explain) -> Result:
        from . import advisor

        _statement, plan, hints = advisor.prepare(self, explain.statement, read=False)
        document = plan.describe()
        lines = explain_lines(plan)
        lines[2:2] = [f"hint: {h}" for h in hints]
        if self.catalog.emulator == "moto":
            lines.append(
                "note: this endpoint is moto, which fails on some valid requests: whole items are "
                "read and ordering comparisons checked client-side (same cost); against DynamoDB "
                "the requests carry a ProjectionExpression and the full FilterExpression"
            )
        stats = Stats()
        if explain.analyze:
            self.guard(plan, hints)
            rows = 0
            for _row in self._rows(plan, stats):
                rows += 1
            stats.rows = rows
            stats.finish()
            document["actual"] = {
                "requests": stats.requests,
                "items_scanned": stats.items_scanned,
                "rows": rows,
                "consumed_capacity": str(stats.capacity.normalize()),
                "capacity_estimated": stats.capacity_estimated,
                "seconds": round(stats.elapsed, 6),
            }
            lines.append(
                f"actual: {stats.requests} request(s), {stats.items_scanned} items scanned, "
                f"{rows} rows, {stats.capacity_text()}, {stats.elapsed:.3f}s"
            )
        result = Result(
            ["plan"], iter([{"plan": line} for line in lines]), Stats(), [], kind="plan"
        )
        result.document = document
        if explain.analyze:
            result.stats = stats
        return result

    def _show_tables(self) -> Result:
        self.catalog.refresh()
        names = sorted(self.catalog.table_names())
        return Result(["table"], iter([{"table": n} for n in names]))

    def _set(self, option: ast.SetOption) -> Result:
        name, raw = option.name, option.value.strip()
        s = self.settings
        try:
            if name in ("consistent", "fail_on_scan"):
                setattr(s, name, BOOLEAN_WORDS[raw.lower()])
            elif name == "segments":
                s.segments = None if raw.lower() == "auto" else positive_int(raw)
            elif name in ("max_rcu", "rate_limit"):
                setattr(s, name, None if raw.lower() in ("off", "none") else positive_decimal(raw))
            elif name == "format":
                from .render import FORMATS

                if raw.lower() not in FORMATS:
                    raise ValueError(f"one of {', '.join(FORMATS)}")
                s.format = raw.lower()
            else:
                known = ", ".join(SETTINGS_HELP)
                raise SqlError(
                    f"unknown setting {name} (settings: {known})", option.pos.line, option.pos.col
                )
        except (KeyError, ValueError) as err:
            detail = str(err).strip("'") if isinstance(err, ValueError) else "on or off"
            raise SqlError(
                f"bad value {raw!r} for {name}: {detail}", option.pos.line, option.pos.col
            ) from None
        return Result([], iter(()), kind="status", title=f"SET {name} = {raw}")


def explain_lines(plan: Plan) -> list[str]:
    """EXPLAIN for people: the operation, the exact requests, the client's steps, the cost."""
    lines = [f"{plan.label}"]
    lines.append(
        f"estimate: {plan.estimate.text()}" + (" (strongly consistent)" if plan.consistent else "")
    )
    shown = plan.requests[:5]
    for i, request in enumerate(shown, 1):
        title = "request" if len(plan.requests) == 1 else f"request {i} of {len(plan.requests)}"
        if request.operation == "Scan" and plan.segments > 1:
            title += f" (sent as Segment 0..{plan.segments - 1} of TotalSegments {plan.segments})"
        lines.append(f"{title}:")
        lines.extend("  " + line for line in request.code().splitlines())
    if len(plan.requests) > len(shown):
        lines.append(f"… and {len(plan.requests) - len(shown)} more requests like these")
    if plan.fetch is not None:
        lines.append("then, for the items found (keys filled in, 100 a call):")
        lines.extend("  " + line for line in plan.fetch.code().splitlines())
    if plan.steps:
        lines.append("client-side:")
        lines.extend(f"  - {step}" for step in plan.steps)
    for warning in plan.warnings:
        lines.append(f"warning: {warning}")
    return lines


# --- parameters ----------------------------------------------------------------------------------


# A value reads as a number only in canonical form: "0042" stays a string (an ID, a zip code).
_NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")


def parse_param(text: str) -> tuple[str, Any]:
    """``name=value`` (a number if it reads as one, else a string) or ``name:=json``."""
    if ":=" in text and ("=" not in text.split(":=", 1)[0]):
        name, raw = text.split(":=", 1)
        try:
            value = json.loads(raw, parse_float=Decimal, parse_int=Decimal)
        except json.JSONDecodeError:
            raise ValueError(f"-v {name}:= takes a JSON value, got {raw!r}") from None
        return name.strip(), _from_json(value)
    if "=" not in text:
        raise ValueError(f"-v takes name=value, got {text!r}")
    name, raw = text.split("=", 1)
    if _NUMBER.match(raw.strip()):
        return name.strip(), values.number(raw.strip())
    return name.strip(), raw


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    return value


def bind(statement: Any, params: dict[str, Any]) -> Any:
    """Replace every :name with its value; an unbound one is an error with its position."""
    if isinstance(statement, ast.Param):
        if statement.name not in params:
            raise SqlError(
                f"no value for :{statement.name} (give one with -v {statement.name}=value)",
                statement.pos.line,
                statement.pos.col,
            )
        return ast.Literal(params[statement.name], statement.pos)
    if isinstance(statement, tuple):
        return tuple(bind(x, params) for x in statement)
    if dataclasses.is_dataclass(statement) and not isinstance(statement, type):
        changes = {}
        for f in dataclasses.fields(statement):
            current = getattr(statement, f.name)
            if isinstance(current, ast.Pos):
                continue
            new = bind(current, params)
            if new is not current:
                changes[f.name] = new
        bound = dataclasses.replace(statement, **changes) if changes else statement
        if isinstance(bound, ast.Select) and isinstance(bound.limit, ast.Literal):
            bound = dataclasses.replace(bound, limit=_limit_value(bound.limit))
        return bound
    return statement


def _limit_value(literal: ast.Literal) -> int:
    value = literal.value
    if (
        isinstance(value, Decimal)
        and value == value.to_integral_value()
        and 0 <= value <= MAX_LIMIT
    ):
        return int(value)
    raise SqlError(f"LIMIT takes a whole number, got {value!r}", literal.pos.line, literal.pos.col)


__all__ = ["PlanError", "Session", "Settings", "bind", "make_client", "parse_param"]
