"""Split a script into statements, remembering where each one starts.

A `;` ends a statement unless it sits in a string ('…'), a quoted identifier ("…"), a `--`
line comment or a `/* */` block comment. Positions are kept so that errors inside the third
statement of a file still point at the right line and column of the file.
"""

from __future__ import annotations

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


def _scan(script: str):
    """Yield (index, char, state) for every character, state being where it stands."""
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
            yield i, c, "code" if state == "code" else state
        elif state in ("string", "ident"):
            quote = "'" if state == "string" else '"'
            if c == quote:
                if script.startswith(quote * 2, i):
                    yield i, c, state
                    yield i + 1, c, state
                    i += 2
                    continue
                state = "code"  # the closing quote belongs to the code again
            yield i, c, state
        elif state == "line_comment":
            yield i, c, state
            if c == "\n":
                state = "code"
        elif state == "block_comment":
            yield i, c, state
            if c == "*" and script.startswith("*/", i):
                yield i + 1, "/", state
                i += 2
                state = "code"
                continue
        i += 1


def _position(script: str, index: int) -> tuple[int, int]:
    line = script.count("\n", 0, index) + 1
    col = index - (script.rfind("\n", 0, index) + 1) + 1
    return line, col


def split_script(script: str) -> list[Chunk]:
    """The statements of a script, skipping empty ones (only blanks and comments)."""
    chunks: list[Chunk] = []
    start = 0
    has_code = False
    for i, c, state in _scan(script):
        if state == "code" and c == ";":
            if has_code:
                chunks.append(Chunk(script[start:i], *_position(script, start)))
            start, has_code = i + 1, False
        elif (state in ("code", "string", "ident")) and not c.isspace():
            has_code = True
    if has_code:
        chunks.append(Chunk(script[start:], *_position(script, start)))
    return chunks


def is_complete(text: str) -> bool:
    """True when the text ends a statement: its last code character is `;` (REPL Enter)."""
    last = None
    for _i, c, state in _scan(text):
        if state == "code" and not c.isspace():
            last = c
        elif state in ("string", "ident"):
            last = "x"
    return last == ";"


def strip_comments(text: str) -> str:
    """The text with comments blanked out (same length, so positions stay valid)."""
    out = list(text)
    for i, c, state in _scan(text):
        if state in ("line_comment", "block_comment") and c != "\n":
            out[i] = " "
    return "".join(out)


def unterminated_quote(text: str) -> int | None:
    """The index of a string's or quoted name's opening quote that is never closed."""
    opened = None
    for i, _c, state in _scan(text):
        if state in ("string", "ident"):
            if opened is None:
                opened = i
        else:
            opened = None
    return opened


def code_only(text: str) -> str:
    """The text with comments, strings and quoted names blanked out (same length), so that a
    keyword search cannot land inside them."""
    out = list(text)
    for i, c, state in _scan(text):
        if state != "code" and c != "\n":
            out[i] = " "
    return "".join(out)
