"""The interactive REPL (``dynosql`` in a terminal): prompt_toolkit over ``dynosql.Session``.

- ``app``: the loop, rendering, pager, ``\\o``, the questions the guards ask, history.
- ``commands``: the backslash-command registry; each command returns `Result`s.
- ``completer``: context-aware completion (pure `suggest` + the prompt_toolkit adapter).
- ``highlight``: the SQL tokenizer, the highlighting lexer and the style.
- ``toolbar``: the bottom toolbar.

Nothing heavy is imported here: ``run_repl`` loads prompt_toolkit when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynosql.repl.options import ReplOptions

if TYPE_CHECKING:
    from dynosql.config import Config
    from dynosql.session import Session


def run_repl(session: Session, options: ReplOptions, config: Config | None = None) -> int:
    """Read statements from the terminal until ``\\q`` or Ctrl-D; returns the exit code.

    `config` supplies the colours and the warnings found reading the config file (its settings
    are already in ``session.settings``, under the command line's flags)."""
    from dynosql.repl.app import Repl

    return Repl(session, options, config).run()


__all__ = ["ReplOptions", "run_repl"]
