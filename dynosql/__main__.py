"""``python -m dynosql``."""

from dynosql.cli import entry

entry()
