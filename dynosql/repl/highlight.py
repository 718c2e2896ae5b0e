"""A small SQL tokenizer, shared by the syntax highlighter and the completer; its keywords and
functions are the vocabulary's (``dynosql.sql.keywords``).

It never fails: unterminated strings, identifiers and block comments run to the end of the
text (the user is still typing them), and any other character is an ``operator`` token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.styles import Style

from dynosql.sql import keywords

# every keyword of the vocabulary but the one-letter key types (S, N, B): out of a CREATE
# TABLE, where the lexer cannot tell, a one-letter word is an attribute name far more often
KEYWORD_SET = frozenset(w for w in keywords.KEYWORDS if len(w) > 1)
FUNCTION_SET = keywords.FUNCTION_NAMES


@dataclass(frozen=True)
class Token:
    kind: str  # keyword function word identifier string number parameter comment operator
    #            space command
    text: str
    start: int
    closed: bool = True  # False: a string, identifier or block comment still open at the end

    @property
    def upper(self) -> str:
        return self.text.upper()


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<line_comment>--[^\n]*)
  | (?P<block_comment>/\*(?:.|\n)*?(?:\*/|\Z))
  | (?P<string>'(?:[^']|'')*(?:'|\Z))
  | (?P<identifier>"(?:[^"]|"")*(?:"|\Z))
  | (?P<command>\\[^\s;]*)
  | (?P<parameter>:[A-Za-z_][A-Za-z0-9_]*|\?)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<operator><>|!=|<=|>=|.)
    """,
    re.VERBOSE,
)


def tokenize(text: str) -> list[Token]:
    tokens = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "operator"
        value = m.group()
        closed = True
        if kind in ("line_comment", "block_comment"):
            closed = kind == "line_comment" or (len(value) >= 4 and value.endswith("*/"))
            kind = "comment"
        elif kind in ("string", "identifier"):
            closed = _closed_quote(value)
        elif kind == "word":
            upper = value.upper()
            if upper in KEYWORD_SET:
                kind = "keyword"
            elif value.lower() in FUNCTION_SET:
                kind = "function"
        tokens.append(Token(kind, value, m.start(), closed))
    return tokens


def _closed_quote(value: str) -> bool:
    """'abc' and 'it''s' are closed; 'abc and 'it'' are not."""
    if len(value) < 2 or value[-1] != value[0]:
        return False
    body = value[1:-1]
    quote = value[0]
    return body.replace(quote * 2, "").count(quote) == 0


def significant(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.kind not in ("space", "comment")]


def statement_start(text: str) -> int:
    """Where the statement the end of `text` belongs to begins (after the last `;`)."""
    start = 0
    for token in tokenize(text):
        if token.kind == "operator" and token.text == ";":
            start = token.start + 1
    return start


class SqlLexer(Lexer):
    """Colours keywords, functions, strings, numbers, comments, parameters, \\commands."""

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines: list[StyleAndTextTuples] = [[]]
        for token in tokenize(document.text):
            style = "" if token.kind in ("space", "word") else f"class:sql.{token.kind}"
            parts = token.text.split("\n")
            for i, part in enumerate(parts):
                if i:
                    lines.append([])
                if part:
                    lines[-1].append((style, part))

        def get_line(number: int) -> StyleAndTextTuples:
            return lines[number] if 0 <= number < len(lines) else []

        return get_line


def make_style(colours: dict[str, str], warnings: list[str] | None = None) -> Style:
    """The REPL's style from the config's colours; a style string prompt_toolkit cannot read
    is left out (and named in `warnings`) rather than stop the REPL from starting."""
    toolbar = colours.get("toolbar", "")
    wanted = [(f"sql.{kind}", style) for kind, style in colours.items() if kind != "toolbar"]
    wanted.append(("bottom-toolbar", toolbar + " noreverse" if toolbar else "noreverse"))
    rules = []
    for name, style in wanted:
        try:
            Style([(name, style)])
        except (ValueError, AssertionError):
            if warnings is not None:
                warnings.append(f"config: colour {style!r} for {name} not understood; ignored")
            continue
        rules.append((name, style))
    rules.append(("bottom-toolbar.on", "bold"))
    rules.append(("continuation", "ansibrightblack"))
    return Style(rules)
