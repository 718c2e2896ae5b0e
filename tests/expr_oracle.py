"""An independent evaluator of dynosql's scalar expressions, for the differential test.

It shares no code with dynosql/evaluate/scalar.py: numbers are exact fractions
(``fractions.Fraction``), division is rounded to 38 significant digits by hand, strings are
handled with plain Python. Its rules are the ones grammar/README.md states ("Expressions").
An expression is a tuple: ``("path", name)``, ``("lit", value)`` or ``(func, arg, ...)``.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction
from typing import Any

NULL = None
ABSENT = object()


def _num(v: Any) -> Fraction | None:
    if isinstance(v, Decimal):
        return Fraction(v)
    return None


def _round_sig(q: Fraction, digits: int = 38) -> Fraction:
    """q to `digits` significant digits, half to even."""
    if q == 0:
        return Fraction(0)
    sign = -1 if q < 0 else 1
    q = abs(q)
    exponent = 0
    while q >= 10**digits:
        q /= 10
        exponent += 1
    while q < 10 ** (digits - 1):
        q *= 10
        exponent -= 1
    whole, rest = divmod(q.numerator, q.denominator)
    twice = 2 * rest
    if twice > q.denominator or (twice == q.denominator and whole % 2 == 1):
        whole += 1
    return sign * Fraction(whole) * Fraction(10) ** exponent


def _text(v: Any) -> str | None:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        with decimal.localcontext() as ctx:
            ctx.prec = 400
            exact = Decimal(v.numerator) / Decimal(v.denominator)
            return format(exact.normalize(), "f")
    return None


def evaluate(expr: tuple[Any, ...], item: dict[str, Any]) -> Any:
    """The value (a Fraction for numbers, str, bool or None for NULL)."""
    kind = expr[0]
    if kind == "path":
        v = item.get(expr[1], ABSENT)
        if v is ABSENT or v is None:
            return NULL
        return Fraction(v) if isinstance(v, Decimal) else v
    if kind == "lit":
        v = expr[1]
        return Fraction(v) if isinstance(v, Decimal) else v
    args = [evaluate(a, item) for a in expr[1:]]
    if kind == "COALESCE":
        return next((a for a in args if a is not NULL), NULL)
    if any(a is NULL for a in args):
        return NULL
    nums = [a if isinstance(a, Fraction) else None for a in args]
    if kind in ("+", "-", "*", "/", "%"):
        a, b = nums
        if a is None or b is None:
            return NULL
        if kind == "+":
            return a + b
        if kind == "-":
            return a - b
        if kind == "*":
            return a * b
        if b == 0:
            return NULL
        if kind == "/":
            return _round_sig(a / b)
        r = abs(a) - abs(b) * (abs(a) // abs(b))
        return r if a >= 0 else -r
    if kind == "NEG":
        return NULL if nums[0] is None else -nums[0]
    if kind == "ABS":
        return NULL if nums[0] is None else abs(nums[0])
    if kind == "ROUND":
        x, n = nums[0], nums[1] if len(nums) > 1 else Fraction(0)
        if x is None or n is None or n.denominator != 1:
            return NULL
        scale = Fraction(10) ** int(n)
        scaled = abs(x) * scale
        whole = scaled.numerator // scaled.denominator
        if scaled - whole >= Fraction(1, 2):
            whole += 1
        return (1 if x >= 0 else -1) * Fraction(whole) / scale
    if kind == "||":
        a, b = (_text(x) for x in args)
        return NULL if a is None or b is None else a + b
    if kind == "UPPER":
        return args[0].upper() if isinstance(args[0], str) else NULL
    if kind == "LENGTH":
        return Fraction(len(args[0])) if isinstance(args[0], str) else NULL
    if kind == "SUBSTR":
        s, start = args[0], nums[1]
        if not isinstance(s, str) or start is None or start.denominator != 1:
            return NULL
        chars = list(s)
        first = int(start)
        if len(args) == 2:
            return "".join(c for i, c in enumerate(chars, 1) if i >= first)
        n = nums[2]
        if n is None or n.denominator != 1 or n < 0:
            return NULL
        return "".join(c for i, c in enumerate(chars, 1) if first <= i < first + int(n))
    if kind == "CAST_STRING":
        return NULL if _text(args[0]) is None else _text(args[0])
    raise ValueError(kind)
