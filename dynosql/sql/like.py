"""LIKE: what a pattern means, read once, for a pattern written in the SQL (the parser) and for
one bound to a parameter (the binder), so that ``SK LIKE :p`` with ``p = 'root/photos/%'``
plans exactly as ``SK LIKE 'root/photos/%'`` does: a begins_with key condition.

A pattern is a run of characters where ``%`` is any run and ``_`` any one character, unless
the ESCAPE character stands before it (``LIKE 'ab/%c%' ESCAPE '/'``: a literal ``%``; the
escape character also escapes itself and makes any other character just itself)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.text import sql_text

Token = tuple[str, bool]  # a character, and whether it is a wildcard


def tokens(pattern: str, escape: str | None, pos: ast.Pos = ast.NOWHERE) -> list[Token]:
    """`pattern` read character by character (an escaped character is never a wildcard)."""
    if escape is not None and len(escape) > 1:
        raise SqlError(f"ESCAPE takes one character, got {escape!r}", pos.line, pos.col)
    out: list[Token] = []
    escaped = False
    for ch in pattern:
        if escaped:
            out.append((ch, False))
            escaped = False
        elif escape and ch == escape:
            escaped = True
        else:
            out.append((ch, ch in "%_"))
    if escaped:
        raise SqlError(
            f"the LIKE pattern {pattern!r} ends with its ESCAPE character", pos.line, pos.col
        )
    return out


@lru_cache(maxsize=256)
def regex(pattern: str, escape: str | None = None) -> re.Pattern[str]:
    """The regular expression a whole string must match (`re.fullmatch`)."""
    parts = [
        (".*" if ch == "%" else ".") if wild else re.escape(ch)
        for ch, wild in tokens(pattern, escape)
    ]
    return re.compile("".join(parts), re.S)


def bound(node: ast.LikeParam) -> ast.Condition:
    """A LIKE whose pattern parts (and escape) are all literals, bound or written, as the
    condition they mean: a :parameter holding 'root/photos/%' gives the begins_with Query
    the same string written in the SQL gives."""
    text = ""
    for part in node.parts:
        if not isinstance(part, ast.Literal) or not isinstance(part.value, str):
            raise SqlError(
                f"LIKE takes a string pattern, got {sql_text(part)}", part.pos.line, part.pos.col
            )
        text += part.value
    escape = node.escape
    if escape is not None and not (
        isinstance(escape, ast.Literal) and isinstance(escape.value, str)
    ):
        raise SqlError(
            f"ESCAPE takes a string, got {sql_text(escape)}", escape.pos.line, escape.pos.col
        )
    return condition(
        node.subject, text, None if escape is None else escape.value, node.pos, node.at
    )


def condition(
    subject: Any, pattern: str, escape: str | None, pos: ast.Pos, at: ast.Pos
) -> ast.Condition:
    """``subject LIKE pattern [ESCAPE escape]`` as a condition. On an attribute path: no
    wildcard is ``=``, a literal prefix then only ``%`` is begins_with (a key condition on a
    sort key), anything else keeps its literal prefix as a begins_with beside the client-side
    match. On an expression (``LOWER(name) LIKE '%ana%'``): a client-side check. `pos` is the
    LIKE's position, `at` the pattern's."""
    read = tokens(pattern, escape, at)
    if not isinstance(subject, ast.Path):
        return _checked(subject, pattern, escape, pos)
    trailing = len(read) - len(_rstrip_any(read))
    body = read[: len(read) - trailing]
    if not any(wild for _, wild in body):
        text = "".join(ch for ch, _ in body)
        if not trailing:
            return ast.Compare("=", subject, ast.Literal(text, at), pos)
        if text:
            return ast.Function("begins_with", subject, ast.Literal(text, at), pos)
    prefix = ""
    for ch, wild in read:
        if wild:
            break
        prefix += ch
    if any(ch in "%_" and not wild for ch, wild in read):
        # a literal % or _ only an ESCAPE can say: matched by the scalar LIKE, which takes it
        check: ast.Condition = _checked(subject, pattern, escape, pos)
    else:
        check = ast.Like(subject, "".join(ch for ch, _ in read), pos)
    if prefix:
        return ast.And((ast.Function("begins_with", subject, ast.Literal(prefix, at), pos), check))
    return check


def _rstrip_any(read: list[Token]) -> list[Token]:
    """`read` without its trailing ``%`` wildcards."""
    end = len(read)
    while end and read[end - 1] == ("%", True):
        end -= 1
    return read[:end]


def _checked(subject: Any, pattern: str, escape: str | None, pos: ast.Pos) -> ast.Condition:
    """The client-side match: the scalar LIKE (dynosql/evaluate/scalar.py) is TRUE."""
    args: tuple[Any, ...] = (subject, ast.Literal(pattern))
    text = f"{sql_text(subject)} LIKE {sql_text(ast.Literal(pattern))}"
    if escape:
        args += (ast.Literal(escape),)
        text += f" ESCAPE {sql_text(ast.Literal(escape))}"
    matched = ast.Scalar("LIKE", args, text, pos)
    return ast.Compare("=", matched, ast.Literal(True), pos)
