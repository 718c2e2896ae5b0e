"""Renderers: a `Result`'s rows as text (table, csv, tsv, json, jsonl, markdown, vertical).

Only `Result` rows and decoded values (`dynosql.values`) come in here; no DynamoDB requests.

Rules shared by every format, so an export and the screen agree:

- Numbers keep their exact decimal digits (`values.format_number`); nothing goes through float,
  so a 38-digit number prints as 38 digits and ``1E+2`` prints as ``100``.
- JSON (json, jsonl, and nested values in csv/table cells) has one encoder, `_encode`: NULL is
  ``null``, booleans ``true``/``false``, sets are sorted arrays, binary is base64 text, strings
  stay UTF-8 (not ``\\u`` escapes), maps and lists nest.
- A missing attribute is left out of JSON row objects and is an empty cell elsewhere. NULL is
  ``NULL`` in table/markdown/vertical but an empty field in csv/tsv (spreadsheets and ``COPY``
  read an empty field as null); json/jsonl tell the two apart (absent key vs ``null``).
- json, jsonl, csv and tsv stream: each row is written (and flushed) as it arrives, and if the
  rows fail part-way the output written so far stays well-formed (whole lines; json closes its
  array) before the error is re-raised. table, markdown and vertical need every row to size
  their columns.
- Formats meant for people (table, markdown, vertical; and the REPL's screen in any format)
  show control characters escaped (``\x1b``, ``\r``, ``\t``, ``\x07``; bidi overrides as
  ``\u202e``), in values and attribute names alike, so data cannot drive the terminal. csv,
  tsv, json and jsonl keep the exact data (json escapes C0 controls as JSON requires).
- ``kind == "status"`` results print nothing; warnings, notes and the stats footer are the
  caller's to print (stderr for scripts). ``title`` is a line above human formats only.
"""

from __future__ import annotations

import csv
import dataclasses
import decimal
import json
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, TextIO

from dynosql import values
from dynosql.result import Result, Row, all_columns
from dynosql.settings import FORMATS

_COMPACT = (",", ":")  # cells: as short as possible
_READABLE = (", ", ": ")  # json/jsonl row objects: json.dumps' own default spacing


# --- values ------------------------------------------------------------------------------------


# json.dumps(s, ensure_ascii=False) without its per-call overhead (the same C routine)
_quote = json.encoder.encode_basestring


def _number_text(value: Any) -> str:
    """Exact digits of a number, valid as a JSON number (no exponent, no NaN)."""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a DynamoDB number: {value!r}")
        value = Decimal(repr(value))  # shortest text that round-trips, not the binary expansion
    if not value.is_finite():
        raise ValueError(f"not a DynamoDB number: {value!r}")
    return values.format_number(value)


def _encode(value: Any, separators: tuple[str, str] = _COMPACT) -> str:
    """The one JSON encoder: exact numbers, sorted sets, base64 binary, UTF-8 text."""
    if isinstance(value, str):  # the common case first: no type dispatch
        return _quote(value)
    code = values.type_of(value)
    if code == "N":
        return _number_text(value)
    if code == "BOOL":
        return "true" if value else "false"
    if code == "NULL" or code is None:
        return "null"
    if code in ("B", "SS", "NS", "BS"):
        return _encode(values.to_json(value), separators)  # base64 text / a sorted list
    item_sep, key_sep = separators
    if code == "L":
        return "[" + item_sep.join(_encode(v, separators) for v in value) + "]"
    # "M"
    return (
        "{"
        + item_sep.join(_quote(str(k)) + key_sep + _encode(v, separators) for k, v in value.items())
        + "}"
    )


def json_text(value: Any) -> str:
    """Compact JSON for one value, numbers with their exact digits (the REPL and csv reuse it)."""
    return _encode(value, _COMPACT)


def cell_text(value: Any, null: str = "NULL") -> str:
    """One value as a table cell: strings as-is, exact numbers, true/false, NULL, base64 for
    binary, compact JSON for lists, maps and sets; a missing attribute is empty."""
    if value is values.MISSING:
        return ""
    code = values.type_of(value)
    if code == "S":
        return value
    if code == "N":
        return _number_text(value)
    if code == "BOOL":
        return "true" if value else "false"
    if code == "NULL":
        return null
    if code == "B":
        return values.to_json(value)
    return json_text(value)


def _ordered_items(row: Row, columns: list[str]) -> Iterator[tuple[str, Any]]:
    """A row's attributes: the result's columns first, then the rest in the row's own order."""
    for name in columns:
        if name in row and row[name] is not values.MISSING:
            yield name, row[name]
    listed = set(columns)
    for name, value in row.items():
        if name not in listed and value is not values.MISSING:
            yield name, value


def _row_json(row: Row, columns: list[str]) -> str:
    return _encode(dict(_ordered_items(row, columns)), _READABLE)


# --- streamed formats --------------------------------------------------------------------------


def _render_json(result: Result, out: TextIO) -> None:
    out.write("[")
    first = True
    try:
        for row in result:
            text = _row_json(row, result.columns)  # encode before writing: no half a row
            out.write(("\n" if first else ",\n") + text)
            out.flush()
            first = False
    except BaseException:
        # Also on Ctrl-C: what was printed stays one valid JSON array. If `out` itself is what
        # failed (a closed pipe), the original error is the one worth reporting.
        try:
            out.write("]\n" if first else "\n]\n")
            out.flush()
        except Exception:
            pass
        raise
    out.write("]\n" if first else "\n]\n")
    out.flush()


def _render_jsonl(result: Result, out: TextIO) -> None:
    for row in result:
        out.write(_row_json(row, result.columns) + "\n")
        out.flush()


def _render_delimited(result: Result, out: TextIO, delimiter: str) -> None:
    # "\n" line ends (not the csv module's "\r\n"): the output goes to pipes and Unix tools.
    writer: Any = _CsvWriter(out)
    if delimiter == "\t":
        writer = _TsvWriter(out)
    rows: Iterator[Row] = iter(result)
    columns = list(result.columns)
    if result.open_columns:
        # SELECT *: the header must name every attribute any row has, so read them all first.
        buffered = list(rows)
        columns = all_columns(columns, buffered)
        rows = iter(buffered)
    if not columns:
        # Columns not known up front (should be rare): take the first row's attributes.
        first = next(rows, None)
        if first is None:
            return
        columns = list(first)
        rows = _chain_one(first, rows)
    # Attributes of later rows that are not columns have no field to go in; json keeps them.
    writer.writerow(columns)
    out.flush()
    for row in rows:
        # writerow writes one whole line per call, so a failure between rows leaves whole lines.
        writer.writerow([cell_text(row.get(name, values.MISSING), null="") for name in columns])
        out.flush()


class _CsvWriter:
    """csv.writer with "\n" line ends, quoting a field that holds a bare CR as well (the csv
    module quotes only for the line terminator's characters, and a reader would split there)."""

    def __init__(self, out: TextIO):
        self.minimal = csv.writer(out, lineterminator="\n")
        self.quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, fields: list[str]) -> None:
        writer = self.quoted if any("\r" in f for f in fields) else self.minimal
        writer.writerow(fields)


class _TsvWriter:
    """TSV as Unix tools read it: no quoting; tab, newline, CR and backslash escaped (\\t,
    \\n, \\r, \\\\), so `cut -f` gives a field back whole, JSON of nested values included."""

    _ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})

    def __init__(self, out: TextIO):
        self.out = out

    def writerow(self, fields: list[str]) -> None:
        self.out.write("\t".join(f.translate(self._ESCAPES) for f in fields) + "\n")


def _chain_one(first: Row, rest: Iterator[Row]) -> Iterator[Row]:
    yield first
    yield from rest


# --- human formats -----------------------------------------------------------------------------


def _is_number_column(name: str, rows: list[Row]) -> bool:
    """Right-align a column whose present, non-NULL values are all numbers."""
    kinds = {values.type_of(row.get(name, values.MISSING)) for row in rows} - {None, "NULL"}
    return kinds == {"N"}


def shown(result: Result, name: str, value: Any) -> str:
    """A cell as the formats for people show it: an inexact result (AVG, a division) to
    ``result.digits`` significant digits, every other value exactly (``cell_text``)."""
    if result.digits and name in result.inexact and isinstance(value, Decimal):
        if value.is_finite() and len(value.as_tuple().digits) > result.digits:
            value = decimal.Context(prec=result.digits).plus(value)
    return cell_text(value)


def _grid(result: Result, escape: Any = None) -> tuple[list[str], list[list[str]], list[str]]:
    rows = result.all()
    columns = all_columns(result.columns, rows)
    cells = []
    for row in rows:
        line = [shown(result, name, row.get(name, values.MISSING)) for name in columns]
        cells.append([escape(c) for c in line] if escape else line)
    align = ["right" if _is_number_column(name, rows) else "left" for name in columns]
    return columns, cells, align


def _render_table(result: Result, out: TextIO, tablefmt: str, escape: Any = None) -> None:
    columns, cells, align = _grid(result, escape)
    if not columns:
        return
    if result.title:
        out.write(visible(result.title) + "\n")
    headers = [escape(c) for c in columns] if escape else columns
    from tabulate import tabulate  # with wcwidth ~25 ms: only the table formats load it

    text = tabulate(
        cells,
        headers=headers,
        tablefmt=tablefmt,
        disable_numparse=True,  # cells are exact text already; tabulate must not make floats
        colalign=align,
    )
    out.write(text + "\n")


# C0 controls but newline, DEL, C1 controls, and the bidi overrides/isolates that reorder text
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEP_TAB = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\r": "\\r"}


def _escape_control(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def visible(text: str, keep_tabs: bool = False) -> str:
    """`text` safe for a terminal: control characters escaped, newlines kept (and tabs, for
    tsv shown on a screen)."""
    pattern = _CONTROL_KEEP_TAB if keep_tabs else _CONTROL
    return pattern.sub(_escape_control, text)


def _markdown_escape(text: str) -> str:
    """A pipe would end the cell and a newline the row; controls are shown escaped."""
    return visible(
        text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")
    )


def _render_vertical(result: Result, out: TextIO) -> None:
    """One block per row, like psql's ``\\x`` and mysql's ``\\G``."""
    rows = result.all()
    columns = all_columns(result.columns, rows)
    if not columns or not rows:
        return
    if result.title:
        out.write(visible(result.title) + "\n")
    names = {name: visible(name.replace("\n", "\\n")) for name in columns}
    name_width = max(len(name) for name in names.values())
    for number, row in enumerate(rows, 1):
        lines = []
        for column in columns:
            name = names[column]
            value_lines = visible(shown(result, column, row.get(column, values.MISSING))).split(
                "\n"
            )
            lines.append(f"{name.ljust(name_width)} | {value_lines[0]}".rstrip())
            lines.extend(f"{'':{name_width}} | {more}".rstrip() for more in value_lines[1:])
        header = f"-[ RECORD {number} ]"
        width = max(len(line) for line in lines)
        out.write(header + "-" * max(width - len(header), 4) + "\n")
        out.write("\n".join(lines) + "\n")


def _render_plan(result: Result, fmt: str, out: TextIO) -> None:
    """EXPLAIN (and SQL text): one JSON object for machines, the lines for people."""
    lines = [row.get("plan", "") for row in result]
    if fmt in ("json", "jsonl"):
        indent = 2 if fmt == "json" else None
        out.write(json.dumps(result.document, indent=indent, ensure_ascii=False) + "\n")
    else:
        out.write("\n".join(lines) + "\n")


def _without(result: Result, names: tuple[str, ...]) -> Result:
    """The result minus columns meant for people only (the hot-key report's bars)."""
    drop = set(names)
    rows = ({k: v for k, v in row.items() if k not in drop} for row in result.rows)
    return dataclasses.replace(
        result, columns=[c for c in result.columns if c not in drop], rows=rows, human_only=()
    )


# --- entry point -------------------------------------------------------------------------------


def render(result: Result, fmt: str, out: TextIO) -> None:
    """Write `result`'s rows to `out` in format `fmt` (one of `FORMATS`).

    Consumes the rows by iterating the Result, so ``result.stats.rows`` counts what was shown.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if result.kind == "status":
        for _ in result:  # nothing to show; finish the stats
            pass
        return
    if result.kind in ("plan", "text"):
        _render_plan(result, fmt, out)
        return
    if result.human_only and fmt in ("json", "jsonl", "csv", "tsv"):
        result = _without(result, result.human_only)
    if fmt == "json":
        _render_json(result, out)
    elif fmt == "jsonl":
        _render_jsonl(result, out)
    elif fmt == "csv":
        _render_delimited(result, out, ",")
    elif fmt == "tsv":
        _render_delimited(result, out, "\t")
    elif fmt == "table":
        _render_table(result, out, "psql", visible)
    elif fmt == "markdown":
        _render_table(result, out, "pipe", _markdown_escape)
    else:
        _render_vertical(result, out)
