"""A SELECT, read by sqlglot and converted to ours (``convert``): on its own, and inside the
statements that hold one (EXISTS, COPY (SELECT …), INSERT … SELECT, an entity index's WHERE,
SHOW HOT KEYS … BY), whose parse functions call `parse_select` where the SELECT stands."""

from __future__ import annotations

import dataclasses
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from dynosql.errors import SqlError
from dynosql.sql import ast, keywords
from dynosql.sql.convert import DynoSQL, _Converter, _error, _guessing_syntax_error
from dynosql.sql.split import Chunk, code_only, unterminated_quote
from dynosql.sql.tableless import has_no_table, select_values

SELECT_WORDS = keywords.words("select", "explain") | frozenset(keywords.LITERALS)


def parse_select(chunk: Chunk) -> ast.Select:
    """A SELECT from a table (inside EXISTS, COPY, INSERT … SELECT, an entity's WHERE)."""
    statement = parse_query(chunk, tableless=False)
    assert isinstance(statement, ast.Select)
    return statement


def parse_query(chunk: Chunk, tableless: bool = True) -> ast.Select | ast.SelectValues:
    """A SELECT; with `tableless`, one without FROM is a SELECT of values (sql/tableless.py)."""
    opened = unterminated_quote(chunk.text)
    if opened is not None:
        what = "string" if chunk.text[opened] == "'" else "quoted name"
        raise _error(
            chunk, chunk.text, opened, f"unterminated {what}: no closing {chunk.text[opened]}"
        )
    chunk, export = _export_source(chunk)
    try:
        trees = sqlglot.parse(chunk.text, read=DynoSQL)
        present = [t for t in trees if t is not None]
        if len(present) != 1:
            raise SqlError("expected one statement", chunk.line, chunk.col)
        tree = present[0]
        assert isinstance(tree, exp.Expression)
        if tableless and export is None and has_no_table(tree):
            return select_values(chunk, tree)  # type: ignore[arg-type]
        statement = _Converter(chunk).select(tree)
        return dataclasses.replace(statement, export=export) if export else statement
    except (ParseError, TokenError) as err:
        raise _guessing_syntax_error(chunk, err, SELECT_WORDS) from err
    except RecursionError:
        raise SqlError(
            "the statement nests too deeply (parentheses or conditions)", chunk.line, chunk.col
        ) from None


_FROM_EXPORT = re.compile(r"\bFROM\s+(EXPORT)\b", re.I)
_EXPORT_TAIL = re.compile(r"\s*'((?:[^']|'')*)'\s+(?:AS\s+)?(?=[A-Za-z_\"])", re.I)


def _export_source(chunk: Chunk) -> tuple[Chunk, str | None]:
    """``FROM EXPORT 's3://bucket/prefix/' AS t``: the export's location, and the text with
    ``EXPORT '…' AS`` blanked out (same length, so positions stay right) for sqlglot."""
    m = _FROM_EXPORT.search(code_only(chunk.text))
    if m is None:
        return chunk, None
    tail = _EXPORT_TAIL.match(chunk.text, m.end(1))
    if tail is None:
        raise _error(
            chunk,
            chunk.text,
            m.start(1),
            "FROM EXPORT takes a location and a name: FROM EXPORT 's3://bucket/prefix/' AS t",
        )
    location = tail.group(1).replace("''", "'")
    if not location.startswith(("s3://", "arn:")):
        raise _error(
            chunk,
            chunk.text,
            tail.start(1),
            "FROM EXPORT takes an s3://bucket/prefix/ location or an export ARN",
        )
    text = chunk.text
    blank = "".join(c if c == "\n" else " " for c in text[m.start(1) : tail.end()])
    return Chunk(text[: m.start(1)] + blank + text[tail.end() :], chunk.line, chunk.col), location
