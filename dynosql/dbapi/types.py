"""PEP 249's type objects and constructors, and Python values bound to ``:name``.

DynamoDB has no column types: each attribute of each item has its own. A column's type code
in `Cursor.description` is the DynamoDB type code (``"S"``, ``"N"``, ``"B"``, ``"BOOL"``,
``"NULL"``, ``"L"``, ``"M"``, ``"SS"``, ``"NS"``, ``"BS"``) of the first value the cursor saw
in that column, or None when none was seen. The type objects compare equal to the codes they
stand for: ``STRING == "S"``, ``NUMBER == "N"``, ``BINARY == "B"``. DynamoDB has no date type
(dates are strings, ISO 8601 by convention, or epoch numbers) and no row id (the primary key
is an item's identity): ``DATETIME`` and ``ROWID`` equal no code.

Parameters follow the command line's ``-v name:=JSON`` rules, with Python's types standing in
for JSON's: str, bool and None as themselves; int, Decimal and float as numbers (at most 38
significant digits, never NaN or infinity; a float by its shortest repr, ``0.1`` → 0.1);
bytes, bytearray and memoryview as binary; list and tuple as lists; dict (string keys) as
maps; set and frozenset of one type as a string, number or binary set (never empty: DynamoDB
has no empty set); date, time and datetime as their ISO 8601 strings.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.dbapi.exceptions import DataError, NotSupportedError, ProgrammingError
from dynosql.sql import ast
from dynosql.sql.bind import positional


class DBAPITypeObject:
    """A PEP 249 type object: equal to each DynamoDB type code it stands for."""

    def __init__(self, name: str, *codes: str):
        self.name = name
        self.codes = frozenset(codes)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DBAPITypeObject):
            return self.codes == other.codes
        return other in self.codes

    def __hash__(self) -> int:
        return hash(self.codes)

    def __repr__(self) -> str:
        return f"<dynosql.dbapi.{self.name}>"


STRING = DBAPITypeObject("STRING", "S")
NUMBER = DBAPITypeObject("NUMBER", "N")
BINARY = DBAPITypeObject("BINARY", "B")
DATETIME = DBAPITypeObject("DATETIME")
ROWID = DBAPITypeObject("ROWID")
# beyond PEP 249: the rest of DynamoDB's types
BOOLEAN = DBAPITypeObject("BOOLEAN", "BOOL")
LIST = DBAPITypeObject("LIST", "L")
MAP = DBAPITypeObject("MAP", "M")
SET = DBAPITypeObject("SET", "SS", "NS", "BS")


def Date(year: int, month: int, day: int) -> str:
    return datetime.date(year, month, day).isoformat()


def Time(hour: int, minute: int, second: int) -> str:
    return datetime.time(hour, minute, second).isoformat()


def Timestamp(year: int, month: int, day: int, hour: int, minute: int, second: int) -> str:
    return datetime.datetime(year, month, day, hour, minute, second).isoformat()


def DateFromTicks(ticks: float) -> str:
    return Date(*time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> str:
    return Time(*time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> str:
    return Timestamp(*time.localtime(ticks)[:6])


def Binary(data: bytes | bytearray | memoryview | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def type_code(value: Any) -> str | None:
    """The description's type code of one value (None for a missing attribute)."""
    return values.type_of(value)


def declared_types(statement: ast.Select, keys: dict[str, str]) -> dict[str, str]:
    """The output columns of `statement` that are key attributes (of `keys`: name → declared
    type) read as they are: every key of ``SELECT *``, else each select-list item that is a
    top-level attribute, under its output name."""
    if statement.items is None:
        return dict(keys)
    return {
        item.name: keys[item.expr.root]
        for item in statement.items
        if isinstance(item.expr, ast.Path) and item.expr.is_attribute and item.expr.root in keys
    }


def counted_columns(statement: ast.Statement) -> frozenset[str]:
    """The output columns of a SELECT that are a COUNT: whole numbers, fetched as ``int``
    (pandas makes them int64 columns; every other number stays an exact Decimal)."""
    if not isinstance(statement, ast.Select):
        return frozenset()
    return frozenset(
        item.name
        for item in statement.items or ()
        if isinstance(item.expr, ast.Aggregate) and item.expr.func == "COUNT"
    )


def parameters(given: Any) -> dict[str, Any]:
    """`execute`'s parameters as dynosql values by name: a mapping for ``:name`` (paramstyle
    ``named``, what `paramstyle` says), or a sequence for ``?`` (``qmark``, PartiQL's: the
    n-th value binds the n-th ``?``)."""
    if given is None:
        return {}
    if isinstance(given, Mapping):
        return {str(name): value_of(value, str(name)) for name, value in given.items()}
    if isinstance(given, Sequence) and not isinstance(given, str | bytes):
        return {name: value_of(value, name) for name, value in positional(given).items()}
    raise NotSupportedError(
        f"parameters are a mapping for :name or a sequence for ?, not a {type(given).__name__}"
        ": execute('… WHERE PK = :pk', {'pk': 'DRIVE#bob'}) or execute('… WHERE PK = ?', "
        "['DRIVE#bob'])"
    )


def value_of(value: Any, name: str) -> Any:
    """One Python value as the dynosql value ``:name`` binds (see the module's rules)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, values.SET_TYPES):
        return value
    if isinstance(value, int | Decimal | float):
        return _number(value, name)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, datetime.date | datetime.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [value_of(v, name) for v in value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ProgrammingError(f"parameter :{name}: a map's keys must be strings")
        return {k: value_of(v, name) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return _set(value, name)
    raise ProgrammingError(
        f"parameter :{name}: cannot bind a {type(value).__name__} (str, number, bytes, bool, "
        "None, list, dict, set, date/time)"
    )


def _number(value: int | Decimal | float, name: str) -> Decimal:
    text = repr(value) if isinstance(value, float) else value
    try:
        return values.number(text)
    except ValueError as err:
        raise DataError(f"parameter :{name}: {err}") from None


def _set(value: set[Any] | frozenset[Any], name: str) -> Any:
    if not value:
        raise DataError(f"parameter :{name}: DynamoDB has no empty set")
    found = values.set_of(value_of(v, name) for v in value)
    if found is None:
        raise DataError(f"parameter :{name}: a set holds strings, numbers or binaries of one type")
    return found
