"""Drive the REPL in-process: prompt_toolkit reads keys from a pipe, the output goes to a
StringIO. One place for the setup the REPL tests of every file share."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from dynosql.config import Config
from dynosql.repl.app import Repl


def drive(
    session: Any,
    keys: str,
    config: Config | None = None,
    options: Any = None,
    prepare: Callable[[Repl], None] | None = None,
    **kwargs: Any,
) -> tuple[str, Repl]:
    """Type ``keys`` into a REPL on ``session``; returns (screen text, the Repl).

    The keys end in EOF, like Ctrl-D, if they did not leave already. ``prepare`` may change
    the Repl before it runs (say, to make it a terminal of a given size)."""
    screen = io.StringIO()
    kwargs.setdefault("history", InMemoryHistory())
    kwargs.setdefault("complete_while_typing", False)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        repl = Repl(
            session,
            options,
            config or Config(),
            input=pipe,
            output=DummyOutput(),
            screen=screen,
            **kwargs,
        )
        if prepare is not None:
            prepare(repl)
        assert repl.run() == 0
    return screen.getvalue(), repl
