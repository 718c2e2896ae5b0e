"""SQL text → typed statements. See ``grammar/README.md`` for the accepted language.

Importing this package is cheap: the parser (``parser.py``) and sqlglot load on the first
statement that is parsed rather than found in the cache (``cache.py``), so a session, the
planner or the statement registry can name ``ast`` without paying for them.
"""

from __future__ import annotations

from dynosql.sql import ast
from dynosql.sql.cache import parse_script
from dynosql.sql.split import Chunk, is_complete, split_script


def parse(sql: str) -> ast.Statement:
    """Exactly one statement (a trailing `;` is fine); SqlError with line and column if not."""
    from dynosql.sql import parser

    return parser.parse(sql)


def parse_chunk(chunk: Chunk) -> ast.Statement:
    """One statement of a split script."""
    from dynosql.sql import parser

    return parser.parse_chunk(chunk)


__all__ = ["Chunk", "is_complete", "parse", "parse_chunk", "parse_script", "split_script"]
