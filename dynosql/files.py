"""Items to and from files: the formats of COPY, with no DynamoDB calls in here.

Every format keeps every DynamoDB type exactly, so COPY TO then COPY FROM gives the same table:

- ``jsonl`` (and ``json``, one array): one JSON object per item. Strings, numbers (their exact
  digits, read back as Decimal), booleans, null, lists and maps are plain JSON. Binary and sets,
  which JSON lacks, are one-key objects: ``{"$B": "base64"}``, ``{"$SS": ["a"]}``,
  ``{"$NS": [1, 2]}``, ``{"$BS": ["base64"]}``; a map whose only key starts with ``$`` is
  wrapped as ``{"$M": {...}}`` so it cannot be taken for one of those.
- ``dynamodb``: DynamoDB JSON, one ``{"Item": {"a": {"S": "x"}}}`` per line, binary in base64:
  the shape of DynamoDB's own export to S3, so files move between tools.
- ``csv``: a header row, then one row per item. A header cell ``name:T`` types its column, T
  being S, N, B (base64), BOOL (true/false), SS, NS, BS, L, M (the value as jsonl writes it) or
  ANY (any value as jsonl writes it: mixed types, NULL, empty strings). A header cell without a
  type: the table's key attributes take their key type, every other column is a string. An
  empty cell is an absent attribute. COPY TO always writes the types.

Files whose name ends in ``.gz`` are gzip-compressed (read and written). Reading yields each
item with the line it starts on; a line that cannot be read is a `Line` with an error instead
(the caller decides: stop before it, or skip it to a side file).
"""

from __future__ import annotations

import base64
import binascii
import csv
import gzip
import io
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from dynosql import values

_quote = json.encoder.encode_basestring
TAGS = {"$B": "B", "$SS": "SS", "$NS": "NS", "$BS": "BS", "$M": "M"}
CSV_TYPES = ("S", "N", "B", "BOOL", "SS", "NS", "BS", "L", "M", "ANY")


class BadValue(ValueError):
    """A value in a file that is not a DynamoDB value; the message says why."""


@dataclass
class Line:
    """One item read from a file, or the reason its line could not be read."""

    number: int  # the line the item starts on (1-based; a CSV header is line 1); in a JSON
    # array, the element's number (1-based), and `line` the line it starts on
    item: dict[str, Any] | None
    error: str | None = None
    raw: str = ""  # the line's text (for the side file of bad lines)
    line: int = 0
    fatal: bool = False  # the rest of the file cannot be read (a JSON array's syntax)

    def where(self) -> str:
        """``line 812``, or ``element 812 (line 3)`` in a JSON array."""
        if self.line:
            return f"element {self.number} (line {self.line})"
        return f"line {self.number}"


def open_file(path: str, mode: str, gzipped: bool | None = None) -> IO[str]:
    """A text file, gzip when the name ends in .gz (or `gzipped`); UTF-8, newlines
    untranslated (CSV)."""
    # reading skips a byte-order mark (spreadsheets write one before CSV)
    encoding = "utf-8-sig" if mode == "r" else "utf-8"
    if _gzipped(path) if gzipped is None else gzipped:
        return gzip.open(path, mode + "t", encoding=encoding, newline="")  # type: ignore[return-value]
    return open(path, mode, encoding=encoding, newline="")


def open_bytes(path: str) -> IO[bytes]:
    """A file's bytes for reading, uncompressed when `open_file` would read it as gzip."""
    return gzip.open(path, "rb") if _gzipped(path) else open(path, "rb")  # type: ignore[return-value]


def _gzipped(path: str) -> bool:
    return path.endswith(".gz")


# --- writing ---------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def typed_json(value: Any) -> str:
    """One value as jsonl writes it (see the module's docstring): exact and reversible."""
    if isinstance(value, str):
        return _quote(value)
    code = values.type_of(value)
    if code == "N":
        return values.format_number(value)
    if code == "BOOL":
        return "true" if value else "false"
    if code == "NULL":
        return "null"
    if code == "B":
        return '{"$B":"' + _b64(value) + '"}'
    if code == "SS":
        return '{"$SS":[' + ",".join(_quote(v) for v in sorted(value, key=values.sort_key)) + "]}"
    if code == "NS":
        return '{"$NS":[' + ",".join(values.format_number(v) for v in sorted(value)) + "]}"
    if code == "BS":
        return '{"$BS":[' + ",".join('"' + _b64(v) + '"' for v in sorted(value)) + "]}"
    if code == "L":
        return "[" + ",".join(typed_json(v) for v in value) + "]"
    body = "{" + ",".join(_quote(str(k)) + ":" + typed_json(v) for k, v in value.items()) + "}"
    if len(value) == 1 and next(iter(value)).startswith("$"):
        return '{"$M":' + body + "}"
    return body


def item_json(item: Mapping[str, Any]) -> str:
    """One item as a jsonl line (without the newline)."""
    return "{" + ",".join(_quote(k) + ":" + typed_json(v) for k, v in item.items()) + "}"


def dynamodb_json(value: Any) -> str:
    """One value as DynamoDB JSON (``{"S": "x"}``, ``{"N": "1"}``, binary in base64)."""
    code = values.type_of(value)
    if code == "S":
        inner = _quote(value)
    elif code == "N":
        inner = '"' + values.format_number(value) + '"'
    elif code == "B":
        inner = '"' + _b64(value) + '"'
    elif code == "BOOL":
        inner = "true" if value else "false"
    elif code == "NULL":
        inner = "true"
    elif code == "SS":
        inner = "[" + ",".join(_quote(v) for v in sorted(value, key=values.sort_key)) + "]"
    elif code == "NS":
        inner = "[" + ",".join('"' + values.format_number(v) + '"' for v in sorted(value)) + "]"
    elif code == "BS":
        inner = "[" + ",".join('"' + _b64(v) + '"' for v in sorted(value)) + "]"
    elif code == "L":
        inner = "[" + ",".join(dynamodb_json(v) for v in value) + "]"
    else:
        inner = dynamodb_item(value)
    return '{"' + str(code) + '":' + inner + "}"


def dynamodb_item(item: Mapping[str, Any]) -> str:
    return "{" + ",".join(_quote(k) + ":" + dynamodb_json(v) for k, v in item.items()) + "}"


def dynamodb_line(item: Mapping[str, Any]) -> str:
    """One item as a line of DynamoDB's S3 export: ``{"Item": {...}}``."""
    return '{"Item":' + dynamodb_item(item) + "}"


def column_type(seen: set[str]) -> str:
    """The CSV type of a column whose values had the type codes `seen` (``S0``: an empty
    string): one plain type where it can be written plainly, else ANY."""
    if len(seen) == 1:
        (only,) = seen
        if only in CSV_TYPES:
            return only
    return "ANY"


def type_code(value: Any) -> str:
    """A value's type for `column_type` (an empty string or binary is apart: an empty cell
    is an absent attribute, so those columns are written as ANY)."""
    code = values.type_of(value) or "NULL"
    return code + "0" if code in ("S", "B") and len(value) == 0 else code


def csv_header(columns: Mapping[str, str]) -> list[str]:
    return [f"{name}:{kind}" for name, kind in columns.items()]


def csv_cell(value: Any, kind: str) -> str:
    """One value in a column of type `kind` (absent: an empty cell)."""
    if value is values.MISSING:
        return ""
    if kind == "S":
        return value
    if kind == "N":
        return values.format_number(value)
    if kind == "B":
        return _b64(value)
    if kind == "BOOL":
        return "true" if value else "false"
    return typed_json(value)


def csv_writer(out: IO[str]) -> Any:
    return csv.writer(out, lineterminator="\n")


# --- reading ---------------------------------------------------------------------------------


def _number(text: Any) -> Decimal:
    try:
        return values.number(text)
    except ValueError as err:
        raise BadValue(str(err)) from None


def _unb64(text: Any) -> bytes:
    if not isinstance(text, str):
        raise BadValue(f"binary must be base64 text, got {json.dumps(text, default=str)}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise BadValue(f"not base64: {text[:40]!r}") from None


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise BadValue("a string set holds strings only")
    return value


_SETS = {
    "SS": (values.StringSet, _string),
    "NS": (values.NumberSet, _number),
    "BS": (values.BinarySet, _unb64),
}


def _a_set(code: str, items: Any, what: str) -> Any:
    """A set of type `code` from a JSON list: non-empty, elements of its type, no duplicates."""
    if not isinstance(items, list) or not items:
        raise BadValue(f"{what} must be a non-empty list")
    kind, element = _SETS[code]
    result = kind(element(v) for v in items)
    if len(result) != len(items):
        raise BadValue(f"{what} has duplicate elements")
    return result


def from_typed_json(value: Any) -> Any:
    """A value parsed from jsonl (numbers as Decimal) to its DynamoDB value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Decimal | int):
        return _number(value)
    if isinstance(value, float):
        raise BadValue("numbers must be read exactly (parse with Decimal)")
    if isinstance(value, list):
        return [from_typed_json(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((tag, inner),) = value.items()
            kind = TAGS.get(tag)
            if kind == "B":
                return _unb64(inner)
            if kind in ("SS", "NS", "BS"):
                return _a_set(kind, inner, tag)
            if kind == "M":
                if not isinstance(inner, dict):
                    raise BadValue("$M must hold an object")
                return {k: from_typed_json(v) for k, v in inner.items()}
        return {k: from_typed_json(v) for k, v in value.items()}
    raise BadValue(f"not a value: {value!r}")


def from_dynamodb_json(value: Any) -> Any:
    """One DynamoDB JSON AttributeValue (``{"S": "x"}``) to its value."""
    if not isinstance(value, dict) or len(value) != 1:
        raise BadValue(
            f'expected one {{"TYPE": value}} object, got {json.dumps(value, default=str)[:60]}'
        )
    ((code, raw),) = value.items()
    if code == "S":
        if not isinstance(raw, str):
            raise BadValue("an S value must be a string")
        return raw
    if code == "N":
        return _number(raw)
    if code == "B":
        return _unb64(raw)
    if code == "BOOL":
        if not isinstance(raw, bool):
            raise BadValue("a BOOL value must be true or false")
        return raw
    if code == "NULL":
        return None
    if code in ("SS", "NS", "BS"):
        return _a_set(code, raw, code)
    if code == "L":
        if not isinstance(raw, list):
            raise BadValue("L must be a list")
        return [from_dynamodb_json(v) for v in raw]
    if code == "M":
        return _dynamodb_map(raw)
    raise BadValue(f"unknown DynamoDB type {code!r}")


def _dynamodb_map(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise BadValue("M must be an object")
    return {k: from_dynamodb_json(v) for k, v in raw.items()}


def _loads(text: str) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as err:
        raise BadValue(f"not JSON: {err.msg} at column {err.colno}") from None


def parse_value(text: str) -> Any:
    """One value's JSON text as jsonl holds it (numbers as Decimal), not yet typed."""
    return _loads(text)


def parse_jsonl(text: str) -> dict[str, Any]:
    return _typed_item(_loads(text), "each line must be one JSON object (an item)")


def _typed_item(data: Any, shape: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadValue(shape)
    item = from_typed_json(data)
    assert isinstance(item, dict)
    return item


def parse_dynamodb(text: str) -> dict[str, Any]:
    data = _loads(text)
    if not isinstance(data, dict):
        raise BadValue('each line must be an object {"Item": {...}}')
    if set(data) == {"Item"}:
        data = data["Item"]
    return _dynamodb_map(data)


class CsvColumns:
    """A CSV header read: each column's name and type (see the module's rule)."""

    def __init__(self, header: list[str], key_types: Mapping[str, str]):
        self.columns: list[tuple[str, str]] = []
        for cell in header:
            name, kind = cell, None
            if ":" in cell:
                head, _, tail = cell.rpartition(":")
                if tail in CSV_TYPES:  # in capitals: "a:b" is a name, "a:B" binary
                    name, kind = head, tail
            self.columns.append((name, kind or key_types.get(name, "S")))

    def item(self, row: list[str]) -> dict[str, Any]:
        if len(row) != len(self.columns):
            raise BadValue(f"{len(row)} fields, the header has {len(self.columns)}")
        item: dict[str, Any] = {}
        for (name, kind), cell in zip(self.columns, row, strict=True):
            if cell == "":
                continue
            try:
                item[name] = _csv_value(cell, kind)
            except BadValue as err:
                raise BadValue(f"column {name}: {err}") from None
        return item


def _csv_value(cell: str, kind: str) -> Any:
    if kind == "S":
        return cell
    if kind == "N":
        return _number(cell)
    if kind == "B":
        return _unb64(cell)
    if kind == "BOOL":
        word = cell.strip().lower()
        if word not in ("true", "false"):
            raise BadValue(f"expected true or false, got {cell[:40]!r}")
        return word == "true"
    data = _loads(cell)
    if kind in ("SS", "NS", "BS") and isinstance(data, list):
        data = {"$" + kind: data}  # a bare list in a set column
    value = from_typed_json(data)
    if kind != "ANY" and values.type_of(value) != kind:
        raise BadValue(f"expected {kind}, got {values.type_of(value)}")
    return value


def read_items(
    stream: IO[str], fmt: str, key_types: Mapping[str, str] | None = None
) -> Iterator[Line]:
    """Every item of a file in format `fmt` (jsonl, json, dynamodb or csv), in order, each with the
    line it starts on; blank lines are skipped. A line that cannot be read comes back with
    its error (reading goes on: the caller stops or skips)."""
    if fmt == "csv":
        yield from _read_csv(stream, key_types or {})
        return
    if fmt == "json":
        yield from _read_json_array(stream)
        return
    parse = parse_dynamodb if fmt == "dynamodb" else parse_jsonl
    for number, text in enumerate(stream, 1):
        if not text.strip():
            continue
        try:
            yield Line(number, parse(text), raw=text)
        except BadValue as err:
            yield Line(number, None, str(err), raw=text)
        except RecursionError:
            yield Line(number, None, "nested too deeply", raw=text)


def _read_csv(stream: IO[str], key_types: Mapping[str, str]) -> Iterator[Line]:
    # the csv module refuses a cell over 131,072 characters by default; a 400 KB item's
    # longest cell (a string of control characters, each \u0001 in its JSON) is ~2.4 million
    csv.field_size_limit(max(csv.field_size_limit(), MAX_ELEMENT_CHARS))
    lines = _Recorder(stream)
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as err:
        yield Line(1, None, f"not CSV: {err}", raw=lines.take())
        return
    columns = CsvColumns(header, key_types)
    yield Line(1, None, None, raw=lines.take())  # the header: no item, no error
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            yield Line(start, None, f"not CSV: {err}", raw=lines.take())
            continue
        raw = lines.take()
        if not row or row == [""]:
            continue
        try:
            yield Line(start, columns.item(row), raw=raw)
        except BadValue as err:
            yield Line(start, None, str(err), raw=raw)


class _Recorder(io.TextIOBase):
    """Lines as the csv reader takes them, kept until `take` (a bad record's raw text)."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.kept: list[str] = []

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        for line in self.stream:
            self.kept.append(line)
            yield line

    def take(self) -> str:
        text = "".join(self.kept)
        self.kept = []
        return text


_CHUNK = 1 << 16
MAX_ELEMENT_CHARS = 16 << 20  # an element this long that does not parse is an error, not cut
_DECODER = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal)
_WHITE = re.compile(r"[ \t\r\n]*")  # JSON's white space


class _ArrayText:
    """A JSON array read a chunk at a time: the unread text, where it is, and its line."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.text = ""
        self.pos = 0
        self.line = 1  # the line `pos` is on
        self.eof = False

    def more(self) -> bool:
        """Read another chunk (dropping what was consumed); False at the end of the file."""
        chunk = "" if self.eof else self.stream.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.text = self.text[self.pos :] + chunk
        self.pos = 0
        return True

    def advance(self, to: int) -> None:
        self.line += self.text.count("\n", self.pos, to)
        self.pos = to

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            self.advance(_WHITE.match(self.text, self.pos).end())  # type: ignore[union-attr]
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos : self.pos + 1]

    def value(self) -> tuple[Any, str]:
        """The next JSON value and its text; BadValue when it does not parse."""
        while True:
            try:
                data, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as err:
                # maybe cut by the chunk's end: read on (up to a limit), else it is an error
                if len(self.text) - self.pos < MAX_ELEMENT_CHARS and self.more():
                    continue
                line = self.line + self.text.count("\n", self.pos, err.pos)
                column = err.pos - self.text.rfind("\n", 0, err.pos)
                raise BadValue(f"not JSON: {err.msg} (line {line}, column {column})") from None
            except RecursionError:
                raise BadValue("nested too deeply") from None
            raw = self.text[self.pos : end]
            self.advance(end)
            return data, raw


def _read_json_array(stream: IO[str]) -> Iterator[Line]:
    """The elements of one JSON array (as COPY TO writes it), read a chunk at a time: memory
    holds one element, never the file. A bad element is a `Line` with its error (the caller
    stops or skips it; its text, on one line, goes to the side file); a break in the array's
    syntax is fatal, as nothing after it can be found."""
    text = _ArrayText(stream)
    number = 0

    def fatal(message: str) -> Line:
        return Line(number + 1, None, message, line=text.line, fatal=True)

    first = text.peek()
    if first == "":
        return
    if first != "[":
        yield fatal(
            "FORMAT json reads one JSON array of items, [{...}, {...}]; "
            "for one item a line, say FORMAT jsonl (or FORMAT dynamodb)"
        )
        return
    text.advance(text.pos + 1)
    if text.peek() == "]":
        text.advance(text.pos + 1)
    else:
        while True:
            line = text.line
            try:
                data, raw = text.value()
            except BadValue as err:
                yield fatal(str(err))
                return
            number += 1
            flat = raw.replace("\r", " ").replace("\n", " ")  # JSON strings hold no raw newline
            try:
                item = _typed_item(data, "each element must be one JSON object (an item)")
                yield Line(number, item, raw=flat, line=line)
            except BadValue as err:
                yield Line(number, None, str(err), raw=flat, line=line)
            except RecursionError:
                yield Line(number, None, "nested too deeply", raw=flat, line=line)
            after = text.peek()
            text.advance(text.pos + 1)
            if after == "]":
                break
            if after == "":
                yield fatal(f"the array ends after element {number} without its ]")
                return
            if after != ",":
                yield fatal(f"expected , or ] after element {number}, got {after!r}")
                return
            if text.peek() == "]":
                yield fatal(f"a comma after the last element ({number}) is not JSON")
                return
    if text.peek() != "":
        yield fatal("text after the end of the array")
