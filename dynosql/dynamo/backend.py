"""The boto3 adapter of the backend port (`dynosql.plan.port.Port`): every AWS request a
statement makes, DynamoDB's, S3's and Athena's, goes through one `Backend`.

It holds the session's client (and the S3 and Athena clients made like it), the catalog cache,
what it learned of the backend (`Capabilities`), and what every request shares: the one retry
policy with the session's deadline, cancellation event and sleep (`dynosql.dynamo.retry`), the
read and write limits of the settings (``--max-rcu``, ``--max-wcu``, ``--rate-limit``), and the
capacity ledger, to which the reader and the writer add each answer's units as it arrives.
Every wait (a DDL's, an export's, an Athena query's, a pace) is the policy's: cancellable.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.dynamo.capabilities import from_response, probe
from dynosql.dynamo.catalog import Catalog, describe
from dynosql.dynamo.reader import Executor, Limits
from dynosql.dynamo.retry import RetryPolicy, Sleep
from dynosql.errors import DynosqlError, ExecutionError, GuardError, translate_error
from dynosql.plan.port import SAMPLE_ITEMS, Capabilities, Ledger, Page, Port
from dynosql.result import ProgressSink, Stats, WriteStats

if TYPE_CHECKING:
    from dynosql.dynamo.writer import WriteLimits, Writer
    from dynosql.plan.ddl import Call
    from dynosql.plan.model import Plan
    from dynosql.plan.schema import TableInfo
    from dynosql.settings import Settings

EXPORT_POLLS = (0.2, 10.0)  # DescribeExport: 0.2 s, doubling, then every 10 s
ATHENA_POLLS = (0.2, 5.0)  # GetQueryExecution: 0.2 s, doubling, then every 5 s

# The error a table change meets when it is sent again after DynamoDB acted on a try whose
# answer was lost (a dropped connection, a 5xx after the change): the table is already there,
# or gone.
_DONE_BEFORE = {"CreateTable": "ResourceInUseException", "DeleteTable": "ResourceNotFoundException"}


class Backend(Port):
    """One session's backend: see the module's docstring. `progress` gives the front door's
    progress sink (it may change between statements); `may_sample` says whether a sample
    page may be read (never under ``--fail-on-scan``); `suggest` gives the likely names for a
    table name that is not there (did-you-mean)."""

    def __init__(
        self,
        client: Any,
        settings: Settings,
        *,
        capabilities: Capabilities | None = None,
        cancelled: threading.Event | None = None,
        sleep: Sleep = time.sleep,
        progress: Callable[[], ProgressSink | None] = lambda: None,
        may_sample: Callable[[], bool] = lambda: True,
        suggest: Callable[[str, list[str]], list[str]] = lambda _name, _names: [],
        embedded: bool = False,
    ):
        self.client = client
        self.settings = settings
        self.cancelled = cancelled if cancelled is not None else threading.Event()
        self.sleep = sleep  # every retry, poll and pacing wait (tests give a quicker one)
        self.ledger = Ledger()
        # closed by the Session as each statement starts, opened when the guards say go: a
        # kind that changes something without handing the pipeline an Ask is refused here
        self.changes_allowed = True
        self.embedded = embedded  # the in-process server of --local (its port changes per run)
        self.unprojectable: set[str] = set()  # tables moto failed to project (capabilities.py)
        self._capabilities = capabilities
        self._progress = progress
        self._may_sample = may_sample
        self._samples: dict[str, list[dict[str, Any]]] = {}
        # bumped when a table changes (or on refresh()): caches elsewhere (completion) follow
        self.catalog_version = 0
        self._aws_clients: dict[str, Any] = {}
        # moto reports no table sizes: the catalog measures them on a sample, an emulator's
        # workaround that is not added to the ledger
        self.catalog = Catalog(
            client,
            lambda: self.capabilities,
            lambda name: self.sample(name, counted=False),
            self.policy,
            heard=self._heard,
            suggest=suggest,
        )

    # --- what the backend is -----------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can be trusted with: asked once, on first need."""
        if self._capabilities is None:
            self._capabilities = probe(self.client, self.policy())
        return self._capabilities

    def _heard(self, response: dict[str, Any]) -> None:
        """An answer from the endpoint (DescribeTable's): its Server header says what the
        backend is, as the probe's would, so a statement that describes a table first sends
        no ListTables probe."""
        if self._capabilities is None:
            self._capabilities = from_response(response)

    @property
    def estimating(self) -> bool:
        return self.capabilities.estimating

    @property
    def endpoint(self) -> str:
        return str(getattr(self.client.meta, "endpoint_url", ""))

    @property
    def region(self) -> str:
        return str(getattr(self.client.meta, "region_name", ""))

    def target(self, table: str | None = None) -> dict[str, str]:
        """Where this session's writes go, as the journal's header records it and undo checks
        it: the endpoint (``embedded`` for --local, whose port is new in every process), the
        region, and the table's ARN where DescribeTable gave one (it names the account: the
        same endpoint and region under another profile is another target)."""
        target = {"endpoint": "embedded" if self.embedded else self.endpoint, "region": self.region}
        if table is not None and not self.embedded:  # --local: a new account per process
            try:
                arn = self.table(table).raw.get("TableArn")
            except DynosqlError:
                arn = None  # the table is gone: endpoint and region still say where
            if arn:
                target["table_arn"] = str(arn)
        return target

    def policy(self) -> RetryPolicy:
        """The one retry policy with this session's deadline, Ctrl-C and sleep."""
        return RetryPolicy.for_client(
            self.client, float(self.settings.deadline), self.cancelled, self.sleep
        )

    def pause(self, seconds: float) -> None:
        self.policy().wait(seconds)

    def aws_client(self, service: str) -> Any:
        """A client for another AWS service (``s3``, ``athena``) with this session's account,
        region and credentials."""
        if service not in self._aws_clients:
            from dynosql.dynamo.clients import client_like

            self._aws_clients[service] = client_like(self.client, service)
        return self._aws_clients[service]

    # --- tables ------------------------------------------------------------------------------

    def table(self, name: str, fresh: bool = False) -> TableInfo:
        return self.catalog.table(name, fresh)

    def table_names(self, fresh: bool = False) -> list[str]:
        return self.catalog.table_names(fresh)

    def refresh(self) -> None:
        self.catalog.forget()
        self._samples.clear()
        self.catalog_version += 1

    def _changed(self, table: str) -> None:
        """A change was sent to `table`: what is cached of it (its description, the table
        names, its sample) is forgotten, here where the change is sent, so that no statement
        can leave a stale catalog behind; `catalog_version` moves on."""
        self.catalog.forget(table)
        self._samples.pop(table, None)
        self.catalog_version += 1

    def sample(self, table: str, counted: bool = True) -> list[dict[str, Any]]:
        """Up to `SAMPLE_ITEMS` items of `table`, read once per session: the sizes moto does
        not report, the attribute names completion offers, the names and types hints compare
        against. One Limit-bounded Scan page (retried, paced, within the deadline, in the
        ledger unless not `counted`); nothing is read when Scans are refused."""
        if table not in self._samples:
            if not self._may_sample():
                return []
            executor = self._executor(ledger=self.ledger if counted else None)
            self._samples[table] = executor.sample(table, SAMPLE_ITEMS, Stats())
        return self._samples[table]

    def has_sample(self, table: str) -> bool:
        return table in self._samples

    def _gate(self, operation: str) -> None:
        if not self.changes_allowed:
            raise GuardError(
                f"refused: {operation} was about to be sent before the guards were asked (a "
                "statement that changes something hands the pipeline an Ask first): nothing "
                "was sent"
            )

    def change_table(self, call: Call) -> dict[str, Any]:
        """One table change through the retry policy. A retried CreateTable that finds the
        table (with the planned keys) or a retried DeleteTable that finds none has done its
        work on an earlier try; the same error on the first try is the user's and is raised."""
        self._gate(call.operation)
        done = _DONE_BEFORE.get(call.operation)
        try:
            sent = self.policy().send(
                getattr(self.client, call.method), answers=(done,) if done else (), **call.params
            )
        except Exception as err:
            if type(err).__name__ == "ParamValidationError":  # botocore's check, before sending
                detail = " ".join(str(err).split("\n")[1:]) or str(err)
                raise ExecutionError(f"{call.operation} refused by boto3: {detail}") from err
            raise
        finally:  # sent, or maybe sent (a lost answer): the table may have changed either way
            self._changed(call.params["TableName"])
        if sent.error is None:
            return dict(sent.value)
        if sent.tries > 1 and (call.operation == "DeleteTable" or self._made_as_planned(call)):
            return {}
        table = call.params.get("TableName")
        if call.operation == "CreateTable":  # the servers' texts differ (dynalite sends none)
            raise ExecutionError(f"table {table} already exists") from sent.error
        raise translate_error(sent.error, "requests") from sent.error

    def _made_as_planned(self, call: Call) -> bool:
        """Whether the table CreateTable met has the keys it asked for (its earlier try's)."""
        name = call.params["TableName"]
        described = self.policy().call(self.client.describe_table, TableName=name)
        return bool(described["Table"].get("KeySchema") == call.params.get("KeySchema"))

    def watch_table(
        self, table: str, timeout: float
    ) -> Iterator[tuple[float, dict[str, Any] | None]]:
        policy = self.policy()
        for elapsed in policy.polls(timeout):  # cancellable, within `timeout`
            described = describe(policy, self.client, table)
            self.catalog.described(table, described)  # the catalog keeps the newest answer
            yield elapsed, described

    def ttl_attribute(self, table: str) -> str | None:
        answer = self.policy().call(self.client.describe_time_to_live, TableName=table)
        spec = answer.get("TimeToLiveDescription") or {}
        if spec.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
            return spec.get("AttributeName")
        return None

    def point_in_time_recovery(self, table: str) -> bool:
        backups = self.policy().call(self.client.describe_continuous_backups, TableName=table)
        pitr = backups["ContinuousBackupsDescription"].get("PointInTimeRecoveryDescription", {})
        return bool(pitr.get("PointInTimeRecoveryStatus") == "ENABLED")

    def set_point_in_time_recovery(self, table: str, enabled: bool) -> str:
        self._gate("UpdateContinuousBackups")
        answer = self.policy().call(
            self.client.update_continuous_backups,
            TableName=table,
            PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": enabled},
        )
        description = answer.get("ContinuousBackupsDescription") or {}
        return str(
            (description.get("PointInTimeRecoveryDescription") or {}).get(
                "PointInTimeRecoveryStatus", "ENABLED" if enabled else "DISABLED"
            )
        )

    # --- reads -------------------------------------------------------------------------------

    def _executor(self, progress: bool = True, ledger: Ledger | None = None) -> Executor:
        settings = self.settings
        limits = Limits(
            max_rcu=settings.max_rcu,
            rate_limit=settings.rate_limit,
            deadline=float(settings.deadline),
        )
        return Executor(
            self.client,
            self.estimating,
            limits,
            self._progress() if progress else None,
            self.cancelled,
            unprojectable=self.unprojectable,
            sleep=self.sleep,
            first_page_items=self.capabilities.first_page_items,
            ledger=ledger,
        )

    def pages(
        self, plan: Plan, stats: Stats, whole_first: bool = False, progress: bool = True
    ) -> Iterator[Page]:
        return self._executor(progress, self.ledger).pages(plan, stats, whole_first)

    def count_pages(self, plan: Plan, stats: Stats, whole_first: bool = False) -> Iterator[Page]:
        return self._executor(ledger=self.ledger).count_pages(plan, stats, whole_first)

    def segment_pages(self, plan: Plan, stats: Stats) -> Iterator[Page]:
        return self._executor(ledger=self.ledger).segment_pages(plan, stats)

    def wire_pages(
        self,
        plan: Plan,
        stats: Stats,
        reduce: Callable[[list[dict[str, Any]], list[int] | None], Any],
        reduce_body: Callable[[bytes | str], Any] | None = None,
    ) -> Iterator[Any]:
        return self._executor(ledger=self.ledger).wire_pages(plan, stats, reduce, reduce_body)

    def query_page(self, params: dict[str, Any], stats: Stats) -> dict[str, Any]:
        return self._executor(ledger=self.ledger).query_page(params, stats)

    # --- writes ------------------------------------------------------------------------------

    def _write_limits(self, paced: bool = True) -> WriteLimits:
        from dynosql.dynamo.writer import WriteLimits  # loaded by the statements that write

        settings = self.settings
        return WriteLimits(
            max_wcu=settings.max_wcu, rate_limit=settings.rate_limit if paced else None
        )

    def writer(self, stats: WriteStats, *, transactional: bool = False, workers: int = 0) -> Writer:
        """A writer with the session's limits (--max-wcu, --rate-limit), policy and ledger."""
        from dynosql.dynamo.writer import Writer

        kwargs: dict[str, Any] = {"workers": workers} if workers else {}
        return Writer(
            self.client,
            stats,
            estimating=self.estimating,
            limits=self._write_limits(),
            transactional=transactional,
            policy=self.policy(),
            ledger=self.ledger,
            gate=self._gate,
            **kwargs,
        )

    def write_batches(
        self,
        table: str,
        requests: Iterable[dict[str, Any]],
        stats: WriteStats,
        *,
        workers: int = 4,
        paced: bool = True,
        on_written: Callable[[list[dict[str, Any]]], Decimal | None] | None = None,
        on_sending: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> WriteStats:
        from dynosql.dynamo.writer import write_batches

        return write_batches(
            self.client,
            table,
            requests,
            stats=stats,
            estimating=self.estimating,
            limits=self._write_limits(paced),
            workers=workers,
            on_written=on_written,
            on_sending=on_sending,
            policy=self.policy(),
            ledger=self.ledger,
            gate=self._gate,
        )

    # --- exports (S3) and Athena ---------------------------------------------------------------

    def export_table(self, table: str, bucket: str, prefix: str) -> str:
        policy = self.policy()
        name = self.table(table).name
        arn = policy.call(self.client.describe_table, TableName=name)["Table"]["TableArn"]
        response = policy.call(
            self.client.export_table_to_point_in_time,
            TableArn=arn,
            S3Bucket=bucket,
            S3Prefix=prefix,
            ExportFormat="DYNAMODB_JSON",
            # one token for every retry: a request sent again after a lost answer starts no
            # second export (DynamoDB's idempotency for ExportTableToPointInTime)
            ClientToken=uuid.uuid4().hex,
        )
        return str(response["ExportDescription"]["ExportArn"])

    def watch_export(self, arn: str) -> Iterator[dict[str, Any]]:
        policy = self.policy()
        for _elapsed in policy.polls(float("inf"), *EXPORT_POLLS):
            yield policy.call(self.client.describe_export, ExportArn=arn)["ExportDescription"]

    def s3_keys(self, bucket: str, prefix: str) -> list[str]:
        s3 = self.aws_client("s3")
        keys: list[str] = []
        kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
        while True:
            page = self.policy().call(s3.list_objects_v2, **kwargs)
            keys.extend(o["Key"] for o in page.get("Contents", []))
            token = page.get("NextContinuationToken")
            if not page.get("IsTruncated") or not token:
                return keys
            kwargs["ContinuationToken"] = token

    def s3_get(self, bucket: str, key: str) -> bytes:
        s3 = self.aws_client("s3")
        return bytes(self.policy().call(s3.get_object, Bucket=bucket, Key=key)["Body"].read())

    def athena_start(self, sql: str, database: str, workgroup: str, output: str | None) -> str:
        params: dict[str, Any] = {
            "QueryString": sql,
            "QueryExecutionContext": {"Database": database},
            "WorkGroup": workgroup,
        }
        if output:
            params["ResultConfiguration"] = {"OutputLocation": output}
        athena = self.aws_client("athena")
        return str(self.policy().call(athena.start_query_execution, **params)["QueryExecutionId"])

    def watch_athena(self, query_id: str) -> Iterator[dict[str, Any]]:
        athena = self.aws_client("athena")
        policy = self.policy()
        for _elapsed in policy.polls(float("inf"), *ATHENA_POLLS):
            answer = policy.call(athena.get_query_execution, QueryExecutionId=query_id)
            yield answer["QueryExecution"]

    def athena_rows(self, query_id: str) -> Iterator[list[str | None]]:
        athena = self.aws_client("athena")
        token = None
        first = True
        while True:
            params: dict[str, Any] = {"QueryExecutionId": query_id}
            if token:
                params["NextToken"] = token
            page = self.policy().call(athena.get_query_results, **params)
            rows = page["ResultSet"].get("Rows", [])
            if first:
                rows, first = rows[1:], False
            for row in rows:
                yield [d.get("VarCharValue") for d in row.get("Data", [])]
            token = page.get("NextToken")
            if not token:
                return
