"""Reads on moto send their ProjectionExpression; a table whose items moto fails to project
(a number beyond boto3's decimal context, a path through a value that is not a map) is read
whole instead, at once and for the rest of the session (dynosql/dynamo/capabilities.py)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from backends import unique_name

from dynosql.dynamo.capabilities import without_projection
from dynosql.session import Session
from dynosql.sql import parse_script

TINY = Decimal("1.2345678901234567890123456789012345678E-130")  # 38 digits below 1E-128


@pytest.fixture(scope="module")
def tables(moto_backend):
    irregular, regular = unique_name("unproj"), unique_name("proj")
    for name in (irregular, regular):
        moto_backend.create_keyed_table(name, sk=("sk", "S"))
    rows = [
        {"pk": "a", "sk": "1", "n": Decimal(1), "m": {"y": "text"}, "note": "x"},
        {"pk": "a", "sk": "2", "n": TINY, "m": {"y": {"x": Decimal(2)}}, "note": "y"},
    ]
    moto_backend.put_items(irregular, rows)
    moto_backend.put_items(regular, [{**rows[0], "sk": str(i)} for i in range(3)])
    return moto_backend, irregular, regular


def _warm(session: Session, table: str) -> Session:
    """The table's description and size sample read before requests are counted."""
    session.table(table)
    session.sample(table)
    return session


def _sent(session: Session) -> list[dict]:
    """The body of every HTTP attempt (botocore's retries included)."""
    bodies: list[dict] = []

    def record(request, **_):
        bodies.append(json.loads(request.body))

    session.client.meta.events.register("before-send.dynamodb", record)
    return bodies


@pytest.mark.parametrize(
    "sql, rows",
    [
        ("SELECT sk, n FROM {t} WHERE pk = 'a'", [{"sk": "1", "n": 1}, {"sk": "2", "n": TINY}]),
        ("SELECT sk, note FROM {t}", [{"sk": "1", "note": "x"}, {"sk": "2", "note": "y"}]),
        ("SELECT sk, n FROM {t} WHERE pk = 'a' AND sk = '2'", [{"sk": "2", "n": TINY}]),
        ("SELECT sk FROM {t} WHERE pk = 'a' AND sk IN ('1', '2')", [{"sk": "1"}, {"sk": "2"}]),
    ],
)
def test_a_refused_projection_is_sent_again_without_it(tables, sql, rows):
    """Query, Scan, GetItem and BatchGetItem: the right rows, from two attempts (no retries
    with backoff), and the table remembered."""
    backend, irregular, _ = tables
    session = _warm(Session(backend.client()), irregular)
    sent = _sent(session)
    result = session.execute(sql.format(t=irregular))
    got = sorted(result.all(), key=lambda r: r["sk"])
    assert got == rows
    assert len(sent) == 2
    assert _projection(sent[0]) and not _projection(sent[1])
    assert session.port.unprojectable == {irregular}
    # whole items came back: the bytes (and so the estimate) are exact
    assert result.stats.bytes_exact and result.stats.bytes_read > 0
    sent.clear()
    session.execute(sql.format(t=irregular)).all()
    assert len(sent) == 1 and not _projection(sent[0])  # remembered: no refused attempt


def test_other_tables_keep_their_projection(tables):
    backend, irregular, regular = tables
    session = _warm(Session(backend.client()), regular)
    session.execute(f"SELECT sk, n FROM {irregular} WHERE pk = 'a'").all()
    sent = _sent(session)
    result = session.execute(f"SELECT sk, n FROM {regular} WHERE pk = 'a'")
    assert [r["sk"] for r in result.all()] == ["0", "1", "2"]
    assert len(sent) == 1 and _projection(sent[0]) == "#sk, #n"
    assert session.port.unprojectable == {irregular}
    assert not result.stats.bytes_exact  # projected: part of each item


def test_explain_names_the_workaround(tables):
    backend, _, regular = tables
    session = Session(backend.client())
    (statement,) = parse_script(f"SELECT sk, n FROM {regular} WHERE pk = 'a'")
    assert "ProjectionExpression" in session.planned(statement).plan.requests[0].params
    lines = [r["plan"] for r in session.execute(f"EXPLAIN SELECT sk FROM {regular}").all()]
    assert any("cannot project is read whole" in line for line in lines)


def _projection(body: dict) -> str | None:
    if "RequestItems" in body:
        (spec,) = body["RequestItems"].values()
        return spec.get("ProjectionExpression")
    return body.get("ProjectionExpression")


def test_without_projection_keeps_the_names_other_expressions_use():
    params = {
        "TableName": "t",
        "KeyConditionExpression": "#pk = :v0",
        "FilterExpression": "#n > :v1",
        "ProjectionExpression": "#pk, #n, #note",
        "ExpressionAttributeNames": {"#pk": "pk", "#n": "n", "#note": "note"},
        "ExpressionAttributeValues": {":v0": {"S": "a"}, ":v1": {"N": "1"}},
    }
    out = without_projection(params)
    assert "ProjectionExpression" not in out
    assert out["ExpressionAttributeNames"] == {"#pk": "pk", "#n": "n"}
    assert params["ProjectionExpression"] == "#pk, #n, #note"  # not changed in place
    only = without_projection(
        {"TableName": "t", "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "a"}}
    )
    assert only == {"TableName": "t"}
    batch = {
        "RequestItems": {
            "t": {"Keys": [], "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "a"}}
        }
    }
    assert without_projection(batch) == {"RequestItems": {"t": {"Keys": []}}}
    plain = {"TableName": "t"}
    assert without_projection(plain) is plain


def test_the_prefix_hint_reads_through_the_fallback(tables) -> None:
    """The begins_with hint's keys-only Queries go through the executor too: on a table moto
    cannot project they are answered without the projection, not turned into an error. (They
    are read at the REPL only, where a person is: issue 22.)"""
    from dynosql.session import Session

    backend, irregular, _ = tables
    sql = f"SELECT sk FROM {irregular} WHERE pk = 'a' AND begins_with(sk, '3')"
    with Session(backend.client()) as session:
        session.interactive = True
        result = session.execute(sql)
        assert result.all() == []
    assert any("existing prefixes" in note for note in result.notes), result.notes
