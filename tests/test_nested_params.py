""":parameters inside the list, map and set literals of write statements (grammar/README.md's
write `value`): bound by one rule (dynosql/sql/bind.py) whether they come from the CLI's `-v`,
Session params or the DB-API. Parsing and binding are checked offline; the writes on the
embedded moto backend (the values sent are the same on every backend: nothing here depends on
a backend's semantics)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from cli_runner import AWS_VARIABLES, cli_env, run_cli
from test_write_fuzz import _hash_table, _items_of, _session

import dynosql
from dynosql import values
from dynosql.errors import SqlError
from dynosql.sql import ast, parse_script
from dynosql.sql.bind import bind
from dynosql.values import BinarySet, NumberSet, StringSet


def _parse(sql: str) -> Any:
    (statement,) = parse_script(sql)
    return statement


def _item(backend: Backend, name: str, pk: str) -> dict[str, Any] | None:
    return _items_of(backend, name).get(pk)


# --- offline: parse and bind -------------------------------------------------------------------


def test_a_set_of_parameters_takes_its_type_when_bound() -> None:
    statement = _parse("UPDATE t SET s = {:a, :b} WHERE pk = 'k'")
    assert bind(statement, {"a": b"\x00", "b": b"\xff"}).assignments[0].value == ast.Literal(
        BinarySet({b"\x00", b"\xff"})
    )
    bound = bind(statement, {"a": "x", "b": "y"}).assignments[0].value.value
    assert type(bound) is StringSet and bound == {"x", "y"}
    bound = bind(statement, {"a": Decimal(1), "b": Decimal(2)}).assignments[0].value.value
    assert type(bound) is NumberSet and bound == {1, 2}


def test_a_set_of_parameters_of_two_types_is_refused_at_the_set() -> None:
    statement = _parse("UPDATE t\nSET s = {'x', :b} WHERE pk = 'k'")
    with pytest.raises(SqlError) as info:
        bind(statement, {"b": b"\x01"})
    assert info.value.message == values.SET_RULE
    assert (info.value.line, info.value.col) == (2, 10)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE t SET s = {'x', 1, :b} WHERE pk = 'k'",  # the literals alone already disagree
        "UPDATE t SET s = {[:b]} WHERE pk = 'k'",  # a list is never a set's element
    ],
)
def test_a_set_that_can_never_be_one_is_refused_when_parsed(sql: str) -> None:
    with pytest.raises(SqlError) as info:
        _parse(sql)
    assert info.value.message == values.SET_RULE


def test_an_unbound_parameter_inside_a_collection_is_named_with_its_position() -> None:
    statement = _parse("UPDATE t SET l = [1, {'k': [:x]}] WHERE pk = :p")
    with pytest.raises(SqlError) as info:
        bind(statement, {"p": "a"})
    assert info.value.message == "no value for :x (give one with -v x=value)"
    assert (info.value.line, info.value.col) == (1, 29)


def test_adding_a_set_of_parameters_is_dynamodbs_add() -> None:
    """`s = s + {:a}` is an ADD to the set, as with a literal set (not arithmetic)."""
    assignment = _parse("UPDATE t SET s = s + {:a} WHERE pk = 'k'").assignments[0]
    assert assignment.action == "add"
    assert bind(assignment, {"a": b"\x07"}).value.value == BinarySet({b"\x07"})


# --- writes on moto ----------------------------------------------------------------------------


def test_update_set_with_parameters_inside_lists_maps_and_sets(
    moto_backend: Backend, tmp_path: Path
) -> None:
    name = _hash_table(
        moto_backend,
        [{"pk": "a", "l": [Decimal(1)], "bs": BinarySet({b"\x01"}), "ss": StringSet({"x", "y"})}],
    )
    session = _session(moto_backend, tmp_path)
    session.execute(
        f"UPDATE {name} SET l = list_append(l, [:b, :n]), m = {{'k': [:b], 'n': {{'x': :n}}}}, "
        "bs = bs + {:b, :c}, ss = ss - {:s}, nb = if_not_exists(nb, {:b}) WHERE pk = :pk",
        {"b": b"\x02", "c": b"\x03", "n": Decimal(7), "s": "x", "pk": "a"},
    ).all()
    assert _item(moto_backend, name, "a") == {
        "pk": "a",
        "l": [Decimal(1), b"\x02", Decimal(7)],
        "m": {"k": [b"\x02"], "n": {"x": Decimal(7)}},
        "bs": BinarySet({b"\x01", b"\x02", b"\x03"}),
        "ss": StringSet({"y"}),
        "nb": BinarySet({b"\x02"}),
    }


def test_insert_a_set_of_binary_parameters(moto_backend: Backend, tmp_path: Path) -> None:
    name = _hash_table(moto_backend, [])
    session = _session(moto_backend, tmp_path)
    session.execute(
        f"INSERT INTO {name} (pk, bs, l) VALUES ('a', {{:x, :y}}, [{{:x}}])",
        {"x": b"\x00", "y": b"\xff\xfe"},
    ).all()
    assert _item(moto_backend, name, "a") == {
        "pk": "a",
        "bs": BinarySet({b"\x00", b"\xff\xfe"}),
        "l": [BinarySet({b"\x00"})],
    }


def test_the_clis_v_rules_bind_inside_a_collection(moto_backend: Backend, tmp_path: Path) -> None:
    """`-v n=5` is a number, `-v z=007` a string, `-v j:=JSON` a JSON value, in a list or map
    as at the top level; an unbound one is the usual one-line error and nothing is written."""
    name = _hash_table(moto_backend, [])
    url = ["--endpoint-url", moto_backend.endpoint_url, "--yes"]
    env = cli_env(tmp_path)
    insert = f"INSERT INTO {name} (pk, l, m) VALUES ('a', [:n, :z], {{'j': :j}})"
    run = run_cli(*url, "-v", "n=5", "-v", "z=007", "-e", insert, env=env)
    assert run.returncode == 1
    assert run.one_error() == "error: no value for :j (give one with -v j=value)"
    assert _item(moto_backend, name, "a") is None
    run = run_cli(
        *url, "-v", "n=5", "-v", "z=007", "-v", 'j:={"a": [1, "b"]}', "-e", insert, env=env
    )
    assert run.returncode == 0, run.stderr
    assert _item(moto_backend, name, "a") == {
        "pk": "a",
        "l": [Decimal(5), "007"],
        "m": {"j": {"a": [Decimal(1), "b"]}},
    }
    update = f"UPDATE {name} SET s = {{'x', :w}} WHERE pk = 'a'"
    run = run_cli(*url, "-e", update, env=env)
    assert run.returncode == 1
    column = update.index(":w") + 1
    assert run.one_error() == (
        f"error: line 1, column {column}: no value for :w (give one with -v w=value)"
    )
    assert "s" not in (_item(moto_backend, name, "a") or {"s": "the item is gone"})


def test_dbapi_executemany_binds_each_rows_collections(
    moto_backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """executemany of a one-row INSERT binds each parameter set into one statement of many
    rows (dbapi/connection.py): each row's set gets that set's values."""
    for key, value in AWS_VARIABLES.items():
        monkeypatch.setenv(key, value)
    name = _hash_table(moto_backend, [])
    with dynosql.connect(
        endpoint_url=moto_backend.endpoint_url, journal_dir=str(tmp_path / "journal")
    ) as conn:
        conn.cursor().executemany(
            f"INSERT INTO {name} (pk, bs, m) VALUES (:pk, {{:a, :b}}, {{'raw': [:a]}})",
            [
                {"pk": "p", "a": b"\x01", "b": bytearray(b"\x02")},
                {"pk": "q", "a": b"\x03", "b": memoryview(b"\x04")},
            ],
        )
        conn.commit()
    assert _item(moto_backend, name, "p") == {
        "pk": "p",
        "bs": BinarySet({b"\x01", b"\x02"}),
        "m": {"raw": [b"\x01"]},
    }
    assert _item(moto_backend, name, "q") == {
        "pk": "q",
        "bs": BinarySet({b"\x03", b"\x04"}),
        "m": {"raw": [b"\x03"]},
    }
