"""ALTER TABLE t SET POINT IN TIME RECOVERY ON|OFF: parsed, priced by EXPLAIN (nothing sent),
guarded like every table change, and sent as UpdateContinuousBackups."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import Backend, unique_name
from cli_runner import cli_env, run_cli

from dynosql.errors import SqlError
from dynosql.session import Session
from dynosql.sql import ast, parse


def test_parse():
    assert parse("ALTER TABLE t SET POINT IN TIME RECOVERY ON") == (
        ast.SetPointInTimeRecovery("t", True)
    )
    assert parse("alter table t set point in time recovery off").enabled is False
    with pytest.raises(SqlError, match="RECOVERY"):
        parse("ALTER TABLE t SET POINT IN TIME ON")


def _table(backend: Backend, items: int = 0) -> str:
    name = unique_name("pitr")
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    backend.put_items(name, [{"pk": f"k{i}", "pad": "x" * 1000} for i in range(items)])
    return name


def _status(backend: Backend, table: str) -> str:
    answer = backend.client().describe_continuous_backups(TableName=table)
    return answer["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"][
        "PointInTimeRecoveryStatus"
    ]


def test_explain_prices_the_storage_and_sends_nothing(moto_backend: Backend, tmp_path: Path):
    table = _table(moto_backend)
    run = run_cli(
        "--endpoint-url",
        moto_backend.endpoint_url,
        "--prices",
        "pitr_gb_month=0.25",
        "-e",
        f"EXPLAIN ALTER TABLE {table} SET POINT IN TIME RECOVERY ON",
        env=cli_env(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    assert "request: UpdateContinuousBackups" in run.stdout
    assert "PITR storage: $" in run.stdout and "at $0.25/GB-month" in run.stdout
    assert _status(moto_backend, table) == "DISABLED"


def test_on_then_off_with_the_guards(moto_backend: Backend, tmp_path: Path):
    table = _table(moto_backend, items=3)
    url = ["--endpoint-url", moto_backend.endpoint_url]
    env = cli_env(tmp_path)
    on = f"ALTER TABLE {table} SET POINT IN TIME RECOVERY ON"
    off = f"ALTER TABLE {table} SET POINT IN TIME RECOVERY OFF"
    run = run_cli(*url, "--read-only", "-e", on, env=env)
    assert run.returncode == 3 and "read_only is on" in run.one_error()
    run = run_cli(*url, "--dry-run", "-e", on, env=env)
    assert run.returncode == 0 and "would send UpdateContinuousBackups" in run.stderr
    assert _status(moto_backend, table) == "DISABLED"
    run = run_cli(*url, "-e", on, env=env)
    assert run.returncode == 0, run.stderr
    assert _status(moto_backend, table) == "ENABLED"
    run = run_cli(*url, "-e", off, env=env)  # deletes the restore window: needs --yes
    assert run.returncode == 3
    assert "deletes the restore window" in run.one_error() and "needs --yes" in run.one_error()
    assert _status(moto_backend, table) == "ENABLED"
    run = run_cli(*url, "--yes", "-e", f"BEGIN; {off}; ROLLBACK", env=env)
    assert run.returncode == 3 and "cannot be rolled back" in run.one_error()
    run = run_cli(*url, "--yes", "-e", off, env=env)
    assert run.returncode == 0, run.stderr
    assert _status(moto_backend, table) == "DISABLED"


def test_asks_on_a_terminal(moto_backend: Backend):
    table = _table(moto_backend)
    session = Session(moto_backend.client())
    session.execute(f"ALTER TABLE {table} SET POINT IN TIME RECOVERY ON").all()
    asked: list[str] = []
    session.confirm = lambda q: asked.append(q) or False
    result = session.execute(f"ALTER TABLE {table} SET POINT IN TIME RECOVERY OFF")
    assert result.title == f"cancelled: {table} was kept"
    assert asked[0].endswith("Turn it off?")
    assert _status(moto_backend, table) == "ENABLED"
