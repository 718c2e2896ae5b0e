"""`LocalDynamo.answer_directly` (`dynosql.local.wsgi_client`): the embedded moto answering a
client in its own thread, without HTTP, exactly as it answers over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from backends import unique_name
from botocore.httpsession import URLLib3Session

from dynosql.local.embedded import LocalDynamo
from dynosql.session import Session


@pytest.fixture(scope="module")
def local() -> Any:
    with LocalDynamo() as server:
        yield server


def _table(client: Any) -> str:
    name = unique_name("direct")
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1.50"}})
    return name


def test_answers_without_a_socket_as_http_does(local, monkeypatch):
    http = local.client()
    name = _table(http)
    ask = {"TableName": name, "Key": {"pk": {"S": "a"}}, "ReturnConsumedCapacity": "TOTAL"}
    over_http = http.get_item(**ask)
    known_over_http = Session(http).capabilities  # moto, by the Server header of an answer

    def no_network(*_: Any, **__: Any) -> Any:
        raise AssertionError("a request went over HTTP")

    monkeypatch.setattr(URLLib3Session, "send", no_network)
    direct = local.answer_directly(local.client())
    answered = direct.get_item(**ask)
    for key in ("Item", "ConsumedCapacity"):
        assert answered[key] == over_http[key], key
    headers = answered["ResponseMetadata"]["HTTPHeaders"]
    assert headers["x-amz-crc32"]  # botocore checked the body against it
    # the headers werkzeug's server adds, by which dynosql knows moto (capabilities.py)
    sent = over_http["ResponseMetadata"]["HTTPHeaders"]
    assert headers["server"] == sent["server"] and "Werkzeug/" in headers["server"]
    assert Session(direct).capabilities == known_over_http
    # errors come back as DynamoDB's error responses, botocore's exceptions included
    with pytest.raises(direct.exceptions.ResourceNotFoundException):
        direct.get_item(TableName=unique_name("missing"), Key={"pk": {"S": "a"}})
    # dynosql reads pages off the body bytes: a statement runs the same way
    rows = Session(direct).execute(f"SELECT pk, v FROM {name}").all()
    assert [dict(r) for r in rows] == [{"pk": "a", "v": 1.5}]
    with pytest.raises(AssertionError, match="over HTTP"):
        http.get_item(**ask)  # the patch holds: the direct client never sent


def test_an_application_error_is_a_500_and_logged(local, monkeypatch):
    """As werkzeug's server answers an exception of the application: a 500 response (botocore
    retries it, then raises), the traceback in the server's error log, nothing printed."""
    direct = local.answer_directly(local.client(retries={"max_attempts": 1}))
    app = local._server._server.app

    def broken(environ: Any, start_response: Any) -> Any:
        raise RuntimeError("boom inside the application")

    monkeypatch.setattr(local._server._server, "app", broken)
    refused: list[Any] = []
    direct.meta.events.register(
        "needs-retry", lambda response=None, **_: refused.append(response[0]) if response else None
    )
    try:
        with pytest.raises(Exception) as failed:
            direct.list_tables()
    finally:
        local._server._server.app = app
    assert "500" in str(failed.value) or "InternalServerError" in str(failed.value)
    assert any("boom inside the application" in error for error in local.errors)
    # werkzeug's 500 page, as over HTTP: moto's failure to project is known by it
    assert "Werkzeug/" in refused[0].headers["server"]
    assert direct.list_tables()["TableNames"] is not None  # answered again once it works


def test_other_endpoints_and_a_stopped_server_go_out_over_http():
    server = LocalDynamo().start()
    other = LocalDynamo().start()
    try:
        direct = server.answer_directly(other.client())  # made for the other server's port
        name = _table(direct)
        assert name in other.client().list_tables()["TableNames"]
        assert name not in server.client().list_tables()["TableNames"]
    finally:
        other.stop()
    mine = server.answer_directly(server.client(retries={"max_attempts": 1}, connect_timeout=1))
    server.stop()
    with pytest.raises(Exception, match="Could not connect"):
        mine.list_tables()
