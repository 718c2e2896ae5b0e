"""One dynalite and one DynamoDB Local for a whole test run, shared by its xdist workers.

Each worker used to start its own of both and load the example datasets into each: three
JVMs, three dynalites and six example loads for a full run on two cores. A server's start and
its examples cost the same whoever asks (DynamoDB Local: ~1.7 s of CPU to start, ~5 s more
for the examples, ~1 s of the worker's own; dynalite ~0.2 s and ~2 s), and the tests only need
a server and its read-only examples: they make tables under unique names (``unique_name``).

The first worker to ask starts the server, as its own child, and writes where it listens in
the run's directory (``DYNOSQL_TEST_SERVERS``, made by the run's first process); the others
attach to it. Every process that uses a server says so by a file named by its pid; the one
that started it stops it at its end only when no other living process uses it (a worker
without tests left waits for the others, idle), so that a server is stopped, and its CPU
counted, by the process that started it. All of it under a lock per server (``flock``).
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from backends import Backend, ServerProcess, start

ENVIRONMENT = "DYNOSQL_TEST_SERVERS"
# how long the process that started a server waits at its end for the others still using it: a
# worker stuck past this would otherwise hold the run open forever
LEAVE_TIMEOUT = 600.0


class Attached(Backend):
    """A server another process of this run started: reached the same way, stopped by it."""

    def __init__(self, name: str, endpoint_url: str, command: list[str]):
        super().__init__(name, endpoint_url)
        self.command = command

    def stop(self) -> None:
        pass


class Shared:
    """The run's server called `name`, as this process uses it."""

    def __init__(self, name: str):
        self.name = name
        self.folder = Path(os.environ[ENVIRONMENT]) / name
        (self.folder / "users").mkdir(parents=True, exist_ok=True)
        self.owned: ServerProcess | None = None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.folder / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def join(self) -> Backend:
        """The running server, started here if no process of the run has one."""
        where = self.folder / "server.json"
        mark = self.folder / "users" / str(os.getpid())
        with self._locked():
            if where.exists():
                known = json.loads(where.read_text())
                mark.touch()
                return Attached(self.name, known["endpoint_url"], known["command"])
            # marked only once it runs: a start that fails must not leave a mark that the
            # server's eventual owner would wait on forever at the end of the run
            server = start(self.name)
            assert isinstance(server, ServerProcess)
            where.write_text(
                json.dumps({"endpoint_url": server.endpoint_url, "command": server.command})
            )
            mark.touch()
            self.owned = server
            return server

    def with_examples(self, server: Backend) -> Backend:
        """The example datasets on the server, loaded by the first process that asks."""
        if server.datasets:
            return server
        loaded = self.folder / "examples.json"
        with self._locked():
            if loaded.exists():
                server.datasets.update(json.loads(loaded.read_text()))
            else:
                loaded.write_text(json.dumps(server.load_examples()))
        return server

    def leave(self) -> None:
        """This process is done with the server; the one that started it stops it once no
        other living process uses it."""
        (self.folder / "users" / str(os.getpid())).unlink(missing_ok=True)
        if self.owned is None:
            return
        deadline = time.monotonic() + LEAVE_TIMEOUT
        while True:
            with self._locked():
                if not self._other_users() or time.monotonic() > deadline:
                    (self.folder / "server.json").unlink(missing_ok=True)
                    (self.folder / "examples.json").unlink(missing_ok=True)
                    self.owned.stop()
                    return
            time.sleep(0.2)

    def _other_users(self) -> list[int]:
        users = []
        for mark in (self.folder / "users").iterdir():
            pid = int(mark.name)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:  # a worker that died without saying so
                mark.unlink(missing_ok=True)
                continue
            users.append(pid)
        return users
