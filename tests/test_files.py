"""dynosql.files: every DynamoDB type written and read back exactly in jsonl, dynamodb and csv;
CSV typing by header or by the table's keys; bad lines with their line numbers. No server."""

from __future__ import annotations

import gzip
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dynosql import files, values
from dynosql.values import BinarySet, NumberSet, StringSet

# Every attribute type, the edges included: 38 digits, tiny and huge exponents, empty strings,
# binary with every byte, nested maps and lists, a map that looks like a tag.
ITEMS: list[dict[str, Any]] = [
    {
        "pk": "a",
        "sk": Decimal("1"),
        "s": 'héllo, "world"\nline two',
        "empty": "",
        "n38": Decimal("12345678901234567890123456789012345678"),
        "neg": Decimal("-0.000000000000000000000000000000000001"),
        "big": Decimal("9.9999999999999999999999999999999999999E+125"),
        "tiny": Decimal("1E-130"),
        "bin": bytes(range(256)),
        "emptybin": b"",
        "yes": True,
        "no": False,
        "nothing": None,
        "ss": StringSet({"x", "", "ü"}),
        "ns": NumberSet(
            {Decimal("1"), Decimal("-2.5"), Decimal("12345678901234567890123456789012345678")}
        ),
        "bs": BinarySet({b"\x00", b"\xff\x01"}),
        "list": ["a", Decimal("2"), [True, None], {"k": b"\x01"}, StringSet({"q"})],
        "map": {"deep": {"deeper": {"n": Decimal("3.14"), "e": ""}}, "l": []},
        "tagmap": {"$B": "not binary"},
        "tagmap2": {"$M": {"$SS": "x"}},
        "emptymap": {},
    },
    {"pk": "b", "sk": Decimal("2"), "s": Decimal("7"), "only_here": StringSet({"z"})},
    {"pk": "c", "sk": Decimal("-3")},
]
KEYS = {"pk": "S", "sk": "N"}


def _read(text: str, fmt: str, key_types: dict[str, str] | None = None) -> list[files.Line]:
    return [
        line
        for line in files.read_items(io.StringIO(text), fmt, key_types or KEYS)
        if line.item is not None or line.error is not None
    ]


def _csv_text(items: list[dict[str, Any]]) -> str:
    seen: dict[str, set[str]] = {}
    for item in items:
        for name, value in item.items():
            seen.setdefault(name, set()).add(files.type_code(value))
    kinds = {name: files.column_type(codes) for name, codes in seen.items()}
    out = io.StringIO()
    writer = files.csv_writer(out)
    writer.writerow(files.csv_header(kinds))
    for item in items:
        writer.writerow([files.csv_cell(item.get(n, values.MISSING), k) for n, k in kinds.items()])
    return out.getvalue()


def _same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    """Equal as DynamoDB would store them (the wire form, numbers canonical)."""
    assert [values.encode_item(i) for i in a] == [values.encode_item(i) for i in b]


@pytest.mark.parametrize("fmt", ["jsonl", "dynamodb", "csv", "json"])
def test_every_type_round_trips(fmt: str) -> None:
    if fmt == "csv":
        text = _csv_text(ITEMS)
    elif fmt == "json":  # one array, as COPY TO writes it
        text = "[" + ",\n".join(files.item_json(item) for item in ITEMS) + "\n]\n"
    else:
        encode = files.item_json if fmt == "jsonl" else files.dynamodb_line
        text = "".join(encode(item) + "\n" for item in ITEMS)
    lines = _read(text, fmt)
    assert [line.error for line in lines] == [None, None, None]
    _same([line.item for line in lines], ITEMS)  # type: ignore[misc]


# The largest values an item can hold (DynamoDB's 400 KB): a CSV cell of each is longer than
# the csv module's default field limit (131,072 characters).
LARGE: list[dict[str, Any]] = [
    {"pk": "s", "sk": Decimal(1), "s": "x" * 399_000},
    {"pk": "c", "sk": Decimal(2), "s": "\u0001" * 130_000},  # JSON writes each as \u0001
    {"pk": "q", "sk": Decimal(3), "s": '"' * 190_000},  # JSON escapes it, CSV doubles that
    {"pk": "b", "sk": Decimal(4), "b": bytes(range(256)) * 1_500},  # base64: 512,000 chars
    {"pk": "l", "sk": Decimal(5), "l": ["é" * 190_000], "m": {"k": "ü" * 1000}},
]


@pytest.mark.parametrize("fmt", ["jsonl", "dynamodb", "csv", "json"])
def test_the_largest_values_round_trip(fmt: str) -> None:
    """Every format COPY writes, COPY reads back exactly, up to the largest item."""
    if fmt == "csv":
        text = _csv_text(LARGE)
    elif fmt == "json":
        text = "[" + ",\n".join(files.item_json(item) for item in LARGE) + "\n]\n"
    else:
        encode = files.item_json if fmt == "jsonl" else files.dynamodb_line
        text = "".join(encode(item) + "\n" for item in LARGE)
    lines = _read(text, fmt)
    assert [line.error for line in lines] == [None] * len(LARGE)
    _same([line.item for line in lines], LARGE)  # type: ignore[misc]


def test_dynamodb_format_is_the_s3_export_shape() -> None:
    line = files.dynamodb_line(
        {"pk": "a", "n": Decimal("1.50"), "b": b"\x01", "ns": NumberSet({Decimal(2)})}
    )
    assert json.loads(line) == {
        "Item": {"pk": {"S": "a"}, "n": {"N": "1.5"}, "b": {"B": "AQ=="}, "ns": {"NS": ["2"]}}
    }


def test_jsonl_is_plain_json_where_json_has_the_type() -> None:
    line = files.item_json({"a": "x", "n": Decimal("1E+2"), "l": [None, True], "m": {"k": "v"}})
    assert line == '{"a":"x","n":100,"l":[null,true],"m":{"k":"v"}}'


def test_csv_header_types_and_key_rule() -> None:
    text = (
        'pk,sk,price:N,data:B,tags:SS,flag:BOOL,note\nk1,10,1.10,AQI=,"[""a"",""b""]",true,0042\n'
    )
    (line,) = _read(text, "csv")
    assert line.number == 2 and line.error is None
    assert line.item == {
        "pk": "k1",
        "sk": Decimal("10"),  # untyped, but a number key of the table
        "price": Decimal("1.10"),
        "data": b"\x01\x02",
        "tags": StringSet({"a", "b"}),
        "flag": True,
        "note": "0042",  # untyped non-key columns are strings
    }
    # an empty cell is an absent attribute; a column name may hold a colon
    (line,) = _read("pk,sk,a:b,n:N\nk,1,,\n", "csv")
    assert line.item == {"pk": "k", "sk": Decimal(1)}
    (line,) = _read("pk,sk,a:b\nk,1,x\n", "csv")
    assert line.item == {"pk": "k", "sk": Decimal(1), "a:b": "x"}


def test_bad_lines_have_their_numbers_and_reading_goes_on() -> None:
    good = [files.item_json({"pk": f"k{i}", "sk": Decimal(i)}) for i in range(1, 1001)]
    good[811] = '{"pk": "k812", "sk": 1e999999999}'  # line 812: out of DynamoDB's range
    lines = _read("\n".join(good) + "\n", "jsonl")
    assert len(lines) == 1000
    bad = [line for line in lines if line.error]
    assert [b.number for b in bad] == [812]
    assert "out of DynamoDB's range" in (bad[0].error or "")
    assert lines[812].number == 813 and lines[812].item == {"pk": "k813", "sk": Decimal(813)}


@pytest.mark.parametrize(
    "fmt, text, message",
    [
        ("jsonl", "{nope\n", "not JSON"),
        ("jsonl", "[1]\n", "one JSON object"),
        ("jsonl", '{"a": 1.5e1000000}\n', "out of DynamoDB's range"),
        ("jsonl", '{"a": 123456789012345678901234567890123456789}\n', "more than 38"),
        ("jsonl", '{"a": {"$SS": []}}\n', "non-empty"),
        ("jsonl", '{"a": {"$SS": ["x", "x"]}}\n', "duplicate"),
        ("jsonl", '{"a": {"$B": "***"}}\n', "not base64"),
        ("dynamodb", '{"Item": {"a": {"X": "1"}}}\n', "unknown DynamoDB type"),
        ("dynamodb", '{"Item": {"a": {"N": "x"}}}\n', "not a number"),
        ("dynamodb", '{"Item": {"a": "bare"}}\n', "expected one"),
        ("csv", "pk,sk\nk,1,extra\n", "3 fields, the header has 2"),
        ("csv", "pk,sk\nk,one\n", "column sk: not a number"),
        ("csv", "pk,b:BOOL\nk,maybe\n", "column b: expected true or false"),
        ("csv", "pk,m:M\nk,[1]\n", "column m: expected M, got L"),
    ],
)
def test_bad_values(fmt: str, text: str, message: str) -> None:
    (line,) = _read(text, fmt, {"pk": "S", "sk": "N"})
    assert line.item is None and message in (line.error or ""), line.error


def test_csv_records_spanning_lines_count_from_their_first_line() -> None:
    text = 'pk,s\nk1,"two\nlines"\nk2,bad,x\n'
    lines = _read(text, "csv", {"pk": "S"})
    assert [(line.number, line.error is None) for line in lines] == [(2, True), (4, False)]
    assert lines[0].item == {"pk": "k1", "s": "two\nlines"}
    assert lines[1].raw == "k2,bad,x\n"


def test_gzip_files(tmp_path: Path) -> None:
    path = str(tmp_path / "items.jsonl.gz")
    with files.open_file(path, "w") as out:
        out.write(files.item_json(ITEMS[2]) + "\n")
    assert gzip.decompress(Path(path).read_bytes()).startswith(b'{"pk":"c"')
    with files.open_file(path, "r") as stream:
        (line,) = list(files.read_items(stream, "jsonl"))
    assert line.item == ITEMS[2]


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffpk,n:N\r\nk,1\r\n".encode())
    with files.open_file(str(path), "r") as stream:
        lines = [line for line in files.read_items(stream, "csv", {}) if line.item]
    assert lines[0].item == {"pk": "k", "n": Decimal(1)}


class _Chunks(io.StringIO):
    """A stream that counts what was read from it."""

    def __init__(self, text: str):
        super().__init__(text)
        self.taken = 0

    def read(self, size: int | None = -1) -> str:
        chunk = super().read(size)
        self.taken += len(chunk)
        return chunk


def test_a_json_array_is_read_a_chunk_at_a_time() -> None:
    """The first element comes back having read one chunk, not the file; elements cut by a
    chunk's end are joined; numbers stay exact; each element says the line it starts on."""
    rows = [{"pk": f"k{i}", "n": Decimal(f"{i}.10"), "pad": "é" * 500} for i in range(1000)]
    text = "[\n" + ",\n".join(files.item_json(r) for r in rows) + "\n]\n"
    stream = _Chunks(text)
    lines = files.read_items(stream, "json")
    first = next(lines)
    assert first.item == rows[0] and (first.number, first.line) == (1, 2)
    assert stream.taken <= 2 * files._CHUNK < len(text) // 4
    rest = list(lines)
    assert [line.item for line in rest] == rows[1:]
    assert (rest[-1].number, rest[-1].line) == (1000, 1001)


def test_json_array_bad_elements_and_broken_syntax() -> None:
    text = '[{"pk": "a"}, 7,\n {"pk": {"$B": "!!"}},\n\n {"pk": "b"} {"pk": "c"}]'
    lines = list(files.read_items(io.StringIO(text), "json"))
    assert [(x.number, x.line, x.error, x.fatal) for x in lines] == [
        (1, 1, None, False),
        (2, 1, "each element must be one JSON object (an item)", False),
        (3, 2, "not base64: '!!'", False),
        (4, 4, None, False),
        (5, 4, "expected , or ] after element 4, got '{'", True),
    ]
    assert lines[2].where() == "element 3 (line 2)" and lines[2].raw == '{"pk": {"$B": "!!"}}'
    broken = list(files.read_items(io.StringIO('[{"a": 1},\n {"b": tru}]'), "json"))
    assert broken[1].fatal and broken[1].error == "not JSON: Expecting value (line 2, column 8)"
    assert [x.error for x in files.read_items(io.StringIO('{"a": 1}'), "json")] == [
        "FORMAT json reads one JSON array of items, [{...}, {...}]; "
        "for one item a line, say FORMAT jsonl (or FORMAT dynamodb)"
    ]
    assert list(files.read_items(io.StringIO(" [ ] \n"), "json")) == []
