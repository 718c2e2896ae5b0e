"""COPY t TO 'x.parquet' / COPY t FROM 'x.parquet' through DuckDB: every DynamoDB type mapped to
a Parquet type that holds it exactly (DECIMAL(38, s) where the numbers fit, else their text;
sets as lists; lists and maps as jsonl's JSON), the DynamoDB types kept in the file's
metadata, so the round trip gives back the same items."""

from __future__ import annotations

import json
import sys
from collections import Counter
from decimal import Decimal

import pytest

from dynosql import files, values
from dynosql.errors import ExecutionError
from dynosql.session import Session

duckdb = pytest.importorskip("duckdb")

ITEMS = [
    {
        "id": "a",
        "price": Decimal("12345678901234567890123456789012.345678"),  # 38 digits, scale 6
        "wide": Decimal("1E+125"),  # 126 digits before the point: no DECIMAL(38, s) holds it
        "blob": b"\x00\xff",
        "empty": "",
        "ok": True,
        "tags": values.StringSet({"x", "y"}),
        "nums": values.NumberSet({Decimal("1.5"), Decimal("-2")}),
        "bins": values.BinarySet({b"\x01", b"\x02"}),
        "doc": {"a": [Decimal(1), "two", None, {"$odd": True}]},
        "nothing": None,
        "mixed": Decimal(7),
    },
    {"id": "b", "price": Decimal("-0.000001"), "wide": Decimal("3"), "mixed": "seven"},
    {"id": "c"},
]


def _table(backend, name: str) -> None:  # noqa: ANN001
    backend.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _canonical(rows: list[dict]) -> Counter:
    return Counter(files.item_json(dict(sorted(r.items()))) for r in rows)


def test_round_trip_of_every_type_and_the_parquet_types(moto_backend, table_name, tmp_path) -> None:
    _table(moto_backend, table_name)
    moto_backend.put_items(table_name, ITEMS)
    session = Session(moto_backend.client())
    path = tmp_path / "items.parquet"
    done = session.execute(f"COPY {table_name} TO '{path}'")
    list(done)
    assert done.title.startswith("COPY 3 rows") and path.exists()
    notes = "\n".join(done.notes)
    assert "wide: numbers wider than DECIMAL(38, 0) written as exact text" in notes
    assert "tags: a set (SS) written as a Parquet list" in notes
    assert "doc: maps written as JSON text" in notes
    assert "mixed: values of several types written as JSON text" in notes

    described = dict(
        (row[0], row[1]) for row in duckdb.sql(f"DESCRIBE SELECT * FROM '{path}'").fetchall()
    )
    assert described["price"] == "DECIMAL(38,6)" and described["wide"] == "VARCHAR"
    assert described["blob"] == "BLOB" and described["ok"] == "BOOLEAN"
    assert described["tags"] == "VARCHAR[]" and described["nums"] == "DECIMAL(38,1)[]"
    assert described["bins"] == "BLOB[]" and described["doc"] == "VARCHAR"
    # other tools read the natural types: the 38-digit price exactly, "" not NULL
    price, empty = duckdb.sql(f"SELECT price, empty FROM '{path}' WHERE id = 'a'").fetchall()[0]
    assert price == Decimal("12345678901234567890123456789012.345678") and empty == ""

    again = f"{table_name}-again"
    _table(moto_backend, again)
    loaded = session.execute(f"COPY \"{again}\" FROM '{path}'")
    list(loaded)
    assert loaded.title.startswith("COPY 3 rows ←")
    before = session.execute(f"SELECT * FROM {table_name}").all()
    after = session.execute(f'SELECT * FROM "{again}"').all()
    assert _canonical(after) == _canonical(before) == _canonical(ITEMS)


@pytest.mark.slow
def test_every_example_table_round_trips_exactly(moto_examples_backend, tmp_path) -> None:
    """Each example table to Parquet and back (read as COPY FROM reads it): the same items."""
    from dynosql.engines import parquet

    session = Session(moto_examples_backend.client())
    for table in ("drive", "audit", "sensors", "tenants"):
        path = tmp_path / f"{table}.parquet"
        list(session.execute(f"COPY {table} TO '{path}'"))
        items = [line.item for line in parquet.read(str(path))]
        assert all(items) and _canonical(items) == _canonical(
            session.execute(f"SELECT * FROM {table}").all()
        ), table


def test_missing_duckdb_is_one_clear_message(monkeypatch, tmp_path) -> None:
    from dynosql.engines import parquet

    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(ExecutionError, match=r"needs DuckDB: pip install 'dynosql\[export\]'"):
        list(parquet.read(str(tmp_path / "x.parquet")))


def test_a_file_that_is_not_parquet_is_one_clear_error(moto_backend, table_name, tmp_path) -> None:
    _table(moto_backend, table_name)
    bad = tmp_path / "bad.parquet"
    bad.write_text(json.dumps({"id": "x"}))
    session = Session(moto_backend.client())
    with pytest.raises(ExecutionError, match=r"cannot read .*bad\.parquet as Parquet"):
        list(session.execute(f"COPY {table_name} FROM '{bad}'"))
