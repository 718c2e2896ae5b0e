"""COPY's Parquet format, written and read through DuckDB (the ``export`` extra).

Parquet has column types, DynamoDB has a type per value; each column gets the Parquet type
that holds its values exactly, and the file's key-value metadata (``dynosql.types``) records
each column's DynamoDB type, so COPY FROM gives back the same items:

- numbers (N): DECIMAL(38, s), s the most decimal places of the column, where every value
  fits 38 digits at that scale; otherwise the exact text as VARCHAR (a note says which);
- strings (S) VARCHAR, binary (B) BLOB, booleans (BOOL) BOOLEAN;
- sets (SS, NS, BS): lists (VARCHAR[], DECIMAL(38, s)[] or VARCHAR[] of number text, BLOB[]):
  Parquet has no set type, the metadata says they are sets (a note says so);
- lists and maps (L, M), NULL, and columns whose values have several types (ANY): the value
  as COPY's jsonl writes it (``dynosql.files.typed_json``), as VARCHAR;
- a missing attribute is a Parquet NULL (an empty string stays an empty string).

Other tools read the numbers, strings, booleans, binaries and lists as their natural types.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from dynosql import files, values
from dynosql.engines.duck import insert_rows, require_duckdb
from dynosql.errors import ExecutionError

METADATA_KEY = "dynosql.types"
MAX_DIGITS = 38  # DECIMAL's widest precision, in DuckDB and in Parquet readers
SETS = {"SS": "S", "NS": "N", "BS": "B"}


def _duckdb() -> Any:
    return require_duckdb("COPY … 'x.parquet'")


def _digits(value: Decimal) -> tuple[int, int]:
    """(digits before the point, decimal places) of a number as DynamoDB keeps it."""
    _sign, digits, exponent = value.normalize(values.DECIMAL_CONTEXT).as_tuple()
    assert isinstance(exponent, int)
    scale = max(-exponent, 0)
    whole = max(len(digits) + exponent, 0)
    return whole, scale


class _Column:
    """What COPY TO learned of one column: its types and its numbers' widths."""

    def __init__(self) -> None:
        self.codes: set[str] = set()
        self.whole = 0
        self.scale = 0

    def add(self, value: Any) -> None:
        code = values.type_of(value) or "NULL"
        self.codes.add(code)
        numbers = value if code == "NS" else [value] if code == "N" else ()
        for number in numbers:
            whole, scale = _digits(number)
            self.whole, self.scale = max(self.whole, whole), max(self.scale, scale)

    @property
    def kind(self) -> str:
        if len(self.codes) == 1:
            (only,) = self.codes
            if only in ("S", "N", "B", "BOOL", "SS", "NS", "BS", "L", "M"):
                return only
        return "ANY"

    @property
    def decimal(self) -> bool:
        return self.whole + self.scale <= MAX_DIGITS

    def sql_type(self) -> str:
        kind = self.kind
        number = f"DECIMAL({MAX_DIGITS}, {self.scale})" if self.decimal else "VARCHAR"
        return {
            "S": "VARCHAR",
            "N": number,
            "B": "BLOB",
            "BOOL": "BOOLEAN",
            "SS": "VARCHAR[]",
            "NS": number + "[]",
            "BS": "BLOB[]",
        }.get(kind, "VARCHAR")

    def cell(self, value: Any) -> Any:
        if value is values.MISSING:
            return None
        kind = self.kind
        if kind == "N":
            return value if self.decimal else values.format_number(value)
        if kind == "NS":
            ordered = sorted(value)
            return ordered if self.decimal else [values.format_number(n) for n in ordered]
        if kind in ("SS", "BS"):
            return sorted(value)
        if kind in ("S", "B", "BOOL"):
            return value
        return files.typed_json(value)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def write(rows: Iterator[dict[str, Any]], columns: list[str], path: str) -> list[str]:
    """Write `rows` to the Parquet file `path`; the notes on how types were mapped."""
    duckdb = _duckdb()
    learned: dict[str, _Column] = {name: _Column() for name in columns}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:  # rows wait on disk
        for row in rows:
            for name, value in row.items():
                if value is not values.MISSING:
                    learned.setdefault(name, _Column()).add(value)
            spool.write(files.item_json(row) + "\n")
        names = [n for n, c in learned.items() if c.codes] or list(learned)[:1]
        con = duckdb.connect()
        try:
            ddl = ", ".join(f"{_quote(n)} {learned[n].sql_type()}" for n in names)
            con.execute(f"CREATE TABLE items ({ddl or '__empty VARCHAR'})")
            spool.seek(0)
            insert_rows(
                con,
                "items",
                len(names),
                (
                    [learned[n].cell(item.get(n, values.MISSING)) for n in names]
                    for item in map(files.parse_jsonl, spool)
                ),
            )
            kinds = {n: learned[n].kind for n in names if learned[n].codes}
            metadata = json.dumps(kinds).replace("'", "''")
            target = path.replace("'", "''")
            con.execute(
                f"COPY items TO '{target}' (FORMAT parquet, KV_METADATA "
                f"{{'{METADATA_KEY}': '{metadata}'}})"
            )
        finally:
            con.close()
    notes = []
    for name in names:
        column = learned[name]
        if column.kind in ("N", "NS") and not column.decimal:
            notes.append(
                f"{name}: numbers wider than DECIMAL(38, {column.scale}) written as exact text "
                "(VARCHAR); COPY FROM reads them back as numbers"
            )
        if column.kind in SETS:
            notes.append(f"{name}: a set ({column.kind}) written as a Parquet list")
        if column.kind in ("L", "M", "ANY"):
            what = {"L": "lists", "M": "maps"}.get(column.kind, "values of several types")
            notes.append(f"{name}: {what} written as JSON text (COPY's jsonl form)")
    return notes


def read(path: str) -> Iterator[files.Line]:
    """Every row of a Parquet file as an item (its number: the row's, from 1); a value that is
    not a DynamoDB value comes back as that row's error."""
    duckdb = _duckdb()
    con = duckdb.connect()
    try:
        try:
            kinds = _kinds(con, path)
            cursor = con.execute("SELECT * FROM read_parquet(?)", [path])
        except duckdb.Error as err:
            raise ExecutionError(
                f"cannot read {path} as Parquet: {str(err).splitlines()[0]}"
            ) from None
        names = [d[0] for d in cursor.description]
        number = 0
        while chunk := cursor.fetchmany(1000):
            for row in chunk:
                number += 1
                try:
                    item = {
                        name: _value(cell, kinds.get(name))
                        for name, cell in zip(names, row, strict=True)
                        if cell is not None
                    }
                except (files.BadValue, ValueError, TypeError) as err:
                    yield files.Line(number, None, f"column value: {err}", raw=repr(row))
                    continue
                yield files.Line(number, item, raw=files.item_json(item))
    finally:
        con.close()


def _kinds(con: Any, path: str) -> dict[str, str]:
    """Each column's DynamoDB type from the file's metadata (none: read by Parquet type)."""
    rows = con.execute("SELECT key, value FROM parquet_kv_metadata(?)", [path]).fetchall()
    for key, value in rows:
        key = key.decode() if isinstance(key, bytes) else key
        if key == METADATA_KEY:
            text = value.decode() if isinstance(value, bytes) else value
            return {str(k): str(v) for k, v in json.loads(text).items()}
    return {}


def _number(cell: Any) -> Decimal:
    if isinstance(cell, float):  # a file of another tool's doubles: their shortest repr
        cell = repr(cell)
    return values.number(cell if isinstance(cell, Decimal | int) else str(cell))


def _value(cell: Any, kind: str | None) -> Any:
    """A Parquet cell as the DynamoDB value its column's type says."""
    if kind == "N":
        return _number(cell)
    if kind == "NS":
        return values.NumberSet(_number(n) for n in cell)
    if kind == "SS":
        return values.StringSet(cell)
    if kind == "BS":
        return values.BinarySet(bytes(b) for b in cell)
    if kind in ("L", "M", "ANY"):
        return files.from_typed_json(files.parse_value(cell))
    if kind == "B" or isinstance(cell, bytes | bytearray | memoryview):
        return bytes(cell)
    if isinstance(cell, bool) or kind in ("S", "BOOL"):
        return cell
    if isinstance(cell, Decimal | int | float):
        return _number(cell)
    if isinstance(cell, list):
        return [_value(c, None) for c in cell]
    if isinstance(cell, dict):
        return {str(k): _value(v, None) for k, v in cell.items() if v is not None}
    return str(cell)
