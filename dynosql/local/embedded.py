"""The embedded backend: a moto DynamoDB server on 127.0.0.1, in this process, with moto's S3
on the same endpoint for table exports.

``dynosql --local`` and the in-process tests talk to it over real HTTP with an ordinary boto3
client, exactly as they would to AWS. We run ``moto.server.ThreadedMotoServer`` rather than
``mock_aws`` because ``mock_aws`` patches botocore for the whole process: it would also capture
clients meant for another endpoint (a dynalite server, or AWS itself).

Two things the plain ``ThreadedMotoServer`` does not give us, added here:

- **Isolation.** moto keeps its state in process-global backends keyed by account id, so two
  servers in one process would share every table. Each :class:`LocalDynamo` therefore gets its
  own account id, injected into each request it serves (moto's ``x-moto-account-id`` header),
  and forgets that account's tables on :meth:`LocalDynamo.stop`.
- **Quiet.** werkzeug logs every request to stderr, and the traceback of every request moto
  fails on (an ~80-line page for an item holding 1E-130, say); the server keeps those lines to
  itself (:attr:`LocalDynamo.errors`, the last few, for ``--debug``) and the client gets
  moto's HTTP 500 answer, which dynosql reports in one line.
- **DynamoDB's number rule.** DynamoDB refuses arithmetic (``SET v = v + :x``, ``ADD``) whose
  exact result needs more than 38 significant digits or leaves 1E-130 … 9.99…E+125 ("DynamoDB
  only supports precision up to 38 digits"); moto rounds it to 28 digits or fails with a 500.
  Its number addition and subtraction are made to answer as DynamoDB does
  (:func:`_follow_dynamodb_numbers`).
- **DynamoDB's conditions.** moto compares untyped Python values in conditions (a missing
  attribute equals NULL, TRUE equals 1, begins_with/contains of a Binary are false), answers
  HTTP 500 to ``size()`` of a number, and ``SET a = b`` shares b's object;
  `dynosql.local.moto_conditions` makes these answer as DynamoDB does.
- **Capacity.** moto's ConsumedCapacity is a constant; `dynosql.local.metering.Meter`
  replaces it with what DynamoDB would charge, computed by DynamoDB's documented rules.
- **Exports shaped like DynamoDB's.** moto 5.x names an export
  ``…:table/arn:aws:dynamodb:…:table/T/import/<uuid>`` (the table's whole ARN nested in the
  export's, and ``import``: moto's ``TableExport.__init__``, moto/dynamodb/models/table_export.py)
  and writes one data file under a folder id of its own, with no manifest. DynamoDB's export
  ARN is ``<table ARN>/export/<14-digit ms time>-<8 hex>`` and its files are
  ``<prefix>/AWSDynamoDB/<that id>/data/*.json.gz`` listed in ``manifest-files.json``
  (developer guide, "DynamoDB table export output format"). :func:`_export_like_dynamodb`
  reshapes moto's exports so (a standalone moto server still answers with its own shape).

``start_local`` (``--local``) turns point-in-time recovery on for the example tables, and an
export to the server's own bucket (``LocalDynamo.export_s3``, the session's default
``--export-s3``) makes that bucket first, so ``--engine export`` answers with no setup.

boto3 and moto are imported inside the functions that need them: importing this module must
stay cheap for commands that never start a local server.
"""

from __future__ import annotations

import base64
import collections
import copy
import functools
import gzip
import hashlib
import itertools
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from dynosql.local.metering import Meter, read_body
from dynosql.local.moto_answers import answer_item_reads_directly
from dynosql.local.moto_conditions import follow_dynamodb_conditions
from dynosql.local.moto_reads import read_items_cheaply

REGION = "us-east-1"
# --local's bucket in the embedded S3, one per server: moto's bucket names are global to the
# process (as S3's are to the world), and each server has an account of its own
BUCKET_PREFIX = "dynosql-local-"
# Dummy credentials, set on each client only (never in os.environ): moto accepts any.
ACCESS_KEY_ID = "dynosql-local"
SECRET_ACCESS_KEY = "dynosql-local"

_account_ids = itertools.count(100000000001)
_account_lock = threading.Lock()


def _knock(host: str, port: int) -> None:
    """Open and close a connection to the server (it wakes a select() waiting for one)."""
    try:
        socket.create_connection((host, port), timeout=0.2).close()
    except OSError:
        pass


def _next_account_id() -> str:
    with _account_lock:
        return f"{next(_account_ids):012d}"


class _AccountMiddleware:
    """WSGI wrapper that pins every request to one moto account (see module docstring)."""

    def __init__(self, app: Any, account_id: str):
        self.app = app
        self.account_id = account_id

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ["HTTP_X_MOTO_ACCOUNT_ID"] = self.account_id
        return self.app(environ, start_response)


class _FillOnUse:
    """WSGI wrapper that fills the example tables a request names before moto sees it (see
    `LocalDynamo.load_examples`, lazy). S3's requests (exports) and ListTables need none."""

    def __init__(self, app: Any, local: LocalDynamo):
        self.app = app
        self.local = local

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.local._unfilled:
            operation = str(environ.get("HTTP_X_AMZ_TARGET", "")).rpartition(".")[2]
            if operation and operation != "ListTables":
                self.local.fill_examples(_tables_named(operation, read_body(environ)))
        return self.app(environ, start_response)


def _tables_named(operation: str, body: bytes) -> set[str] | None:
    """The tables a DynamoDB request names; None when it names none or this cannot tell (a
    PartiQL statement, an export, an ARN): then every table may be read."""
    try:
        params = json.loads(body) if body else {}
    except ValueError:
        return None
    if not isinstance(params, dict):
        return None
    names: set[str] = set()
    if operation in ("BatchGetItem", "BatchWriteItem"):
        requested = params.get("RequestItems")
        if not isinstance(requested, dict):
            return None
        names.update(requested)
    elif operation in ("TransactGetItems", "TransactWriteItems"):
        for action in params.get("TransactItems") or ():
            for inner in action.values() if isinstance(action, dict) else (None,):
                if not isinstance(inner, dict) or not isinstance(inner.get("TableName"), str):
                    return None
                names.add(inner["TableName"])
    elif isinstance(params.get("TableName"), str):
        names.add(params["TableName"])
    if not names or any(name.startswith("arn:") for name in names):
        return None
    return names


class LocalDynamo:
    """A moto DynamoDB server on 127.0.0.1 and a free port, with its own (empty) account.

    Use as a context manager, or call :meth:`start` and :meth:`stop`::

        with LocalDynamo() as local:
            client = local.client()
            ...
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host = host
        self.port = port
        self._requested_port = port  # 0: a free port, chosen again on every start()
        self.region = REGION
        self.account_id = _next_account_id()
        self.loaded: dict[str, int] = {}  # example dataset -> items put so far
        self.examples: list[str] = []  # the example datasets whose tables were made
        self.load_seconds = 0.0
        self._unfilled: dict[str, Any] = {}  # table -> its dataset, items not yet put
        self._fill_lock = threading.Lock()
        self._server: Any = None
        # what the server would have printed (moto's tracebacks), the last few
        self.errors: collections.deque[str] = collections.deque(maxlen=8)

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> LocalDynamo:
        """Start the server thread; returns self. Port 0 picks a free port."""
        if self._server is not None:
            return self
        from moto.server import ThreadedMotoServer

        _follow_dynamodb_numbers()
        follow_dynamodb_conditions()
        answer_item_reads_directly()
        _export_like_dynamodb()
        _list_handler_methods_once()
        read_items_cheaply()
        server = ThreadedMotoServer(ip_address=self.host, port=self._requested_port, verbose=False)
        server.start()  # returns once the socket is bound; nobody knows the port before this
        wsgi: Any = server._server  # werkzeug's ThreadedWSGIServer, read per request
        _route_dynamodb_once(wsgi.app)
        wsgi.app = _AccountMiddleware(
            _FillOnUse(Meter(wsgi.app, self._backend), self), self.account_id
        )
        keep = self._keep_log
        wsgi.log = keep  # "Error on request: <traceback>" goes through the server's log
        handler = wsgi.RequestHandlerClass
        wsgi.RequestHandlerClass = type(
            "QuietRequestHandler",
            (handler,),
            {
                "log_request": lambda self, *a, **k: None,
                "log": lambda self, type, message, *args: keep(type, message, *args),
            },
        )
        self.port = server.get_host_and_port()[1]
        self._server = server
        return self

    def _keep_log(self, type: str, message: str, *args: Any) -> None:
        """werkzeug's log lines: errors kept (never printed), the rest dropped."""
        if type == "error":
            self.errors.append(message % args if args else message)

    def stop(self) -> None:
        """Stop the server and drop this account's tables from moto's global state."""
        server, self._server = self._server, None
        if server is None:
            return
        # werkzeug's serve_forever sees the shutdown only when its select() returns, which is
        # on its next half-second poll unless a connection wakes it: knock until it has stopped
        # (every `--local` run used to wait up to 0.5 s here before exiting)
        stopper = threading.Thread(target=server.stop, daemon=True)
        stopper.start()
        while stopper.is_alive():
            _knock(self.host, self.port)
            stopper.join(0.02)
        from moto.dynamodb.models import dynamodb_backends

        if self.account_id in list(dynamodb_backends.keys()):
            dynamodb_backends[self.account_id].reset()
        _forget_buckets(self.account_id)

    @property
    def running(self) -> bool:
        return self._server is not None

    def __enter__(self) -> LocalDynamo:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.endpoint_url if self.running else "stopped"
        return f"<LocalDynamo {state} account={self.account_id}>"

    # -- access ---------------------------------------------------------------------------------

    @property
    def endpoint_url(self) -> str:
        if self._server is None:
            raise RuntimeError("LocalDynamo is not running; call start() first")
        return f"http://{self.host}:{self.port}"

    def connection_text(self) -> str:
        """What boto3 or the AWS CLI need to reach this server while it runs (the REPL's
        banner, ``\\settings``, ``--print-endpoint``)."""
        return (
            f"{self.endpoint_url} (region {self.region}, access key {ACCESS_KEY_ID}, "
            f"secret {SECRET_ACCESS_KEY})"
        )

    def client(self, **config: Any) -> Any:
        """A boto3 low-level DynamoDB client for this server.

        Region us-east-1 and dummy credentials are given to the client itself, so nothing is
        read from or written to the environment. ``config`` goes to ``botocore.config.Config``
        (e.g. ``retries={"max_attempts": 2}``); the connection pool defaults to 16 so several
        threads may share the client.
        """
        from botocore.config import Config

        from dynosql.dynamo.aws import boto_session, client

        config.setdefault("max_pool_connections", 16)
        config.setdefault("retries", {"max_attempts": 3, "mode": "standard"})
        return client(
            boto_session(),
            "dynamodb",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
            config=Config(**config),
        )

    def answer_directly(self, client: Any) -> Any:
        """Have this server's application answer `client`'s requests to it in the calling
        thread, without a socket (`dynosql.local.wsgi_client`): the same moto, middleware and
        metering at less than half the round trip. Returns `client`. Handlers the caller
        registers on ``before-send`` still run first; once the server stops, requests go out
        over HTTP (and find nobody). For programs and tests in this process: moto then runs in
        the caller's thread, so a Ctrl-C can stop it halfway through a request (over HTTP the
        server thread finishes it), and no read timeout applies. ``dynosql --local`` keeps
        HTTP for that reason."""
        from dynosql.local.wsgi_client import answer_in_process

        def app() -> Any:
            server = self._server
            return None if server is None else server._server.app

        handler = answer_in_process(
            app, f"{self.host}:{self.port}", lambda text: self._keep_log("error", "%s", text)
        )
        client.meta.events.register_last("before-send", handler)
        return client

    def load_examples(self, names: list[str] | None = None, lazy: bool = False) -> dict[str, int]:
        """Create the example tables (:mod:`dynosql.examples.datasets`) and fill them; returns
        the item counts put. `lazy`: each table's items are put when the first request naming
        it arrives (`_FillOnUse`; a request that names no table, or one this cannot read, fills
        them all), so a ``dynosql --local -e`` of one table does not make the other four
        (0.1 s of its start); nothing is put yet, and {} returned.

        Tables and items go straight into this server's moto backend, in this process, rather
        than through CreateTable and BatchWriteItem over HTTP: moto keeps them the same either
        way, and the HTTP round trips (each serialized by botocore and parsed by werkzeug, all
        under one GIL) were most of the start-up time of ``dynosql --local``: five CreateTable
        requests and their DescribeTable polls alone took 0.3 s of a 1.6 s start
        (`_create_direct`; real requests when moto's backend is not shaped as expected).
        moto's own ``put_item`` then re-validates each item and re-sums its size once per
        attribute (quadratic); the example items are valid (dynalite takes them through the
        API in the tests), so they go into the table as moto's ``Item`` objects directly
        (`_put_direct`), with ``put_item`` as the fallback for a moto whose internals differ."""
        from dynosql.examples import datasets

        chosen = list(datasets.DATASETS) if names is None else list(names)
        unknown = [n for n in chosen if n not in datasets.DATASETS]
        if unknown:
            raise KeyError(
                f"unknown dataset(s): {', '.join(unknown)}; known: {', '.join(datasets.DATASETS)}"
            )
        backend = self._backend()
        for name in chosen:
            dataset = datasets.DATASETS[name]
            self.make_table(dataset.table, backend)
            self.examples.append(name)
            with self._fill_lock:
                self._unfilled[dataset.table_name] = dataset
        if lazy:
            return {}
        self.fill_examples({datasets.DATASETS[name].table_name for name in chosen})
        return {name: self.loaded[name] for name in chosen}

    def make_table(self, table: dict[str, Any], backend: Any = None) -> None:
        """Make a (valid) table from its ``create_table`` kwargs straight in this server's moto
        backend, as the example tables are (`_create_direct`; CreateTable over HTTP where
        moto's backend is not shaped as expected). ``--local --model`` makes its tables so."""
        if not _create_direct(backend or self._backend(), table):
            from dynosql.dynamo import loader

            loader.create_table(self.client(parameter_validation=False), table)

    def fill_examples(self, tables: set[str] | None = None) -> None:
        """Put the items of the example tables made lazily, of `tables` (None: all) that are
        still empty; at most once each, whichever thread asks first."""
        with self._fill_lock:
            if not self._unfilled:
                return
            chosen = list(self._unfilled) if tables is None else tables & self._unfilled.keys()
            for table in chosen:
                dataset = self._unfilled.pop(table)
                self.loaded[dataset.name] = self.put_items(table, dataset.items())

    def put_items(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Store decoded items (`dynosql.values`) that are valid in `table`, straight in this
        server's moto backend as the examples are (`_put_direct`: no BatchWriteItem, no
        re-validation); returns how many."""
        from dynosql.values import encode_item

        put = _put_direct(self._backend(), table)
        n = 0
        for item in items:
            put(encode_item(item))
            n += 1
        return n

    @property
    def bucket(self) -> str:
        return BUCKET_PREFIX + self.account_id

    @property
    def export_s3(self) -> str:
        """Where ``--local`` puts table exports (its default ``--export-s3``)."""
        return f"s3://{self.bucket}/exports/"

    def prepare_exports(self, tables: list[str]) -> None:
        """The export engine with no setup: point-in-time recovery on for `tables`, straight
        in this server's moto backend (milliseconds; four UpdateContinuousBackups and an S3
        client over HTTP took most of a second on a busy machine). The bucket `bucket` is
        made by the first export that names it (`_export_like_dynamodb`), so a session that
        never exports pays nothing for S3."""
        backend = self._backend()
        for table in tables:
            backend.update_continuous_backups(table, {"PointInTimeRecoveryEnabled": True})

    def _backend(self) -> Any:
        """moto's DynamoDB backend of this server's account and region (same process)."""
        from moto.dynamodb.models import dynamodb_backends

        return dynamodb_backends[self.account_id][self.region]


@functools.cache
def _follow_dynamodb_numbers() -> None:
    """moto's number ``+`` and ``-`` (SET arithmetic and ADD both use them) as DynamoDB's: the
    exact result, or DynamoDB's ValidationException when it cannot be stored. Installed once
    per process, on moto's own class; moto runs in this process only as dynosql's embedded
    DynamoDB. A moto whose internals differ is left as it is."""
    try:
        from moto.dynamodb.exceptions import MockValidationException
        from moto.dynamodb.models.dynamo_type import DynamoType
    except ImportError:  # pragma: no cover - another moto layout
        return
    from decimal import Decimal

    from dynosql import values

    add, subtract = DynamoType.__add__, DynamoType.__sub__

    def exact(op: Any, fallback: Any) -> Any:
        def compute(self: Any, other: Any) -> Any:
            if not (self.type == other.type == "N"):
                return fallback(self, other)
            result = op(values.DECIMAL_CONTEXT, Decimal(self.value), Decimal(other.value))
            try:
                values.number(values.format_number(result))
            except ValueError:
                raise MockValidationException(
                    "DynamoDB only supports precision up to 38 digits"
                ) from None
            return DynamoType({"N": values.format_number(result)})

        return compute

    DynamoType.__add__ = exact(type(values.DECIMAL_CONTEXT).add, add)  # type: ignore[method-assign]
    DynamoType.__sub__ = exact(type(values.DECIMAL_CONTEXT).subtract, subtract)  # type: ignore[method-assign]


def _route_dynamodb_once(dispatcher: Any) -> None:
    """moto's dispatcher finds the service of every request anew: it lists moto's package
    folder (a stat of each of its ~150 entries) and tries every service's URL patterns, twice a
    request (0.8 ms of a 2 ms GetItem, profiled in this process). A DynamoDB request names its
    API in its X-Amz-Target header, so the first one's answer serves the rest; S3's requests
    (exports) and anything else go moto's way. A dispatcher shaped otherwise is left alone."""
    original = getattr(dispatcher, "get_application", None)
    if original is None:  # pragma: no cover - another moto
        return
    found: list[Any] = []

    def get_application(environ: dict[str, Any]) -> Any:
        if not str(environ.get("HTTP_X_AMZ_TARGET", "")).startswith("DynamoDB_20120810."):
            return original(environ)
        if not found:
            found.append(original(environ))
        return found[0]

    dispatcher.get_application = get_application


@functools.cache
def _list_handler_methods_once() -> None:
    """moto lists its response handler's methods (``inspect.getmembers`` of the class) on every
    request to check the action is one (0.45 ms a request, profiled): listed once per class
    here. Installed once per process; a moto whose internals differ is left as it is."""
    try:
        from moto.core import responses
    except ImportError:  # pragma: no cover - another moto layout
        return
    listed = getattr(responses, "method_names_from_class", None)
    if listed is not None:
        responses.method_names_from_class = functools.lru_cache(maxsize=None)(listed)


def _create_direct(backend: Any, table: dict[str, Any]) -> bool:
    """Create one (valid) example table in moto's backend as moto's CreateTable handler does
    (moto 5.x: ``DynamoDBBackend.create_table``; its tables and indexes are ACTIVE at once).
    False when the backend's signature differs: the caller sends a real CreateTable. A deep
    copy, as moto keeps (and UpdateTable changes) what it is given."""
    table = copy.deepcopy(table)
    try:
        backend.create_table(
            table["TableName"],
            schema=table["KeySchema"],
            throughput=table.get("ProvisionedThroughput"),
            attr=table["AttributeDefinitions"],
            global_indexes=table.get("GlobalSecondaryIndexes") or [],
            indexes=table.get("LocalSecondaryIndexes") or [],
            streams=table.get("StreamSpecification"),
            billing_mode=table.get("BillingMode", "PROVISIONED"),
            sse_specification=table.get("SSESpecification"),
            tags=table.get("Tags", []),
            deletion_protection_enabled=table.get("DeletionProtectionEnabled", False),
            warm_throughput=table.get("WarmThroughput"),
        )
    except TypeError:  # pragma: no cover - another moto's signature
        return False
    return True


def _put_direct(backend: Any, table_name: str) -> Any:
    """A function that stores one (valid) wire-form item in moto's table as ``put_item``
    would, without its checks; ``backend.put_item`` itself when moto's table is not shaped
    as expected (moto 5.x: ``Table.items`` keyed by hash and range ``DynamoType``)."""

    def slow(item: dict[str, Any]) -> None:
        backend.put_item(table_name, item)

    try:
        from moto.dynamodb.models.dynamo_type import DynamoType, Item

        table = backend.get_table(table_name)
        hash_name, range_name, items = table.hash_key_attr, table.range_key_attr, table.items
    except (ImportError, AttributeError):
        return slow

    def fast(item: dict[str, Any]) -> None:
        hash_value = DynamoType(item[hash_name])
        range_value = DynamoType(item[range_name]) if range_name else None
        stored = Item(hash_value, range_value, {})
        # dict.update, not the size-checking __setitem__ of moto's LimitedSizeDict
        dict.update(stored.attrs, {k: DynamoType(v) for k, v in item.items()})
        if range_value is not None:
            items[hash_value][range_value] = stored
        else:
            items[hash_value] = stored

    return fast


def start_local(load_examples: bool = True) -> LocalDynamo:
    """Start a :class:`LocalDynamo` and, by default, make the example tables, each filled on
    first use (`LocalDynamo.load_examples`, lazy).

    The server is stopped again if loading fails. ``local.examples`` names the datasets,
    ``local.loaded`` holds the item counts of those filled so far, and ``local.load_seconds``
    how long start + load took.
    """
    began = time.perf_counter()
    local = LocalDynamo().start()
    try:
        if load_examples:
            local.load_examples(lazy=True)
        from dynosql.examples import datasets

        local.prepare_exports([datasets.DATASETS[name].table_name for name in local.examples])
    except BaseException:
        local.stop()
        raise
    local.load_seconds = time.perf_counter() - began
    return local


def _forget_buckets(account_id: str) -> None:
    """Drop one account's buckets from moto's S3. Not ``S3Backend.reset``: it also closes the
    files of every other account's objects (moto tracks them in one global list), which would
    break another server running in this process."""
    try:
        from moto.s3.models import s3_backends
    except ImportError:
        return
    if account_id not in list(s3_backends.keys()):
        return
    for backend in list(s3_backends[account_id].values()):
        for name, bucket in list(backend.buckets.items()):
            for key in list(bucket.keys.values()):
                dispose = getattr(key, "dispose", None)
                if dispose is not None:
                    dispose()
            s3_backends.bucket_accounts.pop(name, None)
            backend.buckets.pop(name, None)


def _export_like_dynamodb() -> None:
    """Reshape moto's table exports as DynamoDB's (see the module docstring): the export ARN,
    the folder named by the export id, the data file ``*.json.gz`` and ``manifest-files.json``
    and ``manifest-summary.json`` beside it. Applied once per process; left alone for a moto
    whose ``TableExport`` is not shaped as 5.x's."""
    try:
        from moto.dynamodb.models.table_export import TableExport
    except ImportError:
        return
    if getattr(TableExport, "_dynosql_shaped", False):
        return
    if not hasattr(TableExport, "_backup_to_s3_file"):
        return
    moto_init = TableExport.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        moto_init(self, *args, **kwargs)
        if self.s3_bucket == BUCKET_PREFIX + self.account_id:  # the server's own: made on demand
            from moto.s3.models import s3_backends

            s3 = s3_backends[self.account_id][self.partition]
            if self.s3_bucket not in s3.buckets:
                s3.create_bucket(self.s3_bucket, self.region_name)
        self.export_id = f"{int(time.time() * 1000):014d}-{uuid.uuid4().hex[:8]}"
        self.arn = f"{self.table.table_arn}/export/{self.export_id}"

    def _backup_to_s3_file(self: Any, s3_backend: Any) -> None:
        from moto.dynamodb.models.utilities import dynamo_json_dump

        from dynosql.dynamo.wiresize import item_size

        lines, size = [], 0
        for item in self.table.all_items():  # {"Item": {…}} lines, as moto writes them
            line = dynamo_json_dump(item.to_json(root_attr_name="Item"))
            lines.append(line)
            size += item_size(json.loads(line)["Item"])  # BilledSizeBytes: DynamoDB's sizes
        folder = "/".join(
            p for p in (self.s3_prefix.strip("/"), "AWSDynamoDB", self.export_id) if p
        )
        data_key = f"{folder}/data/{uuid.uuid4().hex}.json.gz"
        body = gzip.compress(("".join(line + "\n" for line in lines)).encode("utf-8"))
        s3_backend.put_object(self.s3_bucket, data_key, body)
        manifest = {
            "itemCount": len(lines),
            "md5Checksum": base64.b64encode(hashlib.md5(body).digest()).decode(),
            "etag": hashlib.md5(body).hexdigest(),
            "dataFileS3Key": data_key,
        }
        s3_backend.put_object(
            self.s3_bucket, f"{folder}/manifest-files.json", (json.dumps(manifest) + "\n").encode()
        )
        summary = {
            "version": "2020-06-30",
            "exportArn": self.arn,
            "tableArn": self.table.table_arn,
            "s3Bucket": self.s3_bucket,
            "s3Prefix": self.s3_prefix,
            "manifestFilesS3Key": f"{folder}/manifest-files.json",
            "billedSizeBytes": size,
            "itemCount": len(lines),
            "outputFormat": "DYNAMODB_JSON",
        }
        s3_backend.put_object(
            self.s3_bucket, f"{folder}/manifest-summary.json", json.dumps(summary).encode()
        )
        self.item_count, self.processed_bytes = len(lines), size
        self.status = "COMPLETED"

    TableExport.__init__ = __init__  # type: ignore[method-assign]
    TableExport._backup_to_s3_file = _backup_to_s3_file  # type: ignore[method-assign]
    TableExport._dynosql_shaped = True  # type: ignore[attr-defined]
