"""Which part of a WHERE a key can serve: partition-key equalities and the tightest sort-key
condition DynamoDB accepts (=, <, <=, >, >=, BETWEEN, begins_with).

Everything here is about conjuncts: the top-level AND items of one branch of the WHERE.
A key condition is only ever *implied* by the conjuncts; the conjuncts it does not imply
exactly stay behind for the client (a Query's filter may not name key attributes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynosql import values
from dynosql.sql import ast

FLIP = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>"}

MAX_PK_BYTES = values.MAX_KEY_BYTES["partition"]
MAX_SK_BYTES = values.MAX_KEY_BYTES["sort"]


def conjuncts(condition: ast.Condition | None) -> list[ast.Condition]:
    if condition is None:
        return []
    if isinstance(condition, ast.And):
        out: list[ast.Condition] = []
        for c in condition.items:
            out.extend(conjuncts(c))
        return out
    return [condition]


def and_of(items: list[ast.Condition]) -> ast.Condition | None:
    return all_of(items) if items else None


def all_of(items: list[ast.Condition]) -> ast.Condition:
    """The AND of one or more conditions."""
    return items[0] if len(items) == 1 else ast.And(tuple(items))


def attribute_comparison(c: ast.Condition, attribute: str) -> tuple[str, Any] | None:
    """`attribute op literal` (either way round) as (op, value), else None."""
    if not isinstance(c, ast.Compare):
        return None
    left, right, op = c.left, c.right, c.op
    if isinstance(right, ast.Path) and isinstance(left, ast.Literal):
        left, right, op = right, left, FLIP[op]
    if (
        isinstance(left, ast.Path)
        and left.elements == (attribute,)
        and isinstance(right, ast.Literal)
    ):
        return op, right.value
    return None


def key_value_ok(value: Any, key_type: str, max_bytes: int) -> bool:
    """Whether a stored key could ever hold this value (type and DynamoDB's size limits)."""
    if values.type_of(value) != key_type:
        return False
    size = values.value_size(value)
    return 1 <= size <= max_bytes if key_type != "N" else True


def equality_value(
    items: list[ast.Condition], attribute: str
) -> tuple[bool, Any, ast.Condition | None]:
    """(found, value, conjunct) for the first `attribute = literal` among the conjuncts."""
    for c in items:
        m = attribute_comparison(c, attribute)
        if m and m[0] == "=":
            return True, m[1], c
    return False, None, None


def in_values(c: ast.Condition, attribute: str) -> list[Any] | None:
    """The literal values of `attribute IN (...)` or of an OR of `attribute = v` branches."""
    if isinstance(c, ast.In):
        op = c.operand
        if (
            isinstance(op, ast.Path)
            and op.elements == (attribute,)
            and all(isinstance(v, ast.Literal) for v in c.values)
        ):
            return [v.value for v in c.values if isinstance(v, ast.Literal)]
    if isinstance(c, ast.Or):
        found = []
        for branch in c.items:
            m = attribute_comparison(branch, attribute)
            if not m or m[0] != "=":
                return None
            found.append(m[1])
        return found
    return None


# --- sort-key ranges ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    value: Any
    inclusive: bool


@dataclass(frozen=True)
class SortKeyCondition:
    """One DynamoDB sort-key condition: op in =, <, <=, >, >=, BETWEEN, begins_with."""

    op: str
    values: tuple[Any, ...]

    def lower(self) -> Bound | None:
        if self.op in ("=", ">=", "BETWEEN", "begins_with"):
            return Bound(self.values[0], True)
        if self.op == ">":
            return Bound(self.values[0], False)
        return None

    def upper(self) -> Bound | None:
        if self.op in ("=", "<="):
            return Bound(self.values[0], True)
        if self.op == "<":
            return Bound(self.values[0], False)
        if self.op == "BETWEEN":
            return Bound(self.values[1], True)
        if self.op == "begins_with":
            succ = successor(self.values[0])
            return Bound(succ, False) if succ is not None else None
        return None


def successor(prefix: Any) -> Any:
    """The least value greater than every value that begins with `prefix` (None if unbounded)."""
    if isinstance(prefix, str):
        chars = list(prefix)
        while chars:
            code = ord(chars[-1]) + 1
            if code == 0xD800:
                code = 0xE000  # surrogates cannot be stored
            if code <= 0x10FFFF:
                chars[-1] = chr(code)
                return "".join(chars)
            chars.pop()
        return None
    data = bytearray(prefix)
    while data:
        if data[-1] < 0xFF:
            data[-1] += 1
            return bytes(data)
        data.pop()
    return None


def last_with_prefix(prefix: Any, max_bytes: int = MAX_SK_BYTES) -> Any:
    """The greatest key value of at most `max_bytes` that begins with `prefix` (None when the
    prefix fills the limit): the prefix, then the greatest character (U+10FFFF; binary: 0xFF)
    as often as it fits, then the greatest character that fits the bytes left. Strings sort by
    their UTF-8 bytes, so nothing that begins with the prefix and fits a key is greater; the
    inclusive upper bound of "begins with `prefix`" that BETWEEN takes."""
    if isinstance(prefix, str):
        room = max_bytes - len(prefix.encode("utf-8"))
        if room <= 0:
            return None
        whole, rest = divmod(room, 4)
        tail = {0: "", 1: "\x7f", 2: "\u07ff", 3: "\uffff"}[rest]
        return prefix + "\U0010ffff" * whole + tail
    room = max_bytes - len(prefix)
    return bytes(prefix) + b"\xff" * room if room > 0 else None


def _key(value: Any) -> Any:
    return values.scalar_key(value)


def sort_condition_of(c: ast.Condition, sk: str, sk_type: str) -> SortKeyCondition | None:
    """The conjunct as a sort-key condition, if it is one DynamoDB accepts for this key type."""
    m = attribute_comparison(c, sk)
    if m:
        op, value = m
        if op == "<>" or values.type_of(value) != sk_type:
            return None
        if value in ("", b""):
            # a key is never empty (DynamoDB rejects an empty key value in a condition):
            # `sk > ''` holds for every item, `sk < ''` and `sk = ''` for none
            if op in (">", ">="):
                return None
            raise Empty()
        return SortKeyCondition(op, (value,))
    if isinstance(c, ast.Between):
        if (
            isinstance(c.operand, ast.Path)
            and c.operand.elements == (sk,)
            and isinstance(c.low, ast.Literal)
            and isinstance(c.high, ast.Literal)
            and values.type_of(c.low.value) == sk_type == values.type_of(c.high.value)
        ):
            if _key(c.low.value) > _key(c.high.value) or c.high.value in ("", b""):
                raise Empty()  # low above high (or an empty top): nothing can match
            if c.low.value in ("", b""):
                return SortKeyCondition("<=", (c.high.value,))  # every key is above ''
            return SortKeyCondition("BETWEEN", (c.low.value, c.high.value))
    if isinstance(c, ast.Function) and c.name == "begins_with" and c.path.elements == (sk,):
        if sk_type in ("S", "B") and isinstance(c.arg, ast.Literal):
            if values.type_of(c.arg.value) == sk_type and c.arg.value not in ("", b""):
                return SortKeyCondition("begins_with", (c.arg.value,))
    return None


def mentions_type_mismatch(c: ast.Condition, attribute: str, key_type: str) -> Any:
    """The literal of `key op literal` (or BETWEEN, begins_with) whose type can never match
    the key's, making the conjunct always false; None when there is none."""
    m = attribute_comparison(c, attribute)
    if m and m[0] in ("=", "<", "<=", ">", ">=") and values.type_of(m[1]) != key_type:
        return m[1]
    if (
        isinstance(c, ast.Between)
        and isinstance(c.operand, ast.Path)
        and c.operand.elements == (attribute,)
    ):
        for bound in (c.low, c.high):
            if isinstance(bound, ast.Literal) and values.type_of(bound.value) != key_type:
                return bound.value
    if isinstance(c, ast.Function) and c.name == "begins_with" and c.path.elements == (attribute,):
        if isinstance(c.arg, ast.Literal):
            if key_type not in ("S", "B") or values.type_of(c.arg.value) != key_type:
                return c.arg.value
    return None


def implies(k: SortKeyCondition, c: SortKeyCondition) -> bool:
    """Whether every value satisfying k satisfies c (so c need not be checked again)."""
    if c.op == "begins_with":
        if k.op == "begins_with":
            return _startswith(k.values[0], c.values[0])
        if k.op == "=":
            return _startswith(k.values[0], c.values[0])
        lo, hi = k.lower(), k.upper()
        succ = successor(c.values[0])
        return (
            lo is not None
            and hi is not None
            and _key(lo.value) >= _key(c.values[0])
            and succ is not None
            and (_key(hi.value) < _key(succ) or (_key(hi.value) == _key(succ) and not hi.inclusive))
        )
    if k.op == "=":
        v = _key(k.values[0])
        lo, hi = c.lower(), c.upper()
        return _above(v, lo) and _below(v, hi)
    klo, khi = k.lower(), k.upper()
    clo, chi = c.lower(), c.upper()
    return _bound_within(klo, clo, lower=True) and _bound_within(khi, chi, lower=False)


def _startswith(value: Any, prefix: Any) -> bool:
    return type(value) is type(prefix) and value.startswith(prefix)


def _above(v: Any, lo: Bound | None) -> bool:
    if lo is None:
        return True
    return v > _key(lo.value) or (v == _key(lo.value) and lo.inclusive)


def _below(v: Any, hi: Bound | None) -> bool:
    if hi is None:
        return True
    return v < _key(hi.value) or (v == _key(hi.value) and hi.inclusive)


def _bound_within(inner: Bound | None, outer: Bound | None, lower: bool) -> bool:
    """Whether the range side `inner` is at least as tight as `outer`."""
    if outer is None:
        return True
    if inner is None:
        return False
    a, b = _key(inner.value), _key(outer.value)
    if a == b:
        return outer.inclusive or not inner.inclusive
    return a > b if lower else a < b


def tightest(conditions: list[SortKeyCondition]) -> SortKeyCondition | None:
    """The narrowest single sort-key condition implied by all of them together.

    None when they contradict (the branch matches nothing) is signalled by raising Empty.
    """
    if not conditions:
        return None
    equal = [c for c in conditions if c.op == "="]
    if equal:
        # one equality decides; every other condition must hold for its value, or nothing can
        if not all(implies(equal[0], c) for c in conditions):
            raise Empty()
        return equal[0]
    lo: Bound | None = None
    hi: Bound | None = None
    for c in conditions:
        for bound, is_lower in ((c.lower(), True), (c.upper(), False)):
            if bound is None:
                continue
            current = lo if is_lower else hi
            if current is None or _tighter(bound, current, is_lower):
                if is_lower:
                    lo = bound
                else:
                    hi = bound
    if lo is not None and hi is not None:
        a, b = _key(lo.value), _key(hi.value)
        if a > b or (a == b and not (lo.inclusive and hi.inclusive)):
            raise Empty()
        if a == b:
            return SortKeyCondition("=", (lo.value,))
    prefixes = [c for c in conditions if c.op == "begins_with"]
    # A lone begins_with (or one no other bound narrows) is exact: prefer it to a range.
    for p in prefixes:
        plo, phi = p.lower(), p.upper()
        if lo == plo and (hi == phi or hi is None):
            return p
    # A prefix narrowed by a lower bound: its exclusive end (the successor) becomes the last
    # key value with the prefix, so that BETWEEN (inclusive) holds exactly the prefix's keys
    # from the bound on, with nothing left to check (an entity's `invoiceId >= '202603'`)
    ending = next((p for p in prefixes if hi is not None and hi == p.upper()), None)
    if ending is not None and lo is not None:
        last = last_with_prefix(ending.values[0])
        if last is not None and _key(lo.value) <= _key(last):
            hi = Bound(last, True)
    if lo is not None and hi is not None:
        return SortKeyCondition("BETWEEN", (lo.value, hi.value))
    if lo is not None:
        return SortKeyCondition(">=" if lo.inclusive else ">", (lo.value,))
    if hi is not None:
        return SortKeyCondition("<=" if hi.inclusive else "<", (hi.value,))
    return None


def _tighter(new: Bound, current: Bound, lower: bool) -> bool:
    a, b = _key(new.value), _key(current.value)
    if a == b:
        return not new.inclusive and current.inclusive
    return a > b if lower else a < b


class Empty(Exception):
    """The key conditions contradict each other: the branch matches no item."""
