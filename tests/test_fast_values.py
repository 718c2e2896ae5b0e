"""The fast paths of the SQL front end give exactly what the slow ones give (no server).

- ``sql.fast_values``: long ``VALUES`` lists of literals read without sqlglot. Every statement
  is parsed twice, with the fast path and with it switched off (the whole statement through
  sqlglot), and the two statements must be the same, value types and Decimal exponents
  included; bad input must fail with the same message at the same line and column.
- ``sql.split``: strings, quoted names and comments found by a regex. Checked against the
  character-at-a-time scanner it replaced (kept here as the reference), on random texts.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from dynosql.errors import SqlError
from dynosql.sql import ast, parse, split, write_parse
from dynosql.sql.fast_values import same_values

# --- VALUES ------------------------------------------------------------------------------------


def _slow(sql: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(write_parse, "split_rows", lambda *_: None)
        return _outcome(sql)


def _outcome(sql: str) -> Any:
    try:
        return parse(sql)
    except SqlError as err:
        return ("error", err.message, err.line, err.col)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and a and a[0] == "error":
        return a == b
    if not isinstance(a, ast.Insert) or not isinstance(b, ast.Insert):
        return False
    rows_a = [tuple(getattr(c, "value", c) for c in row) for row in a.rows]
    rows_b = [tuple(getattr(c, "value", c) for c in row) for row in b.rows]
    return a == b and same_values(rows_a, rows_b)


def _literal(rng: random.Random, depth: int = 0) -> str:
    kind = rng.choice(
        ["s", "s", "n", "n", "n", "w", "l", "m", "set"] if depth < 2 else ["s", "n", "w"]
    )
    if kind == "s":
        chars = ["a", "'", "''", "\\", "\n", "é", "日本", " ", ",", ")", "--", "/*", ";", '"']
        body = "".join(rng.choice(chars) for _ in range(rng.randint(0, 6))).replace("'", "''")
        return f"'{body}'"
    if kind == "n":
        digits = rng.choice(
            ["0", "7", "007", "12", "1.50", "3.0", "123456789012345678901234567890", "9" * 38]
        )
        exp = rng.choice(["", "", "e5", "E+3", "e-2"])
        return rng.choice(["", "", "-", "- "]) + digits + exp
    if kind == "w":
        return rng.choice(["TRUE", "false", "NULL", "null", "True"])
    if kind == "l":
        return "[" + ", ".join(_literal(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if kind == "m":
        pairs = [f"'k{i}''x': {_literal(rng, depth + 1)}" for i in range(rng.randint(0, 3))]
        return "{" + ", ".join(pairs) + "}"
    pick = rng.choice(["s", "n"])
    items = [_literal(rng, 99) if pick == "s" else str(rng.randint(-5, 5)) for _ in range(3)]
    if pick == "s":
        items = [f"'{i}{n}'" for n, i in enumerate(["a", "b", "c"])]
    return "{" + ", ".join(items) + "}"


def _statements(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        width = rng.randint(1, 4)
        rows = [
            "(" + ", ".join(_literal(rng) for _ in range(width)) + ")"
            for _ in range(rng.randint(2, 6))
        ]
        verb = rng.choice(["INSERT", "UPSERT", "REPLACE", "insert"])
        cols = ", ".join(f"c{i}" for i in range(width))
        sep = rng.choice([", ", ",\n  ", " ,"])
        tail = rng.choice(["", " RETURNING *", " RETURNING old.*", "\n"])
        if verb == "INSERT" and rng.random() < 0.3:
            tail = " ON CONFLICT DO NOTHING" + tail
        yield f"{verb} INTO t ({cols}) VALUES {sep.join(rows)}{tail}"


def test_random_value_lists_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = 0
    real = write_parse.split_rows

    def spy(*args: Any) -> Any:
        nonlocal taken
        result = real(*args)
        taken += result is not None
        return result

    monkeypatch.setattr(write_parse, "split_rows", spy)
    statements = list(_statements(12, 300))
    for sql in statements:
        fast, slow = _outcome(sql), _slow(sql, monkeypatch)
        assert _same(fast, slow), sql
    assert taken > len(statements) // 2  # the fast path was really taken, not skipped


def test_values_and_types_are_exact() -> None:
    sql = (
        "INSERT INTO t (a, b, c, d) VALUES ('x', 1, TRUE, NULL), "
        "('it''s', 1.50, [1, 'a'], {'k': {'n': -2}}), ('', 1E+5, {'s', 't'}, {1, 2.0})"
    )
    rows = [[c.value for c in row] for row in parse(sql).rows]
    assert same_values(rows[1], ["it's", _d("1.50"), [_d("1"), "a"], {"k": {"n": _d("-2")}}])
    assert repr(rows[2][1]) == "Decimal('1E+5')"
    assert type(rows[2][2]).__name__ == "StringSet" and type(rows[2][3]).__name__ == "NumberSet"


def _d(text: str) -> Any:
    from decimal import Decimal

    return Decimal(text)


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t (a) VALUES (1), (2), (3, 4)",  # a row of another width
        "INSERT INTO t (a) VALUES (1), (1e400)",  # a number DynamoDB cannot store
        "INSERT INTO t (a) VALUES (1), (123456789012345678901234567890123456789)",
        "INSERT INTO t (a) VALUES (1), (:p)",  # a parameter (unbound later)
        "INSERT INTO t (a) VALUES (1), (nope)",
        "INSERT INTO t (a) VALUES (1), (1.)",
        "INSERT INTO t (a) VALUES (1), (.5)",
        "INSERT INTO t (a) VALUES (1), ({'a', 1})",  # a set of two types
        "INSERT INTO t (a) VALUES (1), (1 + 2)",
        "INSERT INTO t (a) VALUES (1), (x'00')",
        "UPSERT INTO t (a) VALUES (1), (2) ON CONFLICT DO NOTHING",
        "INSERT INTO t (a) VALUES (1), (2) RETURNING a",
        "INSERT INTO t (a) VALUES (1), (2) RETURNING OLD.*",
        "INSERT INTO t (a) VALUES (1), (2) ON CONFLICT DO NOTHINGRETURNING *",
        "INSERT INTO t (a) VALUES (1), (2) garbage",
        "INSERT INTO t VALUES (1), (2)",  # no column names
        "INSERT INTO t (a, a) VALUES (1), (2)",
        "INSERT INTO t (a) VALUES (1), -- a comment\n (2)",
        "INSERT INTO t (a) VALUES ('x'),\n  ('y'),\n  ('z' 'w')",
        "INSERT INTO t (a) VALUES (1), ([1, 2)",
    ],
)
def test_bad_or_unusual_rows_fail_or_read_exactly_as_through_sqlglot(
    sql: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, slow = _outcome(sql), _slow(sql, monkeypatch)
    assert _same(fast, slow), (fast, slow)


# --- statement splitting -------------------------------------------------------------------------


def _reference_scan(script: str) -> Iterator[tuple[int, str, str]]:
    """The character-at-a-time scanner `split` used before (the reference)."""
    i, n = 0, len(script)
    state = "code"
    while i < n:
        c = script[i]
        if state == "code":
            if c == "'":
                state = "string"
            elif c == '"':
                state = "ident"
            elif c == "-" and script.startswith("--", i):
                state = "line_comment"
            elif c == "/" and script.startswith("/*", i):
                yield i, c, "block_comment"
                yield i + 1, "*", "block_comment"
                state = "block_comment"
                i += 2
                continue
            yield i, c, state
        elif state in ("string", "ident"):
            quote = "'" if state == "string" else '"'
            if c == quote:
                if script.startswith(quote * 2, i):
                    yield i, c, state
                    yield i + 1, c, state
                    i += 2
                    continue
                state = "code"
            yield i, c, state
        elif state == "line_comment":
            yield i, c, state
            if c == "\n":
                state = "code"
        else:
            yield i, c, state
            if c == "*" and script.startswith("*/", i):
                yield i + 1, "/", state
                i += 2
                state = "code"
                continue
        i += 1


def _reference(text: str) -> dict[str, Any]:
    states = list(_reference_scan(text))
    code = "".join(c if s == "code" or c == "\n" else " " for _, c, s in states)
    stripped = "".join(" " if s.endswith("comment") and c != "\n" else c for _, c, s in states)
    opened = None
    for i, _c, s in states:
        if s in ("string", "ident"):
            opened = i if opened is None else opened
        else:
            opened = None
    last = None
    for _i, c, s in states:
        if s == "code" and not c.isspace():
            last = c
        elif s in ("string", "ident"):
            last = "x"
    chunks, start, has_code = [], 0, False
    for i, c, s in states:
        if s == "code" and c == ";":
            if has_code:
                chunks.append(text[start:i])
            start, has_code = i + 1, False
        elif s in ("code", "string", "ident") and not c.isspace():
            has_code = True
    if has_code:
        chunks.append(text[start:])
    return {
        "code_only": code,
        "strip_comments": stripped,
        "unterminated_quote": opened,
        "is_complete": last == ";",
        "split_script": chunks,
    }


def test_the_splitter_agrees_with_the_character_scanner_it_replaced() -> None:
    rng = random.Random(5)
    alphabet = ["'", '"', ";", "-", "/", "*", "\n", " ", "a", "--", "/*", "*/", "''", '""', "é"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        expected = _reference(text)
        assert split.code_only(text) == expected["code_only"], text
        assert split.strip_comments(text) == expected["strip_comments"], text
        assert split.unterminated_quote(text) == expected["unterminated_quote"], text
        assert split.is_complete(text) == expected["is_complete"], text
        assert [c.text for c in split.split_script(text)] == expected["split_script"], text
