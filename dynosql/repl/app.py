"""The REPL loop: read a statement, run it through the session, render the result.

Everything here is presentation; statements run through ``Session.run_statement`` and
results render through ``dynosql.render.render`` like the command line's. The screen gets
the warnings (before the rows), the rows (through a pager when they are taller than the
screen, or into the ``\\o`` file), then the notes and the footer.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from dynosql.config import Config, history_path
from dynosql.errors import Declined, DynosqlError, internal_error_text
from dynosql.process import OutputError, output_error
from dynosql.repl import commands
from dynosql.repl.completer import SessionMetadata, SqlCompleter
from dynosql.repl.highlight import SqlLexer, make_style, tokenize
from dynosql.repl.options import ReplOptions
from dynosql.repl.toolbar import toolbar, where
from dynosql.result import Result, interrupted_text
from dynosql.session import Session
from dynosql.sql import is_complete, parse_script
from dynosql.version import __version__

PROMPT = "dynosql> "
CONTINUATION = "      -> "
LEAVE_WORDS = ("quit", "exit", "\\quit")
HELP_WORDS = ("help", "?")  # what psql/pgcli users type first: the \? help screen
DEFAULT_PAGER = "less -SRXF"

_RED, _YELLOW, _DIM, _RESET = "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[0m"


def buffer_complete(text: str) -> bool:
    """Whether Enter runs the buffer: a statement ending in `;`, a backslash command (alone or
    on the last line under an unfinished statement, or ``\\e`` after one), a leave word, or
    nothing at all. Otherwise Enter continues the statement on a new line."""
    stripped = text.strip()
    if not stripped or stripped.startswith("\\") or trailing_command(stripped)[1] is not None:
        return True
    if stripped.rstrip(";").strip().lower() in (*LEAVE_WORDS, *HELP_WORDS):
        return True
    if re.match(r"help\s+\w[\w ]*;?$", stripped, re.I):
        return True  # help SELECT
    return is_complete(text)


def trailing_command(text: str) -> tuple[str, str | None]:
    """(the statement typed so far, the backslash command after it) when the last line of
    `text` is a backslash command, or the text ends with ``\\e``; else (text, None)."""
    stripped = text.rstrip()
    line_start = stripped.rfind("\n") + 1
    tokens = [t for t in tokenize(stripped) if t.kind not in ("space", "comment")]
    if not tokens:
        return text, None
    on_last_line = [t for t in tokens if t.start >= line_start]
    if on_last_line and on_last_line[0].kind == "command":
        first = on_last_line[0]
        return stripped[: first.start], stripped[first.start :]
    if tokens[-1].kind == "command" and tokens[-1].text == "\\e":
        return stripped[: tokens[-1].start], "\\e"
    return text, None


def open_history(path: Path | None, size: int) -> History:
    """A FileHistory created private (0600, in a 0700 directory), trimmed to `size` entries;
    in memory when `size` is 0 or the file cannot be made."""
    if path is None or size <= 0:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        os.close(fd)
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        trim_history(path, size)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


def trim_history(path: Path, size: int) -> None:
    """Keep the newest `size` entries of a prompt_toolkit history file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    blocks: list[list[str]] = []
    current: list[str] = []
    has_text = False
    for line in lines:
        if line.startswith("+"):
            current.append(line)
            has_text = True
            continue
        if has_text:
            blocks.append(current)
            current, has_text = [], False
        current.append(line)
    if has_text:
        blocks.append(current)
    if len(blocks) <= size:
        return
    keep = "".join("".join(block) for block in blocks[-size:])
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(keep)
    os.replace(tmp, path)


class Repl:
    """One interactive session. `input`/`output` are prompt_toolkit's (tests pass a pipe input
    and DummyOutput); `screen` is where results and messages are written."""

    def __init__(
        self,
        session: Session,
        options: ReplOptions | None = None,
        config: Config | None = None,
        *,
        input: Any = None,
        output: Any = None,
        screen: TextIO | None = None,
        history: History | None = None,
        complete_while_typing: bool = True,
    ):
        self.session = session
        self.options = options or ReplOptions()
        self.config = config or Config()
        self.settings = session.settings
        self.screen = screen or sys.stdout
        self.input = input
        self.output = output
        self.done = False
        self.last_statement = ""
        self.next_default = ""
        self.format_before_x: str | None = None
        self.output_file: TextIO | None = None
        self.output_path: str | None = None
        self.metadata = SessionMetadata(session)
        try:
            self.is_terminal = self.screen.isatty()
        except (AttributeError, ValueError):
            self.is_terminal = False
        self.colour = self.is_terminal
        if history is None:
            history = open_history(history_path(), self.settings.history_size)
        completer = SqlCompleter(self.metadata, commands.help_texts(), commands.argument_kinds())
        self.prompt_session: PromptSession[str] = PromptSession(
            history=history,
            completer=ThreadedCompleter(completer),
            complete_while_typing=complete_while_typing,
            lexer=SqlLexer() if self.settings.highlight else None,
            style=make_style(self.config.colours, self.config.warnings),
            include_default_pygments_style=False,
            # the statement's buffer, not the current one (Ctrl-R focuses the search field)
            multiline=Condition(
                lambda: not buffer_complete(self.prompt_session.default_buffer.text)
            ),
            prompt_continuation=lambda width, line, wrap: CONTINUATION[-width:].rjust(width),
            bottom_toolbar=lambda: toolbar(self),
            auto_suggest=AutoSuggestFromHistory(),
            enable_open_in_editor=True,
            search_ignore_case=True,
            vi_mode=self.settings.key_bindings == "vi",
            input=input,
            output=output,
        )
        self._confirm_session: PromptSession[str] | None = None
        # a person is here: hints may read a bounded sample (its cost a note of its own)
        session.interactive = True
        # writes that need a yes ("DELETE 1,234 items from orders (~1,240 WCU)?") ask here
        session.confirm = lambda question: (
            self.ask(f"{question} [y/N] ").strip().lower()
            in (
                "y",
                "yes",
            )
        )

    # --- the loop --------------------------------------------------------------------------------

    def run(self) -> int:
        if not self.options.quiet:
            self.say(
                f"dynosql {__version__} · {where(self.session)}\n"
                "Statements end with ;  ·  \\? help  ·  \\q or Ctrl-D leaves",
                dim=True,
            )
            if self.session.embedded is not None:
                self.say(f"embedded DynamoDB: {self.session.embedded.connection_text()}", dim=True)
        for warning in self.config.warnings:
            self.say(f"warning: {warning}", colour=_YELLOW)
        try:
            while not self.done:
                try:
                    text = self.prompt_session.prompt(PROMPT, default=self.next_default)
                except KeyboardInterrupt:
                    self.next_default = ""
                    continue
                except EOFError:
                    break
                self.next_default = ""
                try:
                    self.handle(text)
                except KeyboardInterrupt:
                    self.say("interrupted", colour=_YELLOW)
        finally:
            self.close_output()
        return 0

    def handle(self, text: str) -> None:
        """Run what was typed: a backslash command, SQL (one or more statements), or leave."""
        stripped = text.strip()
        if not stripped:
            return
        if stripped.rstrip(";").strip().lower() in LEAVE_WORDS:
            self.done = True
            return
        if stripped.rstrip(";").strip().lower() in HELP_WORDS:
            self.run_command("\\?")
            return
        first, _, rest = stripped.rstrip(";").strip().partition(" ")
        if first.lower() == "help" and rest.strip():
            self.run_command("\\h " + rest.strip())  # help SELECT: the statement's syntax
            return
        if stripped.startswith("\\"):
            self.run_command(stripped)
            return
        sql, command = trailing_command(stripped)
        if command is None:
            self.run_sql(text, confirm=True)
        elif commands.split(command)[0] == "\\e":
            self.run_command("\\e " + sql.strip(), literal=True)
        else:
            # a command typed under an unfinished statement: run it, give the statement back
            self.run_command(command)
            if not self.done:
                self.next_default = sql.rstrip() + "\n"  # go on typing below it

    def run_command(self, text: str, literal: bool = False) -> bool:
        name, arg = commands.split(text)
        if literal:
            arg = text.split(" ", 1)[1] if " " in text else ""

        def results() -> Iterator[Result]:
            produced = commands.lookup(name).run(self, arg)
            if isinstance(produced, Result):
                yield produced
            elif produced is not None:
                yield from produced

        return self.show(results())

    def run_sql(self, text: str, confirm: bool = True) -> bool:
        """Parse every statement first (a typo costs nothing), then run them in order (typed
        at the prompt when `confirm`: the guards ask before a large Scan); stop at the first
        failure."""
        try:
            statements = parse_script(text)
        except DynosqlError as err:
            self.error(err, text)
            return False
        self.last_statement = text.strip()
        for statement in statements:
            run = partial(self.session.run_statement, statement, typed=confirm)
            if not self.show(_one(run), text):
                return False
        return True

    # --- results ---------------------------------------------------------------------------------

    def show(self, results: Iterator[Result], text: str | None = None) -> bool:
        """Render each result; report errors and Ctrl-C. False when something failed."""
        while True:
            started = time.monotonic()
            result = None
            try:
                result = next(results, None)
                if result is None:
                    return True
                self.present(result)
            except KeyboardInterrupt as interrupt:
                self._clear_progress()
                if result is not None and isinstance(results, Generator):
                    # Ctrl-C while a result was being shown: what made it hears it where it
                    # yielded, as between two results, and may end in its own words (\watch's
                    # summary); a statement lets it through and is interrupted as before
                    try:
                        result = results.throw(interrupt)
                    except (KeyboardInterrupt, StopIteration):
                        pass
                    else:
                        self.present(result)
                        continue
                self.interrupted(result)
                return False
            except DynosqlError as err:
                self._clear_progress()
                self.error(err, text)
                return False
            except Exception as err:  # a bug: one line, unless --debug
                self._clear_progress()
                if self.options.debug:
                    import traceback

                    traceback.print_exc(file=self.screen)
                self.say(internal_error_text(err, self.options.debug), colour=_RED)
                return False
            if self.settings.timing and result.kind != "status":
                self.say(f"Time: {(time.monotonic() - started) * 1000:.3f} ms", dim=True)

    def present(self, result: Result) -> None:
        from dynosql.render import render, visible

        quiet = self.options.quiet
        if not quiet:
            for warning in result.warnings:
                self.say(f"warning: {warning}", colour=_YELLOW)
        buffer = io.StringIO()
        render(result, self.settings.format, buffer)
        self._clear_progress()
        text = buffer.getvalue()
        if self.output_file is not None:
            try:
                self.output_file.write(text)
                self.output_file.flush()
            except OSError as err:  # \o to a full disk, /dev/full: say so, back to the screen
                path = self.output_path
                self.close_output()
                raise OutputError(
                    f"{output_error(err)} ({path}); results go to the screen"
                ) from None
        else:
            # csv/json too: data never drives the screen; EXPLAIN pages only when taller
            self.page(visible(text, keep_tabs=True), wide_pages=result.kind != "plan")
        if not quiet:
            for note in result.notes:
                self.say(f"note: {note}")
            if result.show_footer:
                self.say(result.footer(), dim=True)

    def interrupted(self, result: Result | None) -> None:
        self.say(interrupted_text(result), colour=_YELLOW)

    def error(self, err: DynosqlError, text: str | None = None) -> None:
        if isinstance(err, Declined):  # an answer to the question asked, not a failure
            self.say(str(err), colour=_YELLOW)
            return
        if self.options.debug:
            import traceback

            traceback.print_exception(err, file=self.screen)
        self.say(f"error: {err}", colour=_RED)
        if text and err.line and err.col:
            lines = text.split("\n")
            if 1 <= err.line <= len(lines) and (len(lines) > 1 or len(text) > 60):
                self.say("  " + lines[err.line - 1])
                self.say("  " + " " * (err.col - 1) + "^")

    def say(self, text: str, colour: str | None = None, dim: bool = False) -> None:
        if self.colour and (colour or dim):
            text = (colour or _DIM) + text + _RESET
        self.screen.write(text + "\n")
        self.screen.flush()

    def _clear_progress(self) -> None:
        clear = getattr(self.session.progress, "clear", None)
        if clear is not None:
            clear()

    # --- pager -----------------------------------------------------------------------------------

    def pager_command(self) -> str | None:
        choice = self.settings.pager.strip()
        if choice.lower() in ("off", "none", "no", "false"):
            return None
        return choice or os.environ.get("PAGER") or DEFAULT_PAGER

    def terminal_size(self) -> tuple[int, int]:
        """(rows, columns) of the screen."""
        try:
            size = os.get_terminal_size(self.screen.fileno())
            return size.lines, size.columns
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return 24, 80

    def page(self, text: str, wide_pages: bool = True) -> None:
        """Print `text`, through the pager when it is taller than the screen (or, for rows,
        wider: ``less -S`` scrolls sideways; an EXPLAIN shorter than the screen is printed)."""
        if not text:
            return
        command = self.pager_command() if self.is_terminal else None
        if command:
            if self.too_big(text, wide_pages):
                self.run_pager(command, text)
                return
        self.screen.write(text)
        self.screen.flush()

    def too_big(self, text: str, wide: bool = True) -> bool:
        """Taller than the screen (less the prompt and toolbar), or (`wide`) wider than it."""
        from prompt_toolkit.utils import get_cwidth

        rows, columns = self.terminal_size()
        if text.count("\n") > rows - 3:
            return True
        return wide and any(get_cwidth(line) > columns for line in text.splitlines())

    def run_pager(self, command: str, text: str) -> None:
        env = dict(os.environ)
        env.setdefault("LESS", "-SRXF")
        self.screen.flush()
        try:
            proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
        except OSError:
            self.screen.write(text)
            return
        try:
            proc.communicate(text.encode("utf-8"))
        except (BrokenPipeError, KeyboardInterrupt):
            pass
        while True:  # Ctrl-C belongs to the pager while it runs
            try:
                proc.wait()
                break
            except KeyboardInterrupt:
                continue

    def history(self) -> list[str]:
        """The history, oldest first (as prompt_toolkit gives it)."""
        return list(self.prompt_session.history.get_strings())

    # --- \o --------------------------------------------------------------------------------------

    def open_output(self, path: str) -> None:
        self.output_file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by \o
        self.output_path = path

    def close_output(self) -> None:
        if self.output_file is not None:
            try:
                self.output_file.close()
            except OSError:  # the file is closed anyway; a failed write was reported then
                pass
        self.output_file = None
        self.output_path = None

    # --- asking (the guards' questions: a large Scan, a write of many items) -----------------

    def ask(self, question: str) -> str:
        if self._confirm_session is None:
            self._confirm_session = PromptSession(input=self.input, output=self.output)
        try:
            return self._confirm_session.prompt(question)
        except (KeyboardInterrupt, EOFError):
            return ""


def _one(produce: Callable[[], Result]) -> Iterator[Result]:
    yield produce()


__all__ = ["Repl", "buffer_complete", "open_history", "trim_history"]
