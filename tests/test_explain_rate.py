"""EXPLAIN … AT <n> PER SECOND: a statement's units per month at a request rate, on-demand and
provisioned side by side, from the named price constants (engines/prices.py; --prices)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dynosql.engines.prices import Monthly, Prices
from dynosql.errors import PlanError, SqlError
from dynosql.session import Session
from dynosql.sql import ast, parse


def test_parse_takes_the_rate_off_the_end() -> None:
    explain = parse("EXPLAIN SELECT * FROM t WHERE pk = 'a' AT 2.5 PER SECOND;")
    assert isinstance(explain, ast.Explain) and explain.rate == Decimal("2.5")
    assert explain == parse("explain select * from t where pk = 'a' at 2.5 per second")
    assert parse("EXPLAIN SELECT * FROM t WHERE pk = 'a'") == ast.Explain(explain.statement)
    # `at` is an attribute name too (tenants' events have one): only the whole tail is a rate
    plain = parse("EXPLAIN SELECT at FROM t WHERE at > '2026'")
    assert isinstance(plain, ast.Explain) and plain.rate is None
    with pytest.raises(SqlError, match=r"line 1, column 43: AT … PER SECOND takes a rate above 0"):
        parse("EXPLAIN SELECT * FROM t WHERE pk = 'a' AT 0 PER SECOND")


def test_monthly_arithmetic() -> None:
    month = Monthly(Decimal(100), Decimal("0.5"), Decimal(2), Prices())
    assert month.statements == 262_800_000  # 100 a second for 730 hours
    reads, writes = month.on_demand()
    assert reads == Decimal("16.425")  # 0.5 RRU × 262.8 M × $0.125 / M
    assert writes == Decimal("328.5")  # 2 WRU × 262.8 M × $0.625 / M
    assert month.provisioned_units() == (50, 200)
    assert month.provisioned() == (Decimal("4.745"), Decimal("94.9"))  # × 730 h × $/unit-hour
    # a fraction of a unit a second still needs a whole provisioned unit
    assert Monthly(Decimal("0.1"), Decimal("0.5"), Decimal(0), Prices()).provisioned_units() == (
        1,
        0,
    )


def test_explain_at_a_rate_on_the_examples(moto_examples_backend) -> None:
    session = Session(moto_examples_backend.client())
    result = session.execute(
        "EXPLAIN SELECT * FROM tenants WHERE pk = 'TENANT#acme' AT 100 PER SECOND"
    )
    lines = [row["plan"] for row in result]
    assert lines[0] == "Query tenants"
    assert any(line.startswith("per month at 100 per second") for line in lines)
    assert "= $16.42; writes 0 WRU" in next(ln for ln in lines if "on-demand:" in ln)
    assert "50 RCU × 730 h × $0.00013 = $4.74" in next(ln for ln in lines if "provisioned:" in ln)
    assert result.document["per_month"]["provisioned_rcu"] == 50
    assert result.footer() == "plan only: no request was sent"

    session.set("prices", "wcu_hour=0.001,wcu_million=1")
    write = session.execute(
        "EXPLAIN UPDATE drive SET hits = 1 WHERE PK = 'DRIVE#bob' AND SK = 'root/' AT 10 PER SECOND"
    )
    per_month = write.document["per_month"]
    assert per_month["provisioned_wcu"] == 10 and per_month["provisioned_writes"] == "7.3"
    assert per_month["on_demand_writes"] == "26.28"  # 1 WRU × 26.28 M × $1 / M
    with pytest.raises(PlanError, match="prices a SELECT or a write.*CREATE TABLE has none"):
        session.execute("EXPLAIN CREATE TABLE abc (a S, PRIMARY KEY (a)) AT 3 PER SECOND")


def test_explain_analyze_at_a_rate_runs_and_prices(moto_examples_backend) -> None:
    session = Session(moto_examples_backend.client())
    result = session.execute(
        "EXPLAIN ANALYZE SELECT * FROM drive WHERE PK = 'DRIVE#bob' AT 1 PER SECOND"
    )
    lines = [row["plan"] for row in result]
    assert any(line.startswith("actual: 1 request") for line in lines)
    assert any(line.startswith("per month at 1 per second") for line in lines)
    assert result.footer().startswith("analyzed · ")
