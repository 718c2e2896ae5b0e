"""Scalar functions over decoded DynamoDB values: what ``SELECT ROUND(AVG(t), 2)``,
``GROUP BY SUBSTR(ts, 1, 10)`` or ``WHERE price * qty > 100`` compute. DynamoDB evaluates
none of them, so each is computed here, client-side, by one rule per function (the walk over
expressions is `predicate.expression_value`; the names are ``ast.Scalar.func``).

The rules (grammar/README.md, "Expressions", says them for users):

- A missing attribute, a NULL, or a value of a type the function does not take gives NULL
  (the DynamoDB NULL value), never an error in the middle of a read: one odd item among a
  million must not stop a Scan. ``COALESCE`` and ``CONCAT`` skip them instead.
- Numbers are Decimal end to end. ``+ - * %`` and unary minus are exact (as SUM is: a result
  may have more than 38 digits, which DynamoDB could not store, and a write of it is refused
  by the item validator); ``/`` rounds half-even to 38 significant digits, as AVG does.
  Division (and ``%``) by zero gives NULL.
- Strings are counted in code points (``SUBSTR``, ``LENGTH``: 1-based, as SQL), which is how
  DynamoDB's ``size()`` counts a string's characters too.
- ``ITEM_SIZE()``, ``ITEM_RCU([mode])``, ``ITEM_WCU([mode])`` measure the item, not their
  arguments (`item_measure`): its size by DynamoDB's rules (`values.item_size`, the rule the
  cost model and the embedded backend's metering use) and what one read or write of it costs
  (`dynosql.values`' units). The planner reads whole items for them (no ProjectionExpression).
- Time: ISO-8601 strings and epoch-second numbers, the two encodings that sort as their
  values do. ``DATE_TRUNC`` keeps the input's encoding: a string is cut to the unit's prefix
  (``'2026-05-04T13:45:12Z'`` by day is ``'2026-05-04'``, in the string's own time zone), a
  number is floored to the unit in UTC.
"""

from __future__ import annotations

import calendar
import datetime
import decimal
import re
from collections.abc import Callable, Mapping
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any

from dynosql import values
from dynosql.sql import like
from dynosql.values import MISSING

EXACT = values.DECIMAL_CONTEXT
DIVISION = decimal.Context(
    prec=values.MAX_NUMBER_DIGITS, rounding=ROUND_HALF_EVEN, Emax=999999, Emin=-999999
)
# DATE_TRUNC's units: the length of an ISO-8601 string's prefix, and seconds of a number
TRUNC_UNITS = {"year": 4, "month": 7, "day": 10, "hour": 13, "minute": 16, "second": 19}
_UNIT_SECONDS = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
_MAX_PLACES = 400  # ROUND(x, n): beyond this every DynamoDB number is already exact

_ISO = re.compile(
    r"^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(\.\d+)?)?)?)?)?"
    r"(Z|[+-]\d{2}(?::?\d{2})?)?$"
)


def _null(value: Any) -> bool:
    return value is MISSING or value is None


def _number(value: Any) -> Decimal | None:
    return value if isinstance(value, Decimal) else None


def _whole(value: Any) -> int | None:
    """A whole number argument (a position, a count, decimal places), else None."""
    if isinstance(value, Decimal) and value == value.to_integral_value():
        try:
            return int(value)
        except (OverflowError, ValueError):
            return None
    return None


def text_of(value: Any) -> str | None:
    """A value as text for ``||``, CONCAT and CAST(… AS STRING): strings as they are,
    numbers in DynamoDB's canonical form, booleans as true/false; other types have none."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return values.format_number(value)
    return None


# --- numbers -------------------------------------------------------------------------------------


def _arith(op: str) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        x, y = _number(a), _number(b)
        if x is None or y is None:
            return None
        if op == "+":
            return EXACT.add(x, y)
        if op == "-":
            return EXACT.subtract(x, y)
        if op == "*":
            return EXACT.multiply(x, y)
        if not y:
            return None  # division by zero: NULL, as in DuckDB
        if op == "/":
            return DIVISION.divide(x, y)
        try:
            return EXACT.remainder(x, y)  # the sign of the dividend, as SQL's %
        except decimal.InvalidOperation:
            return None

    return apply


def _neg(a: Any) -> Any:
    x = _number(a)
    return None if x is None else x.copy_negate()


def _round(a: Any, places: Any = Decimal(0)) -> Any:
    """SQL ROUND: half away from zero, to `places` decimal places (negative: tens, ...)."""
    x, n = _number(a), _whole(places)
    if x is None or n is None:
        return None
    exponent = x.as_tuple().exponent
    if not isinstance(exponent, int) or exponent >= -n or n > _MAX_PLACES:
        return x  # already has no more places than asked
    return x.quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP, context=EXACT)


def _integral(rounding: str) -> Callable[[Any], Any]:
    def apply(a: Any) -> Any:
        x = _number(a)
        return None if x is None else x.to_integral_value(rounding=rounding)

    return apply


def _abs(a: Any) -> Any:
    x = _number(a)
    return None if x is None else x.copy_abs()


# --- strings -------------------------------------------------------------------------------------


def _dpipe(a: Any, b: Any) -> Any:
    x, y = text_of(a), text_of(b)
    return None if x is None or y is None else x + y


def _concat(*args: Any) -> Any:
    parts = []
    for a in args:
        if _null(a):
            continue
        t = text_of(a)
        if t is None:
            return None
        parts.append(t)
    return "".join(parts)


def _substr(s: Any, start: Any, length: Any = MISSING) -> Any:
    """SQL's SUBSTRING(s FROM start FOR length): 1-based code points; positions before 1 are
    counted but yield nothing (SUBSTR('abc', 0, 2) is 'a')."""
    begin = _whole(start)
    if not isinstance(s, str) or begin is None:
        return None
    first = begin - 1
    if length is MISSING:
        return s[max(0, first) :]
    n = _whole(length)
    if n is None or n < 0:
        return None
    end = first + n
    return s[max(0, first) : max(0, end)]


def _length(s: Any) -> Any:
    return Decimal(len(s)) if isinstance(s, str) else None


def _str_fn(fn: Callable[[str], str]) -> Callable[[Any], Any]:
    def apply(s: Any) -> Any:
        return fn(s) if isinstance(s, str) else None

    return apply


def _trim(s: Any, chars: Any = " ", where: Any = "BOTH") -> Any:
    if not isinstance(s, str) or not isinstance(chars, str):
        return None
    if where == "LEADING":
        return s.lstrip(chars)
    if where == "TRAILING":
        return s.rstrip(chars)
    return s.strip(chars)


def _replace(s: Any, old: Any, new: Any) -> Any:
    if not (isinstance(s, str) and isinstance(old, str) and isinstance(new, str)):
        return None
    return s.replace(old, new) if old else s


def _split_part(s: Any, sep: Any, n: Any) -> Any:
    """PostgreSQL's split_part: the n-th field (1-based; negative counts from the end), ''
    beyond the last; an empty separator leaves the whole string as the one field."""
    index = _whole(n)
    if not (isinstance(s, str) and isinstance(sep, str)) or index is None or index == 0:
        return None
    parts = s.split(sep) if sep else [s]
    if abs(index) > len(parts):
        return ""
    return parts[index - 1] if index > 0 else parts[index]


def _like(s: Any, pattern: Any, escape: Any = None) -> Any:
    if not isinstance(s, str) or not isinstance(pattern, str):
        return None
    return like.regex(pattern, escape).fullmatch(s) is not None


def _starts_with(s: Any, prefix: Any) -> Any:
    if isinstance(s, str) and isinstance(prefix, str):
        return s.startswith(prefix)
    if isinstance(s, bytes | bytearray) and isinstance(prefix, bytes | bytearray):
        return bytes(s).startswith(bytes(prefix))
    return None


# --- NULLs and types -----------------------------------------------------------------------------


def _coalesce(*args: Any) -> Any:
    return next((a for a in args if not _null(a)), None)


def _nullif(a: Any, b: Any) -> Any:
    if _null(a):
        return None
    return None if not _null(b) and values.values_equal(a, b) else a


def _not_distinct(a: Any, b: Any) -> bool:
    """``a IS NOT DISTINCT FROM b`` of two values: both NULL, or equal by DynamoDB's ``=``
    (sql/distinct.py writes it with DynamoDB's conditions wherever an attribute is named)."""
    if _null(a) or _null(b):
        return _null(a) and _null(b)
    return values.values_equal(a, b)


def _cast_number(a: Any) -> Any:
    """A number as it is; a string holding a DynamoDB number (at most 38 digits, in range);
    anything else NULL (as TRY_CAST: one odd item does not stop the read)."""
    if isinstance(a, Decimal):
        return a
    if isinstance(a, str):
        try:
            return values.number(a.strip())
        except ValueError:
            return None
    return None


def _cast_integer(a: Any) -> Any:
    """A whole number: rounded half away from zero, as PostgreSQL and DuckDB cast to INTEGER
    (DynamoDB has one number type: no 32- or 64-bit range applies)."""
    x = _cast_number(a)
    return None if x is None else x.to_integral_value(rounding=ROUND_HALF_UP)


def _cast_decimal(a: Any, precision: Any, scale: Any) -> Any:
    """DECIMAL(p, s): rounded half away from zero to s places; NULL when more than p - s
    digits stand before the point (SQL's overflow, NULL here as every CAST's odd value)."""
    x, p, s = _cast_number(a), _whole(precision), _whole(scale)
    if x is None or p is None or s is None:
        return None
    rounded = x.quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP, context=EXACT)
    whole = rounded.copy_abs().to_integral_value(rounding=ROUND_FLOOR)
    return None if whole and whole.adjusted() + 1 > p - s else rounded


def _cast_string(a: Any, length: Any = MISSING) -> Any:
    """Text (`text_of`); ``VARCHAR(n)`` and ``CHAR(n)`` keep the first n code points."""
    text = text_of(a)
    n = None if length is MISSING else _whole(length)
    return text if text is None or n is None else text[:n]


_TRUE_WORDS = frozenset({"true", "t", "yes", "y", "on", "1"})
_FALSE_WORDS = frozenset({"false", "f", "no", "n", "off", "0"})


def _cast_boolean(a: Any) -> Any:
    """A boolean as it is; a number: 0 is false, any other true; a string PostgreSQL reads as
    a boolean (true/false, t/f, yes/no, y/n, on/off, 1/0; any case, blanks around)."""
    if isinstance(a, bool):
        return a
    if isinstance(a, Decimal):
        return bool(a)
    if isinstance(a, str):
        word = a.strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    return None


def _cast_binary(a: Any) -> Any:
    """Binary as it is; a string as its UTF-8 bytes (how DynamoDB sizes it too)."""
    if isinstance(a, bytes | bytearray):
        return bytes(a)
    return a.encode("utf-8") if isinstance(a, str) else None


# --- time ----------------------------------------------------------------------------------------


def _iso(text: str) -> re.Match[str] | None:
    m = _ISO.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else None for g in m.groups()[:6])
    try:
        datetime.datetime(year or 1, month or 1, day or 1, hour or 0, minute or 0, second or 0)
    except ValueError:
        return None
    return m


def _date_trunc(unit: Any, ts: Any) -> Any:
    u = unit.lower() if isinstance(unit, str) else None
    if u not in TRUNC_UNITS:
        return None
    if isinstance(ts, str):
        m = _iso(ts)
        cut = TRUNC_UNITS[u]
        if m is None or len(m.group(0)) < cut or (m.group(8) and m.start(8) < cut):
            return None
        return ts[:cut]
    x = _number(ts)
    if x is None:
        return None
    if u in _UNIT_SECONDS:
        step = Decimal(_UNIT_SECONDS[u])
        rest = EXACT.remainder(x, step)  # the sign of x: floor means one step more below 0
        if rest < 0:
            rest = EXACT.add(rest, step)
        return EXACT.subtract(x, rest).to_integral_value()
    moment = _utc(x)
    if moment is None:
        return None
    month = 1 if u == "year" else moment.month
    first = moment.replace(month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    return Decimal(calendar.timegm(first.timetuple()))


def _utc(x: Decimal) -> datetime.datetime | None:
    whole = x.to_integral_value(rounding=ROUND_FLOOR)
    try:
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=int(whole))
    except (OverflowError, ValueError):
        return None


def _from_unixtime(a: Any) -> Any:
    """Epoch seconds → ISO-8601 UTC text (``2026-05-04T13:45:12Z``); a fraction keeps its
    digits, padded to milliseconds (or micro-, nanoseconds)."""
    x = _number(a)
    if x is None:
        return None
    moment = _utc(x)
    if moment is None or not 1 <= moment.year <= 9999:
        return None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = EXACT.subtract(x, x.to_integral_value(rounding=ROUND_FLOOR))
    if fraction:
        digits = format(fraction.normalize(EXACT), "f")[2:]
        width = -(-len(digits) // 3) * 3
        text += "." + digits.ljust(width, "0")
    return text + "Z"


def _to_unixtime(a: Any) -> Any:
    """ISO-8601 text → epoch seconds, exactly (a fraction kept); no zone means UTC."""
    if not isinstance(a, str):
        return None
    m = _iso(a)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in m.groups()[:6])
    seconds = calendar.timegm((year, month, day or 1, hour, minute, second, 0, 0, 0))
    total = Decimal(seconds)
    if m.group(7):
        total = EXACT.add(total, Decimal("0" + m.group(7)))
    zone = m.group(8)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 3600 + (int(digits[2:4]) * 60 if len(digits) > 2 else 0)
        total = EXACT.subtract(total, Decimal(sign * offset))
    return total


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "+": _arith("+"),
    "-": _arith("-"),
    "*": _arith("*"),
    "/": _arith("/"),
    "%": _arith("%"),
    "NEG": _neg,
    "||": _dpipe,
    "CONCAT": _concat,
    "ROUND": _round,
    "FLOOR": _integral(ROUND_FLOOR),
    "CEIL": _integral(ROUND_CEILING),
    "ABS": _abs,
    "SUBSTR": _substr,
    "LENGTH": _length,
    "LOWER": _str_fn(str.lower),
    "UPPER": _str_fn(str.upper),
    "TRIM": _trim,
    "REPLACE": _replace,
    "SPLIT_PART": _split_part,
    "STARTS_WITH": _starts_with,
    "LIKE": _like,
    "IS_NULL": lambda a: a is None,  # an expression's NULL (`p IS NULL` is predicate.py's)
    "COALESCE": _coalesce,
    "NULLIF": _nullif,
    "NOT_DISTINCT": _not_distinct,
    "CAST_NUMBER": _cast_number,
    "CAST_STRING": _cast_string,
    "CAST_INTEGER": _cast_integer,
    "CAST_DECIMAL": _cast_decimal,
    "CAST_BOOLEAN": _cast_boolean,
    "CAST_BINARY": _cast_binary,
    "DATE_TRUNC": _date_trunc,
    "FROM_UNIXTIME": _from_unixtime,
    "TO_UNIXTIME": _to_unixtime,
    "NOW": lambda bound=None: bound if bound is not None else values.now_text(),
    "VALUE": lambda value: value,  # a value as a column of a SELECT without FROM (SELECT 1)
}


def item_measure(func: str, item: Mapping[str, Any], mode: str | None = None) -> Decimal:
    """``ITEM_SIZE()``: the item's bytes; ``ITEM_RCU(mode)``: one GetItem of it, 'eventual'
    (half a unit per 4 KB), 'strong' (one) or 'transactional' (two, as TransactGetItems);
    ``ITEM_WCU(mode)``: one PutItem or DeleteItem of it on the table, 'standard' (one unit
    per 1 KB) or 'transactional' (two). Index writes are not counted: they depend on the write
    (EXPLAIN of the write prices them)."""
    size = values.item_size(item)
    if func == "ITEM_SIZE":
        return Decimal(size)
    if func == "ITEM_RCU":
        if mode == "transactional":
            return values.transactional_read_units(size)
        return values.read_units(size, consistent=mode == "strong")
    return values.write_units(size, transactional=mode == "transactional")


def apply(func: str, args: list[Any]) -> Any:
    """The value of one function over its arguments' values (MISSING for a missing
    attribute); NULL (None) where the rules above give no value. Never MISSING."""
    args = [None if a is MISSING else a for a in args]
    if func not in _NULL_AWARE and any(a is None for a in args):
        return None
    return FUNCTIONS[func](*args)


_NULL_AWARE = ("COALESCE", "CONCAT", "NULLIF", "IS_NULL", "NOT_DISTINCT")
