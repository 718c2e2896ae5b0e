"""Session is the only door: the samples the REPL's completion and the hints read go through
the executor (counted, guarded), and the backend's capabilities are decided once."""

from __future__ import annotations

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
