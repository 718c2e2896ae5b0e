"""The library API: ``Session(...).execute(sql)``. The CLI and the REPL are thin over this.

A Session owns one DynamoDB client, the settings and what a session remembers (the catalog
cache, the open transaction, the capacity ledger), all held by its `Context`, the narrow object
the statement kinds receive. It runs the one direction of flow for every statement the same
way: parse → bind → look the kind up in the registry (dynosql.statements) → the guard pipeline
(dynosql.guards: transaction membership, --read-only, the Scan guards) → the kind runs it
(plan → execute → evaluate), handing back a `Result` whose rows stream.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from dynosql import guards
from dynosql.context import Context, Doors
from dynosql.dynamo.backend import Backend
from dynosql.dynamo.capabilities import install as install_projection_check
from dynosql.dynamo.client import Unconfigured, make_client
from dynosql.dynamo.retry import Sleep
from dynosql.entities.catalog import Entities
from dynosql.errors import DynosqlError, PlanError, SqlError
from dynosql.plan.observed import Observed
from dynosql.plan.planner import Options
from dynosql.plan.port import DYNAMODB, EMBEDDED, Capabilities, Ledger
from dynosql.plan.schema import TableInfo
from dynosql.result import Changes, ProgressSink, Result, Row, carried_by
from dynosql.settings import Settings
from dynosql.sql import ast, parse_script
from dynosql.sql.bind import bind, parse_param
from dynosql.sql.spelling import closest
from dynosql.statements import kind_for, kind_of
from dynosql.statements.kind import Planned

if TYPE_CHECKING:
    from dynosql.entity_model import Entity
    from dynosql.local.embedded import LocalDynamo
    from dynosql.result import WriteStats

T = TypeVar("T")


class _Door(Generic[T]):
    """A Session attribute that is the front door's: kept on the session's `Doors`."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, session: Session, owner: type | None = None) -> T:
        return getattr(session.doors, self.name)

    def __set__(self, session: Session, value: T) -> None:
        setattr(session.doors, self.name, value)


class Session:
    """One connection's worth of state. Thread-compatible, not thread-safe.

    The only door to DynamoDB: the command line, the REPL and library users call these methods;
    none of them holds a client of its own."""

    # The front door's way to ask before a write that needs a confirmation or a destructive
    # schema change: a question in, yes/no out; None where nobody can be asked (a script:
    # refused unless assume_yes, i.e. --yes). notice: say something before a statement ends.
    confirm: _Door[Callable[[str], bool] | None] = _Door()
    assume_yes: _Door[bool] = _Door()
    notice: _Door[Callable[[str], None] | None] = _Door()
    progress: _Door[ProgressSink | None] = _Door()
    # a person at the REPL: hints may read a bounded sample (scripts: nothing not asked for)
    interactive: _Door[bool] = _Door()

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
        settings = settings or Settings()
        if client is None:
            client = make_client(endpoint_url, region, profile, settings=settings)
            if isinstance(client, Unconfigured):  # AWS itself (an endpoint gets a region)
                capabilities = capabilities or DYNAMODB
        from dynosql.dynamo import wire

        wire.install(client)
        install_projection_check(client)
        self.settings = settings
        self.doors = Doors(progress=progress)
        self.cancelled = threading.Event()  # set by cancel(): reads and waits stop
        self.port = Backend(
            client,
            settings,
            capabilities=capabilities,
            cancelled=self.cancelled,
            sleep=sleep,
            progress=lambda: self.doors.progress,
            may_sample=lambda: not settings.fail_on_scan,
            suggest=closest,
        )
        # what the session remembers between statements (the kinds see it through a Context)
        self.observed = Observed()  # partitions read whole, for EXPLAIN's estimates
        self.entities = Entities()  # CREATE ENTITY's definitions
        self.exports: dict[str, str] = {}  # table → the export ARN taken this session
        self.journal_file: str | None = None  # --journal FILE (else one file per statement)
        self._transaction: Any = None  # the writes queued since BEGIN
        self._last_write: WriteStats | None = None
        # the last statement's result, whose rows may still be read, and the port's catalog
        # version when they were handed out: what they carried is applied (`_settle`) before
        # the next statement, however far they were read
        self._streaming: tuple[Result, int] | None = None
        self.params = dict(params or {})
        self.embedded: LocalDynamo | None = None  # the server Session.local() started

    @classmethod
    def local(cls, load_examples: bool = True, **kwargs: Any) -> Session:
        """A session on the embedded DynamoDB (moto, in-process), loaded with the examples; its
        exports go to the embedded S3 unless export_s3 says otherwise (--engine export works
        with no setup)."""
        from dynosql.local.embedded import start_local

        server = start_local(load_examples=load_examples)
        session = cls(server.client(), capabilities=EMBEDDED, **kwargs)
        session.embedded = server
        session.port.embedded = True
        if not session.settings.export_s3:
            session.settings.export_s3 = server.export_s3
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

    # --- what the front doors read --------------------------------------------------------

    @property
    def client(self) -> Any:
        """The boto3 client the session's backend port sends through (for library users)."""
        return self.port.client

    @property
    def context(self) -> Context:
        """The session as its next statement sees it: a read-only view (a new one each time)."""
        return Context(
            self.port,
            self.settings,
            self.doors,
            self.observed,
            self.cancelled,
            self._transaction,
            self.journal_file,
            MappingProxyType(self.exports),
            self.entities,
        )

    @property
    def capabilities(self) -> Capabilities:
        return self.port.capabilities

    @property
    def estimating(self) -> bool:
        return self.port.estimating

    @property
    def ledger(self) -> Ledger:
        """The capacity this session has consumed: read and write units apart."""
        return self.port.ledger

    @property
    def total_capacity(self) -> Decimal:
        """Read units consumed by the session (the REPL toolbar's "RCU used")."""
        return self.port.ledger.rcu

    @property
    def last_write(self) -> WriteStats | None:
        """The last statement's writes, when it wrote (its journal: what undo restores)."""
        return self._last_write

    @property
    def in_transaction(self) -> bool:
        return self._transaction is not None

    @property
    def catalog_version(self) -> int:
        return self.port.catalog_version

    @property
    def endpoint(self) -> str:
        return self.port.endpoint

    @property
    def region(self) -> str:
        return self.port.region

    def pause(self, seconds: float) -> None:
        """Wait `seconds`, stopped by Ctrl-C or `cancel` (the REPL's ``\\watch``)."""
        self.port.pause(seconds)

    # --- running SQL ----------------------------------------------------------------------

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
        self, statement: ast.Statement, params: dict[str, Any] | None = None, *, typed: bool = False
    ) -> Result:
        """The one way a statement runs: bound, its kind from the registry, the guard pipeline
        from its declared effects, planned once, the Scans of that plan judged (`typed`: a
        person typed it at the REPL, so a large Scan is asked about first), then the kind runs
        the same plan, handing the pipeline each change it is about to make (`guards.Ask`);
        what it changed in the session comes back in its result, or in the error that stopped
        it, and is applied here (`_apply`)."""
        self._settle()
        self.cancelled.clear()
        self._last_write = None
        bound = self.resolve(self.bind(statement, params))
        ctx = self.context
        kind = kind_for(bound, ctx.transaction is not None)
        label, effects = kind.label(bound), kind.effects(bound)
        guards.admit(ctx, label, effects)
        if effects.ends_transaction:  # COMMIT, ROLLBACK: over, however they end
            self._transaction = None
        planned = kind.plan(ctx, bound, False)
        guards.reads(ctx, label, planned.scans, planned.unbounded, typed)
        port = self.port
        port.changes_allowed = False  # until the pipeline says go (guards.drive)
        catalog = port.catalog_version
        try:
            ran = kind.run(ctx, planned)
            result = (
                ran
                if isinstance(ran, Result)
                else guards.drive(
                    ctx, label, effects, ran, lambda: setattr(port, "changes_allowed", True)
                )
            )
        except BaseException as err:  # Ctrl-C, an error after some requests
            self._apply(carried_by(err), catalog)
            raise
        self._apply(result.stats.take_changes(), catalog)
        result.rows = self._applying(result, iter(result.rows), port.catalog_version)
        self._streaming = (result, port.catalog_version)
        return result

    def _applying(self, result: Result, rows: Iterator[Row], catalog: int) -> Iterator[Row]:
        """`rows`; what the statement changes in the session as they are read (a partition
        read whole, SHOW HOT KEYS' counts) is applied once they end, or stop (Ctrl-C or an
        error while they are read), or when the next statement starts (`_settle`)."""
        try:
            yield from rows
        finally:
            self._apply_streamed(result, catalog)

    def _settle(self) -> None:
        """Apply what the last result's rows carried so far, before the next statement sees
        the session: rows abandoned part-way (a script's result not read to its end, a
        REPL display stopped, a cursor's result left open) then count at a point that does
        not depend on when their generator is closed or collected. Rows read on afterwards
        apply what they carry later when they end."""
        if self._streaming is not None:
            result, catalog = self._streaming
            self._streaming = None
            self._apply_streamed(result, catalog)

    def _apply_streamed(self, result: Result, catalog: int) -> None:
        """What `result`'s rows carried, not yet applied. Rows left open while a later
        statement changed a table (`catalog`: the port's version when they were handed out)
        observed the tables as they were: that is not kept."""
        changes = result.stats.take_changes()
        if catalog != self.port.catalog_version:
            changes = dataclasses.replace(changes, observed=())
        self._apply(changes)

    def _apply(self, changes: Changes, catalog: int | None = None) -> None:
        """What a statement changed in the session (its result's, or its error's); `catalog`:
        the port's catalog version before it ran (a table changed since: what was observed of
        the tables is forgotten first)."""
        if catalog is not None and catalog != self.port.catalog_version:
            self.observed.clear()
        if changes.transaction is not None:
            self._transaction = changes.transaction
        if changes.setting is not None:
            name, value = changes.setting
            setattr(self.settings, name, value)
        for entity in changes.declared:
            self.entities.add(entity)
        for name in changes.dropped:
            self.entities.drop(name)
        if changes.export is not None:
            table, arn = changes.export
            self.exports[table] = arn
        for found in changes.observed:
            self.observed.add(found)
        if changes.wrote is not None:
            self._last_write = changes.wrote

    def transactional(self, statement: ast.Statement) -> bool:
        """Whether BEGIN … COMMIT would queue `statement` (a write) rather than run it: the
        DB-API opens its implicit transaction before the first such statement only, so reads
        and table changes run as they would outside one."""
        return kind_of(statement).transactional

    def bind(self, statement: ast.Statement, params: dict[str, Any] | None = None) -> Any:
        """`statement` with every :name replaced by its value (the session's, then `params`)."""
        return bind(statement, {**self.params, **(params or {})})

    def resolve(self, bound: Any) -> Any:
        """A bound statement with the names of declared entities resolved (unchanged when
        none is declared): ``FROM invoice`` reads the entity's table through its templates;
        a SELECT with joins becomes the JoinSelect that reads its sources."""
        if not self.entities and not ast.has_join(bound):
            return bound
        from dynosql.statements.entity_resolve import resolve

        return resolve(self.context, bound)

    def planned(self, statement: ast.Statement) -> Planned[Any]:
        """`statement` bound and planned by its kind as `run_statement` plans it, once, as for
        EXPLAIN (nothing read): what tools and tests look at, the plan and the Scans the
        guards would judge."""
        self._settle()
        bound = self.resolve(self.bind(statement))
        return kind_for(bound, self.in_transaction).plan(self.context, bound, True)

    def options(self) -> Options:
        return self.context.options()

    def table(self, name: str, fresh: bool = False) -> TableInfo:
        """A table's keys, indexes and sizes (DescribeTable, cached; `fresh`: sent now, to
        show the table as it is, its counts and status included)."""
        return self.context.table(name, fresh)

    def tables(self, pattern: str | None = None) -> list[str]:
        """The table names, sorted; `pattern` is a glob such as ``aud*``."""
        return self.context.table_names(pattern)

    def refresh(self) -> None:
        """Forget what is cached about tables, on request (``\\refresh``): changed elsewhere.
        A change this session sends is forgotten by the port itself (`Port.change_table`)."""
        self.port.refresh()
        self.observed.clear()

    def sample(self, table: str) -> list[dict[str, Any]]:
        return self.context.sample(table)

    def sample_attributes(self, table: str, limit: int) -> list[str]:
        """Attribute names seen in the first `limit` items of the table's sample (nothing is
        read when `limit` is 0)."""
        if limit <= 0:
            return []
        names: set[str] = set()
        for item in self.sample(table)[:limit]:
            names.update(item)
        return sorted(names)

    def undo(self, journal: str = "", *, last: bool = False, force_target: bool = False) -> Result:
        """Restore what a journal recorded (items changed since are listed, not touched);
        `last`: the newest journal of a write (UNDO LAST)."""
        return self.run_statement(ast.Undo(journal, last=last, force_target=force_target))

    # --- entities -------------------------------------------------------------------------

    def entity_names(self) -> list[str]:
        """The declared entities' names (completion offers them beside the tables)."""
        return self.entities.names()

    def entity(self, name: str) -> Entity | None:
        """A declared entity's definition, or None."""
        return self.entities.get(name)

    def load_schemas(self, paths: list[str]) -> None:
        """Declare the CREATE ENTITY statements of schema files, in order (``--schema``, the
        config's ``schema``); the last one is where the REPL offers to append new ones."""
        from pathlib import Path

        from dynosql.statements.entity_defs import load_schema

        for name in paths:
            path = Path(name).expanduser()
            for entity in load_schema(self.context, path):
                self.entities.add(entity, path)
            self.entities.schema_file = path

    def load_models(self, paths: list[str]) -> list[str]:
        """``--local --model``: the embedded DynamoDB made with each NoSQL Workbench model's
        tables and items, its facets declared as entities; the notes on what was left out."""
        from pathlib import Path

        from dynosql.statements.models import load_local

        if self.embedded is None:
            raise DynosqlError(
                "--model starts the embedded DynamoDB with a model: it needs --local "
                "(on another endpoint: IMPORT MODEL 'FILE')"
            )
        notes: list[str] = []
        for name in paths:
            said, declared = load_local(self.context, self.embedded, name)
            self.port.refresh()  # its tables were made on the server, not through the port
            notes.extend(said)
            for entity in declared:
                self.entities.add(entity, Path(name))
        return notes

    # --- settings -------------------------------------------------------------------------

    def set(self, name: str, value: str) -> Result:
        """Change a setting (SET, and the REPL's backslash commands): SettingError when the
        name or value is not accepted."""
        from dynosql.statements.setting import set_setting

        result = set_setting(self.context, name, value)
        self._apply(result.stats.take_changes())
        return result

    def settings_result(self) -> Result:
        """Every setting with its value and meaning, then where requests go (not a setting:
        the embedded server's URL and credentials, for boto3 or the AWS CLI)."""
        rows = self.settings.rows()
        if self.embedded is not None:
            meaning = (
                "the embedded DynamoDB (moto), while dynosql runs: "
                f"{self.embedded.connection_text()}"
            )
        else:
            meaning = "where requests go (--endpoint-url, else AWS in the region)"
        rows.append({"setting": "endpoint", "value": self.endpoint, "meaning": meaning})
        return Result(["setting", "value", "meaning"], iter(rows))


__all__ = ["PlanError", "Session", "Settings", "bind", "make_client", "parse_param"]
