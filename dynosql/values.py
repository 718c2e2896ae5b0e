"""DynamoDB values in Python, and the rules DynamoDB applies to them.

One representation end to end (decoded once from the wire, encoded once back):

=========  ==================================
DynamoDB   Python
=========  ==================================
S          ``str``
N          ``decimal.Decimal`` (never float)
B          ``bytes``
BOOL       ``bool``
NULL       ``None``
L          ``list``
M          ``dict``
SS/NS/BS   ``StringSet`` / ``NumberSet`` / ``BinarySet`` (frozensets that keep their type)
=========  ==================================

A missing attribute is simply absent from the item dict; the sentinel ``MISSING`` stands for it
where a value is needed (path resolution, ordering).
"""

from __future__ import annotations

import base64
import datetime
import decimal
import math
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from decimal import Decimal
from typing import Any

# 38 significant digits is DynamoDB's limit, but numbers span 1E-130 to 1E+126: a sum of
# any of them is exact with 300 digits, so SUM never rounds.
DECIMAL_CONTEXT = decimal.Context(prec=300, Emax=999999, Emin=-999999)

MAX_NUMBER_DIGITS = 38
MIN_MAGNITUDE = Decimal("1E-130")
MAX_MAGNITUDE = Decimal("9.9999999999999999999999999999999999999E+125")


class _Missing:
    """The absence of an attribute: never equal to any value, not even NULL."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class StringSet(frozenset[Any]):
    """An SS value."""

    type_code = "SS"


class NumberSet(frozenset[Any]):
    """An NS value (its elements are Decimals)."""

    type_code = "NS"


class BinarySet(frozenset[Any]):
    """A BS value."""

    type_code = "BS"


SET_TYPES = (StringSet, NumberSet, BinarySet)

TYPE_CODES = ("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS")


def type_of(value: Any) -> str | None:
    """The DynamoDB type code of a decoded value (None for MISSING)."""
    if value is MISSING:
        return None
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, str):
        return "S"
    if isinstance(value, Decimal):
        return "N"
    if isinstance(value, bytes | bytearray):
        return "B"
    if value is None:
        return "NULL"
    if isinstance(value, SET_TYPES):
        return value.type_code
    if isinstance(value, list):
        return "L"
    if isinstance(value, dict):
        return "M"
    if isinstance(value, int | float):
        return "N"
    raise TypeError(f"not a DynamoDB value: {value!r}")


_SET_OF: dict[str | None, type[StringSet | NumberSet | BinarySet]] = {
    "S": StringSet,
    "N": NumberSet,
    "B": BinarySet,
}
# the refusal of a set written with elements `set_of` takes no set from (parsing, binding)
SET_RULE = (
    "a set holds strings, numbers or binary values, all of one type: {'a', 'b'}, {1, 2} or "
    "{:x, :y} (binary values come from parameters)"
)


def set_of(members: Iterable[Any]) -> StringSet | NumberSet | BinarySet | None:
    """The DynamoDB set of `members` when they are all strings, all numbers or all binary;
    None when they are not (mixed types, another type, or none at all). The one rule for a
    set written in a statement (``{'a', 'b'}``, ``{:x, :y}``) or bound from Python."""
    elements = [bytes(m) if isinstance(m, bytearray) else m for m in members]  # hashable
    codes: set[str | None] = set()
    for element in elements:
        try:
            codes.add(type_of(element))
        except TypeError:  # not a DynamoDB value at all
            return None
    kind = _SET_OF.get(codes.pop()) if len(codes) == 1 else None
    return kind(elements) if kind is not None else None


def number(text: str | int | Decimal) -> Decimal:
    """Parse a DynamoDB number exactly; refuse more than 38 significant digits."""
    try:
        value = Decimal(str(text))
    except decimal.InvalidOperation:
        raise ValueError(f"not a number: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not a number: {text!r}")
    try:
        digits = len(value.normalize(DECIMAL_CONTEXT).as_tuple().digits)
    except decimal.Overflow:  # an exponent beyond even the wide context: 1e999999999
        raise ValueError(f"number {text} is out of DynamoDB's range") from None
    if digits > MAX_NUMBER_DIGITS:
        raise ValueError(f"number {text} has more than {MAX_NUMBER_DIGITS} significant digits")
    # copy_abs, not abs(): abs() rounds to the context's 28 digits (9.99…E+125 would overflow)
    if value and not (MIN_MAGNITUDE <= value.copy_abs() <= MAX_MAGNITUDE):
        raise ValueError(
            f"number {text} is out of DynamoDB's range (1E-130 to 9.9999999999999999999999999999999999999E+125)"
        )
    return value


def now_text(moment: datetime.datetime | None = None) -> str:
    """NOW(): the current time as ISO-8601 UTC with milliseconds (``2026-05-04T13:45:12.345Z``),
    the sortable encoding the examples store."""
    moment = moment or datetime.datetime.now(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def literal_number(digits: str, negative: bool = False) -> Decimal:
    """A SQL number literal (its unsigned text and whether a ``-`` precedes it) as a DynamoDB
    number, exactly: the one rule of every parser. The sign goes into the text that `number`
    reads (``Decimal("-…")`` is exact, where unary minus would round to the default 28-digit
    context), so the errors are `number`'s and name the literal as written. ``-0`` is 0."""
    value = number(f"-{digits}" if negative else digits)
    return value if value else value.copy_abs()


def format_number(value: Decimal) -> str:
    """Canonical text of a number as DynamoDB returns it: no exponent, no trailing zeros."""
    text = str(value)
    # numbers read from DynamoDB are already canonical: skip the normalising arithmetic
    if "E" not in text and not ("." in text and text.endswith("0")) and text not in ("-0",):
        return text
    if value == 0:
        return "0"
    normal = value.normalize(DECIMAL_CONTEXT)
    return format(normal, "f")


def sql_literal(value: Any) -> str:
    """A value as a SQL literal (``'it''s'``, ``42``, ``TRUE``, ``NULL``, ``X'00ff'``)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, Decimal):
        return format_number(value)
    if isinstance(value, bytes):
        return f"X'{value.hex()}'"
    return repr(value)


# --- wire format -------------------------------------------------------------------------------


def decode(wire: Mapping[str, Any]) -> Any:
    """One AttributeValue from the low-level client to its Python value."""
    ((code, raw),) = wire.items()
    if code == "S":
        return raw
    if code == "N":
        return Decimal(raw)
    if code == "B":
        return _blob(raw)
    if code == "BOOL":
        return bool(raw)
    if code == "NULL":
        return None
    if code == "L":
        return [decode(v) for v in raw]
    if code == "M":
        return {k: decode(v) for k, v in raw.items()}
    if code == "SS":
        return StringSet(raw)
    if code == "NS":
        return NumberSet(Decimal(v) for v in raw)
    if code == "BS":
        return BinarySet(_blob(v) for v in raw)
    raise ValueError(f"unknown DynamoDB type {code!r}")


def _blob(raw: Any) -> bytes:
    """Binary as botocore gives it (bytes) or as the wire carries it (base64 text, see
    `dynosql.dynamo.wire`)."""
    return base64.b64decode(raw) if isinstance(raw, str) else bytes(raw)


def decode_item(
    wire: Mapping[str, Mapping[str, Any]], names: AbstractSet[str] | None = None
) -> dict[str, Any]:
    """An item from the low-level client to Python values; with `names`, only those top-level
    attributes (the rest are never decoded: a page that came back whole when the statement
    needs a few attributes costs their decoding alone)."""
    if names is None:  # strings inline: most attributes (and most keys) are strings
        return {name: v["S"] if "S" in v else decode(v) for name, v in wire.items()}
    return {name: decode(wire[name]) for name in names if name in wire}


def encode(value: Any) -> dict[str, Any]:
    """A Python value to an AttributeValue for the low-level client."""
    code = type_of(value)
    if code == "S":
        return {"S": value}
    if code == "N":
        return {"N": format_number(number(value))}
    if code == "B":
        return {"B": bytes(value)}
    if code == "BOOL":
        return {"BOOL": value}
    if code == "NULL":
        return {"NULL": True}
    if code == "L":
        return {"L": [encode(v) for v in value]}
    if code == "M":
        return {"M": {k: encode(v) for k, v in value.items()}}
    if code == "SS":
        return {"SS": sorted(value)}
    if code == "NS":
        return {"NS": [format_number(number(v)) for v in sorted(value)]}
    if code == "BS":
        return {"BS": sorted(bytes(v) for v in value)}
    raise TypeError(f"cannot encode {value!r}")


def encode_item(item: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: encode(v) for name, v in item.items()}


# --- JSON-friendly form (renderers, example datasets) ------------------------------------------


def to_json(value: Any) -> Any:
    """A value as plain JSON data: numbers stay Decimal (the caller keeps their digits)."""
    code = type_of(value)
    if code == "B":
        return base64.b64encode(value).decode("ascii")
    if code in ("SS", "NS"):
        return sorted(value, key=sort_key)
    if code == "BS":
        return [base64.b64encode(v).decode("ascii") for v in sorted(value)]
    if code == "L":
        return [to_json(v) for v in value]
    if code == "M":
        return {k: to_json(v) for k, v in value.items()}
    return value


# --- ordering ----------------------------------------------------------------------------------

# Where values of different types meet in one client-side ORDER BY (DynamoDB itself never orders
# them, keys having one type), the stated rule: numbers, then strings, then binary, then
# booleans (false < true), NULL, lists, maps, sets; a missing attribute sorts after everything
# (so it comes last ascending and first descending, like SQL's NULLS LAST/FIRST default).
_TYPE_RANK = {
    t: i for i, t in enumerate(("N", "S", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"))
}


def sort_key(value: Any) -> tuple[Any, ...]:
    """A key that orders values as DynamoDB does: numbers numerically, strings by UTF-8 bytes,
    binary by unsigned bytes; mixed types by the rule above."""
    code = type_of(value)
    if code is None:
        return (len(_TYPE_RANK),)
    rank = _TYPE_RANK[code]
    if code == "N":
        return (rank, value)
    if code == "S":
        return (rank, value.encode("utf-8"))
    if code == "B":
        return (rank, bytes(value))
    if code == "BOOL":
        return (rank, int(value))
    if code == "NULL":
        return (rank,)
    if code == "L":
        return (rank, tuple(sort_key(v) for v in value))
    if code == "M":
        return (rank, tuple((k.encode("utf-8"), sort_key(v)) for k, v in sorted(value.items())))
    return (rank, tuple(sorted(sort_key(v) for v in value)))


def scalar_key(value: Any) -> tuple[Any, ...] | None:
    """The ordering key for `<`/`>`/BETWEEN, or None when DynamoDB cannot order the value
    (only N, S and B are ordered)."""
    code = type_of(value)
    if code == "N":
        return ("N", value)
    if code == "S":
        return ("S", value.encode("utf-8"))
    if code == "B":
        return ("B", bytes(value))
    return None


def items_equal(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether two items (or two absences) are one item to DynamoDB: the same attributes, each
    `values_equal` (Python's ``True == 1`` is not: a boolean made a number is a change)."""
    if a is None or b is None:
        return a is b
    return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)


def values_equal(a: Any, b: Any) -> bool:
    """DynamoDB equality: same type and same value (sets as sets, lists and maps deeply)."""
    if a is MISSING or b is MISSING:
        return False
    ta, tb = type_of(a), type_of(b)
    if ta != tb:
        return False
    if ta == "L":
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    if ta == "M":
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if ta == "B":
        return bytes(a) == bytes(b)
    return a == b


def hashable(value: Any) -> Any:
    """A hashable, type-preserving stand-in for a value (DISTINCT, GROUP BY keys)."""
    code = type_of(value)
    if code is None:
        return ("MISSING",)
    if code == "L":
        return ("L", tuple(hashable(v) for v in value))
    if code == "M":
        return ("M", tuple(sorted((k, hashable(v)) for k, v in value.items())))
    if code == "N":
        return ("N", value.normalize(DECIMAL_CONTEXT))
    if code in ("SS", "NS", "BS"):
        return (code, frozenset(value))
    return (code, value)


# --- size --------------------------------------------------------------------------------------


def number_size(value: Decimal) -> int:
    """Bytes DynamoDB bills for a number: about one per two significant digits, plus one."""
    if value == 0:
        return 1
    sign, digits, exponent = value.normalize(DECIMAL_CONTEXT).as_tuple()
    assert isinstance(exponent, int)  # a finite number
    n = len(digits)
    # Digits are stored in pairs aligned on the decimal point; an odd alignment costs a byte.
    first_digit_exponent = n + exponent - 1
    size = 1 + (n + 1) // 2 + (0 if n % 2 or first_digit_exponent % 2 else 1)
    return min(size + (1 if sign else 0), 21)


def value_size(value: Any) -> int:
    code = type_of(value)
    if code == "S":
        return len(value.encode("utf-8"))
    if code == "N":
        return number_size(value)
    if code == "B":
        return len(value)
    if code in ("BOOL", "NULL"):
        return 1
    if code == "L":
        return 3 + sum(value_size(v) + 1 for v in value)
    if code == "M":
        return 3 + sum(len(k.encode("utf-8")) + value_size(v) + 1 for k, v in value.items())
    if code in ("SS", "NS", "BS"):
        return sum(value_size(v) for v in value)
    return 0


def item_size(item: Mapping[str, Any]) -> int:
    """An item's size as DynamoDB bills it: attribute names plus values, in bytes."""
    return sum(len(name.encode("utf-8")) + value_size(v) for name, v in item.items())


# DynamoDB's key value sizes, the same for a table's keys and every index's: a partition key
# value (string or binary) holds 1 to 2048 bytes, a sort key value 1 to 1024
MAX_KEY_BYTES = {"partition": 2048, "sort": 1024}


def key_size_error(name: str, value: Any, role: str, what: str) -> str | None:
    """Why DynamoDB would refuse `value` under the key `name` (`role`: partition or sort; `what`:
    whose key, "a key of index g"): empty, or over its size; None when it fits (a number
    always does)."""
    if type_of(value) not in ("S", "B"):
        return None
    size = value_size(value)
    if not size:
        return f"{name} is {what}: it cannot be empty"
    limit = MAX_KEY_BYTES[role]
    if size > limit:
        return (
            f"{name} is {what}: its value is {size:,} bytes, over DynamoDB's {limit:,}-byte "
            f"limit for a {role} key"
        )
    return None


def key_tuple(item: Mapping[str, Any], names: tuple[str, ...]) -> tuple[Any, ...]:
    """An item's key (the values of `names`), hashable: two spellings of a number are one."""
    return tuple(hashable(item.get(n, MISSING)) for n in names)


# --- capacity units of a size: DynamoDB's rounding (plan.cost builds the cost model on them) ---

READ_UNIT_BYTES = 4096
WRITE_UNIT_BYTES = 1024
TRANSACTION_FACTOR = 2


def read_units(size: float, consistent: bool = False) -> Decimal:
    """RCU for reading `size` bytes billed as one unit (an item, or a Query/Scan page)."""
    units = Decimal(max(1, math.ceil(size / READ_UNIT_BYTES)))
    return units if consistent else units / 2


def transactional_read_units(size: int | None) -> Decimal:
    """TransactGetItems: a strongly consistent read, twice (missing items included)."""
    return read_units(size or 0, consistent=True) * TRANSACTION_FACTOR


def write_units(size: float, transactional: bool = False) -> Decimal:
    """WCU for writing one item of `size` bytes: 1 KB units, rounded up per item, at least one;
    a transactional write costs twice. For an update pass the larger of the old and new
    image's size; for a delete, the deleted item's size. A write whose condition fails is
    billed the same (DynamoDB did the work)."""
    units = Decimal(max(1, math.ceil(size / WRITE_UNIT_BYTES)))
    return units * TRANSACTION_FACTOR if transactional else units
