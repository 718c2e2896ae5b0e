"""Item sizes from the wire form (dynosql.dynamo.wiresize) equal the sizes of the decoded items
(dynosql.values.item_size) for every attribute type: nested maps and lists, the three sets,
binary as base64 text (dynosql.dynamo.wire) and as bytes (botocore), numbers of up to 38 digits at
every exponent, multi-byte UTF-8 in names and values. No server needed."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynosql import values
from dynosql.dynamo import wiresize
from dynosql.values import BinarySet, NumberSet, StringSet


def as_wire(item: dict[str, Any]) -> dict[str, Any]:
    """An item as `dynosql.dynamo.wire` hands it over: JSON through and through, B as base64 text."""

    def default(o: Any) -> Any:
        if isinstance(o, bytes):
            return base64.b64encode(o).decode("ascii")
        if isinstance(o, Decimal):
            return str(o)
        raise TypeError(o)

    return json.loads(json.dumps(values.encode_item(item), default=default))


EVERY_TYPE = {
    "s": "plain",
    "ütf": "Äpfel · 日本語 · 🦆",  # 2-, 3- and 4-byte characters, in a name and a value
    "empty": "",
    "n": Decimal("12345678901234567890123456789012345678"),  # 38 digits
    "n_small": Decimal(
        "0.00000000000000000000000000000000000012345678901234567890123456789012345678"
    ),
    "n_big": Decimal("9.9999999999999999999999999999999999999E+125"),
    "n_tiny": Decimal("-1E-130"),
    "n_neg": Decimal("-12.5"),
    "n_zero": Decimal(0),
    "n_round": Decimal("1200"),
    "b": b"\x00\x01\xfe\xff",
    "b1": b"x",
    "b2": b"xy",
    "b_empty": b"",
    "t": True,
    "f": False,
    "null": None,
    "ss": StringSet({"a", "ß", "日本"}),
    "ns": NumberSet({Decimal("1"), Decimal("-0.5"), Decimal("1E+100")}),
    "bs": BinarySet({b"\x00", b"abc", b"\xff\xfe\xfd\xfc"}),
    "l": [Decimal(1), "two", None, True, [b"\x01", {"k": "v"}], StringSet({"x"})],
    "empty_l": [],
    "m": {"nested": {"deeper": {"n": Decimal("-3.25"), "ü": ["x", Decimal("100")]}}, "e": {}},
}


@pytest.mark.parametrize("name", sorted(EVERY_TYPE))
def test_each_type_sized_alike(name: str) -> None:
    item = {"pk": "k", name: EVERY_TYPE[name]}
    expected = values.item_size(item)
    assert (
        wiresize.item_size(as_wire(item)) == expected
    )  # base64 text, as dynosql.dynamo.wire gives
    assert wiresize.item_size(values.encode_item(item)) == expected  # bytes, as botocore gives


def test_whole_item_of_every_type() -> None:
    assert wiresize.item_size(as_wire(EVERY_TYPE)) == values.item_size(EVERY_TYPE)


@pytest.mark.parametrize(
    "text",
    ["0", "-0", "0.0", "7", "-7", "10", "100", "0.5", "0.05", "-0.050", "123.456", "1E+100",
     "1e-5", "+12", "12345678901234567890123456789012345678", "-1.2345678901234567890123456789012345678E-130",
     "99999999999999999999999999999999999999", "0.1000000", "1000000.0001"],
)  # fmt: skip
def test_number_text_as_decimal(text: str) -> None:
    assert wiresize.value_size({"N": text}) == values.number_size(Decimal(text))


_digits = st.integers(min_value=0, max_value=10**38 - 1)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(_digits, st.integers(min_value=-40, max_value=40), st.booleans())
def test_numbers_of_every_alignment(digits: int, exponent: int, negative: bool) -> None:
    """Every digit count and decimal-point alignment, written as DynamoDB writes numbers
    (no exponent) and as Decimal's own text."""
    value = Decimal(digits).scaleb(exponent)
    if negative:
        value = -value
    expected = values.number_size(value)
    assert wiresize.value_size({"N": values.format_number(value)}) == expected
    assert wiresize.value_size({"N": str(value)}) == expected


def test_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown DynamoDB type"):
        wiresize.value_size({"X": 1})
