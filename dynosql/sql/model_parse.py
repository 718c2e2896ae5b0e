"""IMPORT MODEL and EXPORT MODEL: NoSQL Workbench models in and out. Their grammar is in
``grammar/README.md``; every refusal names the line and column of the offending word."""

from __future__ import annotations

import re
from collections.abc import Callable

from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.split import Chunk, strip_comments
from dynosql.sql.table_and_copy_parse import _Reader

MAX_SAMPLE = 1_000_000


# the file is a 'quoted string': say so where an unquoted name starts (the reader's tokens
# would stop at its first dot)
_UNQUOTED = re.compile(r"\s*(?:IMPORT\s+MODEL|EXPORT\s+MODEL\b.*?\bTO)\s+([^'\s;])", re.I | re.S)


def parse_model_statement(
    chunk: Chunk, code: str, position: Callable[[int], ast.Pos]
) -> ast.ImportModel | ast.ExportModel:
    unquoted = _UNQUOTED.match(code)
    if unquoted is not None:
        pos = position(unquoted.start(1))
        raise SqlError("expected the model file as a 'quoted string'", pos.line, pos.col)
    reader = _Reader(chunk, code, position)
    first = reader.expect("IMPORT", "EXPORT")
    reader.expect("MODEL")
    if first == "IMPORT":
        pos = position(reader.here())
        path = reader.string("the model file")
        reader.done()
        return ast.ImportModel(path, pos)
    tables: list[str] = []
    if not reader.at_word("TO"):
        tables.append(reader.name("a table name, or TO"))
        while reader.punct(","):
            if reader.at_word("TO"):
                raise reader.fail("a table name")
            tables.append(reader.name("a table name"))
    reader.expect("TO")
    pos = position(reader.here())
    path = reader.string("the model file")
    sample = None
    if reader.accept("SAMPLE"):
        at = reader.here()
        sample = reader.whole("the items each entity keeps (SAMPLE n)")
        if not 1 <= sample <= MAX_SAMPLE:
            raise reader.error(at, f"SAMPLE takes a whole number from 1 to {MAX_SAMPLE:,}")
    reader.done()
    return ast.ExportModel(path, tuple(tables), sample, pos)


def explain(
    chunk: Chunk, match: re.Match[str], pos: Callable[[Chunk, str, int], ast.Pos]
) -> ast.Explain:
    """``EXPLAIN IMPORT MODEL 'f.json'``: the statements it would run (`chunk` has the EXPLAIN
    words blanked out, positions kept); not ANALYZE, and not EXPORT MODEL."""
    code = strip_comments(chunk.text)
    statement = parse_model_statement(chunk, code, lambda index: pos(chunk, code, index))
    if not isinstance(statement, ast.ImportModel) or match.group(1):
        at = pos(chunk, code, len(code) - len(code.lstrip()))
        raise SqlError("EXPLAIN takes IMPORT MODEL (not ANALYZE)", at.line, at.col)
    return ast.Explain(statement)
