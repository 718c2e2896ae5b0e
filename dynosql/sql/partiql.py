"""PartiQL for DynamoDB's spellings that SQL (and sqlglot) has no grammar for, turned into
dynosql's own before the parsers read a statement. Every change keeps the text's length and
line breaks, so errors still point at the user's line and column (docs/partiql.md).

- ``<<'a', 'b'>>`` (a set, PartiQL's bag) is ``{'a', 'b'}``: ``<<`` becomes ``{`` and a blank,
  ``>>`` a blank and ``}``. An empty ``<<>>`` is refused here: DynamoDB has no empty sets, and
  ``{}`` is the empty map.
- ``RETURNING ALL OLD *``, ``ALL NEW *``, ``MODIFIED OLD *``, ``MODIFIED NEW *`` at the end of
  a write: blanked, and given back as the `ast.Returning` it means.
- ``INSERT INTO t VALUE {…}``: where the item's map is, for the write parser to read it.

The rest of PartiQL is read by the parsers themselves: ``?`` (convert.py's dialect), repeated
SET and REMOVE clauses, ``set_add`` and ``set_delete`` (write_parse.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.split import Chunk, code_only

_BAG = re.compile(r"<<|>>")
_RETURNING = re.compile(r"\bRETURNING\s+(ALL|MODIFIED)\s+(OLD|NEW)\s*\*\s*$", re.I)
_VALUE = re.compile(
    r'\s*(?:INSERT|UPSERT|REPLACE)\s+INTO\s+("(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_\-]*)\s+VALUE\s*(?=\{)',
    re.I,
)


def blank(text: str) -> str:
    """`text` as blanks, its line breaks kept (positions after it stay right)."""
    return "".join(c if c == "\n" else " " for c in text)


def bags(chunk: Chunk) -> Chunk:
    """`chunk` with every ``<<…>>`` (outside strings, quoted names and comments) written as
    ``{…}``; an empty one is refused."""
    code = code_only(chunk.text)
    if "<<" not in code and ">>" not in code:
        return chunk
    text = chunk.text
    for m in _BAG.finditer(code):
        if m.group() == "<<":
            if code[m.end() :].lstrip().startswith(">>"):
                line = code.count("\n", 0, m.start()) + 1
                col = m.start() - (code.rfind("\n", 0, m.start()) + 1) + 1
                raise SqlError(
                    "DynamoDB has no empty sets: <<>> holds nothing (a set needs a value; {} is "
                    "the empty map)",
                    *chunk.to_script(line, col),
                )
            text = text[: m.start()] + "{ " + text[m.end() :]
        else:
            text = text[: m.start()] + " }" + text[m.end() :]
    return Chunk(text, chunk.line, chunk.col)


@dataclass(frozen=True)
class Returning:
    """PartiQL's RETURNING clause, cut out of a write: what it asks for and where it was."""

    returning: ast.Returning
    what: str  # as written, upper case: "ALL OLD *"
    at: int  # index of RETURNING in the text


def cut_returning(text: str) -> tuple[str, Returning | None]:
    """`text` with PartiQL's ``RETURNING ALL|MODIFIED OLD|NEW *`` blanked, and what it asked
    (None when there is none: dynosql's own ``RETURNING *`` / ``old.*`` / columns stay)."""
    code = code_only(text)
    m = _RETURNING.search(code.rstrip().removesuffix(";").rstrip())
    if m is None:
        return text, None
    which, image = m.group(1).upper(), m.group(2).upper()
    returning = ast.Returning(old=image == "OLD", modified=which == "MODIFIED")
    blanked = text[: m.start()] + blank(text[m.start() : m.end()]) + text[m.end() :]
    return blanked, Returning(returning, f"{which} {image} *", m.start())


def value_at(code: str) -> tuple[int, int, int] | None:
    """Where the table's name starts and ends and where the item's ``{`` stands in ``INSERT
    INTO t VALUE {…}`` (`code`: the text, comments blanked), or None."""
    m = _VALUE.match(code)
    return None if m is None else (m.start(1), m.end(1), m.end())


def closing_brace(code: str, start: int) -> int | None:
    """The index of the ``}`` that closes the ``{`` at `start` (in code: strings blanked)."""
    depth = 0
    for i in range(start, len(code)):
        ch = code[i]
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth == 0:
                return i if ch == "}" else None
    return None
