"""Parsed scripts, kept for the process: statements are immutable, so a script seen before (a
program or a loop running one statement with new parameters, the REPL) is parsed once; parsing
costs more than a GetItem.

This module imports neither sqlglot nor the parser: they load (about 0.15 s of CPU) only when a
script is not found here, so importing ``dynosql.sql`` stays cheap.
"""

from __future__ import annotations

import functools

from dynosql.sql import ast

CACHED_SCRIPT_CHARS = 4096  # longer scripts (a 10,000-row INSERT) are parsed every time


def parse_script(script: str) -> list[ast.Statement]:
    """Every statement of a script, parsed; the first bad one raises SqlError (not kept)."""
    if len(script) > CACHED_SCRIPT_CHARS:
        return _parse(script)
    return list(_parse_cached(script))


@functools.lru_cache(maxsize=256)
def _parse_cached(script: str) -> tuple[ast.Statement, ...]:
    return tuple(_parse(script))


def _parse(script: str) -> list[ast.Statement]:
    from dynosql.sql import parser

    return parser.parse_script(script)


def clear() -> None:
    """Forget every kept script (benchmarks time the parser itself)."""
    _parse_cached.cache_clear()
