"""Decoding only what the plan needs (dynosql.dynamo.wire.projected_names and
values.decode_item's `names`): a page that came back whole in place of its projection (moto's
refusal) decodes the attributes the request projects and nothing else, exactly as a projected
page would have them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_moto_projection import _warm, tables  # noqa: F401 - the module's fixture
from test_wiresize import EVERY_TYPE, as_wire
from test_wiretally import _NAMES, _VALUE

from dynosql import values
from dynosql.dynamo import wire
from dynosql.session import Session
from dynosql.sql import parse_script


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(values.values_equal(a[k], b[k]) for k in a)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.dictionaries(_NAMES, _VALUE, max_size=6), st.sets(_NAMES, max_size=4))
def test_only_the_named_attributes_are_decoded_exactly(item: dict, names: set) -> None:
    on_wire = as_wire(item)
    assert _same(values.decode_item(on_wire), item)
    got = values.decode_item(on_wire, frozenset(names))
    assert _same(got, {k: v for k, v in item.items() if k in names})


def test_every_type_decodes_exactly_by_name() -> None:
    on_wire = as_wire(EVERY_TYPE)
    for name, value in EVERY_TYPE.items():
        (got,) = values.decode_item(on_wire, frozenset({name, "absent"})).items()
        assert got[0] == name and values.values_equal(got[1], value)
        assert values.type_of(got[1]) == values.type_of(value)


@pytest.mark.parametrize(
    "sql, names",
    [
        ("SELECT a.b, c[1] FROM {t} WHERE n > 1 ORDER BY note", {"a", "c", "note"}),
        ("SELECT pk, COUNT(*) AS k FROM {t} GROUP BY pk", {"pk"}),
        ("SELECT m, SUM(n) FROM {t} GROUP BY m HAVING MAX(note) > 'a'", {"m", "n", "note"}),
        ("SELECT COUNT(*) FROM {t} WHERE pk = 'a' AND size(note) > 1", None),  # Select=COUNT
        ("SELECT * FROM {t}", None),
    ],
)
def test_the_plan_projects_what_the_statement_needs(tables, sql, names) -> None:  # noqa: F811
    backend, _, regular = tables
    session = Session(backend.client())
    (statement,) = parse_script(sql.format(t=regular))
    (request,) = session.planned(statement).plan.requests
    got = wire.projected_names(request.params)
    assert got == (None if names is None else frozenset(names))


def test_projected_names_of_odd_texts() -> None:
    aliases = {"#a": "a.b", "#c": "c"}
    params = {"ProjectionExpression": " #a[0].#c , #c, plain", "ExpressionAttributeNames": aliases}
    assert wire.projected_names(params) == {"a.b", "c", "plain"}
    assert wire.projected_names({"ProjectionExpression": "#x"}) is None  # unknown placeholder
    assert wire.projected_names({"TableName": "t"}) is None


def test_a_page_sent_whole_decodes_only_the_projection(tables, monkeypatch) -> None:  # noqa: F811
    """moto refuses to project this table: the items come back whole (5 attributes), and only
    the 2 the statement needs are decoded; the rows and the exact bytes are as before."""
    backend, irregular, _ = tables
    session = _warm(Session(backend.client()), irregular)
    session.execute(f"SELECT sk FROM {irregular} WHERE pk = 'a'").all()  # learn the refusal
    decoded: list[Any] = []
    real = values.decode

    def counting(av: Any) -> Any:
        decoded.append(av)
        return real(av)

    monkeypatch.setattr(values, "decode", counting)
    result = session.execute(f"SELECT sk, note FROM {irregular} WHERE pk = 'a'")
    assert sorted(result.all(), key=lambda r: r["sk"]) == [
        {"sk": "1", "note": "x"},
        {"sk": "2", "note": "y"},
    ]
    assert len(decoded) == 4  # sk and note of 2 items, not their pk, n and m
    assert result.stats.bytes_exact and result.stats.bytes_read > 0
