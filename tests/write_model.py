"""An in-memory model of dynosql's write statements, for the model-based write fuzzer
(tests/test_write_fuzz.py).

Written from grammar/README.md ("Writes", "Semantics: DynamoDB's rules") and DynamoDB's
documented semantics, independently of dynosql's own evaluator (dynosql.evaluate): values are
plain Python (str, Decimal, bytes, bool, None, list, dict, and frozensets whose element type
says SS/NS/BS), compared through `canon`, which is type-strict (True is not 1, 1.50 is 1.5).

Each generated statement carries its SQL text, its parameters (binary values travel as
parameters: SQL has no binary literal) and `expect(model)`, which returns the table after the
statement, the documented exit code and the RETURNING rows. Where DynamoDB's answer would depend
on something the model does not pin down (a per-item ValidationException in the middle of a
statement whose items are written 8 in flight, a number needing more than 38 digits, an
unclear document rule), `expect` raises `Unmodelable` and the generator draws another
statement: the model never guesses.
"""

from __future__ import annotations

import dataclasses
import decimal
import itertools
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

Item = dict[str, Any]
Key = tuple[Any, ...]
Path = tuple[Any, ...]  # names (str) and list indexes (int)

MISSING: Any = object()
EXACT = decimal.Context(prec=200, Emax=999999, Emin=-999999)

# Backend quirks the model steps around (set by the runner for the backend under test):
# "moto": moto 5 answers HTTP 500 to a condition applying size() to a number, boolean or NULL
# (DynamoDB Local and dynalite answer false, `<>` true, as DynamoDB documents); after
# `SET a = b` of a set, list or map, moto's two attributes share one object: a later change of
# one changes the other; moto adds in Python's 28-digit context (and answers HTTP 500 for a
# stored 1E+20); moto compares Python values (a missing attribute = NULL, TRUE = 1); moto's
# begins_with() and contains() of a binary value in a binary attribute are always false
# (tests/test_write_fuzz.py pins these on the three backends).
# "dynalite": dynalite 4 gives an empty string or binary no size (`size(s) = 0` false) and
# its IN never finds FALSE, an empty string or an empty binary (`a IN (FALSE)` false where
# `a = FALSE` is true), where DynamoDB Local (AWS's own) and moto answer 0 and true; and in
# `SET t = m, m.y = NULL` its copy t shares m's map, so t gets y too (DynamoDB Local: t is m as
# it was before the UPDATE, as DynamoDB documents; moto does as dynalite).
QUIRKS: set[str] = set()


class Unmodelable(Exception):
    """The model does not pin down DynamoDB's answer here: draw another statement."""


# --- values ---------------------------------------------------------------------------------------


def type_of(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "BOOL"
    if isinstance(v, str):
        return "S"
    if isinstance(v, (Decimal, int)):
        return "N"
    if isinstance(v, (bytes, bytearray)):
        return "B"
    if hasattr(v, "value") and isinstance(v.value, (bytes, bytearray)):  # boto3 Binary
        return "B"
    if isinstance(v, list):
        return "L"
    if isinstance(v, dict):
        return "M"
    if isinstance(v, (set, frozenset)):
        first = next(iter(v))
        return {"S": "SS", "N": "NS", "B": "BS"}[type_of(first)]
    raise TypeError(f"not a DynamoDB value: {v!r}")


def number_text(d: Decimal) -> str:
    d = Decimal(d).normalize(EXACT)
    return "0" if d == 0 else str(d)


def canon(v: Any) -> Any:
    """A hashable, type-strict form of a value (from the model, boto3 or dynosql)."""
    t = type_of(v)
    if t == "N":
        return ("N", number_text(Decimal(v)))
    if t == "B":
        return ("B", bytes(v.value if hasattr(v, "value") else v))
    if t in ("S", "BOOL"):
        return (t, v)
    if t == "NULL":
        return ("NULL",)
    if t == "L":
        return ("L", tuple(canon(x) for x in v))
    if t == "M":
        return ("M", tuple(sorted((k, canon(x)) for k, x in v.items())))
    return (t, frozenset(canon(x) for x in v))


def canon_item(item: Mapping[str, Any]) -> Any:
    return tuple(sorted((k, canon(v)) for k, v in item.items()))


def plain(v: Any) -> Any:
    """boto3's decoded value (Binary, set) as the model's."""
    t = type_of(v)
    if t == "B":
        return bytes(v.value if hasattr(v, "value") else v)
    if t == "L":
        return [plain(x) for x in v]
    if t == "M":
        return {k: plain(x) for k, x in v.items()}
    if t in ("SS", "NS", "BS"):
        return frozenset(plain(x) for x in v)
    if t == "N":
        return Decimal(v)
    return v


def digits(d: Decimal) -> int:
    return len(Decimal(d).normalize(EXACT).as_tuple().digits)


def resolve(item: Any, path: Path) -> Any:
    current = item
    for e in path:
        if isinstance(e, int):
            if not isinstance(current, list) or e >= len(current):
                return MISSING
        elif not isinstance(current, dict) or e not in current:
            return MISSING
        current = current[e]
    return current


def equal(a: Any, b: Any) -> bool:
    return canon(a) == canon(b)


def _moto_equal_quirk(v: Any, literal: Any) -> None:
    """moto compares Python values: a missing attribute equals NULL, TRUE equals 1."""
    if "moto" not in QUIRKS:
        return
    if v is MISSING and literal is None:
        raise Unmodelable("moto: a missing attribute = NULL")
    if {type_of(v) if v is not MISSING else "", type_of(literal)} == {"BOOL", "N"} and v == literal:
        raise Unmodelable("moto: TRUE = 1")


def _order(a: Any, b: Any) -> int | None:
    """-1/0/1 for two values of one of the ordered types N, S, B; None otherwise."""
    ta, tb = type_of(a), type_of(b)
    if ta != tb or ta not in ("N", "S", "B"):
        return None
    if ta == "S":
        a, b = a.encode(), b.encode()  # UTF-8 byte order
    elif ta == "B":
        a, b = bytes(a), bytes(b)
    return (a > b) - (a < b)


# --- rendering ------------------------------------------------------------------------------------

SQL_WORDS = {"name", "status", "data", "size", "count", "values", "set", "key", "order", "by"}
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Params:
    """The statement's parameters: binary values (SQL has no binary literal)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f":{name}"


def sql_name(name: str, rng: random.Random | None = None) -> str:
    if _PLAIN.match(name) and name.lower() not in SQL_WORDS and not (rng and rng.random() < 0.1):
        return name
    return '"' + name.replace('"', '""') + '"'


def sql_path(path: Path, rng: random.Random | None = None) -> str:
    out = ""
    for e in path:
        if isinstance(e, int):
            out += f"[{e}]"
        else:
            out += ("." if out else "") + sql_name(e, rng)
    return out


def sql_value(v: Any, params: Params) -> str:
    t = type_of(v)
    if t == "S":
        return "'" + v.replace("'", "''") + "'"
    if t == "N":
        return number_text(Decimal(v))
    if t == "BOOL":
        return "TRUE" if v else "FALSE"
    if t == "NULL":
        return "NULL"
    if t == "B":
        return params.add(bytes(v))
    if t == "L":
        return "[" + ", ".join(sql_value(x, params) for x in v) + "]"
    if t == "M":
        if not v:
            raise Unmodelable("no empty map literal")
        return (
            "{"
            + ", ".join(f"{sql_value(k, params)}: {sql_value(x, params)}" for k, x in v.items())
            + "}"
        )
    if t == "BS":  # no binary literal: a set of parameters
        return "{" + ", ".join(params.add(bytes(x)) for x in sorted(v)) + "}"
    return "{" + ", ".join(sql_value(x, params) for x in sorted(v, key=canon)) + "}"


def literal_ok(v: Any) -> bool:
    """Whether a value can be written in a write statement (`sql_value` writes no empty map);
    a binary value, at any depth, goes as a parameter."""
    t = type_of(v)
    if t == "L":
        return all(literal_ok(x) for x in v)
    if t == "M":
        return bool(v) and all(literal_ok(x) for x in v.values())
    return True


# --- conditions -----------------------------------------------------------------------------------


class Cond:
    def sql(self, params: Params) -> str:
        raise NotImplementedError

    def holds(self, item: Item) -> bool:
        raise NotImplementedError

    def paths(self) -> list[Path]:
        return []


@dataclasses.dataclass
class Compare(Cond):
    path: Path
    op: str
    value: Any
    flipped: bool = False

    def sql(self, params: Params) -> str:
        flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
        if self.flipped:
            return f"{sql_value(self.value, params)} {flip.get(self.op, self.op)} {sql_path(self.path)}"
        return f"{sql_path(self.path)} {self.op} {sql_value(self.value, params)}"

    def holds(self, item: Item) -> bool:
        v = resolve(item, self.path)
        if self.op in ("=", "<>", "!="):
            _moto_equal_quirk(v, self.value)
        if v is MISSING:
            return self.op in ("<>", "!=")
        if self.op == "=":
            return equal(v, self.value)
        if self.op in ("<>", "!="):
            return not equal(v, self.value)
        order = _order(v, self.value)
        if order is None:
            return False
        return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[self.op]

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class Between(Cond):
    path: Path
    low: Any
    high: Any

    def sql(self, params: Params) -> str:
        return f"{sql_path(self.path)} BETWEEN {sql_value(self.low, params)} AND {sql_value(self.high, params)}"

    def holds(self, item: Item) -> bool:
        if _order(self.low, self.high) in (None, 1):
            raise Unmodelable("BETWEEN bounds of mixed types or out of order")
        v = resolve(item, self.path)
        if v is MISSING:
            return False
        a, b = _order(self.low, v), _order(v, self.high)
        return a is not None and b is not None and a <= 0 and b <= 0

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class In(Cond):
    path: Path
    options: list[Any]

    def sql(self, params: Params) -> str:
        return f"{sql_path(self.path)} IN ({', '.join(sql_value(o, params) for o in self.options)})"

    def holds(self, item: Item) -> bool:
        v = resolve(item, self.path)
        for o in self.options:
            _moto_equal_quirk(v, o)
            if "dynalite" in QUIRKS and (o is False or (type_of(o) in ("S", "B") and not o)):
                raise Unmodelable("dynalite: IN never finds FALSE, '' or an empty binary")
        return v is not MISSING and any(equal(v, o) for o in self.options)

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class Func(Cond):
    """begins_with, contains, attribute_exists, attribute_not_exists, attribute_type."""

    name: str
    path: Path
    arg: Any = None

    def sql(self, params: Params) -> str:
        if self.name in ("attribute_exists", "attribute_not_exists"):
            return f"{self.name}({sql_path(self.path)})"
        if self.name == "attribute_type":
            return f"attribute_type({sql_path(self.path)}, '{self.arg}')"
        return f"{self.name}({sql_path(self.path)}, {sql_value(self.arg, params)})"

    def holds(self, item: Item) -> bool:
        v = resolve(item, self.path)
        if self.name == "attribute_exists":
            return v is not MISSING
        if self.name == "attribute_not_exists":
            return v is MISSING
        if v is MISSING:
            return False
        t, ta = type_of(v), type_of(self.arg) if self.name != "attribute_type" else None
        if self.name == "attribute_type":
            return t == self.arg
        if ta in ("S", "B") and len(self.arg) == 0:
            raise Unmodelable(f"{self.name}() of an empty string or binary")
        if ta == "B" and t == "B" and "moto" in QUIRKS:
            raise Unmodelable(f"moto: {self.name}() of binary in binary is always false")
        if t == "L" and "moto" in QUIRKS:
            for x in v:
                _moto_equal_quirk(x, self.arg)
        if self.name == "begins_with":
            if t != ta or t not in ("S", "B"):
                return False
            return bytes(v).startswith(bytes(self.arg)) if t == "B" else v.startswith(self.arg)
        # contains
        if t == "S":
            return ta == "S" and self.arg in v
        if t == "B":
            return ta == "B" and bytes(self.arg) in bytes(v)
        if t in ("SS", "NS", "BS"):
            return t == ta + "S" and canon(self.arg) in {canon(x) for x in v}
        if t == "L":
            return ta in ("S", "N", "B") and any(equal(x, self.arg) for x in v)
        return False

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class IsNull(Cond):
    path: Path
    negated: bool

    def sql(self, params: Params) -> str:
        return f"{sql_path(self.path)} IS {'NOT ' if self.negated else ''}NULL"

    def holds(self, item: Item) -> bool:
        stored_null = resolve(item, self.path) is None
        return stored_null != self.negated

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class Size(Cond):
    path: Path
    op: str
    value: Decimal

    def sql(self, params: Params) -> str:
        return f"size({sql_path(self.path)}) {self.op} {number_text(self.value)}"

    def holds(self, item: Item) -> bool:
        v = resolve(item, self.path)
        t = type_of(v) if v is not MISSING else None
        if t in ("S", "B") and len(v) == 0 and "dynalite" in QUIRKS:
            raise Unmodelable("dynalite: an empty string or binary has no size")
        if t == "S":
            if not v.isascii():
                raise Unmodelable("size() of a non-ASCII string: characters or bytes")
            n = len(v)
        elif t in ("B", "L", "M", "SS", "NS", "BS"):
            n = len(v)
        else:
            if "moto" in QUIRKS:
                raise Unmodelable("moto: HTTP 500 for size() of a value without a size")
            return self.op == "<>"
        return Compare(("x",), self.op, self.value).holds({"x": Decimal(n)})

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class Like(Cond):
    path: Path
    pattern: str

    def sql(self, params: Params) -> str:
        return f"{sql_path(self.path)} LIKE {sql_value(self.pattern, params)}"

    def holds(self, item: Item) -> bool:
        v = resolve(item, self.path)
        if v is MISSING or type_of(v) != "S":
            return False
        regex = "".join(
            ".*" if c == "%" else "." if c == "_" else re.escape(c) for c in self.pattern
        )
        return re.fullmatch(regex, v, re.DOTALL) is not None

    def paths(self) -> list[Path]:
        return [self.path]


@dataclasses.dataclass
class Not(Cond):
    inner: Cond

    def sql(self, params: Params) -> str:
        return f"NOT ({self.inner.sql(params)})"

    def holds(self, item: Item) -> bool:
        return not self.inner.holds(item)

    def paths(self) -> list[Path]:
        return self.inner.paths()


@dataclasses.dataclass
class Junction(Cond):
    op: str  # AND / OR
    parts: list[Cond]

    def sql(self, params: Params) -> str:
        return f" {self.op} ".join(f"({p.sql(params)})" for p in self.parts)

    def holds(self, item: Item) -> bool:
        results = [p.holds(item) for p in self.parts]  # every part evaluated: Unmodelable
        return all(results) if self.op == "AND" else any(results)

    def paths(self) -> list[Path]:
        return [p for part in self.parts for p in part.paths()]


def conj(parts: Sequence[Cond]) -> Cond | None:
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Junction("AND", list(parts))


# --- the schema and the model ---------------------------------------------------------------------


@dataclasses.dataclass
class Schema:
    pk: tuple[str, str]
    sk: tuple[str, str] | None
    index_keys: dict[str, str]  # every index key attribute (not the table's) → its type
    indexes: list[dict[str, Any]]  # GSIs and LSIs, boto3 shape plus "kind"

    @property
    def keys(self) -> list[str]:
        return [self.pk[0]] + ([self.sk[0]] if self.sk else [])

    def key_of(self, item: Mapping[str, Any]) -> Key:
        return tuple(canon(item[k]) for k in self.keys)

    def create_kwargs(self, name: str) -> dict[str, Any]:
        attrs = [self.pk] + ([self.sk] if self.sk else []) + list(self.index_keys.items())
        kwargs: dict[str, Any] = {
            "TableName": name,
            "KeySchema": [{"AttributeName": self.pk[0], "KeyType": "HASH"}]
            + ([{"AttributeName": self.sk[0], "KeyType": "RANGE"}] if self.sk else []),
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t} for a, t in attrs],
            "BillingMode": "PAY_PER_REQUEST",
        }
        for kind, key in (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes")):
            found = [
                {k: v for k, v in i.items() if k != "kind"}
                for i in self.indexes
                if i["kind"] == kind
            ]
            if found:
                kwargs[key] = found
        return kwargs


@dataclasses.dataclass
class Outcome:
    exit_code: int
    items: dict[Key, Item]
    returning: list[Item] | None = None  # None: not checked


def problem_with(schema: Schema, item: Mapping[str, Any]) -> str | None:
    """Why an item cannot be put (refused before any request, exit 1), or None."""
    for name, code in [schema.pk] + ([schema.sk] if schema.sk else []):
        if name not in item:
            return f"no key {name}"
        if type_of(item[name]) != code:
            return f"key {name} of the wrong type"
        if code in ("S", "B") and len(item[name]) == 0:
            return f"empty key {name}"
    for name, code in schema.index_keys.items():
        if name in item and type_of(item[name]) != code:
            return f"index key {name} of the wrong type"
        if name in item and code in ("S", "B") and len(item[name]) == 0:
            raise Unmodelable("an empty index key value")
    return None


# --- UPDATE's changes, as DynamoDB applies an UpdateExpression ------------------------------------


@dataclasses.dataclass
class Assign:
    """One SET/ADD/DELETE/REMOVE. `kind`: value, copy, arith, rarith, if_not_exists,
    append (list_append(path, value)), prepend (list_append(value, path)), add, delete, remove."""

    kind: str
    path: Path
    value: Any = None
    source: Path | None = None  # the path read by copy / arith / if_not_exists / append
    op: str = "+"

    def sql(self, params: Params) -> str:
        p, s = sql_path(self.path), sql_path(self.source) if self.source else ""
        v = sql_value(self.value, params) if self.kind not in ("copy", "remove") else ""
        return {
            "value": f"{p} = {v}",
            "copy": f"{p} = {s}",
            "arith": f"{p} = {s} {self.op} {v}",
            "rarith": f"{p} = {v} + {s}",
            "if_not_exists": f"{p} = if_not_exists({s}, {v})",
            "append": f"{p} = list_append({s}, {v})",
            "prepend": f"{p} = list_append({v}, {s})",
            "add": f"{p} = {p} + {v}",
            "delete": f"{p} = {p} - {v}",
            "remove": p,
        }[self.kind]


def _number(d: Decimal) -> Decimal:
    if digits(d) > 38:
        raise Unmodelable("a number of more than 38 digits (DynamoDB refuses; moto rounds)")
    return d


def _rhs(a: Assign, old: Item) -> Any:
    if a.kind == "value":
        return a.value
    found = resolve(old, a.source) if a.source else MISSING
    if found is not MISSING and "moto" in QUIRKS and type_of(found) in ("L", "M", "SS", "NS", "BS"):
        raise Unmodelable("moto: a copied set, list or map stays shared with its source")
    if a.kind == "copy":
        if found is MISSING:
            raise Unmodelable("SET a = b with b missing: a per-item ValidationException")
        return found
    if a.kind == "if_not_exists":
        return a.value if found is MISSING else found
    if a.kind in ("arith", "rarith"):
        if found is MISSING or type_of(found) != "N":
            raise Unmodelable("arithmetic on a missing or non-number attribute")
        result = EXACT.add(found, a.value) if a.op == "+" else EXACT.subtract(found, a.value)
        if "moto" in QUIRKS and (
            "E" in number_text(found) or max(digits(found), digits(a.value), digits(result)) > 28
        ):
            raise Unmodelable("moto: arithmetic in Python's 28-digit context; 1E+20 is HTTP 500")
        return _number(result)
    if found is MISSING or type_of(found) != "L":  # append / prepend
        raise Unmodelable("list_append on a missing or non-list attribute")
    return found + a.value if a.kind == "append" else a.value + found


def _parent(item: Item, path: Path) -> Any:
    parent = resolve(item, path[:-1]) if len(path) > 1 else item
    if parent is MISSING:
        raise Unmodelable("a document path through a missing attribute")
    if isinstance(path[-1], int) and not isinstance(parent, list):
        raise Unmodelable("a list index into a non-list")
    if isinstance(path[-1], str) and not isinstance(parent, dict):
        raise Unmodelable("a name into a non-map")
    return parent


def apply_update(item: Item, assigns: Sequence[Assign], schema: Schema) -> Item:
    """The item after the UPDATE's changes; Unmodelable where DynamoDB would refuse it."""
    import copy

    new = copy.deepcopy(item)
    removals: list[Path] = []
    if "dynalite" in QUIRKS:
        for a in assigns:
            source = resolve(item, a.source) if a.kind in ("copy", "if_not_exists") else MISSING
            if source is not MISSING and type_of(source) in ("L", "M", "SS", "NS", "BS"):
                if any(b is not a and a.source and b.path[0] == a.source[0] for b in assigns):
                    raise Unmodelable("dynalite: a copy shares its source within one UPDATE")
    for a in assigns:
        current = resolve(item, a.path)
        if a.kind == "remove":
            _parent(item, a.path)
            removals.append(a.path)
            continue
        if a.kind == "add":
            if current is MISSING:
                value = a.value
            elif type_of(current) != type_of(a.value):
                raise Unmodelable("ADD to a value of another type")
            else:
                value = frozenset(current | a.value)
        elif a.kind == "delete":
            if current is MISSING:
                continue
            if type_of(current) != type_of(a.value):
                raise Unmodelable("DELETE from a value of another type")
            left = frozenset(x for x in current if canon(x) not in {canon(y) for y in a.value})
            if not left:
                removals.append(a.path)
                continue
            value = left
        else:
            value = _rhs(a, item)
        parent = _parent(new, a.path)
        last = a.path[-1]
        if isinstance(last, int):
            if last >= len(parent):
                parent.append(value)  # DynamoDB appends past the end of a list
            else:
                parent[last] = value
        else:
            parent[last] = value
    for path in sorted(
        removals, key=lambda p: [(1, e) if isinstance(e, int) else (0, 0) for e in p], reverse=True
    ):
        parent = resolve(new, path[:-1]) if len(path) > 1 else new
        last = path[-1]
        if isinstance(last, int):
            if isinstance(parent, list) and last < len(parent):
                del parent[last]
        elif isinstance(parent, dict):
            parent.pop(last, None)
    for name, code in schema.index_keys.items():
        if name in new and type_of(new[name]) != code:
            raise Unmodelable("an index key of the wrong type, known only per item")
    return new


# --- statements -----------------------------------------------------------------------------------


class Statement:
    """One write statement of the fuzz: its text, parameters, and the model's answer."""

    sql: str
    params: dict[str, Any]

    def expect(self, items: dict[Key, Item]) -> Outcome:
        raise NotImplementedError

    def actions(self, items: dict[Key, Item]) -> list[tuple[Key, Item | None, str]]:
        """For a transaction: (key, the item after, verb) per action, against `items`."""
        raise NotImplementedError


def _returning_rows(
    kind: str | None, olds: list[Item | None], news: list[Item | None]
) -> list[Item] | None:
    if kind is None:
        return None
    chosen = olds if kind == "old" else news
    return [i for i in chosen if i is not None]


@dataclasses.dataclass
class Insert(Statement):
    """INSERT/UPSERT … VALUES, or … SELECT from the source table."""

    schema: Schema
    verb: str  # INSERT / UPSERT
    columns: list[str]
    rows: list[list[Any]]  # MISSING: the column is absent from that row (… SELECT only)
    on_conflict: bool = False
    returning: str | None = None  # "new" (*) / "old" (old.*)
    select: str | None = None  # the SELECT text, for … SELECT
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    sql: str = ""

    def targets(self) -> list[Item]:
        return [
            {c: v for c, v in zip(self.columns, row, strict=True) if v is not MISSING}
            for row in self.rows
        ]

    def _checked(self) -> tuple[list[Item], str | None]:
        targets = self.targets()
        for t in targets:
            why = problem_with(self.schema, t)
            if why:
                return targets, why
        keys = [self.schema.key_of(t) for t in targets]
        if len(set(keys)) != len(keys):
            return targets, "a key given twice"
        return targets, None

    def expect(self, items: dict[Key, Item]) -> Outcome:
        targets, why = self._checked()
        if why:
            return Outcome(1, items, None)
        out = dict(items)
        olds: list[Item | None] = []
        news: list[Item | None] = []
        conflicts = 0
        for t in targets:
            key = self.schema.key_of(t)
            if self.verb == "INSERT" and key in items:
                conflicts += 1
                continue
            olds.append(items.get(key))
            news.append(t)
            out[key] = t
        code = 1 if conflicts and not self.on_conflict else 0
        return Outcome(
            code, out, _returning_rows(self.returning, olds, news) if code == 0 else None
        )

    def actions(self, items: dict[Key, Item]) -> list[tuple[Key, Item | None, str]]:
        targets, why = self._checked()
        if why or self.select is not None:
            raise Unmodelable("only valid VALUES rows in a transaction")
        return [(self.schema.key_of(t), t, self.verb) for t in targets]


@dataclasses.dataclass
class Change(Statement):
    """UPDATE … SET/REMOVE … WHERE, or DELETE FROM … WHERE."""

    schema: Schema
    verb: str  # UPDATE / DELETE
    assigns: list[Assign]
    where: Cond | None
    returning: str | None = None
    refused: bool = False  # refused before any request (a key or index key misused)
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    sql: str = ""

    def _apply(
        self, items: dict[Key, Item]
    ) -> tuple[dict[Key, Item], list[Item | None], list[Item | None]]:
        out = dict(items)
        olds: list[Item | None] = []
        news: list[Item | None] = []
        for key, item in items.items():
            if self.where is not None and not self.where.holds(item):
                continue
            new = None if self.verb == "DELETE" else apply_update(item, self.assigns, self.schema)
            olds.append(item)
            news.append(new)
            if new is None:
                del out[key]
            else:
                out[key] = new
        return out, olds, news

    def expect(self, items: dict[Key, Item]) -> Outcome:
        if self.refused:
            return Outcome(1, items, None)
        out, olds, news = self._apply(items)
        rows = self.returning and (
            olds if self.verb == "DELETE" or self.returning == "old" else news
        )
        return Outcome(0, out, [r for r in rows if r is not None] if rows is not None else None)

    def actions(self, items: dict[Key, Item]) -> list[tuple[Key, Item | None, str]]:
        if self.refused:
            raise Unmodelable("a refused statement in a transaction")
        out, olds, news = self._apply(items)
        named = named_keys(self.where, self.schema)
        if named is not None and not named <= {self.schema.key_of(o) for o in olds}:
            # the full key by equality: a blind conditional write per key named, and one that
            # does not match cancels the whole transaction (not so for the statement alone)
            raise Unmodelable("a keyed write that does not match, in a transaction")
        return [
            (self.schema.key_of(o), n, self.verb)
            for o, n in zip(olds, news, strict=True)
            if o is not None
        ]


def conjuncts(where: Cond | None) -> list[Cond]:
    """The top-level AND items of a WHERE, nested ANDs flattened."""
    if where is None:
        return []
    if isinstance(where, Junction) and where.op == "AND":
        return [c for part in where.parts for c in conjuncts(part)]
    return [where]


def named_keys(where: Cond | None, schema: Schema) -> set[Key] | None:
    """The primary keys a WHERE names by equality (`pk = a AND sk = b`, IN, `sk BETWEEN b AND
    b`): dynosql writes those without a read (grammar/README.md, "How UPDATE and DELETE find
    their items"); None when it does not name the full key. Literals of another type than the
    key's are dropped, as the planner does."""
    named: dict[str, list[Any]] = {}
    for p in conjuncts(where):
        if isinstance(p, Compare) and p.op == "=" and len(p.path) == 1:
            found = [p.value]
        elif isinstance(p, In) and len(p.path) == 1:
            found = list(p.options)
        elif isinstance(p, Between) and len(p.path) == 1 and equal(p.low, p.high):
            found = [p.low]
        else:
            continue
        if p.path[0] in named:
            raise Unmodelable("a key named twice")
        named[p.path[0]] = found
    keys = [schema.pk] + ([schema.sk] if schema.sk else [])
    if any(name not in named for name, _ in keys):
        return None
    columns = [[v for v in named[name] if type_of(v) == code] for name, code in keys]
    return {tuple(canon(v) for v in combo) for combo in itertools.product(*columns)}


@dataclasses.dataclass
class Transaction:
    statements: list[Statement]

    def expect(self, items: dict[Key, Item]) -> Outcome:
        """Every action is decided against the table as it was at COMMIT (no two actions on
        one item, so their order does not matter)."""
        actions = [a for s in self.statements for a in s.actions(items)]
        keys = [k for k, _, _ in actions]
        if len(set(keys)) != len(keys):
            return Outcome(1, items, None)  # refused at COMMIT before any write
        if any(verb == "INSERT" and key in items for key, _, verb in actions):
            return Outcome(1, items, None)  # cancelled: nothing written
        out = dict(items)
        for key, new, _ in actions:
            if new is None:
                out.pop(key, None)
            else:
                out[key] = new
        return Outcome(0, out, None)


def diff(expected: Mapping[Key, Item], actual: Mapping[Key, Item], limit: int = 4) -> str:
    """What differs between two tables, attribute by attribute (a few items)."""
    lines = []
    for key in sorted(set(expected) | set(actual), key=repr):
        e, a = expected.get(key), actual.get(key)
        if e is not None and a is not None and canon_item(e) == canon_item(a):
            continue
        if e is None or a is None:
            lines.append(f"  {key}: model {e!r} / table {a!r}")
        else:
            for name in sorted(set(e) | set(a)):
                ev, av = e.get(name, MISSING), a.get(name, MISSING)
                if ev is MISSING or av is MISSING or canon(ev) != canon(av):
                    show = lambda v: "<missing>" if v is MISSING else repr(v)  # noqa: E731
                    lines.append(f"  {key}.{name}: model {show(ev)} / table {show(av)}")
        if len(lines) >= limit * 3:
            lines.append("  …")
            break
    return "\n".join(lines)


def same_table(expected: Mapping[Key, Item], actual: Mapping[Key, Item]) -> bool:
    return {k: canon_item(v) for k, v in expected.items()} == {
        k: canon_item(v) for k, v in actual.items()
    }


def same_rows(expected: Iterable[Item], actual: Iterable[Mapping[str, Any]]) -> bool:
    return sorted(map(canon_item, expected), key=repr) == sorted(map(canon_item, actual), key=repr)


Draw = Callable[[], Any]
