"""DynamoDB item sizes computed from the wire form, without decoding the item.

`dynosql.values.item_size` sizes a decoded item; reading a page only to size it (SHOW HOT KEYS,
the bytes shown beside the capacity, the capacity estimated on moto) would decode every value
into Python first. The wire form already says each value's type, and every size is a length:
a string's UTF-8 bytes, a binary's raw bytes (the base64 text's length tells them, with no
decoding), a number's significant digits read off its text. Both functions follow the rule in
design.md and agree with `values.item_size` for every type (tests/test_wiresize.py).

An item is in the low-level client's form, as `dynosql.dynamo.wire` hands it over (B and BS as the
base64 text of the wire) or as botocore parses it (B and BS as bytes); both are sized alike.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynosql.values import number_size

MAX_NUMBER_BYTES = 21


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """An item's size as DynamoDB bills it: attribute names plus values, in bytes."""
    size = _text("".join(item))  # every name at once
    for wire in item.values():
        # strings and numbers first, inline: most attributes are one or the other
        raw = wire.get("S")
        if raw is not None:
            size += len(raw) if raw.isascii() else len(raw.encode("utf-8"))
            continue
        raw = wire.get("N")
        size += value_size(wire) if raw is None else number_text_size(raw)
    return size


def value_size(wire: Mapping[str, Any]) -> int:
    """The size of one AttributeValue (``{"S": "…"}``, ``{"N": "12.5"}``, …)."""
    ((code, raw),) = wire.items()
    if code == "S":
        return len(raw) if raw.isascii() else len(raw.encode("utf-8"))
    if code == "N":
        return number_text_size(raw)
    if code == "M":  # 3, and per element its name, its value and 1
        return 3 + len(raw) + _text("".join(raw)) + sum(map(value_size, raw.values()))
    if code == "L":  # 3, and per element its value and 1
        return 3 + len(raw) + sum(map(value_size, raw))
    if code in ("BOOL", "NULL"):
        return 1
    if code == "B":
        return binary_text_size(raw)
    if code == "SS":
        return _text("".join(raw))
    if code == "NS":
        return sum(map(number_text_size, raw))
    if code == "BS":
        return sum(map(binary_text_size, raw))
    raise ValueError(f"unknown DynamoDB type {code!r}")


def _text(text: str) -> int:
    """UTF-8 bytes of a string (its length when it is ASCII, which Python knows at once)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


@functools.lru_cache(maxsize=1 << 14)  # numbers repeat (prices, counts, readings)
def number_text_size(text: str) -> int:
    """`values.number_size` read off a number's text: digits are stored in pairs aligned on
    the decimal point, one byte more (a sign byte for negatives), at most 21."""
    negative = text[:1] == "-"
    body = text[1:] if negative or text[:1] == "+" else text
    if "e" in body or "E" in body:
        return number_size(Decimal(text))
    whole, _, fraction = body.partition(".")
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return 1  # zero
    significant = len(digits.rstrip("0"))
    first_exponent = len(digits) - len(fraction) - 1  # the power of ten of the first digit
    size = 1 + (significant + 1) // 2
    if not significant % 2 and not first_exponent % 2:
        size += 1
    return min(size + negative, MAX_NUMBER_BYTES)


def binary_text_size(raw: str | bytes | bytearray) -> int:
    """Raw bytes of a binary value: base64 text (the wire) is sized without decoding it."""
    if isinstance(raw, str):
        return len(raw) * 3 // 4 - raw[-2:].count("=")
    return len(raw)
