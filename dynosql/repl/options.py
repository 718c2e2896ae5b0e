"""What the command line tells the REPL beyond the settings: a module of its own, so the REPL's
modules take it without importing the package's entry (`dynosql.repl.run_repl`), which loads
them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReplOptions:
    """What the command line tells the REPL beyond the settings."""

    quiet: bool = False  # no banner, footers, warnings or notes
    debug: bool = False  # tracebacks for internal errors
