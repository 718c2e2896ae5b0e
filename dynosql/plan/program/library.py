"""The helper functions a generated program may need, as Python source, and which of them
a program uses: each program carries only the helpers its plan calls (and theirs), so a
reader sees a Query's program without the aggregate or sampling machinery.

Each helper is plain standard-library Python over boto3's typed values (``TypeDeserializer``:
Decimal, str, Binary, bool, None, set, list, dict) and says DynamoDB's rule it follows. They
restate, for a reader without dynosql, rules that dynosql itself keeps in ``dynosql.values``
and ``dynosql.evaluate``; tests/test_program.py runs every golden plan's program against moto
and dynalite and compares its rows with dynosql's, which is what keeps the two the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynosql.evaluate.sample_stats import _T975


@dataclass(frozen=True)
class Helper:
    needs: tuple[str, ...]  # other helpers it calls
    imports: tuple[str, ...]  # import lines it needs
    source: str


HELPERS: dict[str, Helper] = {}


def _helper(
    name: str, source: str, needs: tuple[str, ...] = (), imports: tuple[str, ...] = ()
) -> None:
    HELPERS[name] = Helper(needs, imports, source.strip("\n"))


_helper(
    "typed",
    '''
deserialize = TypeDeserializer().deserialize


def typed(item):
    """A low-level item ({"S": …}, {"N": …}) as Python values (Decimal, set, Binary)."""
    return {name: deserialize(value) for name, value in item.items()}
''',
    imports=("from boto3.dynamodb.types import TypeDeserializer",),
)

_helper(
    "responses",
    '''
def responses(operation, params):
    """A Query or Scan, response by response, following LastEvaluatedKey (a page holds at
    most 1 MB, and Limit counts the items read, so a page may be empty and still go on)."""
    send = getattr(client, operation)
    while True:
        page = send(**params)
        yield page
        if "LastEvaluatedKey" not in page:
            return
        params = {**params, "ExclusiveStartKey": page["LastEvaluatedKey"]}
''',
)

_helper(
    "segments",
    '''
def segments(params, which, total):
    """A parallel Scan: each Segment in `which` (of TotalSegments `total`) read in a thread
    of its own, every page followed; (segment, response) pairs, segment by segment."""

    def one(segment):
        request = {**params, "Segment": segment, "TotalSegments": total}
        return [(segment, page) for page in responses("scan", request)]

    with ThreadPoolExecutor(min(len(which), 32)) as pool:
        for pages in pool.map(one, which):
            yield from pages
''',
    needs=("responses",),
    imports=("from concurrent.futures import ThreadPoolExecutor",),
)

_helper(
    "batch_get",
    '''
def batch_get(request_items, key_names):
    """BatchGetItem (one table, at most 100 keys), sent again with its UnprocessedKeys until
    none are left; the items come back in any order, so they are given in the keys' order."""
    ((table, spec),) = request_items.items()
    found = {}
    pending = request_items
    while pending:
        page = client.batch_get_item(RequestItems=pending)
        for raw in page["Responses"].get(table, []):
            found[json.dumps([raw[k] for k in key_names], sort_keys=True)] = raw
        pending = page.get("UnprocessedKeys") or {}
    for key in spec["Keys"]:
        raw = found.get(json.dumps([key[k] for k in key_names], sort_keys=True))
        if raw is not None:
            yield raw
''',
)

_helper(
    "fetch",
    '''
def fetch(index_items, table, template, key_names):
    """The whole items behind index entries (the index does not project every attribute
    the statement needs): BatchGetItem on the table by their keys, 100 keys a request."""
    for start in range(0, len(index_items), 100):
        keys = [{k: raw[k] for k in key_names} for raw in index_items[start : start + 100]]
        yield from batch_get({table: {**template, "Keys": keys}}, key_names)
''',
    needs=("batch_get",),
)

_helper(
    "at",
    '''
MISSING = object()  # an absent attribute (a stored NULL is None)


def at(item, path):
    """The value at a document path (names and list positions), or MISSING."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(item, list) or step >= len(item):
                return MISSING
        elif not isinstance(item, dict) or step not in item:
            return MISSING
        item = item[step]
    return item
''',
)

_helper(
    "kind",
    '''
def kind(value):
    """A typed value's DynamoDB type: S N B BOOL NULL L M, and SS NS BS for sets."""
    if isinstance(value, bool):
        return "BOOL"
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "S"
    if isinstance(value, Decimal):
        return "N"
    if isinstance(value, Binary | bytes):
        return "B"
    if isinstance(value, list):
        return "L"
    if isinstance(value, dict):
        return "M"
    if isinstance(value, set | frozenset):
        return (kind(next(iter(value))) if value else "S") + "S"
    return None  # MISSING
''',
    imports=("from decimal import Decimal", "from boto3.dynamodb.types import Binary"),
)

_helper(
    "equal",
    '''
def equal(a, b):
    """DynamoDB's equality: the same type and the same value (lists and maps deeply)."""
    if a is MISSING or b is MISSING or kind(a) != kind(b):
        return False
    if kind(a) == "L":
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if kind(a) == "M":
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if kind(a) == "B":
        return bytes(a) == bytes(b)
    return a == b
''',
    needs=("at", "kind"),
)

_helper(
    "compare",
    '''
def compare(a, op, b):
    """DynamoDB's comparison: with a missing value, or values of two types, it is false
    (and <> is true); only strings (by UTF-8 bytes), numbers and binary are ordered."""
    if a is MISSING or b is MISSING:
        return op == "<>"
    if op == "=":
        return equal(a, b)
    if op == "<>":
        return not equal(a, b)
    if kind(a) != kind(b) or kind(a) not in ("S", "N", "B"):
        return False
    x, y = (v.encode("utf-8") if isinstance(v, str) else v for v in (a, b))
    if kind(a) == "B":
        x, y = bytes(a), bytes(b)
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
''',
    needs=("equal",),
)

_helper(
    "begins_with",
    '''
def begins_with(value, prefix):
    """begins_with: strings and binary only, of the same type."""
    if kind(value) != kind(prefix) or kind(value) not in ("S", "B"):
        return False
    if kind(value) == "B":
        return bytes(value).startswith(bytes(prefix))
    return value.startswith(prefix)
''',
    needs=("kind",),
)

_helper(
    "contains",
    '''
def contains(value, operand):
    """contains: a substring of a string, bytes of binary, a member of a set or a list."""
    if kind(value) == "S":
        return kind(operand) == "S" and operand in value
    if kind(value) == "B":
        return kind(operand) == "B" and bytes(operand) in bytes(value)
    if kind(value) in ("SS", "NS", "BS"):
        return kind(operand) == kind(value)[0] and operand in value
    if kind(value) == "L":
        return kind(operand) in ("S", "N", "B") and any(equal(v, operand) for v in value)
    return False
''',
    needs=("equal",),
)

_helper(
    "size",
    '''
def size(value):
    """size(): a string's characters, binary's bytes, a set's, list's or map's elements;
    other types (and a missing value) have none, so a comparison with it is false."""
    if kind(value) == "B":
        return Decimal(len(bytes(value)))
    if kind(value) in ("S", "L", "M", "SS", "NS", "BS"):
        return Decimal(len(value))
    return MISSING
''',
    needs=("at", "kind"),
)

_helper(
    "like",
    '''
def like(value, pattern, escape=None):
    """SQL LIKE on a string: % any run of characters, _ exactly one; after the escape
    character, a character is itself."""
    if not isinstance(value, str) or not isinstance(pattern, str):
        return False
    regex, escaped = "", False
    for c in pattern:
        if escaped or c not in ("%", "_", escape):
            regex, escaped = regex + re.escape(c), False
        elif c == escape:
            escaped = True
        else:
            regex += ".*" if c == "%" else "."
    return re.fullmatch(regex, value, re.S) is not None
''',
    imports=("import re",),
)

_helper(
    "order_key",
    '''
TYPE_ORDER = ("N", "S", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS")


def order_key(value):
    """What ORDER BY, MIN and MAX order by: numbers numerically, strings by UTF-8 bytes,
    binary by unsigned bytes; values of different types by TYPE_ORDER; a missing value
    after every value."""
    if value is MISSING:
        return (len(TYPE_ORDER),)
    k = kind(value)
    rank = TYPE_ORDER.index(k)
    if k == "N":
        return (rank, value)
    if k == "S":
        return (rank, value.encode("utf-8"))
    if k == "B":
        return (rank, bytes(value))
    if k == "BOOL":
        return (rank, int(value))
    if k == "NULL":
        return (rank,)
    if k == "L":
        return (rank, tuple(order_key(v) for v in value))
    if k == "M":
        return (rank, tuple((n.encode("utf-8"), order_key(v)) for n, v in sorted(value.items())))
    return (rank, tuple(sorted(order_key(v) for v in value)))


class descending:
    """Wraps a sort key to reverse it inside a tuple (ORDER BY a, b DESC)."""

    def __init__(self, key):
        self.key = key

    def __lt__(self, other):
        return other.key < self.key

    def __eq__(self, other):
        return other.key == self.key
''',
    needs=("at", "kind"),
)

_helper(
    "hashable",
    '''
EXACT = decimal.Context(prec=300, Emax=999999, Emin=-999999)  # exact for DynamoDB's numbers


def hashable(value):
    """A value as a set or dict key that keeps its type (1 and '1' differ, 1 and 1.0 not)."""
    k = kind(value)
    if value is MISSING:
        return ("MISSING",)
    if k == "L":
        return ("L", tuple(hashable(v) for v in value))
    if k == "M":
        return ("M", tuple(sorted((n, hashable(v)) for n, v in value.items())))
    if k == "N":
        return ("N", value.normalize(EXACT))
    if k == "B":
        return ("B", bytes(value))
    if k in ("SS", "NS", "BS"):
        return (k, frozenset(hashable(v)[1] for v in value))
    return (k, value)
''',
    needs=("at", "kind"),
    imports=("import decimal",),
)

_helper(
    "jsonable",
    '''
def jsonable(value):
    """A row value as JSON: numbers exact (as text when a float would round them), binary
    as base64, sets as sorted lists."""
    if isinstance(value, Decimal):
        if value == value.to_integral_value() and abs(value) < 2**53:
            return int(value)
        return str(value)
    if isinstance(value, Binary | bytes):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, set | frozenset):
        return sorted(jsonable(v) for v in value)
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value
''',
    imports=(
        "import base64",
        "from decimal import Decimal",
        "from boto3.dynamodb.types import Binary",
    ),
)

# --- SQL functions (dynosql/evaluate/scalar.py says the rules) ---------------------------------

_helper(
    "call",
    '''
NULL_AWARE = ("coalesce", "concat", "nullif")  # these look at their NULLs themselves


def call(function, *args):
    """A SQL function's value: a missing attribute counts as NULL, and a NULL argument
    (or one of a type the function does not take) gives NULL, never an error mid-read."""
    args = [None if a is MISSING else a for a in args]
    if function.__name__ not in NULL_AWARE and any(a is None for a in args):
        return None
    return function(*args)


def null_if_missing(value):
    return None if value is MISSING else value
''',
    needs=("at",),
)

_ARITH = """
EXACT = decimal.Context(prec=300, Emax=999999, Emin=-999999)  # exact for DynamoDB's numbers
DIVISION = decimal.Context(prec=38, rounding=decimal.ROUND_HALF_EVEN, Emax=999999, Emin=-999999)


def number(value):
    return value if isinstance(value, Decimal) else None
"""
_helper("number", _ARITH, imports=("import decimal", "from decimal import Decimal"))


def _arith(name: str, body: str) -> None:
    _helper(
        name,
        f'''
def {name}(a, b):
    """Numbers only (else NULL), in Decimal: + - * exact, / to 38 digits, x / 0 is NULL."""
    x, y = number(a), number(b)
    if x is None or y is None:
        return None
    {body}
''',
        needs=("number",),
    )


_arith("add", "return EXACT.add(x, y)")
_arith("subtract", "return EXACT.subtract(x, y)")
_arith("multiply", "return EXACT.multiply(x, y)")
_arith("divide", "return DIVISION.divide(x, y) if y else None")
_arith(
    "modulo",
    "return EXACT.remainder(x, y) if y else None  # the sign of the dividend, as SQL's %",
)

_helper(
    "negate",
    """
def negate(a):
    return None if number(a) is None else a.copy_negate()
""",
    needs=("number",),
)

_helper(
    "text_of",
    '''
def text_of(value):
    """A value as text: strings as they are, numbers in DynamoDB's form (no exponent, no
    trailing zeros), booleans true/false; other types have none."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return "0" if value == 0 else format(value.normalize(EXACT), "f")
    return None
''',
    needs=("number",),
)

_helper(
    "concat",
    '''
def concat(*args):
    """CONCAT: NULLs skipped; a value with no text makes it NULL."""
    parts = [text_of(a) for a in args if a is not None]
    return None if None in parts else "".join(parts)


def pipes(a, b):
    """a || b: NULL when either has no text."""
    x, y = text_of(a), text_of(b)
    return None if x is None or y is None else x + y
''',
    needs=("text_of",),
)

_helper(
    "whole",
    '''
def whole(value):
    """A whole-number argument (a position, a length, decimal places), else None."""
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return None
''',
)

_helper(
    "substr",
    '''
def substr(s, start, length=MISSING):
    """SUBSTR(s, start[, length]): 1-based code points; positions before 1 count but give
    nothing (SUBSTR('abc', 0, 2) is 'a')."""
    first = whole(start)
    if not isinstance(s, str) or first is None:
        return None
    first -= 1
    if length is MISSING:
        return s[max(0, first) :]
    n = whole(length)
    if n is None or n < 0:
        return None
    return s[max(0, first) : max(0, first + n)]
''',
    needs=("whole", "at"),
)

_helper(
    "round_",
    '''
def round_(a, places=Decimal(0)):
    """ROUND: half away from zero, to `places` decimal places (negative: tens, hundreds)."""
    n = whole(places)
    if number(a) is None or n is None:
        return None
    if a.as_tuple().exponent >= -n or n > 400:
        return a  # no more places than asked
    return a.quantize(Decimal(1).scaleb(-n), rounding=decimal.ROUND_HALF_UP, context=EXACT)


def floor(a):
    return None if number(a) is None else a.to_integral_value(rounding=decimal.ROUND_FLOOR)


def ceil(a):
    return None if number(a) is None else a.to_integral_value(rounding=decimal.ROUND_CEILING)


def abs_(a):
    return None if number(a) is None else a.copy_abs()
''',
    needs=("whole", "number"),
)

_helper(
    "strings",
    """
def length(s):
    return Decimal(len(s)) if isinstance(s, str) else None


def lower(s):
    return s.lower() if isinstance(s, str) else None


def upper(s):
    return s.upper() if isinstance(s, str) else None


def replace(s, old, new):
    if not all(isinstance(x, str) for x in (s, old, new)):
        return None
    return s.replace(old, new) if old else s


def starts_with(s, prefix):
    if isinstance(s, str) and isinstance(prefix, str):
        return s.startswith(prefix)
    if isinstance(s, Binary | bytes) and isinstance(prefix, Binary | bytes):
        return bytes(s).startswith(bytes(prefix))
    return None
""",
    needs=("kind",),
    imports=("from decimal import Decimal",),
)

_helper(
    "coalesce",
    '''
def coalesce(*args):
    """The first argument that is neither missing nor NULL."""
    return next((a for a in args if a is not None), None)


def nullif(a, b):
    return None if a is None or (b is not None and equal(a, b)) else a
''',
    needs=("equal",),
)

_helper(
    "date_trunc",
    '''
ISO_PREFIX = {"year": 4, "month": 7, "day": 10, "hour": 13, "minute": 16, "second": 19}
UNIT_SECONDS = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
ISO = re.compile(
    r"^(\\d{4})-(\\d{2})(?:-(\\d{2})(?:[T ](\\d{2})(?::(\\d{2})(?::(\\d{2})(\\.\\d+)?)?)?)?)?"
    r"(Z|[+-]\\d{2}(?::?\\d{2})?)?$"
)


def date_trunc(unit, ts):
    """DATE_TRUNC keeps the encoding: an ISO-8601 string is cut to the unit's prefix (in its
    own time zone), an epoch-seconds number floored to the unit in UTC."""
    unit = unit.lower() if isinstance(unit, str) else None
    if unit not in ISO_PREFIX:
        return None
    if isinstance(ts, str):
        m = ISO.match(ts)
        cut = ISO_PREFIX[unit]
        if m is None or len(m.group(0)) < cut or (m.group(8) and m.start(8) < cut):
            return None
        parts = [int(g) if g else None for g in m.groups()[:6]]
        try:  # a real date and time
            datetime.datetime(*(p or d for p, d in zip(parts, (1, 1, 1, 0, 0, 0))))
        except ValueError:
            return None
        return ts[:cut]
    if number(ts) is None:
        return None
    if unit in UNIT_SECONDS:
        step = Decimal(UNIT_SECONDS[unit])
        rest = EXACT.remainder(ts, step)
        if rest < 0:
            rest = EXACT.add(rest, step)
        return EXACT.subtract(ts, rest).to_integral_value()
    try:
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(
            seconds=int(ts.to_integral_value(rounding=decimal.ROUND_FLOOR))
        )
    except (OverflowError, ValueError):
        return None
    first = moment.replace(
        month=1 if unit == "year" else moment.month, day=1, hour=0, minute=0, second=0
    )
    return Decimal(calendar.timegm(first.timetuple()))
''',
    needs=("number",),
    imports=("import calendar", "import datetime", "import re"),
)

_helper(
    "more_strings",
    '''
def trim(s, chars=" ", where="BOTH"):
    """TRIM([LEADING|TRAILING|BOTH] [chars FROM] s)."""
    if not isinstance(s, str) or not isinstance(chars, str):
        return None
    if where == "LEADING":
        return s.lstrip(chars)
    if where == "TRAILING":
        return s.rstrip(chars)
    return s.strip(chars)


def split_part(s, sep, n):
    """The n-th field (1-based; negative counts from the end), '' beyond the last."""
    index = whole(n)
    if not (isinstance(s, str) and isinstance(sep, str)) or index is None or index == 0:
        return None
    parts = s.split(sep) if sep else [s]
    if abs(index) > len(parts):
        return ""
    return parts[index - 1] if index > 0 else parts[index]


def like_value(s, pattern, escape=None):
    """LIKE as a value (in the select list): NULL unless both are strings."""
    if not isinstance(s, str) or not isinstance(pattern, str):
        return None
    return like(s, pattern, escape)
''',
    needs=("whole", "like"),
)

_helper(
    "casts",
    '''
def cast_number(a):
    """CAST(… AS NUMBER): a number as it is; a string holding a DynamoDB number (at most 38
    significant digits, 1E-130 to 9.99…E+125 in size); anything else NULL."""
    if isinstance(a, Decimal):
        return a
    if not isinstance(a, str):
        return None
    try:
        n = Decimal(a.strip())
        digits = len(n.normalize(EXACT).as_tuple().digits)
    except (decimal.InvalidOperation, decimal.Overflow):
        return None
    if not n.is_finite() or digits > 38:
        return None
    if n and not (Decimal("1E-130") <= n.copy_abs() <= Decimal("9.9999999999999999999999999999999999999E+125")):
        return None
    return n


def cast_string(a, length=MISSING):
    """CAST(… AS STRING): text of strings, numbers and booleans; else NULL. VARCHAR(n) and
    CHAR(n) keep the first n code points."""
    text = text_of(a)
    n = None if length is MISSING else whole(length)
    return text if text is None or n is None else text[:n]


def cast_integer(a):
    """CAST(… AS INTEGER): rounded half away from zero, as PostgreSQL; no 32- or 64-bit
    bound (DynamoDB has one number type)."""
    x = cast_number(a)
    return None if x is None else x.to_integral_value(rounding=decimal.ROUND_HALF_UP)


def cast_decimal(a, precision, scale):
    """CAST(… AS DECIMAL(p, s)): rounded half away from zero to s places; NULL when more than
    p - s digits stand before the point."""
    x, p, s = cast_number(a), whole(precision), whole(scale)
    if x is None or p is None or s is None:
        return None
    rounded = x.quantize(Decimal(1).scaleb(-s), rounding=decimal.ROUND_HALF_UP, context=EXACT)
    before = rounded.copy_abs().to_integral_value(rounding=decimal.ROUND_FLOOR)
    return None if before and before.adjusted() + 1 > p - s else rounded


def cast_boolean(a):
    """CAST(… AS BOOLEAN): a boolean as it is; a number: 0 false, else true; the strings
    PostgreSQL reads as booleans (true/false, t/f, yes/no, y/n, on/off, 1/0), any case."""
    if isinstance(a, bool):
        return a
    if isinstance(a, Decimal):
        return bool(a)
    if isinstance(a, str):
        word = a.strip().lower()
        if word in ("true", "t", "yes", "y", "on", "1"):
            return True
        if word in ("false", "f", "no", "n", "off", "0"):
            return False
    return None


def cast_binary(a):
    """CAST(… AS BINARY): binary as it is; a string as its UTF-8 bytes."""
    if isinstance(a, Binary | bytes):
        return bytes(a)
    return a.encode("utf-8") if isinstance(a, str) else None
''',
    needs=("text_of", "whole", "number", "at"),
    imports=("from boto3.dynamodb.types import Binary",),
)

_helper(
    "epoch",
    '''
def from_unixtime(a):
    """Epoch seconds as ISO-8601 UTC text; a fraction keeps its digits, padded to
    milliseconds (or micro-, nanoseconds)."""
    if number(a) is None:
        return None
    try:
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(
            seconds=int(a.to_integral_value(rounding=decimal.ROUND_FLOOR))
        )
    except (OverflowError, ValueError):
        return None
    if not 1 <= moment.year <= 9999:
        return None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = EXACT.subtract(a, a.to_integral_value(rounding=decimal.ROUND_FLOOR))
    if fraction:
        digits = format(fraction.normalize(EXACT), "f")[2:]
        text += "." + digits.ljust(-(-len(digits) // 3) * 3, "0")
    return text + "Z"


def to_unixtime(a):
    """ISO-8601 text as epoch seconds, exactly; no zone means UTC."""
    m = ISO.match(a) if isinstance(a, str) else None
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in m.groups()[:6])
    try:
        datetime.datetime(year or 1, month or 1, day or 1, hour, minute, second)
    except ValueError:
        return None
    total = Decimal(calendar.timegm((year, month, day or 1, hour, minute, second, 0, 0, 0)))
    if m.group(7):
        total = EXACT.add(total, Decimal("0" + m.group(7)))
    zone = m.group(8)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 3600 + (int(digits[2:4]) * 60 if len(digits) > 2 else 0)
        total = EXACT.subtract(total, Decimal(sign * offset))
    return total


def now(bound=None):
    """NOW(): the statement's time when it was bound, else the time the program runs
    (ISO-8601 UTC with milliseconds)."""
    if bound is not None:
        return bound
    moment = datetime.datetime.now(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
''',
    needs=("date_trunc",),
)

_helper(
    "item_measure",
    '''
def value_size(value):
    """A value's billed bytes: a string's UTF-8 bytes; a number about one byte per two
    significant digits plus one (21 at most); binary its bytes; a boolean or NULL one; a
    list or map 3 plus its elements (1 more each, and a map's names); a set its elements."""
    k = kind(value)
    if k == "S":
        return len(value.encode("utf-8"))
    if k == "N":
        if value == 0:
            return 1
        sign, digits, exponent = value.normalize(EXACT).as_tuple()
        n = len(digits)
        first = n + exponent - 1  # digits are stored in pairs aligned on the decimal point
        size = 1 + (n + 1) // 2 + (0 if n % 2 or first % 2 else 1)
        return min(size + (1 if sign else 0), 21)
    if k == "B":
        return len(bytes(value))
    if k in ("BOOL", "NULL"):
        return 1
    if k == "L":
        return 3 + sum(value_size(v) + 1 for v in value)
    if k == "M":
        return 3 + sum(len(n.encode("utf-8")) + value_size(v) + 1 for n, v in value.items())
    return sum(value_size(v) for v in value)  # a set


def item_measure(func, item, mode=None):
    """ITEM_SIZE(): the item's bytes (names and values); ITEM_RCU(mode): one GetItem of it,
    4 KB units, half for 'eventual', twice for 'transactional'; ITEM_WCU(mode): one PutItem
    of it, 1 KB units, twice for 'transactional' (index writes not counted)."""
    size = sum(len(name.encode("utf-8")) + value_size(v) for name, v in item.items())
    if func == "ITEM_SIZE":
        return Decimal(size)
    if func == "ITEM_RCU":
        units = Decimal(max(1, math.ceil(size / 4096)))
        if mode == "transactional":
            return units * 2
        return units if mode == "strong" else units / 2
    units = Decimal(max(1, math.ceil(size / 1024)))
    return units * 2 if mode == "transactional" else units
''',
    needs=("kind", "number"),
    imports=("import math",),
)


# SQL function name -> (the helper that defines it, the Python function name)
FUNCTIONS: dict[str, tuple[str, str]] = {
    "+": ("add", "add"),
    "-": ("subtract", "subtract"),
    "*": ("multiply", "multiply"),
    "/": ("divide", "divide"),
    "%": ("modulo", "modulo"),
    "NEG": ("negate", "negate"),
    "||": ("concat", "pipes"),
    "CONCAT": ("concat", "concat"),
    "ROUND": ("round_", "round_"),
    "FLOOR": ("round_", "floor"),
    "CEIL": ("round_", "ceil"),
    "ABS": ("round_", "abs_"),
    "SUBSTR": ("substr", "substr"),
    "LENGTH": ("strings", "length"),
    "LOWER": ("strings", "lower"),
    "UPPER": ("strings", "upper"),
    "REPLACE": ("strings", "replace"),
    "STARTS_WITH": ("strings", "starts_with"),
    "COALESCE": ("coalesce", "coalesce"),
    "NULLIF": ("coalesce", "nullif"),
    "DATE_TRUNC": ("date_trunc", "date_trunc"),
    "TRIM": ("more_strings", "trim"),
    "SPLIT_PART": ("more_strings", "split_part"),
    "LIKE": ("more_strings", "like_value"),
    "CAST_NUMBER": ("casts", "cast_number"),
    "CAST_STRING": ("casts", "cast_string"),
    "CAST_INTEGER": ("casts", "cast_integer"),
    "CAST_DECIMAL": ("casts", "cast_decimal"),
    "CAST_BOOLEAN": ("casts", "cast_boolean"),
    "CAST_BINARY": ("casts", "cast_binary"),
    "FROM_UNIXTIME": ("epoch", "from_unixtime"),
    "TO_UNIXTIME": ("epoch", "to_unixtime"),
    "NOW": ("epoch", "now"),
}

# --- aggregates and sample estimates -----------------------------------------------------------

_helper(
    "aggregates",
    """
EXACT = decimal.Context(prec=300, Emax=999999, Emin=-999999)  # exact for DynamoDB's numbers
AVERAGE = decimal.Context(prec=38)  # AVG keeps 38 significant digits


def exact_sum(numbers):
    total = Decimal(0)
    for n in numbers:
        total = EXACT.add(total, n)
    return total
""",
    needs=("kind", "at", "hashable", "order_key"),
    imports=("import decimal", "from decimal import Decimal"),
)

_helper(
    "estimates",
    f'''
ESTIMATE = decimal.Context(prec=38)
T975 = {_T975!r}  # Student's t at 0.975 for 1..30 degrees of freedom


def t975(df):
    """Student's t for a two-sided 95% interval: the table, a Cornish-Fisher expansion above."""
    if df <= len(T975):
        return T975[df - 1]
    z = NormalDist().inv_cdf(0.975)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def interval(estimate, se, q2, q4, k):
    """estimate ± t · SE, with Satterthwaite's degrees of freedom (Σr²)²/Σr⁴ (at most k-1):
    when a few segments carry most of the spread, the interval widens."""
    df = k - 1 if q4 <= 0 else max(1, min(k - 1, int(q2 * q2 / q4)))
    half = Decimal(repr(t975(df) * se))
    return estimate, estimate - half, estimate + half


def estimate_total(ys, scanned, total_segments, table_items):
    """A cluster sample's estimate of a table total, from the per-segment totals `ys`
    ({{segment index: total}}, absent = 0) and the items each segment scanned: the ratio
    estimate ItemCount · Σy/Σx when DescribeTable's ItemCount is known, else N/k · Σy."""
    k, n = len(scanned), total_segments
    x = [float(v) for v in scanned]
    sx = sum(scanned, Decimal(0))
    table_items = table_items if sx else 0
    sy = sum(ys.values(), Decimal(0))
    if k >= n:
        return sy, sy, sy  # every segment read: exact
    if table_items:
        r = ESTIMATE.divide(sy, sx)
        estimate = ESTIMATE.multiply(Decimal(table_items), r)
        rf = float(r)
        q2 = rf * rf * sum(v * v for v in x)
        q4 = rf**4 * sum(v**4 for v in x)
        for i, y in ys.items():
            d = float(y) - rf * x[i]
            q2 += d * d - (rf * x[i]) ** 2
            q4 += d**4 - (rf * x[i]) ** 4
        g = table_items / (n * float(sx) / k)
    else:
        estimate = ESTIMATE.multiply(ESTIMATE.divide(Decimal(n), Decimal(k)), sy)
        mean = float(sy) / k
        absent = k - len(ys)
        q2, q4 = absent * mean**2, absent * mean**4
        for y in ys.values():
            d = float(y) - mean
            q2 += d * d
            q4 += d**4
        g = 1.0
    if k < 2:
        return estimate, None, None
    se = g * n * math.sqrt(max(0.0, (1 - k / n) * q2 / (k - 1) / k))
    return interval(estimate, se, max(q2, 0.0), max(q4, 0.0), k)


def estimate_ratio(ys, xs, k, total_segments):
    """AVG from a cluster sample: Σy/Σx (a segment's sum over its count of numbers), with
    the linearised standard error; None when the sample holds no number."""
    n = total_segments
    sx = sum(xs.values(), Decimal(0))
    if sx == 0:
        return None
    r = ESTIMATE.divide(sum(ys.values(), Decimal(0)), sx)
    if k >= n:
        return r, r, r
    if k < 2:
        return r, None, None
    rf = float(r)
    q2 = q4 = 0.0
    for i, x in xs.items():
        d = float(ys.get(i, Decimal(0))) - rf * float(x)
        q2 += d * d
        q4 += d**4
    se = math.sqrt(max(0.0, (1 - k / n) / k * q2 / (k - 1))) / (float(sx) / k)
    return interval(r, se, q2, q4, k)


def whole_count(estimate, seen):
    """Counts are whole: the estimate rounded, the interval widened outward and never
    below the items the sample itself holds."""
    value, low, high = estimate
    return (
        value.to_integral_value(decimal.ROUND_HALF_EVEN),
        None if low is None else max(Decimal(seen), low.to_integral_value(decimal.ROUND_FLOOR)),
        None if high is None else high.to_integral_value(decimal.ROUND_CEILING),
    )


def at_precision(estimate, exponent):
    """A sum's estimate and bounds at the precision of the values summed (bounds outward)."""
    q = Decimal(1).scaleb(exponent)
    value, low, high = estimate
    roundings = (decimal.ROUND_HALF_EVEN, decimal.ROUND_FLOOR, decimal.ROUND_CEILING)
    return tuple(
        None if v is None else v.quantize(q, rounding=r, context=ESTIMATE)
        for v, r in zip((value, low, high), roundings)
    )
''',
    imports=(
        "import decimal",
        "import math",
        "from decimal import Decimal",
        "from statistics import NormalDist",
    ),
)


def closure(names: list[str]) -> list[str]:
    """The helpers `names` need, each after the helpers it calls, each once."""
    out: list[str] = []

    def visit(name: str) -> None:
        if name in out:
            return
        for need in HELPERS[name].needs:
            visit(need)
        out.append(name)

    for name in names:
        visit(name)
    return out


def source(names: list[str]) -> tuple[list[str], str]:
    """The import lines and the helpers' source for a program that calls `names`."""
    order = closure(names)
    imports = sorted({line for n in order for line in HELPERS[n].imports})
    seen_constants: set[str] = set()
    parts = []
    for name in order:
        text = HELPERS[name].source
        # EXACT is defined by several helpers: keep its first definition only
        kept = []
        for line in text.splitlines():
            head = line.split(" = ", 1)[0]
            if head.isupper() and " = " in line and not line.startswith(" "):
                if head in seen_constants:
                    continue
                seen_constants.add(head)
            kept.append(line)
        parts.append("\n".join(kept).strip("\n"))
    return imports, "\n\n\n".join(parts)
