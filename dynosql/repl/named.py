"""Named queries, as pgcli keeps them: ``\\ns name SQL`` saves, ``\\n name [args]`` runs,
``\\nd name`` deletes, ``\\n`` lists. They live in ``$XDG_CONFIG_HOME/dynosql/named_queries.json``
(0600, in a 0700 directory: a query can name tables and keys worth keeping private).

Arguments fill the query's text: ``$1``, ``$2``, … by position (the text as typed, as pgcli
does: ``WHERE PK = '$1'``), and ``name=value`` binds ``:name`` like ``-v name=value`` (a number
when it reads as one), so values can stay out of the SQL text.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from dynosql.config import config_dir

_POSITION = re.compile(r"\$(\d+)")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def path() -> Path:
    return config_dir() / "named_queries.json"


def load() -> dict[str, str]:
    """Every saved query by name ({} when none was saved or the file is unreadable JSON)."""
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(queries: dict[str, str]) -> None:
    """The whole file, replaced at once (a crash never leaves half of it), created 0600."""
    target = path()
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(queries.items())), f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, target)


def save(name: str, sql: str) -> None:
    if not _NAME.match(name):
        raise ValueError(f"a query name is letters, digits, _ and -, not {name!r}")
    if not sql.strip():
        raise ValueError(f"\\ns {name} needs the query: \\ns {name} SELECT …")
    queries = load()
    queries[name] = sql.strip()
    _write(queries)


def delete(name: str) -> bool:
    queries = load()
    if name not in queries:
        return False
    del queries[name]
    _write(queries)
    return True


def fill(name: str, sql: str, args: list[str]) -> tuple[str, dict[str, str]]:
    """The query's text with ``$n`` replaced by the n-th positional argument, and the
    ``name=value`` arguments as parameters (their values still text: the caller reads them
    as ``-v`` would). A ``$n`` without its argument, or an argument no ``$n`` uses, is an
    error naming the query."""
    positional = [a for a in args if not re.match(r"^[A-Za-z_]\w*=", a)]
    named = dict(a.split("=", 1) for a in args if a not in positional)
    wanted = sorted({int(n) for n in _POSITION.findall(sql)})
    if wanted and (wanted[-1] > len(positional) or wanted[0] < 1):
        raise ValueError(
            f"{name} takes {wanted[-1]} argument{'s' if wanted[-1] > 1 else ''} "
            f"($1 … ${wanted[-1]}), got {len(positional)}"
        )
    if len(positional) > (wanted[-1] if wanted else 0):
        raise ValueError(f"{name} uses no ${len(positional)}: {len(positional)} arguments given")

    def at(m: re.Match[str]) -> str:
        return positional[int(m.group(1)) - 1]

    return _POSITION.sub(at, sql), named


def rows() -> list[dict[str, Any]]:
    return [{"name": k, "query": v} for k, v in load().items()]
