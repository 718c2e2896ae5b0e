"""Completion inside the write statements (INSERT/UPSERT/REPLACE, UPDATE, DELETE, BEGIN, COMMIT,
ROLLBACK, UNDO), for `completer.suggest`: pure, on the tokens before the cursor.

- the statements' first words (``INSERT INTO``, ``DELETE FROM``, …) are the vocabulary's
  openings (``dynosql.sql.keywords.STARTERS``), offered by the completer; ``START`` is followed
  by ``TRANSACTION``;
- table names after INTO, UPDATE and DELETE FROM; the table's attributes in INSERT's column
  list, after SET (and each comma), REMOVE and on the right of ``=`` (with ``if_not_exists`` and
  ``list_append``), and in WHERE;
- what may come next: VALUES / SELECT, ON CONFLICT DO NOTHING (INSERT), SET, REMOVE, WHERE,
  RETURNING, and after RETURNING ``*`` or ``old.*``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dynosql.repl.highlight import Token
from dynosql.sql.keywords import RETURNING, WRITE_FAMILIES, functions, starters

UPDATE_FUNCTIONS = functions("update")
CONDITION_FUNCTIONS = functions("condition", "operand")  # not the aggregates
_FAMILY = {s.word: s.family for s in starters(*WRITE_FAMILIES)}  # INSERT -> put, ...
_CONDITION_NEXT = ["AND", "OR", "BETWEEN", "IN", "LIKE", "IS", "RETURNING"]


@dataclass
class WriteCompletion:
    """What to offer: keywords, and whether table names, attributes or functions fit here."""

    keywords: list[str] = field(default_factory=list)
    tables: bool = False
    attributes: bool = False  # of `table`
    functions: tuple[str, ...] = ()
    values: list[str] = field(default_factory=list)  # inserted as they are (``old.*``)
    table: str | None = None


def write_table(prev: list[Token]) -> str | None:
    """The table a write statement names (after INTO, UPDATE or DELETE FROM)."""
    words = [t.upper for t in prev]
    for i, w in enumerate(words[:-1]):
        if w in ("INTO", "UPDATE") or (w == "FROM" and i > 0 and words[i - 1] == "DELETE"):
            name = prev[i + 1].text
            return name[1:-1].replace('""', '"') if name.startswith('"') else name
    return None


def complete_write(prev: list[Token]) -> WriteCompletion | None:
    """What fits after `prev` (the significant tokens before the word being typed) in a write
    statement; None when `prev` is not one."""
    if prev and prev[0].upper == "EXPLAIN":
        prev = prev[2:] if len(prev) > 1 and prev[1].upper == "ANALYZE" else prev[1:]
        if not prev:
            return None
    if not prev or prev[0].upper not in _FAMILY:
        return None
    first, n = prev[0].upper, len(prev)
    family = _FAMILY[first]
    word = prev[-1].upper if prev[-1].kind in ("keyword", "function", "word") else prev[-1].text
    table = write_table(prev)
    out = WriteCompletion(table=table)
    if family in ("transaction", "undo"):
        if first == "START" and n == 1:
            out.keywords = ["TRANSACTION"]
        return out  # nothing else follows (UNDO: a file name, in quotes)
    if "RETURNING" in [t.upper for t in prev]:
        if word == "RETURNING":
            out.values = list(RETURNING)
        return out
    if family == "put":
        return _put(out, prev, first, word, n)
    if family == "delete":
        if n == 1:
            out.keywords = ["FROM"]
        elif word == "FROM":
            out.tables = True
        elif n == 3:
            out.keywords = ["WHERE", "RETURNING"]
        else:
            return _where(out, prev, word)
        return out
    # UPDATE
    if n == 1:
        out.tables = True
        return out
    if n == 2:
        out.keywords = ["SET", "REMOVE"]
        return out
    clause = _last_of(prev, ("SET", "REMOVE", "WHERE"))
    if clause == "WHERE":
        return _where(out, prev, word)
    if word in ("SET", "REMOVE", ","):
        out.attributes = True
    elif clause == "SET" and word in ("=", "+", "-", "("):
        out.attributes = True
        out.functions = UPDATE_FUNCTIONS
    else:
        out.keywords = (["REMOVE"] if clause == "SET" else []) + ["WHERE", "RETURNING"]
    return out


def _put(out: WriteCompletion, prev: list[Token], first: str, word: str, n: int) -> WriteCompletion:
    if n == 1:
        out.keywords = ["INTO"]
    elif word == "INTO":
        out.tables = True
    elif n == 3:
        out.keywords = ["VALUES", "SELECT"]
    elif _depth(prev) > 0 and "VALUES" not in [t.upper for t in prev]:
        if word in ("(", ","):
            out.attributes = True  # the column list
    elif word == ")" and _depth(prev) == 0:
        if "VALUES" not in [t.upper for t in prev]:
            out.keywords = ["VALUES", "SELECT"]
        else:
            out.keywords = (["ON CONFLICT DO NOTHING"] if first == "INSERT" else []) + ["RETURNING"]
    elif word in ("CONFLICT", "DO") or (word == "ON" and first == "INSERT"):
        out.keywords = {"ON": ["CONFLICT DO NOTHING"], "CONFLICT": ["DO NOTHING"]}.get(
            word, ["NOTHING"]
        )
    elif word == "NOTHING":
        out.keywords = ["RETURNING"]
    return out


def _where(out: WriteCompletion, prev: list[Token], word: str) -> WriteCompletion:
    if word in ("WHERE", "AND", "OR", "NOT", "(", ","):
        out.attributes = True
        out.functions = CONDITION_FUNCTIONS
    elif word in ("=", "<>", "!="):
        out.keywords = ["TRUE", "FALSE", "NULL"]
    elif word == "IS":
        out.keywords = ["NULL", "NOT NULL"]
    elif word not in ("<", "<=", ">", ">=", "IN", "BETWEEN", "LIKE"):
        out.keywords = list(_CONDITION_NEXT)
    return out


def _last_of(prev: list[Token], words: tuple[str, ...]) -> str | None:
    for t in reversed(prev):
        if t.kind == "keyword" and t.upper in words:
            return t.upper
    return None


def _depth(prev: list[Token]) -> int:
    depth = 0
    for t in prev:
        if t.kind == "operator":
            depth += {"(": 1, ")": -1}.get(t.text, 0)
    return depth
