"""What the REPL's backslash commands and toolbar may see of the REPL: a small, typed state,
so that neither imports the app (litecli's closure-factory toolbar, pgcli's special commands)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dynosql.repl.completer import SessionMetadata
    from dynosql.session import Session
    from dynosql.settings import Settings


class ReplState(Protocol):
    """The REPL as its commands and toolbar see it (`dynosql.repl.app.Repl` is one)."""

    session: Session
    settings: Settings
    metadata: SessionMetadata
    done: bool
    last_statement: str
    next_default: str
    format_before_x: str | None
    output_path: str | None

    def open_output(self, path: str) -> None: ...

    def close_output(self) -> None: ...

    def history(self) -> list[str]:
        """The statements typed, oldest first (``\\s``)."""
        ...
