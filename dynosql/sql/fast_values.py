"""A fast reader for long ``VALUES`` lists of plain literals (INSERT/UPSERT of many rows).

sqlglot reads ``VALUES (…), (…)`` at about 60 µs a row (tokenising and building a tree), so an
INSERT of 10,000 rows spent more time being parsed than its PutItems took on the client. This
reader takes only what a generated row list holds — ``'strings'``, numbers (``-`` allowed),
``TRUE``/``FALSE``/``NULL``, ``[lists]``, ``{'maps': …}`` and ``{sets}`` of strings or of
numbers — and gives up (None) on anything else: a parameter, an expression, a number DynamoDB
cannot store, a row of the wrong width, a set of mixed types. The caller then parses the whole
statement with sqlglot, so the values of the rows read here are those sqlglot's path gives (the
same ``values.literal_number``, ``StringSet``, ``NumberSet``) and every error, with its position, comes
from the one grammar.

`split_rows` cuts the rows after the first out of the statement: sqlglot reads the rest (the
table, the columns, row 1, ON CONFLICT, RETURNING) as before.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from dynosql import values
from dynosql.sql import keywords

MIN_ROWS = 2  # one row: nothing to gain

_DIGITS = r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"  # a number's digits, after its sign
# one token after optional blanks; a number must not run on into a name or another dot
_TOKEN = re.compile(
    r"""[ \t\r\n]*(?:
      (?P<s>'(?:[^']|'')*')
     |(?P<n>(?P<neg>-[ \t\r\n]*)?(?P<digits>"""
    + _DIGITS
    + r"""))(?![\w.])
     |(?P<w>[A-Za-z_]\w*)
     |(?P<p>[(),\[\]{}:])
    )""",
    re.X,
)
_WORDS = keywords.LITERALS
# what may follow the rows (comments already blanked); anything else: sqlglot reads it all
_TAIL = re.compile(
    r"_*(?:(?P<conflict>ON_+CONFLICT_+DO_+NOTHING)(?=_|\Z)_*)?"
    r"(?:RETURNING_+(?:\*|(?-i:old|new)\.\*)_*)?\Z".replace("_", "[ \t\r\n]"),
    re.I,
)
_VALUES = re.compile(r"\bVALUES\b", re.I)


_SCALAR = (
    r"('(?:[^']|'')*'"
    rf"|-?[ \t\r\n]*{_DIGITS}(?![\w.])"
    rf"|(?i:{'|'.join(_WORDS)})(?!\w))"
)
_BLANK = r"[ \t\r\n]*"


@functools.lru_cache(maxsize=16)
def _flat_row(width: int) -> re.Pattern[str]:
    """A whole row of `width` scalars (strings, numbers, TRUE/FALSE/NULL) in one regex: most
    generated rows are read without a token at a time; any other row goes through the tokens."""
    cells = f"{_BLANK},{_BLANK}".join([_SCALAR] * width)
    return re.compile(f"{_BLANK}\\({_BLANK}{cells}{_BLANK}\\)")


class _GiveUp(Exception):
    """Not a plain literal: the caller parses the statement with sqlglot."""


_STRING, _NUMBER, _WORD, _PUNCT = "s", "n", "w", "p"


@dataclass(frozen=True)
class SplitRows:
    """A statement with its rows after the first cut out, and those rows' values."""

    text: str  # the statement through row 1, then what followed the last row
    rows: list[tuple[Any, ...]]  # every row's values, row 1 included


def split_rows(text: str, code: str, code_only: str, verb: str) -> SplitRows | None:
    """`text`: an INSERT/UPSERT/REPLACE (read as INSERT); `code`: it with comments blanked;
    `code_only`: also strings blanked (same length). None unless it is ``… VALUES`` followed by
    at least MIN_ROWS rows of plain literals of one width and then only ON CONFLICT DO NOTHING
    (INSERT) and/or RETURNING * / old.*."""
    m = _VALUES.search(code_only)
    if m is None:
        return None
    try:
        reader = _Reader(code, m.end())
        rows, first_end = reader.rows()
    except _GiveUp:
        return None
    if len(rows) < MIN_ROWS:
        return None
    tail = _TAIL.match(code, reader.at)
    if tail is None or (tail.group("conflict") and verb != "INSERT"):
        return None
    return SplitRows(text[:first_end] + code[reader.at :], rows)


class _Reader:
    def __init__(self, text: str, at: int):
        self.text = text
        self.at = at
        self._next: tuple[str, str, re.Match[str]] | None = None

    def peek(self) -> tuple[str, str, re.Match[str]]:
        if self._next is None:
            m = _TOKEN.match(self.text, self.at)
            if m is None or m.lastgroup is None:
                raise _GiveUp
            kind = _NUMBER if m.group("n") is not None else m.lastgroup
            self._next = (kind, m.group(kind), m)
        return self._next

    def take(self) -> tuple[str, str, re.Match[str]]:
        token = self.peek()
        self.at = token[2].end()
        self._next = None
        return token

    def punct(self, char: str) -> bool:
        """Take the punctuation `char` if it comes next."""
        if self.at >= len(self.text):
            return False
        try:
            kind, text, _ = self.peek()
        except _GiveUp:
            return False
        if kind == _PUNCT and text == char:
            self.take()
            return True
        return False

    def expect(self, char: str) -> None:
        if not self.punct(char):
            raise _GiveUp

    def rows(self) -> tuple[list[tuple[Any, ...]], int]:
        out: list[tuple[Any, ...]] = []
        first_end = 0
        width = None
        flat: re.Pattern[str] | None = None
        while True:
            m = flat.match(self.text, self.at) if flat is not None else None
            if m is not None:  # a row of scalars, read in one match
                row = [self.scalar(m, i) for i in range(1, width + 1)]  # type: ignore[operator]
                self.at, self._next = m.end(), None
            else:
                self.expect("(")
                row = [self.value()]
                while self.punct(","):
                    row.append(self.value())
                self.expect(")")
            if width is None:
                width, first_end = len(row), self.at
                flat = _flat_row(width)
            elif len(row) != width:
                raise _GiveUp
            out.append(tuple(row))
            if not self.punct(","):
                return out, first_end

    def scalar(self, m: re.Match[str], group: int) -> Any:
        """One value of a row read by `_flat_row` (the token rules, without the tokens)."""
        text = m.group(group)
        if text[0] == "'":
            return text[1:-1].replace("''", "'")
        if text[0] == "-" or text[0].isdigit():
            try:
                return values.literal_number(text.lstrip("- \t\r\n"), text[0] == "-")
            except ValueError:
                raise _GiveUp from None
        return _WORDS[text.upper()]

    def value(self) -> Any:
        kind, text, m = self.take()
        if kind == _STRING:
            return text[1:-1].replace("''", "'")
        if kind == _NUMBER:
            try:
                return values.literal_number(m.group("digits"), bool(m.group("neg")))
            except ValueError:
                raise _GiveUp from None
        if kind == _WORD:
            word = text.upper()
            if word not in _WORDS:
                raise _GiveUp
            return _WORDS[word]
        if text == "[":
            items: list[Any] = []
            if self.punct("]"):
                return items
            items.append(self.value())
            while self.punct(","):
                items.append(self.value())
            self.expect("]")
            return items
        if text == "{":
            return self.braces()
        raise _GiveUp

    def braces(self) -> Any:
        """``{}`` (an empty map), ``{'k': v, …}`` (a map) or ``{v, …}`` (a set of strings or of
        numbers)."""
        if self.punct("}"):
            return {}
        first = self.value()
        if self.punct(":"):
            if not isinstance(first, str):
                raise _GiveUp
            out = {first: self.value()}
            while self.punct(","):
                key = self.take()
                if key[0] != _STRING:
                    raise _GiveUp
                self.expect(":")
                name = key[1][1:-1].replace("''", "'")
                if name in out:  # refused: the full parser says where
                    raise _GiveUp
                out[name] = self.value()
            self.expect("}")
            return out
        elements = [first]
        while self.punct(","):
            elements.append(self.value())
        self.expect("}")
        found = values.set_of(elements)
        if found is None or len(found) != len(elements):  # refused: the full parser says where
            raise _GiveUp
        return found


def same_values(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``Decimal('1.50')`` is not ``1.5``, True
    is not 1): the check that row 1 reads the same here as through sqlglot."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, frozenset):
        return {repr(x) for x in a} == {repr(x) for x in b}
    return a == b and repr(a) == repr(b)
