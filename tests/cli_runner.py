"""The ``dynosql`` command run in-process: ``dynosql.cli.main(argv)`` with its own stdin,
stdout, stderr and environment, against a shared test server (``--endpoint-url``).

A subprocess per case costs a Python start and, with ``--local``, an embedded moto boot (about
2 s of CPU each); in-process the same command costs milliseconds. Behaviour that only a real
process shows (signals, a closed stdout, the console script, import time) keeps its subprocess
tests in test_cli.py; everything else should use `run_cli`.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

AWS_VARIABLES = {
    "AWS_ACCESS_KEY_ID": "dummy",
    "AWS_SECRET_ACCESS_KEY": "dummy",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "2",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
}


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def err_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def one_error(self) -> str:
        """The run's single error line: the last stderr line, one line starting ``error:``."""
        assert "Traceback" not in self.stderr, self.stderr
        errors = [line for line in self.err_lines if "error" in line.lower()]
        assert len(errors) == 1, self.stderr
        assert self.err_lines[-1] == errors[0], self.stderr
        assert errors[0].startswith("error: "), self.stderr
        return errors[0]


class _Text(io.StringIO):
    """A captured stream that says it is not a terminal (as a pipe would)."""

    def isatty(self) -> bool:
        return False


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def cli_env(tmp: str | os.PathLike[str], **extra: str) -> dict[str, str]:
    """The process environment less any AWS settings of the machine, with dummy credentials,
    us-east-1, and HOME/XDG directories under `tmp` (no user config is read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_VARIABLES)
    env["HOME"] = os.path.join(tmp, "home")
    env["XDG_CONFIG_HOME"] = os.path.join(tmp, "config")
    env["XDG_STATE_HOME"] = os.path.join(tmp, "state")
    env.update(extra)
    return env


def run_cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Run:
    """``dynosql ARGS`` in this process; stdin is empty (not a terminal) unless given."""
    from dynosql import cli

    out, err = _Text(), _Text()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin, sys.stdout, sys.stderr = _Text(stdin or ""), out, err
    try:
        with _environment(env if env is not None else {**os.environ, **AWS_VARIABLES}):
            try:
                code = cli.main(list(args))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    return Run(code, out.getvalue(), err.getvalue())
