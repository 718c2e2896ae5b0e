"""Parsed scripts, kept: in memory for the process, and on disk for the next process.

Statements are immutable and depend on nothing but their text, so a script seen before is not
parsed again. In memory: a program or a loop running one statement with new parameters, the
REPL. On disk (``$XDG_CACHE_HOME/dynosql/parsed``, default ``~/.cache/…``): the command line's
``-e``/``-f`` scripts, which a pipeline or a cron job runs again and again in new processes. A
script found there needs neither the parser nor sqlglot, whose import alone costs more CPU
(~0.15 s) than the rest of a ``dynosql -e`` keyed lookup does besides botocore.

An entry holds the script's text and a fingerprint of the code that parsed it (dynosql's
version, the size and modification time of every module of ``dynosql/sql``, of the modules whose
objects a statement holds (``values.py``, ``entity_model.py``, ``position.py``) and of the kind
modules of ``dynosql/statements``, sqlglot's, the Python version), and is used
only when both match exactly: an edited parser or another sqlglot parses again, and a hash
collision can never return another script's statements. Only statements that parsed are kept (an error is reported from a fresh
parse, with its line and column). Entries are pickles, written and read as ``user_cache``
says (atomic, private to the user); anything unreadable counts as absent. The directory keeps
at most ``KEPT_ENTRIES`` entries (the least recently used go); deleting it is safe.

This module imports neither sqlglot nor the parser: they load only when a script is not found,
so importing ``dynosql.sql`` stays cheap.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from dynosql import user_cache
from dynosql.sql import ast
from dynosql.version import __version__

CACHED_SCRIPT_CHARS = 4096  # longer scripts (a 10,000-row INSERT) are parsed every time
KEPT_ENTRIES = 1000  # on disk; when over, the least recently used half goes


def parse_script(script: str, *, across_runs: bool = False) -> list[ast.Statement]:
    """Every statement of a script, parsed; the first bad one raises SqlError (not kept).

    `across_runs`: also look for the script on disk, and keep it there once parsed (the
    command line's scripts)."""
    if len(script) > CACHED_SCRIPT_CHARS:
        return _parse(script)
    if across_runs:
        kept = _load(script)
        if kept is not None:
            return list(kept)
        statements = _parse_cached(script)
        _store(script, statements)
        return list(statements)
    return list(_parse_cached(script))


@functools.lru_cache(maxsize=256)
def _parse_cached(script: str) -> tuple[ast.Statement, ...]:
    return tuple(_parse(script))


def _parse(script: str) -> list[ast.Statement]:
    from dynosql.sql import parser

    return parser.parse_script(script)


def clear() -> None:
    """Forget every script kept in memory (benchmarks time the parser itself)."""
    _parse_cached.cache_clear()


# --- on disk -----------------------------------------------------------------------------------


def directory() -> Path:
    return user_cache.cache_dir("parsed")


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """What the parse of a text depends on besides the text: the code that parses it (with
    the kind modules, any of which may declare a Starter and read its own statements:
    `keywords.declared`)."""
    from importlib.machinery import PathFinder

    from dynosql.sql.keywords import kind_files

    here = Path(__file__).parent
    # besides the parsers, the modules whose objects a statement holds: values, an entity's
    # templates (CREATE ENTITY), every position
    held = [here.parent / f"{name}.py" for name in ("values", "entity_model", "position")]
    files = sorted(here.glob("*.py")) + held + kind_files()
    spec = PathFinder.find_spec("sqlglot")  # located, not imported
    if spec is not None and spec.origin:
        sqlglot = Path(spec.origin).parent
        files += [sqlglot / "__init__.py", sqlglot / "_version.py", sqlglot / "parser.py"]
    parts = [__version__, sys.version]
    for path in files:
        try:
            st = path.stat()
        except OSError:
            parts.append(f"{path}:-")
            continue
        parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def _entry(script: str) -> Path:
    import hashlib

    digest = hashlib.sha256(f"{fingerprint()}\0{script}".encode("utf-8", "surrogatepass"))
    return directory() / f"{digest.hexdigest()[:40]}.pickle"


def _load(script: str) -> tuple[ast.Statement, ...] | None:
    import pickle

    path = _entry(script)
    data = user_cache.read(path)
    if data is None:
        return None
    try:
        kept = pickle.loads(data)
        os.utime(path)  # recently used: kept when the directory is pruned
    except Exception:  # torn, from another version: parse again
        return None
    if (
        isinstance(kept, tuple)
        and len(kept) == 3
        and kept[0] == fingerprint()
        and kept[1] == script
        and isinstance(kept[2], tuple)
        and all(isinstance(s, ast.Statement) for s in kept[2])
    ):
        return kept[2]
    return None


def _store(script: str, statements: tuple[ast.Statement, ...]) -> None:
    """Keep the entry; any failure (a read-only home, a full disk, a statement that does not
    pickle) leaves the cache as it was."""
    import pickle

    path = _entry(script)
    try:
        data = pickle.dumps((fingerprint(), script, statements), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return
    if user_cache.write(path, data):
        try:
            _prune(path.parent)
        except OSError:
            pass


def _prune(folder: Path) -> None:
    entries = [e for e in os.scandir(folder) if e.name.endswith(".pickle")]
    if len(entries) <= KEPT_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in entries[: len(entries) - KEPT_ENTRIES // 2]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
