"""The library API: ``Session(...).execute(sql)``. The CLI and the REPL are thin over this.

A Session owns one DynamoDB client, the catalog cache and the settings a user can change
(``SET segments = 4``). It runs the one direction of flow: parse → plan → execute → evaluate,
handing back ``Result`` objects whose rows stream.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import values
from dynosql.dynamo import aws, wire
from dynosql.dynamo.capabilities import MOTO, Capabilities, probe
from dynosql.dynamo.capabilities import install as install_projection_check
from dynosql.dynamo.catalog import SAMPLE_ITEMS, Catalog, TableInfo
from dynosql.dynamo.reader import MAX_CONCURRENT_REQUESTS, Executor, Limits
from dynosql.dynamo.retry import Sleep
from dynosql.errors import (
    DynosqlError,
    GuardError,
    PlanError,
    SqlError,
    UsageError,
    translate_error,
)
from dynosql.evaluate.aggregate import count_group, group
from dynosql.evaluate.pipeline import aggregate_rows, columns_of, select_rows
from dynosql.plan.model import Plan
from dynosql.plan.planner import Options, plan_full_scan
from dynosql.result import ProgressSink, Result, Stats
from dynosql.settings import SettingError, Settings
from dynosql.sql import ast, parse_script
from dynosql.sql.parse import MAX_LIMIT
from dynosql.statements.read_explain import explain_lines

if TYPE_CHECKING:
    from dynosql.dynamo.embedded import LocalDynamo


def make_client(
    endpoint_url: str | None = None,
    region: str | None = None,
    profile: str | None = None,
    credentials: tuple[str, str] | None = None,
    settings: Settings | None = None,
) -> Any:
    """A low-level DynamoDB client; the usual AWS environment applies (AWS_PROFILE, AWS_REGION,
    AWS_ENDPOINT_URL_DYNAMODB, SSO and role profiles through boto3 sessions)."""
    from botocore.config import Config

    _check_endpoint(endpoint_url)
    # boto3 reads only AWS_DEFAULT_REGION; the AWS CLI and SDK v2 also read AWS_REGION (first)
    region = region or os.environ.get("AWS_REGION") or None
    try:
        session = aws.boto_session(profile, region)
    except Exception as err:  # ProfileNotFound and friends
        raise translate_error(err) from err
    if session.region_name is None and endpoint_url:
        region = "us-east-1"  # a local endpoint does not care, but botocore insists on one
    # botocore retries a few times quickly (an unreachable endpoint fails in seconds); the
    # executor keeps retrying throttles, 5xx and dropped connections with longer backoff, until
    # the per-request deadline. botocore's own attempts fit inside that deadline.
    s = settings or Settings()
    attempts = max(1, min(3, int(s.deadline // s.read_timeout)))
    config = Config(
        retries={"mode": "standard", "total_max_attempts": attempts},
        connect_timeout=float(s.connect_timeout),
        read_timeout=float(s.read_timeout),
        max_pool_connections=MAX_CONCURRENT_REQUESTS,
    )
    kwargs: dict[str, Any] = {"config": config}
    if endpoint_url:
        kwargs["endpoint_url"] = endpoint_url
    if region:
        kwargs["region_name"] = region
    if credentials:
        kwargs["aws_access_key_id"], kwargs["aws_secret_access_key"] = credentials
    try:
        return aws.client(session, "dynamodb", **kwargs)
    except Exception as err:
        if type(err).__name__ == "InvalidRegionError":
            raise UsageError(
                f"--region {kwargs.get('region_name') or session.region_name!r} is not a region "
                "name (e.g. eu-west-1)"
            ) from err
        raise translate_error(err) from err


def _check_endpoint(url: str | None) -> None:
    """An endpoint botocore can use: a scheme and a host (``localhost:8000`` is not one)."""
    if url is None:
        return
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--endpoint-url {url!r} is not a URL: give the scheme and host, e.g. "
            "http://localhost:8000"
        )


class Session:
    """One connection's worth of state. Thread-compatible, not thread-safe.

    The only door to DynamoDB: the command line, the REPL and library users call these methods;
    none of them holds a client of its own."""

    def __init__(
        self,
        client: Any | None = None,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        profile: str | None = None,
        capabilities: Capabilities | None = None,
        settings: Settings | None = None,
        params: dict[str, Any] | None = None,
        progress: ProgressSink | None = None,
        sleep: Sleep = time.sleep,
    ):
        self.settings = settings or Settings()
        # every retry and pacing wait of the statements it runs (tests give a quicker one)
        self.sleep = sleep
        if client is None:
            client = make_client(endpoint_url, region, profile, settings=self.settings)
        self.client = client
        wire.install(self.client)
        install_projection_check(self.client)
        self._capabilities = capabilities
        self.unprojectable: set[str] = set()  # tables moto failed to project (capabilities.py)
        # moto reports no table sizes: the catalog measures them on a sample, an emulator's
        # workaround that is not added to the session's capacity
        self.catalog = Catalog(
            self.client, lambda: self.capabilities, lambda name: self.sample(name, counted=False)
        )
        self._samples: dict[str, list[dict]] = {}
        self.cancelled = threading.Event()  # set by cancel(): reads stop, workers are abandoned
        self.params = dict(params or {})
        self.progress = progress
        self.total_capacity = Decimal(0)
        self.embedded: LocalDynamo | None = None  # the server Session.local() started
        # The front door's way to ask before a write that needs a confirmation or DROP TABLE: a
        # question in, yes/no out; None where nobody can be asked (a script: refused unless
        # assume_yes, i.e. --yes). journal_file: --journal FILE (else one file per statement).
        self.confirm: Callable[[str], bool] | None = None
        self.assume_yes = False
        # The front door's way to say something before a statement finishes (CREATE INDEX's
        # backfill cost); None collects nothing.
        self.notice: Callable[[str], None] | None = None
        self.catalog_version = 0  # bumped by refresh(): caches elsewhere (completion) follow
        self.journal_file: str | None = None
        self.last_write: Any = None  # the last write statement's WriteStats
        self.transaction: Any = None  # the writes queued since BEGIN
        self._aws_clients: dict[str, Any] = {}  # S3, Athena: see aws_client

    @classmethod
    def local(cls, load_examples: bool = True, **kwargs: Any) -> Session:
        """A session on the embedded DynamoDB (moto, in-process), loaded with the examples."""
        from dynosql.dynamo.embedded import start_local

        server = start_local(load_examples=load_examples)
        session = cls(server.client(), capabilities=MOTO, **kwargs)
        session.embedded = server
        return session

    def cancel(self) -> None:
        """Stop the statement under way (Ctrl-C, SIGTERM): its workers stop at their next
        request and nothing waits for a request in flight. The next statement clears it."""
        self.cancelled.set()

    def close(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

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

    def aws_client(self, service: str) -> Any:
        """A client for another AWS service (``s3``, ``athena``) with this session's account,
        region and credentials: the export engines reach AWS only through here. A local
        endpoint (moto) serves every service on its one port; on AWS each service has its own."""
        if service not in self._aws_clients:
            from dynosql.engines.clients import client_like

            self._aws_clients[service] = client_like(self.client, service)
        return self._aws_clients[service]

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can be trusted with: asked once, on first need."""
        if self._capabilities is None:
            self._capabilities = probe(self.client)
        return self._capabilities

    @property
    def estimating(self) -> bool:
        """Whether capacity is estimated here (the server's figures are not real)."""
        return self.capabilities.estimating

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
        self.cancelled.clear()
        bound = self.bind(statement, params)
        self.last_write = None
        if isinstance(bound, ast.Select) and (
            bound.export is not None or self.settings.engine != "dynamodb"
        ):
            from dynosql.engines.run import run_engine

            return run_engine(self, bound)
        if isinstance(bound, ast.Select | ast.ShowHotKeys) and bound.sample is not None:
            from dynosql.statements.sampled import sampled_hot_keys, sampled_select, seeded

            bound = seeded(bound)
            if isinstance(bound, ast.ShowHotKeys):
                return sampled_hot_keys(self, bound)
            if isinstance(bound, ast.Select):
                return sampled_select(self, bound)
        if (
            isinstance(bound, ast.Explain)
            and isinstance(bound.statement, ast.Select)
            and bound.statement.sample is not None
        ):
            from dynosql.statements.sampled import seeded

            bound = dataclasses.replace(bound, statement=seeded(bound.statement))
        if isinstance(bound, ast.Select):
            return self._select(bound)
        if isinstance(bound, ast.Explain) and isinstance(bound.statement, ast.Ddl):
            from dynosql.statements.table import explain_ddl

            return explain_ddl(self, bound.statement)
        if isinstance(bound, ast.Explain) and isinstance(
            bound.statement, ast.CopyFrom | ast.CopyTo
        ):
            from dynosql.statements.copy_explain import explain_copy

            return explain_copy(self, bound.statement)
        if isinstance(bound, ast.Explain):
            return self._explain(bound)
        if isinstance(bound, ast.ShowTables):
            return self._show_tables()
        if isinstance(bound, ast.Describe):
            from dynosql.statements.show import describe_result

            return describe_result(self.table(bound.table))
        if isinstance(bound, ast.ShowHotKeys):
            from dynosql.statements.hot_keys import hot_keys

            return hot_keys(self, bound)
        if isinstance(bound, ast.ShowEntities):
            from dynosql.statements.entities import show_entities

            return show_entities(self, bound)
        if isinstance(bound, ast.SetOption):
            return self._set(bound)
        if isinstance(bound, ast.Insert | ast.Update | ast.Delete | ast.Transaction):
            return self.write(bound)
        if isinstance(bound, ast.Undo):
            return self.undo(bound.path)
        if isinstance(bound, ast.Ddl):
            return self.change_table(bound)
        if isinstance(bound, ast.ShowCreateTable):
            from dynosql.statements.table import show_create_table

            return show_create_table(self, bound)
        if isinstance(bound, ast.CopyTo):
            from dynosql.statements.copy import copy_to

            return copy_to(self, bound)
        if isinstance(bound, ast.CopyFrom):
            from dynosql.statements.copy import copy_from

            return copy_from(self, bound)
        raise SqlError(f"cannot run {type(bound).__name__}")

    def bind(self, statement: ast.Statement, params: dict[str, Any] | None = None) -> Any:
        """`statement` with every :name replaced by its value (the session's, then `params`)."""
        return bind(statement, {**self.params, **(params or {})})

    def plan(self, statement: ast.Select) -> Plan:
        """The plan for a bound SELECT (no reads beyond the cached DescribeTable), with
        table-qualified columns resolved as EXPLAIN and execution resolve them."""
        from dynosql.hints import advisor

        return advisor.prepare(self, statement, read=False)[1]

    def full_scan_plan(self, table: str, index: str | None = None) -> Plan:
        """The plan that reads every item of a table or index (SHOW HOT KEYS)."""
        return plan_full_scan(self.table(table), index, self.options())

    def scan_plan(self, statement: ast.Statement) -> Plan | None:
        """The Scan `statement` would send, or None (not a Scan, or not plannable: running it
        reports that properly). For asking before a large Scan."""
        try:
            bound = self.bind(statement)
            if isinstance(bound, ast.Explain) and bound.analyze:
                bound = bound.statement
            if isinstance(bound, ast.CopyTo):  # COPY t TO reads like SELECT * FROM t
                bound = bound.query or ast.Select(table=bound.table or "", index=None, items=None)
            if isinstance(bound, ast.Select) and (
                bound.export is not None or self.settings.engine != "dynamodb"
            ):
                return None  # answered from an export: no Scan
            if isinstance(bound, ast.Select):
                plan = self.plan(bound)
            elif isinstance(bound, ast.ShowHotKeys):
                plan = self.full_scan_plan(bound.table, bound.index)
                if bound.sample is not None:
                    from dynosql.plan.sample import apply_sample

                    plan = apply_sample(plan, bound.sample)
            elif isinstance(bound, ast.ShowEntities):
                if bound.sample is not None:
                    return None  # SHOW ENTITIES … SAMPLE n reads n items, not the table
                plan = self.full_scan_plan(bound.table)
            else:
                return None
        except DynosqlError:
            return None
        return plan if plan.is_scan else None

    def options(self) -> Options:
        caps = self.capabilities
        return Options(
            consistent=self.settings.consistent,
            segments=self.settings.segments,
            typed_filters=caps.server_filters,
            projections=caps.projections,
        )

    def table(self, name: str) -> TableInfo:
        """A table's keys, indexes and sizes (DescribeTable, cached)."""
        return self.catalog.table(name)

    def tables(self, pattern: str | None = None) -> list[str]:
        """The table names, sorted; `pattern` is a glob such as ``aud*``."""
        self.catalog.refresh()
        names = sorted(self.catalog.table_names())
        if pattern:
            names = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        return names

    def refresh(self) -> None:
        """Forget what is cached about tables (after DDL, or on request)."""
        self.catalog.refresh()
        self._samples.clear()
        self.catalog_version += 1

    def sample(self, table: str, counted: bool = True) -> list[dict]:
        """Up to `SAMPLE_ITEMS` items of `table`, read once per session: the sizes moto does
        not report, the attribute names completion offers, the names and types hints compare
        against. One Limit-bounded Scan page through the executor (retried, paced, within the
        deadline, counted in the session's capacity); nothing is read when Scans are refused."""
        if table not in self._samples:
            if self.settings.fail_on_scan:
                return []
            stats = Stats()
            try:
                self._samples[table] = self.executor().sample(table, SAMPLE_ITEMS, stats)
            finally:
                if counted:
                    self.total_capacity += stats.capacity
        return self._samples[table]

    def change_table(self, statement: ast.Ddl) -> Result:
        """CREATE/ALTER/DROP TABLE, CREATE/DROP INDEX: guarded, sent, waited for."""
        from dynosql.statements.table import run_ddl

        return run_ddl(self, statement)

    @property
    def can_confirm(self) -> bool:
        """Whether a question can get a yes: --yes, or a front door that can ask."""
        return self.assume_yes or self.confirm is not None

    def confirmed(self, question: str, refusal: str) -> bool:
        """Ask `question` (a write that needs a confirmation, DROP TABLE) through the front
        door: yes with --yes; GuardError (exit 3) with `refusal` where nobody can be asked."""
        if self.assume_yes:
            return True
        if self.confirm is None:
            raise GuardError(refusal)
        return bool(self.confirm(question))

    def tell(self, text: str) -> None:
        """Say `text` now, through the front door (stderr, the REPL's screen)."""
        if self.notice is not None:
            self.notice(text)

    def sample_attributes(self, table: str, limit: int) -> list[str]:
        """Attribute names seen in the first `limit` items of the table's sample (nothing is
        read when `limit` is 0)."""
        if limit <= 0:
            return []
        names: set[str] = set()
        for item in self.sample(table)[:limit]:
            names.update(item)
        return sorted(names)

    def executor(self) -> Executor:
        limits = Limits(
            max_rcu=self.settings.max_rcu,
            rate_limit=self.settings.rate_limit,
            deadline=float(self.settings.deadline),
        )
        return Executor(
            self.client,
            self.estimating,
            limits,
            self.progress,
            self.cancelled,
            unprojectable=self.unprojectable,
            sleep=self.sleep,
        )

    def _select(self, statement: ast.Select) -> Result:
        from dynosql.hints import advisor

        statement, plan, hints = advisor.prepare(self, statement)
        self.guard(plan, hints)
        stats = Stats(expected_items=plan.estimate.items if plan.is_scan else None)
        warnings = [*hints, *plan.warnings]
        result = Result(columns_of(statement, plan.table), iter(()), stats, warnings)
        result.open_columns = statement.items is None
        rows = self._rows(plan, stats, result.notes)
        result.rows = advisor.after_rows(self, rows, plan, result.notes, hints)
        return result

    def read(self, plan: Plan, stats: Stats) -> Iterator[dict]:
        """Every item `plan` reads that passes its client-side checks, its cost added to
        `stats` and, once the items are consumed (or abandoned), to the session's total."""
        try:
            yield from self.executor().items(plan, stats)
            if plan.then is not None:  # reached only when the rows fell short of LIMIT
                yield from self.executor().items(plan.then, stats)
        finally:
            self.total_capacity += stats.capacity

    def read_wire_pages(
        self,
        plan: Plan,
        stats: Stats,
        reduce: Callable[[list[dict], list[int]], Any],
        reduce_body: Callable[[bytes | str], Any] | None = None,
    ) -> Iterator[Any]:
        """`read` for a full Scan whose items stay in the wire form: `reduce` of each page's
        items and sizes (or `reduce_body` of its bytes), computed where the page was read
        (SHOW HOT KEYS)."""
        try:
            yield from self.executor().wire_pages(plan, stats, reduce, reduce_body)
        finally:
            self.total_capacity += stats.capacity

    def _rows(self, plan: Plan, stats: Stats, notes: list[str] | None = None) -> Iterator[dict]:
        statement = plan.statement
        if plan.count_only:
            try:
                count = self.executor().count(plan, stats)
            finally:
                self.total_capacity += stats.capacity
            yield from aggregate_rows(statement, count_group(statement, count))
        elif statement.is_aggregate:
            budget = self.memory_budget()
            groups = group(statement, self.read(plan, stats), budget, notes)
            yield from aggregate_rows(statement, groups, budget, notes)
        else:
            yield from select_rows(
                statement,
                plan.table,
                self.read(plan, stats),
                plan.sort,
                notes,
                self.memory_budget(),
            )

    def memory_budget(self) -> int | None:
        """Bytes a statement's client-side sort or grouping may hold before spilling."""
        budget = self.settings.memory_budget
        return None if budget is None else int(budget * 1024 * 1024)

    def guard(self, plan: Plan, hints: list[str] | None = None) -> None:
        """Refuse a Scan before any request when --fail-on-scan is set (naming the likely
        mistake, when a hint has one), or when its estimate (a known table size) already
        exceeds --max-rcu."""
        if plan.is_scan and self.settings.fail_on_scan:
            hinted = "".join(f"; hint: {h}" for h in hints or ())
            raise GuardError(
                f"refused: this statement would Scan {plan.table.name} ({plan.estimate.text()}) "
                f"and --fail-on-scan is set{hinted}"
            )
        cap = self.settings.max_rcu
        if plan.is_scan and cap is not None and plan.estimate.items and plan.estimate.rcu > cap:
            raise GuardError(
                f"refused: this statement would Scan {plan.table.name} ({plan.estimate.text()}), "
                f"more than --max-rcu {cap}; add a key condition or a LIMIT, or raise the limit"
            )

    def write(self, statement: ast.Write | ast.Transaction) -> Result:
        """Run a bound INSERT/UPSERT/REPLACE/UPDATE/DELETE, or BEGIN/COMMIT/ROLLBACK (see
        dynosql.statements.write for the guards)."""
        if isinstance(statement, ast.Transaction) or self.transaction is not None:
            from dynosql.statements.transaction import run_in_transaction

            return run_in_transaction(self, statement)
        from dynosql.statements.write import run_write

        return run_write(self, statement)

    def undo(self, journal: str) -> Result:
        """Restore what a journal recorded (items changed since are listed, not touched)."""
        from dynosql.statements.write import run_undo

        return run_undo(self, journal)

    def _explain(self, explain: ast.Explain) -> Result:
        if not isinstance(explain.statement, ast.Select):
            from dynosql.statements.write_explain import explain_write

            return explain_write(self, explain)
        statement = explain.statement
        if statement.export is not None or self.settings.engine != "dynamodb":
            from dynosql.engines.run import explain_engine

            engine_lines = explain_engine(self, statement)
            result = Result(["plan"], iter([{"plan": line} for line in engine_lines]), kind="plan")
            result.document = {"engine": self.settings.engine, "plan": engine_lines}
            return result
        from dynosql.hints import advisor

        _statement, plan, hints = advisor.prepare(self, statement, read=False)
        document = plan.document()
        lines = explain_lines(plan)
        lines[2:2] = [f"hint: {h}" for h in hints]
        if plan.is_scan:
            from dynosql.engines.run import price_lines

            lines.extend(price_lines(self, plan))
        lines.extend(f"note: {note}" for note in self.capabilities.notes())
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
                "bytes_read": stats.bytes_read if stats.bytes_exact else None,
                "capacity_estimated": stats.capacity_estimated,
                "seconds": round(stats.elapsed, 6),
            }
            read = stats.bytes_text()
            lines.append(
                f"actual: {stats.requests} request(s), {stats.items_scanned} items scanned, "
                + (f"{read}, " if read else "")
                + f"{rows} rows, {stats.capacity_text()}, {stats.elapsed:.3f}s"
            )
        result = Result(
            ["plan"], iter([{"plan": line} for line in lines]), Stats(), [], kind="plan"
        )
        result.document = document
        if explain.analyze:
            result.stats = stats
        return result

    def _show_tables(self) -> Result:
        return Result(["table"], iter([{"table": n} for n in self.tables()]))

    # --- settings ------------------------------------------------------------------------------

    def set(self, name: str, value: str) -> Result:
        """Change a setting (SET, and the REPL's backslash commands): SettingError when the
        name or value is not accepted."""
        setting = self.settings.set(name, value)
        shown = self.settings.show(setting.name)
        return Result([], iter(()), kind="status", title=f"SET {setting.name} = {shown}")

    def settings_result(self) -> Result:
        """Every setting with its value and meaning."""
        return Result(["setting", "value", "meaning"], iter(self.settings.rows()))

    def _set(self, option: ast.SetOption) -> Result:
        try:
            return self.set(option.name, option.value)
        except SettingError as err:
            raise SqlError(str(err), option.pos.line, option.pos.col) from err


# --- parameters ----------------------------------------------------------------------------------


# A value reads as a number only in canonical form: "0042" stays a string (an ID, a zip code).
_NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")


def parse_param(text: str) -> tuple[str, Any]:
    """``name=value`` (a number if it reads as one, else a string) or ``name:=json``."""
    if ":=" in text and ("=" not in text.split(":=", 1)[0]):
        name, raw = text.split(":=", 1)
        try:
            value = json.loads(
                raw, parse_float=values.number, parse_int=values.number, parse_constant=_no_constant
            )
        except json.JSONDecodeError:
            raise ValueError(f"-v {name}:= takes a JSON value, got {raw!r}") from None
        except ValueError as err:  # NaN, Infinity, more than 38 digits
            raise ValueError(f"-v {name}:= {err}") from None
        return name.strip(), _from_json(value)
    if "=" not in text:
        raise ValueError(f"-v takes name=value, got {text!r}")
    name, raw = text.split("=", 1)
    if _NUMBER.match(raw.strip()):
        return name.strip(), values.number(raw.strip())
    return name.strip(), raw


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a number DynamoDB can store")


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    return value


def bind(statement: Any, params: dict[str, Any]) -> Any:
    """Replace every :name with its value; an unbound one is an error with its position."""

    def value(node: Any) -> ast.Literal | None:
        if not isinstance(node, ast.Param):
            return None
        if node.name not in params:
            raise SqlError(
                f"no value for :{node.name} (give one with -v {node.name}=value)",
                node.pos.line,
                node.pos.col,
            )
        return ast.Literal(params[node.name], node.pos)

    def limit(node: Any) -> Any:
        if isinstance(node, ast.Select) and isinstance(node.limit, ast.Literal):
            return dataclasses.replace(node, limit=_limit_value(node.limit))
        return node

    return ast.rewrite(statement, value, limit)


def _limit_value(literal: ast.Literal) -> int:
    value = literal.value
    if (
        isinstance(value, Decimal)
        and value == value.to_integral_value()
        and 0 <= value <= MAX_LIMIT
    ):
        return int(value)
    shown = values.format_number(value) if isinstance(value, Decimal) else repr(value)
    raise SqlError(
        f"LIMIT takes a whole number from 0 to {MAX_LIMIT}, got {shown}",
        literal.pos.line,
        literal.pos.col,
    )


__all__ = ["PlanError", "Session", "Settings", "bind", "make_client", "parse_param"]
