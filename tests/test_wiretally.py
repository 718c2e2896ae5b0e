"""SHOW HOT KEYS' counts read off a page's bytes (dynosql.dynamo.wiretally) equal the sizes of the
decoded items (dynosql.values.item_size) for every type, or the page is left to the decoder:
never a wrong count. Pages are written here as DynamoDB and dynalite write them (compact JSON,
UTF-8 as is); then on every backend, through the statement."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from backends import unique_name
from hypothesis import given, settings
from hypothesis import strategies as st
from test_wiresize import EVERY_TYPE, as_wire

from dynosql import values
from dynosql.dynamo import wiretally
from dynosql.session import Session
from dynosql.statements import hot_keys as hotkeys
from dynosql.values import BinarySet, NumberSet, StringSet


def page(
    items: list[dict[str, Any]],
    separators: tuple[str, str] = (",", ":"),
    last_key_first: bool = True,
) -> bytes:
    """A Scan page's body: dynalite puts LastEvaluatedKey first, DynamoDB after the items."""
    wire = [as_wire(item) for item in items]
    fields: dict[str, Any] = {"Count": len(wire), "Items": wire, "ScannedCount": len(wire)}
    last = {"LastEvaluatedKey": {"pk": {"S": "zz"}}}
    fields = {**last, **fields} if last_key_first else {**fields, **last}
    fields["ConsumedCapacity"] = {"TableName": "t", "CapacityUnits": 1.5}
    text = json.dumps(fields, separators=separators, ensure_ascii=False)
    return text.encode("utf-8")


def expected(items: list[dict[str, Any]], key: str = "pk") -> dict[tuple, list]:
    """The tally of decoded items, sized by `values.item_size` (not by the wire form)."""
    out: dict[tuple, list] = {}
    for item in items:
        wire = as_wire({key: item[key]})[key]
        entry = out.setdefault(tuple(wire.items()), [wire, 0, 0])
        entry[1] += 1
        entry[2] += values.item_size(item)
    return out


def read(items: list[dict[str, Any]], key: str = "pk", **how: Any) -> Any:
    return wiretally.KeyTally(key)(page(items, **how))


def check(items: list[dict[str, Any]], key: str = "pk", **how: Any) -> None:
    got = wiretally.KeyTally(key)(page(items, **how))
    assert got is not None, "the page was left to the decoder"
    assert got.value == expected(items, key)
    assert got.size == sum(values.item_size(i) for i in items)
    envelope = json.loads(got.envelope)
    assert envelope["Items"] == [] and envelope["Count"] == len(items)
    assert envelope["LastEvaluatedKey"] == {"pk": {"S": "zz"}}


@pytest.mark.parametrize("last_key_first", [True, False])
def test_every_type(last_key_first: bool) -> None:
    items = [{**EVERY_TYPE, "pk": f"k{i % 3}", "sk": Decimal(i)} for i in range(9)]
    check(items, last_key_first=last_key_first)


def test_one_shape_many_values() -> None:
    """The overhead learned from the first item serves items whose numbers, binaries, sets
    and booleans differ: their corrections come from their own bytes."""
    rng = random.Random(3)
    items = []
    for i in range(200):
        items.append(
            {
                "pk": f"dev-{i // 50}",
                "n": Decimal(rng.randint(-(10**12), 10**12)).scaleb(rng.randint(-20, 20)),
                "ok": rng.random() < 0.5,
                "b": rng.randbytes(rng.randint(1, 9)),
                "ns": NumberSet({Decimal(rng.randint(1, 10**6)), Decimal("0.5")}),
                "bs": BinarySet({rng.randbytes(rng.randint(1, 7))}),
                "m": {"deep": [Decimal(rng.randint(0, 999)), rng.random() < 0.5, None]},
                "text": "ü" * rng.randint(0, 5) + ":,{}[]" * rng.randint(1, 1),
            }
        )
    check(items)


def test_keys_of_every_type_and_interleaved_runs() -> None:
    for key in ["text 😀", Decimal("-12.50"), b"\x00\xff"]:
        items = [{"pk": key if i % 2 else f"other{i % 3}", "v": Decimal(i)} for i in range(30)]
        check(items)


@pytest.mark.parametrize("separators", [(",", ": "), (", ", ": ")])
def test_whitespace_inside_items_is_part_of_the_shape(separators: tuple[str, str]) -> None:
    """`": "` after every name, and moto's `", "` between items too: still read, exact."""
    items = [{"pk": "a", "n": Decimal(i), "t": i % 2 == 0, "s": "x" * i} for i in range(20)]
    items += [{**EVERY_TYPE, "pk": f"k{i % 3}", "sk": Decimal(i)} for i in range(9)]
    check(items, separators=separators)


@pytest.mark.parametrize(
    "items, how, why",
    [
        ([{"pk": "a", "s": 'say "hi"'}], {}, "an escape"),
        ([{"pk": "a", "s": "x"}, {"pk": "b"}], {"separators": (",\n", ": ")}, "a new line"),
        ([{"pk": "a"}, {"S": "first name a tag", "pk": "b"}], {}, "a name like a type tag"),
        ([{"pk": "a", "m": {"pk": "inner"}}, {"pk": "b"}], {}, "a map entry named like the key"),
        ([{"s": "no key"}, {"pk": "b"}], {}, "an item without the key"),
    ],
)
def test_left_to_the_decoder(items: list, how: dict, why: str) -> None:
    assert read(items, **how) is None, why


def test_separator_bytes_inside_an_item() -> None:
    """``}},{"`` also ends a map in a list and may end a string: neither is cut."""
    check(
        [
            {"pk": "a", "lines": [{"sku": "x", "n": Decimal(1)}, {"sku": "y"}, {}], "s": "}},{"},
            {"pk": "b", "lines": [{"m": {"deep": {}}}, {"m": {}}], "t": "ends }},{"},
            {"pk": "a", "s": "}},{", "l": [{}, {}, "x"]},
        ]
    )


@pytest.mark.parametrize(
    "body",
    [  # one boundary spaced, another cut inside an item: as many pieces as the Count
        b'{"Count":3,"Items":[{"pk":{"S":"a"},"l":{"L":[{"M":{}},{"S":"z"}]}}, '
        b'{"pk":{"S":"b"}},{"pk":{"S":"c"}}],"ScannedCount":3}',
        b'{"Count":3,"Items":[{"pk":{"S":"a"},"s":{"S":"x}},{"}}, '
        b'{"pk":{"S":"b"}},{"pk":{"S":"c"}}],"ScannedCount":3}',
    ],
)
def test_boundaries_written_unevenly(body: bytes) -> None:
    got = wiretally.KeyTally("pk")(body)
    want = {"a": 1, "b": 1, "c": 1}
    assert got is None or {k[0][1]: v[1] for k, v in got.value.items()} == want


def test_shapes_beyond_the_cache(monkeypatch) -> None:
    """A statement with more shapes than are kept starts again from the page at hand."""
    monkeypatch.setattr(wiretally, "MAX_SHAPES", 6)
    tally = wiretally.KeyTally("pk")
    for round_ in range(5):
        # four shapes new to each page: lists of as many elements
        items = [{"pk": "k", "l": ["x"] * (4 * round_ + i + 1)} for i in range(4)] * 3
        items.append({"pk": "k", "known": "from the first page"})
        got = tally(page(items))
        assert got is not None and got.value == expected(items)
        assert len(tally._overheads) <= 6


def test_not_a_page() -> None:
    assert wiretally.KeyTally("pk")(b'[{"Items":[{"pk":{"S":"a"}}],"Count":1}]') is None


def test_count_must_match() -> None:
    body = page([{"pk": "a"}, {"pk": "b"}]).replace(b'"Count":2', b'"Count":3')
    assert wiretally.KeyTally("pk")(body) is None


def test_empty_page() -> None:
    got = read([])
    assert got is not None and got.value == {} and got.size == 0


def test_free_text_pages_are_decoded_and_then_not_tried() -> None:
    """Spaces and commas that vary from item to item make a shape per item: such a page is
    decoded, and after a few the statement stops trying."""
    rng = random.Random(5)
    tally = wiretally.KeyTally("pk")

    def text() -> str:
        return " ".join("w" * rng.randint(1, 4) for _ in range(rng.randint(1, 60)))

    for _ in range(wiretally.GIVE_UP_AFTER + 2):
        items = [{"pk": "k", "note": text(), "tags": [text()]} for _ in range(300)]
        assert tally(page(items)) is None
    assert tally._too_varied == wiretally.GIVE_UP_AFTER  # the last pages were not read at all
    assert tally.declined == wiretally.GIVE_UP_AFTER + 2
    assert tally(page([{"pk": "k"}])) is None


# --- drawn items: exact, or left to the decoder ------------------------------------------------

_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
_TEXT = st.text(alphabet=st.one_of(_CHARS, st.sampled_from('{}[],:" \\')), max_size=6)
_NAMES = st.one_of(
    st.sampled_from(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS", "pk", "Items"]),
    _TEXT,
)
_NUMBER = st.builds(
    lambda digits, exponent: Decimal(digits).scaleb(exponent),
    st.integers(-(10**38) + 1, 10**38 - 1),
    st.integers(-60, 60),
)
_SCALAR = st.one_of(
    _TEXT,
    _NUMBER,
    st.binary(max_size=5),
    st.booleans(),
    st.none(),
    st.frozensets(_TEXT, min_size=1, max_size=3).map(StringSet),
    st.frozensets(_NUMBER, min_size=1, max_size=3).map(
        lambda ns: NumberSet({values.hashable(n)[1]: n for n in ns}.values())
    ),
    st.frozensets(st.binary(min_size=1, max_size=3), min_size=1, max_size=3).map(BinarySet),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_NAMES, inner, max_size=3)
    ),
    max_leaves=6,
)
_KEY = st.one_of(_TEXT.filter(bool), _NUMBER, st.binary(min_size=1, max_size=3))
_ITEMS = st.lists(
    st.tuples(st.sampled_from([0, 1, 2]), st.dictionaries(_NAMES, _VALUE, max_size=4)),
    max_size=12,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(_KEY, min_size=3, max_size=3, unique_by=values.hashable), _ITEMS)
def test_drawn_items_exact_or_declined(keys: list, drawn: list) -> None:
    items = [{**attributes, "pk": keys[k]} for k, attributes in drawn]
    for how in ({}, {"separators": (", ", ": ")}, {"last_key_first": False}):
        got = read(items, **how)
        if got is not None:
            assert got.value == expected(items) and got.size == sum(map(values.item_size, items))


_PLAIN = st.text(alphabet=st.one_of(_CHARS, st.sampled_from("{[],: ")), max_size=6).filter(
    lambda s: '"' not in s and "\\" not in s and "}" not in s
)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "ü"]),
            st.dictionaries(
                st.sampled_from(["n", "s", "m", "l", "x"]),
                st.one_of(_PLAIN, _NUMBER, st.binary(max_size=4), st.booleans(), st.none(),
                          st.lists(st.one_of(_PLAIN, _NUMBER), max_size=3),
                          st.dictionaries(st.sampled_from(["p", "q"]), st.one_of(_PLAIN, _NUMBER))),
                max_size=5,
            ),
        ),
        max_size=40,
    )
)  # fmt: skip
def test_drawn_plain_items_are_read(drawn: list) -> None:
    """Without escapes, a key named inside a map, or ``}`` ending a string, a page is read."""
    check([{**attributes, "pk": key} for key, attributes in drawn])


# --- through the statement, on every backend ---------------------------------------------------


@pytest.fixture(scope="module")
def typed_table(backend):
    name = unique_name("wiretally")
    backend.create_keyed_table(name)
    rng = random.Random(11)
    items = []
    for i in range(400):
        items.append(
            {
                **EVERY_TYPE,
                "pk": rng.choice(["acme", "globex", "日本", "a:b,c{d}"]),
                "sk": Decimal(i),
                "amount": Decimal(rng.randint(-(10**9), 10**9)).scaleb(-3),
                "flag": rng.random() < 0.3,
            }
        )
    backend.put_items(name, items)
    return name, items


def spy_tallies(monkeypatch) -> list[wiretally.KeyTally]:
    made: list[wiretally.KeyTally] = []

    class Spy(wiretally.KeyTally):
        def __init__(self, key: str) -> None:
            super().__init__(key)
            self.bodies: list[bytes | str] = []  # every page it was given
            made.append(self)

        def __call__(self, body: bytes | str) -> Any:
            self.bodies.append(body)
            return super().__call__(body)

    monkeypatch.setattr(hotkeys, "KeyTally", Spy)
    return made


def test_show_hot_keys_reads_the_bytes(backend, typed_table, monkeypatch) -> None:
    """On dynalite every page is read off its bytes; moto writes non-ASCII text as escapes,
    so its pages of these items are decoded; DynamoDB Local writes characters beyond the BMP
    (the items' emoji) as surrogate-pair escapes, so its pages holding items are decoded. The
    answer is the same, and exact, every way."""
    name, items = typed_table
    made = spy_tallies(monkeypatch)
    session = Session(backend.client())
    session.set("segments", "4")  # several pages, read in several threads
    result = session.execute(f"SHOW HOT KEYS FROM {name} WITH SIZES")
    rows = result.all()
    want: dict = defaultdict(lambda: [0, 0])
    for item in items:
        want[item["pk"]][0] += 1
        want[item["pk"]][1] += values.item_size(item)
    assert {r["key"]: [r["items"], r["bytes"]] for r in rows} == want
    (tally,) = made
    assert result.stats.requests >= 4
    holding = [body for body in tally.bodies if json.loads(body)["Count"]]
    if backend.name == "ddblocal":
        # JSON lets a server write 🦆 raw or as "\\uD83E\\uDD86" (AWS's documentation does not
        # say which DynamoDB writes); a page with a backslash is always decoded.
        assert holding and all(b"\\uD83E\\uDD86" in body for body in holding)
        assert tally.declined == len(holding)
    else:
        # moto escapes the items' text: each page holding items is decoded (a segment may hold
        # none of these few partition keys)
        assert tally.declined == (0 if backend.name == "dynalite" else len(holding))


def test_moto_pages_are_read_too(backend, monkeypatch) -> None:
    """moto's spacing (`}}, {"`) is read as well, when its text needs no escapes."""
    name = unique_name("spaced")
    backend.create_keyed_table(name)
    items = [
        {"pk": f"key{i % 4}", "sk": Decimal(i), "n": Decimal(i * 7), "ok": i % 3 == 0,
         "l": [{"a": "x"}, {"b": Decimal(i)}], "note": "plain text, with: colons"}
        for i in range(120)
    ]  # fmt: skip
    backend.put_items(name, items)
    made = spy_tallies(monkeypatch)
    rows = Session(backend.client()).execute(f"SHOW HOT KEYS FROM {name} WITH SIZES").all()
    want = {f"key{k}": [30, sum(values.item_size(i) for i in items[k::4])] for k in range(4)}
    assert {r["key"]: [r["items"], r["bytes"]] for r in rows} == want
    (tally,) = made
    assert tally.declined == 0
