"""SQLAlchemy's own dialect compliance suite (``sqlalchemy.testing.suite``, what a third-party
dialect is expected to pass) on dynosql's dialect, against a moto server of its own (in the
suite's process, answering its clients without HTTP: tests/sqla_suite/conftest.py).

The suite brings SQLAlchemy's pytest plugin, which takes over collection, options and
fixtures, so it runs in a pytest process of its own, from tests/sqla_suite/ (which the main
run does not collect): ``requirements.py`` turns off what DynamoDB cannot do, and
``unsupported.py`` names the tests gated by no requirement that are not run, each with its
reason (DynamoDB's; none is a gap of dynosql's). Every test left on must pass."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from cli_runner import AWS_VARIABLES

SUITE = Path(__file__).resolve().parent / "sqla_suite"


@pytest.mark.slow  # its own pytest process: ~1,400 tests collected, 315 run (about 13 s of CPU)
def test_sqlalchemys_compliance_suite_passes_every_test_left_on() -> None:
    pytest.importorskip("sqlalchemy")
    env = {**os.environ, **AWS_VARIABLES, "COLUMNS": "400", "DYNOSQL_SQLA_SUITE_MOTO": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "--tb=short"],
        cwd=SUITE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = run.stdout.strip().splitlines()[-1]
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    counts = {
        kind: int(n) for n, kind in re.findall(r"(\d+) (passed|skipped|failed|error)", summary)
    }
    assert counts.get("failed", 0) == 0 and counts.get("error", 0) == 0, summary
    assert counts["passed"] >= 315, summary
    # each skip says why: a requirement turned off, or unsupported.py's reason; no test is
    # left off for a gap of dynosql's
    reasons = Counter(
        "dynamodb" if "DynamoDB: " in line else "gap" if "dynosql's gap: " in line else "other"
        for line in run.stdout.splitlines()
        if line.startswith("SKIPPED")
    )
    assert reasons["dynamodb"] and not reasons["gap"], reasons
