"""SQL text → our typed statements (``dynosql.sql.ast``), with errors that say line and column.

sqlglot tokenises and parses SELECT (``select_parse``); the statements sqlglot has no grammar for
are recognised here by their leading words. This module is the dispatcher: a statement whose
`keywords.Starter` names its parse function (tables and COPY, entities: ``parser=
"module:function"``, and ``explainer=`` after EXPLAIN; DESCRIBE, SET, SHOW TABLES, SHOW HOT
KEYS, the models: the kinds' own, declared in their modules) goes there, writes to
``write_parse``; the dialect, the tree → ast converter and the position/error helpers they
share live in ``convert``. Everything outside the supported grammar (see ``grammar/README.md``)
is refused with one sentence naming the construct.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from dynosql.errors import ReplCommandError, SqlError
from dynosql.sql import ast, keywords, partiql
from dynosql.sql.convert import (
    _error,
    _first,
    _pos,
    sqlglot_parses,
)
from dynosql.sql.select_parse import SELECT_WORDS, parse_query, parse_select
from dynosql.sql.spelling import (
    misspelt_starter,
    misspelt_words,
    needed_words,
    unknown_words_message,
)
from dynosql.sql.split import (
    Chunk,
    code_only,
    split_script,
    strip_comments,
)
from dynosql.sql.write_parse import is_write, parse_explained_write, parse_write


def parse_script(script: str) -> list[ast.Statement]:
    """Every statement of a script, parsed; the first bad one raises SqlError. Uncached: callers
    go through ``dynosql.sql.parse_script`` (``sql/cache.py``), which keeps what it parsed."""
    # a UTF-8 byte order mark at the start (some editors write one) is not part of the SQL
    script = script.removeprefix("\ufeff")
    _check_text(script)
    return [parse_chunk(chunk) for chunk in split_script(script)]


def _check_text(script: str) -> None:
    """Text that cannot be UTF-8 (undecodable bytes from a terminal or a file) is refused
    before it can reach a request."""
    try:
        script.encode("utf-8")
    except UnicodeEncodeError as err:
        line = script.count("\n", 0, err.start) + 1
        col = err.start - (script.rfind("\n", 0, err.start) + 1) + 1
        raise SqlError("the text is not valid UTF-8 here (undecodable bytes)", line, col) from None


def parse(sql: str) -> ast.Statement:
    """Exactly one statement (a trailing `;` is fine)."""
    _check_text(sql)
    chunks = split_script(sql)
    if not chunks:
        raise SqlError("empty statement")
    if len(chunks) > 1:
        line, col = chunks[1].line, chunks[1].col
        raise SqlError("expected one statement, found several", line, col)
    return parse_chunk(chunks[0])


# --- leading-word statements -------------------------------------------------------------------

_EXPLAIN = re.compile(
    r"\s*EXPLAIN\b(?:\s*\(\s*FORMAT\s+(?:PYTHON|PARTIQL)\s*\))?(\s+ANALYZE\b)?", re.I
)
# EXPLAIN … AT <n> PER SECOND: the statement priced per month at that request rate
_RATE = re.compile(r"\s+AT\s+([0-9]*\.?[0-9]+)\s+PER\s+SECOND\s*;?\s*$", re.I)
_EXPLAINED = keywords.leading(tuple(s for s in keywords.STARTERS if s.explain))


def parse_chunk(chunk: Chunk) -> ast.Statement:
    written = chunk
    chunk = partiql.bags(chunk)  # <<'a', 'b'>> is the set {'a', 'b'}
    statement = _parse_chunk(chunk)
    if chunk is not written and isinstance(
        statement, ast.Insert | ast.Update | ast.Delete | ast.ConditionCheck
    ):
        # the undo journal's header keeps the statement as written
        statement = dataclasses.replace(statement, source=written.text.strip())
    return statement


def _parse_chunk(chunk: Chunk) -> ast.Statement:
    code = strip_comments(chunk.text)
    _check_backslash(chunk, code)
    _check_first_word(chunk, code)
    if (parse := _family_parser(code)) is not None:
        return parse(chunk, code, lambda index: _pos(chunk, code, index))
    if re.match(r"\s*SHOW\b", code, re.I):
        raise keywords.show_refused(code, lambda index: _pos(chunk, code, index))
    if m := _EXPLAIN.match(code):
        chunk, code, rate = _explain_rate(chunk, code)
        explain = _explain(chunk, code, m)
        if rate is not None:
            explain = dataclasses.replace(explain, rate=rate)
        if "(" in m.group(0) and isinstance(explain.statement, ast.SelectValues):
            raise _error(
                chunk,
                code,
                _first(code),
                f"{' '.join(m.group(0).split())} of a SELECT without FROM: it sends no request, so "
                "there is nothing to write for DynamoDB (EXPLAIN alone shows the row it computes)",
            )
        if re.search(r"\bPARTIQL\b", m.group(0), re.I):  # EXPLAIN (FORMAT PARTIQL)
            if (
                explain.analyze
                or rate is not None
                or not isinstance(
                    explain.statement, ast.Select | ast.Insert | ast.Update | ast.Delete
                )
            ):
                raise _error(
                    chunk,
                    code,
                    _first(code),
                    "EXPLAIN (FORMAT PARTIQL) takes a SELECT, INSERT, UPDATE or DELETE, without "
                    "ANALYZE or AT … PER SECOND",
                )
            explain = dataclasses.replace(explain, partiql=True)
        elif "(" in m.group(0):  # EXPLAIN (FORMAT PYTHON)
            if explain.analyze or rate is not None or not isinstance(explain.statement, ast.Select):
                raise _error(
                    chunk,
                    code,
                    _first(code),
                    "EXPLAIN (FORMAT PYTHON) takes a SELECT, without ANALYZE or AT … PER SECOND",
                )
            explain = dataclasses.replace(explain, program=True)
        return explain
    if is_write(chunk.text):
        chunk, skip = _index_key_skip(chunk, code)
        statement = parse_write(chunk)
        return statement if skip is None else _skipping(statement, skip, chunk, code)
    if m := _EXISTS.match(code):
        return _condition_check(chunk, code, m)
    return parse_query(chunk)


# the starters read by a parse function of their own, the longest leading words first (SHOW
# CREATE ENTITY before SHOW CREATE)
_NAMED = sorted(
    (s for s in (*keywords.STARTERS, *keywords.UNDER) if s.parser),
    key=lambda s: len(s.lead.split()),
    reverse=True,
)
_ELSEWHERE = tuple((keywords.leading((s,)), s.parser) for s in _NAMED)
_EXPLAINERS = tuple((keywords.leading((s,)), s.explainer) for s in _NAMED if s.explainer)


def _family_parser(code: str) -> Callable[[Chunk, str, Callable[[int], ast.Pos]], Any] | None:
    """The parse function a Starter names for this statement's leading words (a family read in
    a module of its own, a statement kind's module among them, imported when first met), or
    None."""
    return _named(_ELSEWHERE, code)


def _named(table: tuple[tuple[re.Pattern[str], str | Callable[..., Any]], ...], code: str) -> Any:
    """The function named ("module:function", or the function) for the first pattern `code`
    matches, or None."""
    for pattern, where in table:
        if pattern.match(code):
            if callable(where):
                return where
            module, name = where.split(":")
            return getattr(importlib.import_module(module), name)
    return None


# INSERT INTO an entity … ON MISSING INDEX KEY SKIP (dynosql.entities.write)
_SKIP = re.compile(r"\s+ON\s+MISSING\s+INDEX\s+KEYS?\s+SKIP\s*;?\s*$", re.I)


def _index_key_skip(chunk: Chunk, code: str) -> tuple[Chunk, int | None]:
    """The write without a trailing ``ON MISSING INDEX KEY SKIP`` (blanked: positions stay),
    and where it stood (None: not there)."""
    found = _SKIP.search(code)
    if found is None:
        return chunk, None
    start = found.start()
    text = chunk.text[:start] + "".join(c if c == "\n" else " " for c in chunk.text[start:])
    return Chunk(text, chunk.line, chunk.col), start + len(found.group()) - len(
        found.group().lstrip()
    )


def _skipping(statement: ast.Statement, at: int, chunk: Chunk, code: str) -> ast.Statement:
    if not isinstance(statement, ast.Insert):
        raise _error(chunk, code, at, "ON MISSING INDEX KEY SKIP ends an INSERT INTO an entity")
    written = statement.source + " " + code[at:].strip().rstrip(";")  # the journal's header
    return dataclasses.replace(statement, skip_missing_index_keys=True, source=written)


_EXISTS = re.compile(r"\s*(EXISTS)\s*\(", re.I)


def _condition_check(chunk: Chunk, code: str, m: re.Match[str]) -> ast.ConditionCheck:
    """PartiQL's ``EXISTS(SELECT …)``: the SELECT read where it stands (EXISTS, its
    parentheses blanked), checked by the planner (one item, by its full key)."""
    plain = code_only(code)
    close = plain.rstrip()
    if not close.endswith(")"):
        raise _error(
            chunk, code, m.start(1), "EXISTS takes one SELECT in parentheses: EXISTS(SELECT …)"
        )
    end = len(close) - 1
    if not re.match(r"\s*SELECT\b", plain[m.end() :], re.I):
        at = m.end() + len(plain[m.end() :]) - len(plain[m.end() :].lstrip())
        raise _error(chunk, code, at, "EXISTS takes a SELECT: EXISTS(SELECT * FROM t WHERE …)")
    text = chunk.text
    inner = partiql.blank(text[: m.end()]) + text[m.end() : end] + partiql.blank(text[end:])
    select = parse_select(Chunk(inner, chunk.line, chunk.col))
    return ast.ConditionCheck(select, _pos(chunk, code, m.start(1)), text.strip())


def _explain_rate(chunk: Chunk, code: str) -> tuple[Chunk, str, Decimal | None]:
    """``… AT <n> PER SECOND`` at the end of an EXPLAIN: its rate, and the text without it
    (blanked, so positions stay right)."""
    found = _RATE.search(code)
    if found is None:
        return chunk, code, None
    rate = Decimal(found.group(1))
    if not rate:
        raise _error(chunk, code, found.start(1), "AT … PER SECOND takes a rate above 0")
    start = found.start()

    def blank(text: str) -> str:
        return text[:start] + "".join(c if c == "\n" else " " for c in text[start:])

    return Chunk(blank(chunk.text), chunk.line, chunk.col), blank(code), rate


def _explain(chunk: Chunk, code: str, m: re.Match[str]) -> ast.Explain:
    """EXPLAIN [ANALYZE] <statement>: the statement it explains, parsed as its own kind."""
    # Blank the EXPLAIN words out rather than cutting them, so positions stay right.
    head = "".join(c if c == "\n" else " " for c in chunk.text[: m.end()])
    blanked = head + chunk.text[m.end() :]
    _check_explained(
        chunk, "".join(c if c == "\n" else " " for c in code[: m.end()]) + code[m.end() :]
    )
    if is_write(blanked):
        inner, skip = _index_key_skip(
            Chunk(blanked, chunk.line, chunk.col), strip_comments(blanked)
        )
        statement = parse_explained_write(inner)
        if skip is not None:
            statement = _skipping(statement, skip, inner, strip_comments(blanked))
        return ast.Explain(statement, bool(m.group(1)))
    explained: ast.Explain
    if (explain := _named(_EXPLAINERS, code[m.end() :])) is not None:
        explained = explain(Chunk(blanked, chunk.line, chunk.col), m, _pos)
        return explained
    statement = parse_query(Chunk(blanked, chunk.line, chunk.col))
    return ast.Explain(statement, analyze=bool(m.group(1)))


def _check_backslash(chunk: Chunk, code: str) -> None:
    """A REPL command (``\\dt``) in a script is named as one, not as a syntax error."""
    stripped = code.lstrip()
    if stripped.startswith("\\"):
        first = stripped.splitlines()[0].strip()
        command, _, argument = first.partition(" ")
        pos = _pos(chunk, code, len(code) - len(stripped))
        argument = argument.strip().rstrip(";").strip()
        raise ReplCommandError(command.rstrip(";"), argument, pos.line, pos.col)


def _check_first_word(chunk: Chunk, code: str) -> None:
    """A first word that starts no statement but is close to one that does (CRETE, UPDAT) is
    named before anything else reads the statement."""
    found = misspelt_starter(code)
    if found is not None:
        every = [found]
        if found[2] == "SELECT":  # the others too, where sure: one error names them all
            plain = code_only(code)
            every = needed_words(plain, misspelt_words(plain, SELECT_WORDS), sqlglot_parses)
            every = every if found in every else [found]
        raise _error(chunk, code, found[0], unknown_words_message(every))


_EXPLAIN_TAKES = "EXPLAIN takes " + keywords.listing(
    [s.word for s in keywords.STARTERS if s.explain]
)


def _check_explained(chunk: Chunk, code: str) -> None:
    """The word after EXPLAIN [ANALYZE] (`code`: the EXPLAIN words blanked): misspelt, or a
    statement EXPLAIN does not take. The transaction words and UNDO are the write parser's to
    refuse (with why)."""
    _check_first_word(chunk, code)
    if not _EXPLAINED.match(code) and not is_write(code):
        raise _error(chunk, code, _first(code), _EXPLAIN_TAKES)
