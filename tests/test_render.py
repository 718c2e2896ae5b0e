"""Renderers: exact text of every format, streaming, and failure part-way."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from decimal import Decimal

import pytest

from dynosql.render import FORMATS, cell_text, json_text, render
from dynosql.result import Result
from dynosql.values import BinarySet, NumberSet, StringSet

BIG = "12345678901234567890.123456789012345678"  # 38 significant digits


def run(fmt: str, columns: list[str], rows: list[dict], **kw) -> str:
    out = io.StringIO()
    render(Result(columns=columns, rows=iter(rows), **kw), fmt, out)
    return out.getvalue()


# --- value helpers -----------------------------------------------------------------------------


def test_json_text_rules() -> None:
    value = {
        "n": Decimal(BIG),
        "e": Decimal("1E+2"),
        "z": Decimal("-0.00"),
        "t": True,
        "f": False,
        "null": None,
        "ss": StringSet({"b", "a", "Z"}),
        "ns": NumberSet({Decimal(10), Decimal("2.50"), Decimal(-1)}),
        "bs": BinarySet({b"\x02", b"\x01"}),
        "b": b"hi\xff",
        "l": ["ü", [Decimal(1)], {}],
    }
    assert json_text(value) == (
        '{"n":' + BIG + ',"e":100,"z":0,"t":true,"f":false,"null":null,'
        '"ss":["Z","a","b"],"ns":[-1,2.5,10],"bs":["AQ==","Ag=="],"b":"aGn/",'
        '"l":["ü",[1],{}]}'
    )


def test_cell_text() -> None:
    assert cell_text(Decimal(BIG)) == BIG
    assert cell_text(Decimal("1E+2")) == "100"
    assert cell_text(None) == "NULL"
    assert cell_text(None, null="") == ""
    assert cell_text(True) == "true"
    assert cell_text('plain "text"') == 'plain "text"'
    assert cell_text(b"\x00\x01") == "AAE="
    assert cell_text({"a": [Decimal("1.50")]}) == '{"a":[1.5]}'


# --- json / jsonl ------------------------------------------------------------------------------

ROWS = [
    {"id": "a", "n": Decimal(BIG), "tags": StringSet({"y", "x"}), "bin": b"\x00\x01"},
    {"extra": "é", "n": None, "id": "b", "m": {"k": [Decimal(1), False]}},  # no "tags"
]


def test_json_exact_output() -> None:
    text = run("json", ["id", "n", "tags"], ROWS)
    assert text == (
        "[\n"
        '{"id": "a", "n": ' + BIG + ', "tags": ["x", "y"], "bin": "AAE="},\n'
        '{"id": "b", "n": null, "extra": "é", "m": {"k": [1, false]}}\n'
        "]\n"
    )
    parsed = json.loads(text, parse_float=Decimal)
    assert parsed[0]["n"] == Decimal(BIG)
    assert "tags" not in parsed[1]


def test_jsonl_exact_output() -> None:
    text = run("jsonl", ["id", "n", "tags"], ROWS)
    assert text.splitlines() == [
        '{"id": "a", "n": ' + BIG + ', "tags": ["x", "y"], "bin": "AAE="}',
        '{"id": "b", "n": null, "extra": "é", "m": {"k": [1, false]}}',
    ]


def test_json_empty_result() -> None:
    text = run("json", ["id"], [])
    assert text == "[]\n"
    assert json.loads(text) == []
    assert run("jsonl", ["id"], []) == ""


def failing_rows() -> Iterator[dict]:
    yield {"id": "a", "n": Decimal(1)}
    yield {"id": "b", "n": Decimal(2)}
    raise RuntimeError("throttled")


def test_json_error_midway_leaves_valid_json_and_raises() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError, match="throttled"):
        render(Result(columns=["id", "n"], rows=failing_rows()), "json", out)
    assert json.loads(out.getvalue()) == [{"id": "a", "n": 1}, {"id": "b", "n": 2}]


def test_json_error_before_first_row_is_empty_array() -> None:
    def rows() -> Iterator[dict]:
        raise RuntimeError("denied")
        yield {}

    out = io.StringIO()
    with pytest.raises(RuntimeError):
        render(Result(columns=["id"], rows=rows()), "json", out)
    assert json.loads(out.getvalue()) == []


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_streams_rows_as_they_arrive(fmt: str) -> None:
    out = io.StringIO()
    seen_before_second: list[str] = []

    def rows() -> Iterator[dict]:
        yield {"id": "first-row"}
        seen_before_second.append(out.getvalue())
        yield {"id": "second-row"}

    render(Result(columns=["id"], rows=rows()), fmt, out)
    assert len(seen_before_second) == 1
    assert "first-row" in seen_before_second[0]
    assert "second-row" not in seen_before_second[0]
    assert "second-row" in out.getvalue()


# --- csv / tsv ---------------------------------------------------------------------------------


def test_csv_exact_output() -> None:
    rows = [
        {"id": "a", "n": Decimal(BIG), "m": {"k": "v", "x": [Decimal("1E+2")]}, "ok": True},
        {"id": 'b, "quoted"', "n": None, "ok": False},  # m missing, n NULL
        {"id": "ü", "m": NumberSet({Decimal(2), Decimal(1)}), "n": b"\xff"},
    ]
    text = run("csv", ["id", "n", "m", "ok"], rows)
    assert text == (
        "id,n,m,ok\n"
        "a," + BIG + ',"{""k"":""v"",""x"":[100]}",true\n'
        '"b, ""quoted""",,,false\n'
        'ü,/w==,"[1,2]",\n'
    )


def test_tsv_uses_tabs() -> None:
    text = run("tsv", ["id", "n"], [{"id": "a b", "n": Decimal("0.10")}, {"id": "c"}])
    assert text == "id\tn\na b\t0.1\nc\t\n"


def test_csv_error_midway_leaves_whole_lines() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError):
        render(Result(columns=["id", "n"], rows=failing_rows()), "csv", out)
    assert out.getvalue() == "id,n\na,1\nb,2\n"


def test_csv_without_columns_takes_first_row() -> None:
    assert run("csv", [], [{"a": "1", "b": Decimal(2)}, {"b": Decimal(3)}]) == "a,b\n1,2\n,3\n"


# --- table / markdown / vertical ---------------------------------------------------------------


def test_table_exact_output() -> None:
    rows = [
        {"id": "a", "n": Decimal(BIG), "m": {"k": [True]}},
        {"id": "bb", "n": None, "extra": b"\x01"},
    ]
    text = run("table", ["id", "n", "m"], rows, title="Table t")
    assert text == (
        "Table t\n"
        "+------+-----------------------------------------+--------------+---------+\n"
        "| id   |                                       n | m            | extra   |\n"
        "|------+-----------------------------------------+--------------+---------|\n"
        "| a    | " + BIG + ' | {"k":[true]} |         |\n'
        "| bb   |                                    NULL |              | AQ==    |\n"
        "+------+-----------------------------------------+--------------+---------+\n"
    )


def test_table_zero_rows_prints_header_only() -> None:
    text = run("table", ["id", "n"], [])
    assert text == "+------+-----+\n| id   | n   |\n|------+-----|\n+------+-----+\n"


def test_table_never_parses_numbers_as_float() -> None:
    text = run("table", ["s"], [{"s": "1e3"}, {"s": "007"}])
    assert "1e3" in text and "007" in text
    assert "1000" not in text


def test_markdown_shape() -> None:
    rows = [{"id": "a|b", "n": Decimal("1.50")}, {"id": "two\nlines", "n": Decimal(20)}]
    text = run("markdown", ["id", "n"], rows)
    assert text == (
        "| id           |   n |\n"
        "|:-------------|----:|\n"
        "| a\\|b         | 1.5 |\n"
        "| two<br>lines |  20 |\n"
    )


def test_vertical_shape() -> None:
    rows = [{"id": "a", "count": Decimal(3)}, {"id": "b", "note": "x\ny", "count": None}]
    text = run("vertical", ["id", "count"], rows)
    assert text == (
        "-[ RECORD 1 ]----\n"
        "id    | a\n"
        "count | 3\n"
        "note  |\n"
        "-[ RECORD 2 ]----\n"
        "id    | b\n"
        "count | NULL\n"
        "note  | x\n"
        "      | y\n"
    )


def test_title_ignored_by_machine_formats() -> None:
    assert run("jsonl", ["id"], [{"id": "a"}], title="T") == '{"id": "a"}\n'
    assert run("csv", ["id"], [{"id": "a"}], title="T") == "id\na\n"
    assert run("vertical", ["id"], [{"id": "a"}], title="T").startswith("T\n-[ RECORD 1 ]")


# --- all formats -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_stats_count_rendered_rows(fmt: str) -> None:
    result = Result(columns=["id"], rows=iter([{"id": str(i)} for i in range(7)]))
    render(result, fmt, io.StringIO())
    assert result.stats.rows == 7
    assert result.stats.finished is not None


@pytest.mark.parametrize("fmt", FORMATS)
def test_status_result_prints_nothing(fmt: str) -> None:
    out = io.StringIO()
    render(Result(columns=[], rows=iter([]), kind="status", title="SET"), fmt, out)
    assert out.getvalue() == ""


def test_unknown_format_rejected() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        render(Result(columns=[], rows=iter([])), "xml", io.StringIO())


def test_one_of_a_count_is_singular() -> None:
    """Footers, progress and messages say 1 item, 1 row, 1 request (not "1 items")."""
    from dynosql.result import Stats, counted, format_bytes, interrupted_text

    stats = Stats(operations=["GetItem t"], requests=1, items_scanned=1, rows=1, bytes_read=1)
    stats.capacity, stats.finished = Decimal("0.5"), stats.started
    assert stats.footer() == "1 row · GetItem t · 1 item scanned · 1 byte · 0.5 RCU · 0.000s"
    stats.items_scanned, stats.requests, stats.rows, stats.bytes_read = 2, 2, 0, 2
    assert stats.footer() == "0 rows · GetItem t · 2 items scanned · 2 bytes · 0.5 RCU · 0.000s"
    one = Result(["id"], iter([]), Stats(requests=1, items_scanned=1))
    assert interrupted_text(one) == "interrupted: read 1 item in 1 request (0 RCU) before stopping"
    assert format_bytes(1) == "1 byte"
    assert (counted(1, "entity", "entities"), counted(1_234, "entity", "entities")) == (
        "1 entity",
        "1,234 entities",
    )
