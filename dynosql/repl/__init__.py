"""The interactive REPL (``dynosql`` in a terminal): prompt_toolkit over ``dynosql.Session``.

- ``app``: the loop, rendering, pager, ``\\o``, the question before a large Scan, history.
- ``commands``: the backslash-command registry; each command returns `Result`s.
- ``completer``: context-aware completion (pure `suggest` + the prompt_toolkit adapter).
- ``highlight``: the SQL tokenizer, the highlighting lexer and the style.
- ``toolbar``: the bottom toolbar.

Nothing heavy is imported here: ``run_repl`` loads prompt_toolkit when it is called.
"""

from __future__ import annotations

import argparse
from typing import Any


def run_repl(session: Any, args: argparse.Namespace) -> int:
    """Read statements from the terminal until ``\\q`` or Ctrl-D; returns the exit code.

    The config file (written with commented defaults on the first run) supplies the format,
    segments and rate limit the command line left unset.
    """
    from dynosql import config as config_module

    from .app import Repl

    config = config_module.load()
    settings = session.settings
    if getattr(args, "format", None) is None:
        settings.format = config.format
    if getattr(args, "segments", None) is None and config.segments is not None:
        settings.segments = config.segments
    if getattr(args, "rate_limit", None) is None and config.rate_limit is not None:
        settings.rate_limit = config.rate_limit
    return Repl(session, args, config).run()


__all__ = ["run_repl"]
