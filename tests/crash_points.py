"""Crash points: a statement killed, in this process, between any two of its journal and wire
steps, as databases test their write-ahead logs.

A step is a journal append (`dynosql.journal.file._os_write`, the journal's one way to write),
a request about to be sent (botocore's ``before-send``), or an answer received (``after-call``:
DynamoDB applied the request, and the process dies before it learns so). `CrashPoints` counts
the steps of a run; armed with ``kill_at=k``, the run's first k steps happen and the next one
does not: it raises `Killed` (a BaseException: nothing on the way catches it), and so does every
step after it, in every thread. No line is appended, no request sent, and a journal the run
would remove as empty is removed only where nothing was appended, as after ``kill -9``. (An
fsync is not a step: what a killed process wrote is in the page cache, and stays.)
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dynosql.journal import file as journal_file


class Killed(BaseException):
    """The process, killed at a crash point."""


class CrashPoints:
    """The steps of runs through one client and the journal, and a switch that kills a run."""

    def __init__(self, client: Any, monkeypatch: pytest.MonkeyPatch):
        self.kill_at: int | None = None
        self.steps: list[str] = []
        self.dead = False
        self._lock = threading.Lock()
        client.meta.events.register("before-send.dynamodb", self._sending)
        client.meta.events.register("after-call.dynamodb", self._answered)
        real = journal_file._os_write

        def write(fd: int, data: Any) -> int:
            self.step("append")
            return real(fd, data)

        monkeypatch.setattr(journal_file, "_os_write", write)

    def arm(self, kill_at: int | None) -> None:
        """Count the next run's steps from 0; kill it before step `kill_at` (None: never)."""
        with self._lock:
            self.kill_at, self.steps, self.dead = kill_at, [], False

    def disarm(self) -> None:
        """Steps go on unkilled (and uncounted: another run may follow)."""
        with self._lock:
            self.kill_at, self.dead = None, False

    def step(self, name: str) -> None:
        with self._lock:
            if self.dead:
                raise Killed(name)
            if self.kill_at is not None and len(self.steps) >= self.kill_at:
                self.dead = True
                raise Killed(name)
            self.steps.append(name)

    def _sending(self, request: Any, **_: Any) -> None:
        self.step("send " + str(request.headers.get("X-Amz-Target", b"")).split(".")[-1])

    def _answered(self, model: Any, **_: Any) -> None:
        self.step("answer " + model.name)
