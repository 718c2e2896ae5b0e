"""dynosql's cache directory: ``$XDG_CACHE_HOME/dynosql`` (default ``~/.cache/dynosql``).

What is kept there only makes the next process start sooner (the parsed scripts of
``sql/cache.py``, botocore's trimmed endpoint data of ``dynamo/botodata.py``): every file is
safe to delete, and any failure to read or write one leaves dynosql working as without it.
Files are written atomically (a reader never sees half of one), 0600 in 0700 directories, and
read only when this user owns both the file and its directory and no one else can write
either: a pickle runs code when read, and endpoint data decides where requests go.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "dynosql", *parts)


def _private(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def read(path: Path) -> bytes | None:
    """The file's bytes, or None when it is absent, unreadable or not private to this user."""
    try:
        if not _private(path.parent.stat()):
            return None
        with open(path, "rb") as f:
            if not _private(os.fstat(f.fileno())):
                return None
            return f.read()
    except OSError:
        return None


def write(path: Path, data: bytes) -> bool:
    """Write `data` to `path` atomically; False (and nothing written) on any OSError."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return False
    return True
