"""Session is the only door: the samples the REPL's completion and the hints read go through
the executor (counted, guarded), and the backend's capabilities are decided once."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dynosql.dynamo.capabilities import EMBEDDED
from dynosql.session import Session
from dynosql.settings import Settings


def _count_calls(session: Session, operation: str) -> list[dict]:
    calls: list[dict] = []
    session.client.meta.events.register(
        f"provide-client-params.dynamodb.{operation}", lambda params, **_: calls.append(params)
    )
    return calls


def test_a_sample_is_read_once_counted_and_refused_under_fail_on_scan(moto_examples_backend):
    session = Session(moto_examples_backend.client(), settings=Settings(fail_on_scan=True))
    scans = _count_calls(session, "Scan")
    assert session.sample_attributes("drive", 20) == [] and scans == []
    session.settings.fail_on_scan = False
    names = session.sample_attributes("drive", 20)
    assert {"PK", "SK"} <= set(names) and len(scans) == 1
    assert scans[0]["Limit"] == 100 and session.total_capacity > 0
    session.sample_attributes("drive", 5)
    assert len(scans) == 1  # read once per session
    session.refresh()
    session.sample_attributes("drive", 5)
    assert len(scans) == 2


def test_capabilities_are_asked_once_and_shape_the_options(moto_examples_backend):
    session = Session(moto_examples_backend.client())
    lists = _count_calls(session, "ListTables")
    # the embedded server computes ConsumedCapacity by DynamoDB's rules and says so: no estimate
    assert session.capabilities == EMBEDDED and not session.estimating
    assert session.capabilities is session.capabilities
    assert len(lists) == 1
    options = session.options()
    # moto fails on projections of irregular items only: they are sent, and retried without
    # when it does (tests/test_moto_projection.py); the embedded server answers typed filters
    # as DynamoDB does (moto_conditions.py): they are sent too
    assert options.projections is True and options.typed_filters is True
    assert "same cost" in session.capabilities.notes()[0]


def test_a_faithful_backend_gets_exact_requests(dynalite_backend):
    session = Session(dynalite_backend.client())
    assert session.capabilities.backend == "dynamodb" and not session.estimating
    assert session.options().projections is True


# --- one statement, planned once, from the door through the guards to the run -----------------


def _count_planning(monkeypatch) -> dict[str, int]:
    """How many times the SELECT and write planners run."""
    from dynosql.statements import select, write

    calls = {"select": 0, "write": 0}

    def counted(name: str, real):
        def plan(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return plan

    monkeypatch.setattr(select, "plan_select", counted("select", select.plan_select))
    monkeypatch.setattr(write, "plan_write", counted("write", write.plan_write))
    return calls


def test_a_statement_is_planned_once_whatever_guards_look_at_it(
    moto_examples_backend, monkeypatch, tmp_path
):
    """The REPL's question, --max-rcu and the run all read one plan (issue 35: the REPL planned
    every statement twice, and a Scan guard planned it again)."""
    from dynosql.sql import parse

    calls = _count_planning(monkeypatch)
    settings = Settings(max_rcu=Decimal(1000), journal_dir=str(tmp_path))
    session = Session(moto_examples_backend.client(), settings=settings)
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or True
    session.settings.scan_confirm_rcu = Decimal(1)
    scanned = session.run_statement(parse("SELECT COUNT(*) FROM sensors"), typed=True).all()
    assert scanned and len(asked) == 1 and calls == {"select": 1, "write": 0}
    session.execute("EXPLAIN ANALYZE SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva'").all()
    assert calls["select"] == 2
    session.execute("COPY (SELECT * FROM audit LIMIT 3) TO '" + str(tmp_path / "a.jsonl") + "'")
    assert calls["select"] == 3
    session.execute("UPDATE sensors SET note = 'x' WHERE deviceId = 'nope'").all()
    assert calls == {"select": 3, "write": 1}


def test_the_repl_asks_before_a_scan_a_hint_says_a_key_would_serve(moto_examples_backend):
    """A Scan under the question's threshold is still asked about when a hint says the key
    was meant (`pk` for `PK`): typed at the REPL, nothing is read unless the person says yes."""
    from dynosql.errors import Declined
    from dynosql.sql import parse

    session = Session(moto_examples_backend.client())
    session.settings.scan_confirm_rcu = Decimal(100_000)  # far above this Scan
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or False
    scans = _count_calls(session, "Scan")
    statement = parse("SELECT * FROM audit WHERE pk = 'ACTOR#ana.silva'")
    with pytest.raises(Declined, match="cancelled: nothing was read"):
        session.run_statement(statement, typed=True)
    assert scans == [] and len(asked) == 1
    assert "hint: no attribute pk; the partition key is PK" in asked[0]
    assert asked[0].startswith("Scan audit reads ~") and asked[0].endswith(". Run it?")
    session.run_statement(parse("SELECT * FROM audit LIMIT 1"), typed=True).all()
    assert len(asked) == 1  # no hint, under the threshold: not asked


def test_the_scan_question_after_a_hint_that_asks_is_punctuated_once(moto_examples_backend):
    """A hint that ends in its own question (a double-quoted value: "did you mean the string
    …?") is followed by the question, not by a full stop after the question mark."""
    from dynosql.errors import Declined
    from dynosql.sql import parse

    session = Session(moto_examples_backend.client())
    session.settings.scan_confirm_rcu = Decimal(100_000)
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) or False
    statement = parse('SELECT * FROM audit WHERE PK = "ACTOR#ana.silva"')
    with pytest.raises(Declined):
        session.run_statement(statement, typed=True)
    assert len(asked) == 1 and asked[0].endswith("'ACTOR#ana.silva'? Run it?"), asked


def test_fail_on_scan_keeps_the_advice_that_avoids_the_scan(moto_backend, table_name):
    """An index would serve, but it is sparse: the refusal says how to use it, with the names
    its SQL needs quoted (`attribute_exists("GSI1-SK")`)."""
    from dynosql.errors import GuardError

    moto_backend.create_table(
        TableName=table_name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "GSI1-PK", "AttributeType": "S"},
            {"AttributeName": "GSI1-SK", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI1",
                "KeySchema": [
                    {"AttributeName": "GSI1-PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1-SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    session = Session(moto_backend.client(), settings=Settings(fail_on_scan=True))
    with pytest.raises(GuardError) as refused:
        session.execute(f"""SELECT * FROM {table_name} WHERE "GSI1-PK" = 'a'""")
    message = str(refused.value)
    assert "--fail-on-scan is set; hint: index GSI1 would serve this WHERE" in message
    assert 'attribute_exists("GSI1-SK")' in message
    assert f"FROM {table_name}.GSI1" in message


def test_what_a_statement_changes_in_the_session_comes_back_in_its_result(moto_examples_backend):
    """SET, CREATE ENTITY and DROP ENTITY change nothing through the Context they are handed:
    their kind's result says what changed (`Result.changes`), and the Session applies it."""
    from dynosql.guards import Verdict
    from dynosql.sql import parse
    from dynosql.statements import kind_of
    from dynosql.statements.kind import as_steps

    session = Session(moto_examples_backend.client())
    entity = "CREATE ENTITY usr ON tenants (KEY (pk = 'TENANT#' || t, sk = 'USER#' || email))"

    def kind_alone(sql: str):
        """The statement's kind run on the session's Context, without the Session."""
        statement = parse(sql)
        kind, ctx = kind_of(statement), session.context
        steps = as_steps(kind.run(ctx, kind.plan(ctx, statement, False)))
        try:
            next(steps)
            steps.send(Verdict.GO)
        except StopIteration as done:
            return done.value
        raise AssertionError("asked twice")

    result = kind_alone("SET numeric_digits = 7")
    assert result.changes.setting == ("numeric_digits", 7)
    assert session.settings.numeric_digits != 7
    result = kind_alone(entity)
    assert [e.name for e in result.changes.declared] == ["usr"] and session.entity("usr") is None
    session.execute("SET numeric_digits = 7").all()
    session.execute(entity).all()
    assert session.settings.numeric_digits == 7 and session.entity("usr") is not None
    result = kind_alone("DROP ENTITY usr")
    assert result.changes.dropped == ("usr",) and session.entity("usr") is not None
    session.execute("DROP ENTITY usr").all()
    assert session.entity("usr") is None
