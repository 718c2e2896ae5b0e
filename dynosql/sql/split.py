"""Split a script into statements, remembering where each one starts.

A `;` ends a statement unless it sits in a string ('…'), a quoted identifier ("…"), a `--`
line comment or a `/* */` block comment. Positions are kept so that errors inside the third
statement of a file still point at the right line and column of the file.
"""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    """One statement's text (without its `;`) and where it begins in the script (1-based)."""

    text: str
    line: int
    col: int

    def to_script(self, line: int, col: int) -> tuple[int, int]:
        """Map a position inside `text` (1-based) to a position in the script."""
        if line == 1:
            return self.line, self.col + col - 1
        return self.line + line - 1, col


# Strings, quoted names and comments, found by the regex engine (the code between them is never
# walked a character at a time in Python: a 10,000-row INSERT is 250 KB of text, read by these
# functions several times). A string's (or quoted
# name's) opening quote belongs to it and its closing quote to the code again; `''` inside a
# string is part of it (possessive: never read back as a close and a new string); a `--`
# comment takes its newline; an unclosed string or comment runs to the end.
_NOT_CODE = re.compile(
    r"""(?P<string>'(?:[^']|'')*+)'?
      |(?P<ident>"(?:[^"]|"")*+)"?
      |(?P<line_comment>--[^\n]*\n?)
      |(?P<block_comment>/\*(?:.*?\*/|.*\Z))""",
    re.X | re.S,
)


def _runs(script: str) -> Iterator[tuple[str, int, int]]:
    """(state, start, end) of each run: code, string, ident, line_comment, block_comment."""
    at = 0
    for m in _NOT_CODE.finditer(script):
        kind = m.lastgroup
        assert kind is not None
        if m.start() > at:
            yield "code", at, m.start()
        yield kind, m.start(), m.end(kind)
        at = m.end(kind)  # a closing quote is code again
    if at < len(script):
        yield "code", at, len(script)


def _blank(text: str) -> str:
    return _NOT_NEWLINE.sub(" ", text)


_NOT_NEWLINE = re.compile(r"[^\n]")


def _position(script: str, index: int) -> tuple[int, int]:
    line = script.count("\n", 0, index) + 1
    col = index - (script.rfind("\n", 0, index) + 1) + 1
    return line, col


def split_script(script: str) -> list[Chunk]:
    """The statements of a script, skipping empty ones (only blanks and comments)."""
    chunks: list[Chunk] = []
    start = 0
    has_code = False
    for state, begin, end in _runs(script):
        if state in ("string", "ident"):
            has_code = True  # the opening quote at least
        elif state == "code":
            at = begin
            while (semicolon := script.find(";", at, end)) >= 0:
                if has_code or script[at:semicolon].strip():
                    chunks.append(Chunk(script[start:semicolon], *_position(script, start)))
                start, has_code, at = semicolon + 1, False, semicolon + 1
            has_code = has_code or bool(script[at:end].strip())
    if has_code:
        chunks.append(Chunk(script[start:], *_position(script, start)))
    return chunks


def is_complete(text: str) -> bool:
    """True when the text ends a statement: its last code character is `;` (REPL Enter)."""
    last = None
    for state, begin, end in _runs(text):
        if state in ("string", "ident"):
            last = "x"
        elif state == "code":
            code = text[begin:end].rstrip()
            if code:
                last = code[-1]
    return last == ";"


@functools.lru_cache(maxsize=8)  # parsers ask again for the same text
def strip_comments(text: str) -> str:
    """The text with comments blanked out (same length, so positions stay valid)."""
    return "".join(
        _blank(text[b:e]) if state.endswith("comment") else text[b:e] for state, b, e in _runs(text)
    )


@functools.lru_cache(maxsize=8)  # parsers ask again for the same text
def unterminated_quote(text: str) -> int | None:
    """The index of a string's or quoted name's opening quote that is never closed."""
    last = collections.deque(_runs(text), maxlen=1)[0] if text else None
    # a closed one is followed by its closing quote (a code run): an open one runs to the end
    if last is not None and last[0] in ("string", "ident"):
        return last[1]
    return None


@functools.lru_cache(maxsize=8)  # parsers ask again for the same text
def code_only(text: str) -> str:
    """The text with comments, strings and quoted names blanked out (same length), so that a
    keyword search cannot land inside them."""
    return "".join(
        text[b:e] if state == "code" else _blank(text[b:e]) for state, b, e in _runs(text)
    )


def leading_comment(chunk: Chunk) -> str:
    """The comment just before a statement's first code, as one line ('' when there is none):
    what names a statement in a script of access patterns (``-- invoices of a customer``).

    Of several comment paragraphs (a file's header, a blank line, then the statement's own) the
    last one is the statement's; a comment on the line where the previous statement ended is
    that statement's, not this one's."""
    text = chunk.text
    if chunk.col > 1:  # the chunk starts after a `;`: the rest of that line is the previous one's
        newline = text.find("\n")
        text = "" if newline < 0 else text[newline + 1 :]
    paragraph: list[str] = []
    previous = ""
    for state, begin, end in _runs(text):
        piece = text[begin:end]
        if state == "code":
            if piece.strip():
                break
            # a line comment keeps its newline: one more newline after it is a blank line
            if piece.count("\n") + (previous == "line_comment") >= 2:
                paragraph = []
        elif state == "line_comment":
            paragraph.append(piece[2:].strip())
        elif state == "block_comment":
            body = piece[2:-2] if piece.endswith("*/") else piece[2:]
            paragraph.extend(line.strip(" \t*") for line in body.splitlines())
        else:
            break
        previous = state
    return " ".join(p for p in paragraph if p)


# a name as written: bare, or "double-quoted" (a quote inside doubled); `unquote` reads it
IDENT = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_\-]*)'
# a table's name, perhaps with one of its indexes (`t.by_a`, `"my t".ix`): groups 1 and 2, the
# second None without an index
QUALIFIED = rf"({IDENT})(?:\s*\.\s*({IDENT}))?"


def unquote(name: str) -> str:
    """A name as `IDENT` matched it, without its quotes."""
    if name.startswith('"'):
        return name[1:-1].replace('""', '"')
    return name
