"""``dynosql --explain -f patterns.sql``: every statement planned, none run (only DescribeTable
is sent), one row per access pattern named by its leading comment; exit 3 when one would Scan,
1 when one cannot be planned. Run through the command, in-process, on the example tables."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import botocore.client
import pytest
from backends import Backend
from cli_runner import cli_env, run_cli

from dynosql.access_patterns import Named, named

PATTERNS = """\
-- Access patterns of the tenants table (checked in CI).

-- a tenant's invoices
SELECT * FROM tenants WHERE pk = 'TENANT#acme' AND begins_with(sk, 'INVOICE#');

-- one invoice
SELECT amount FROM tenants WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000001';
SET format = json;  -- a setting changes the plans after it, and is not a pattern
-- users of two tenants
SELECT * FROM tenants WHERE pk IN ('TENANT#acme', 'TENANT#globex') AND sk = 'USER#a@b.c';
/* open invoices
   by due date */
SELECT * FROM tenants.gsi1 WHERE gsi1pk = 'STATUS#open' ORDER BY gsi1sk;
-- mark an invoice paid
UPDATE tenants SET status = 'paid' WHERE pk = 'TENANT#acme' AND sk = 'INVOICE#000001';
-- new user
INSERT INTO tenants (pk, sk, email) VALUES ('TENANT#acme', 'USER#x@y.z', 'x@y.z');
"""

SCAN = """
-- invoices over an amount
SELECT * FROM tenants WHERE amount > 5000;
-- void the old invoices
DELETE FROM tenants WHERE status = 'void' AND dueDate < '2026-01-01';
"""


def test_each_statement_is_named_by_its_own_leading_comment() -> None:
    assert named(PATTERNS) == [
        Named(4, "a tenant's invoices"),
        Named(7, "one invoice"),
        Named(8, ""),
        Named(10, "users of two tenants"),
        Named(13, "open invoices by due date"),
        Named(15, "mark an invoice paid"),
        Named(17, "new user"),
    ]
    assert named("SELECT 1 FROM t") == [Named(1, "")]
    assert named("\ufeff-- bom\nSELECT 1 FROM t;\n\n  SELECT 2 FROM t") == [
        Named(2, "bom"),
        Named(4, ""),
    ]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The operations every botocore client of this process sends."""
    calls: list[str] = []
    real = botocore.client.BaseClient._make_api_call

    def record(self: Any, operation: str, params: Any) -> Any:
        calls.append(operation)
        return real(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", record)
    return calls


def _explain(backend: Backend, tmp_path: Path, script: str, *args: str) -> Any:
    path = tmp_path / "patterns.sql"
    path.write_text(script)
    return run_cli(
        "--endpoint-url",
        backend.endpoint_url,
        "--explain",
        "-f",
        str(path),
        *args,
        env=cli_env(tmp_path),
    )


def test_patterns_are_planned_not_run(
    moto_examples_backend: Backend, tmp_path: Path, sent: list[str]
) -> None:
    run = _explain(moto_examples_backend, tmp_path, PATTERNS, "--read-only")
    assert run.returncode == 0, run.stderr
    assert set(sent) == {"DescribeTable"}  # the writes were planned, nothing else was sent
    rows = json.loads(run.stdout)  # SET format = json applied to the output
    got = [(r["line"], r["pattern"], r["operation"], r["index"], r["key condition"]) for r in rows]
    assert got == [
        (
            4,
            "a tenant's invoices",
            "Query",
            "",
            "pk = 'TENANT#acme' AND begins_with(sk, 'INVOICE#')",
        ),
        (7, "one invoice", "GetItem", "", "pk = 'TENANT#acme' AND sk = 'INVOICE#000001'"),
        (
            10,
            "users of two tenants",
            "BatchGetItem",
            "",
            "pk = 'TENANT#acme' AND sk = 'USER#a@b.c' (and 1 more keys)",
        ),
        (13, "open invoices by due date", "Query", "gsi1", "gsi1pk = 'STATUS#open'"),
        (
            15,
            "mark an invoice paid",
            "UpdateItem",
            "",
            "pk = 'TENANT#acme' AND sk = 'INVOICE#000001'",
        ),
        (17, "new user", "PutItem", "", "pk = 'TENANT#acme' AND sk = 'USER#x@y.z'"),
    ]
    assert not any(r["scan"] for r in rows)
    assert [r["rcu"] for r in rows[:3]] == [0.5, 0.5, 1]  # a BatchGetItem of 2 keys: 0.5 each
    assert rows[4]["rcu"] == 0 and rows[4]["wcu"] > 0 and rows[5]["wcu"] == 1
    assert run.err_lines == ["6 access patterns planned, none would Scan (plan only)"]


def test_a_pattern_that_would_scan_exits_3_and_is_named(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    script = "SELECT * FROM tenants WHERE pk = 'TENANT#acme';" + SCAN
    run = _explain(moto_examples_backend, tmp_path, script, "--format", "csv")
    assert run.returncode == 3
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    got = [(r["line"], r["pattern"], r["operation"], r["scan"]) for r in rows]
    assert got == [
        ("1", "", "Query", "false"),
        ("3", "invoices over an amount", "Scan", "true"),
        ("5", "void the old invoices", "Scan + DeleteItem", "true"),
    ]
    assert rows[1]["key condition"] == "" and rows[1]["note"].startswith("Scan of tenants: ")
    assert run.one_error() == (
        "error: 2 of 3 access patterns would Scan: line 3 (invoices over an amount); "
        "line 5 (void the old invoices)"
    )


def test_a_pattern_that_cannot_be_planned_exits_1_and_the_rest_are_listed(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    script = (
        "-- gone\nSELECT * FROM no_such_table WHERE pk = 'a';\n"
        "-- unbound\nSELECT * FROM tenants WHERE pk = :tenant;" + SCAN
    )
    run = _explain(moto_examples_backend, tmp_path, script, "--format", "json")
    assert run.returncode == 1
    rows = json.loads(run.stdout)
    assert [(r["pattern"], r["operation"]) for r in rows] == [
        ("gone", "error"),
        ("unbound", "error"),
        ("invoices over an amount", "Scan"),
        ("void the old invoices", "Scan + DeleteItem"),
    ]
    assert "no_such_table" in rows[0]["note"]
    assert run.err_lines[0].startswith("error: line 2: ") and "no_such_table" in run.err_lines[0]
    assert run.err_lines[1] == (
        "error: line 4, column 34: no value for :tenant (give one with -v tenant=value)"
    )
    assert run.err_lines[2].startswith("error: 2 of 4 access patterns would Scan: ")


ENTITY_PATTERNS = """\
CREATE ENTITY invoice ON tenants (
  KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId),
  INDEX gsi1 (gsi1pk = 'STATUS#' || status, gsi1sk = dueDate) WHERE status <> 'void'
);
-- a tenant's invoices from 000100 on
SELECT tenantId, invoiceId, amount FROM invoice WHERE tenantId = 'acme' AND invoiceId >= '000100';
-- open invoices by due date
SELECT * FROM invoice WHERE status = 'open' ORDER BY dueDate;
"""


def test_patterns_written_through_entities_are_planned_as_their_physical_reads(
    moto_examples_backend: Backend, tmp_path: Path, sent: list[str]
) -> None:
    """A CREATE ENTITY in the script runs (it reads table metadata only) and is not a pattern;
    the entity reads are planned as the physical reads they compile to (a range's top shown
    as `…`)."""
    run = _explain(moto_examples_backend, tmp_path, ENTITY_PATTERNS, "--format", "json")
    assert run.returncode == 0, run.stderr
    # CREATE ENTITY asks ListTables once (an entity may not be named like a table): metadata
    assert set(sent) == {"DescribeTable", "ListTables"} and sent.count("ListTables") == 1
    rows = json.loads(run.stdout)
    got = [(r["line"], r["operation"], r["table"], r["index"], r["key condition"]) for r in rows]
    assert got == [
        (
            6,
            "Query",
            "tenants",
            "",
            "pk = 'TENANT#acme' AND sk BETWEEN 'INVOICE#000100' AND 'INVOICE#…'",
        ),
        (8, "Query", "tenants", "gsi1", "gsi1pk = 'STATUS#open'"),
    ]
    assert run.err_lines == ["2 access patterns planned, none would Scan (plan only)"]
