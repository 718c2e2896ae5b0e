"""``CAST(x AS type)``: which of DynamoDB's value types each SQL type name means, and the
client-side function (dynosql/evaluate/scalar.py) that converts to it.

DynamoDB has one number type (N: 38 significant digits, never binary floating point), strings,
binary and booleans. So every SQL number type is N: ``NUMBER``, ``NUMERIC``/``DECIMAL``,
``FLOAT``, ``REAL`` and ``DOUBLE`` keep the number exact; the integer types (``INTEGER``,
``BIGINT``, …) round it to a whole number; ``DECIMAL(p, s)`` / ``NUMERIC(p, s)`` round it to s
places (p at most 38, DynamoDB's digits). ``STRING``, ``TEXT``, ``VARCHAR[(n)]``,
``CHAR[(n)]`` are S (a length keeps the first n characters); ``BOOLEAN`` is BOOL; ``BINARY``,
``VARBINARY``, ``BLOB``, ``BYTEA`` are B. Dates and times have no DynamoDB type: refused.
"""

from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

from dynosql.sql import ast

T = exp.DataType.Type
_NUMBERS = frozenset({T.DECIMAL, T.BIGDECIMAL, T.FLOAT, T.DOUBLE})
_INTEGERS = frozenset({T.INT, T.BIGINT, T.SMALLINT, T.TINYINT, T.MEDIUMINT})
_STRINGS = frozenset({T.TEXT, T.VARCHAR, T.NVARCHAR, T.CHAR, T.NCHAR})
_SIMPLE = {T.BOOLEAN: "CAST_BOOLEAN", T.BINARY: "CAST_BINARY", T.VARBINARY: "CAST_BINARY"}
_KNOWN = _NUMBERS | _INTEGERS | _STRINGS | frozenset(_SIMPLE)
MAX_PRECISION = 38  # DynamoDB's significant digits

TAKES = "CAST takes AS NUMBER, INTEGER, DECIMAL(p, s), FLOAT, STRING, VARCHAR(n), BOOLEAN or BINARY"


class CastError(ValueError):
    """A type CAST cannot convert to, or a type's parameters out of range: the message."""


def cast_of(to: exp.Expression | None) -> tuple[str, tuple[ast.Literal, ...]]:
    """The scalar function (``CAST_NUMBER``, ``CAST_DECIMAL``, …) for a CAST's target type,
    and its parameters as literal operands (DECIMAL's precision and scale, VARCHAR's length).
    Raises CastError for a type DynamoDB has no value of (dates, times, arrays, …)."""
    if not isinstance(to, exp.DataType) or to.this not in _KNOWN:
        raise CastError(TAKES)
    kind, params = to.this, [_whole(p, to) for p in to.expressions]
    if kind in _NUMBERS and not params:
        return "CAST_NUMBER", ()
    if kind == T.DECIMAL:
        precision, scale = (params + [0])[:2] if len(params) <= 2 else (None, None)
        if precision is None or scale is None or not 1 <= precision <= MAX_PRECISION:
            raise CastError(
                f"{to.sql()}: DECIMAL takes a precision of 1 to {MAX_PRECISION} (DynamoDB's "
                "digits) and a scale: DECIMAL(10, 2)"
            )
        if not 0 <= scale <= precision:
            raise CastError(f"{to.sql()}: the scale is 0 to the precision: DECIMAL(10, 2)")
        return "CAST_DECIMAL", (_literal(precision), _literal(scale))
    if kind in _INTEGERS and not params:
        return "CAST_INTEGER", ()
    if kind in _STRINGS and len(params) <= 1:
        if params and params[0] < 1:
            raise CastError(f"{to.sql()}: a length is at least 1")
        return "CAST_STRING", tuple(_literal(n) for n in params)
    if kind in _SIMPLE and not params:
        return _SIMPLE[kind], ()
    raise CastError(TAKES)


def _whole(param: exp.Expression, to: exp.DataType) -> int:
    value = param.this if isinstance(param, exp.DataTypeParam) else param
    if isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit():
        return int(value.this)
    raise CastError(f"{to.sql()}: a type's parameters are whole numbers: DECIMAL(10, 2)")


def _literal(n: int) -> ast.Literal:
    return ast.Literal(Decimal(n))
