"""Backslash commands: one registry; each command returns `Result`s the way a SQL statement
does (rows, or a status line), so the REPL has one renderer for both.

A command is a function ``(repl, arg) -> Result | Iterable[Result] | None``; ``arg`` is the
rest of the line, stripped (a trailing ``;`` is dropped). Bad usage raises `CommandError`,
shown as ``error: ...`` like any other.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql.errors import DynosqlError, ReplCommandError, SqlError
from dynosql.process import read_script
from dynosql.result import Result, counted
from dynosql.settings import SETTINGS, Setting, SettingError, Switch

if TYPE_CHECKING:
    from dynosql.repl.state import ReplState as Repl


class CommandError(DynosqlError):
    """A backslash command used the wrong way."""


@dataclass(frozen=True)
class Command:
    name: str
    args: str  # usage of the argument, e.g. "[on|off]"
    help: str
    run: Callable[[Repl, str], Result | Iterable[Result] | None]
    complete: str | None = None  # what the argument is: table, format, onoff, path
    # what a script does instead, given the command's argument ("write SHOW TABLES"); None:
    # nothing in a script stands for it
    script: Callable[[str], str] | None = None


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    args: str = "",
    complete: str | None = None,
    script: str | Callable[[str], str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command; `script` says what a script writes instead (a text, or a function
    of the argument), for the error a backslash command gets outside the REPL."""
    instead = (lambda _arg, text=script: text) if isinstance(script, str) else script

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        doc = (func.__doc__ or "").strip().splitlines()[0].rstrip(".")
        COMMANDS[name] = Command(name, args, doc, func, complete, instead)
        return func

    return register


def in_a_script(error: ReplCommandError) -> SqlError:
    """The error for a backslash command in a script, saying what the script writes instead."""
    found = COMMANDS.get(error.command)
    if found is None:
        what = f"{error.command} is not SQL, and not a command of the REPL either (\\? lists them)"
    elif found.script is None:
        what = f"{error.command} is a command of the REPL, with no equivalent in a script"
    else:
        what = (
            f"{error.command} is a command of the REPL: in a script, {found.script(error.argument)}"
        )
    return SqlError(what, error.line, error.col)


def split(text: str) -> tuple[str, str]:
    """``\\format json;`` -> (``\\format``, ``json``)."""
    text = text.strip()
    name, _, arg = text.partition(" ")
    if "\t" in name:
        name, _, more = name.partition("\t")
        arg = more + " " + arg
    arg = arg.strip()
    while arg.endswith(";"):
        arg = arg[:-1].rstrip()
    if name.endswith(";"):
        name = name.rstrip(";")
    return name, arg


def lookup(name: str) -> Command:
    if name in COMMANDS:
        return COMMANDS[name]
    raise CommandError(f"unknown command {name} (\\? lists the commands)")


def status(text: str) -> Result:
    return Result.status(text)


def _switch(arg: str, current: bool, what: str) -> bool:
    """``on``/``off`` (the words a switch setting takes), or no argument to toggle."""
    if not arg:
        return not current
    try:
        return bool(Switch().parse(arg))
    except ValueError:
        raise CommandError(f"{what} takes on or off, not {arg!r}") from None


def _table_name(arg: str) -> str:
    if len(arg) >= 2 and arg[0] == arg[-1] == '"':
        return arg[1:-1].replace('""', '"')
    return arg


# --- the commands --------------------------------------------------------------------------------


@command("\\?", script="dynosql --help lists the flags, and grammar/README.md the statements")
def help_(repl: Repl, arg: str) -> Result:
    """Show the commands and keys."""
    rows = [{"command": f"{c.name} {c.args}".strip(), "does": c.help} for c in COMMANDS.values()]
    rows += [
        {"command": "SELECT … ;", "does": "Run SQL; Enter inside a statement continues it"},
        {"command": "EXPLAIN [ANALYZE] …", "does": "Show the DynamoDB requests (and run them)"},
        {"command": "SHOW TABLES · DESCRIBE t", "does": "Tables, and one table's keys and indexes"},
        {
            "command": "SHOW HOT KEYS FROM t",
            "does": "Items per partition key (a Scan); WITH SIZES: bytes too",
        },
        {"command": "SET name = value", "does": "Change a setting (\\settings lists them)"},
        {"command": "Tab · Ctrl-R", "does": "Complete · search the history"},
        {"command": "Ctrl-C · Ctrl-D", "does": "Cancel the statement or read · leave"},
        {"command": "Ctrl-X Ctrl-E", "does": "Edit the statement in $EDITOR"},
    ]
    return Result(["command", "does"], iter(rows), show_footer=False)


@command("\\q", script="the script ends after its last statement")
def quit_(repl: Repl, arg: str) -> None:
    """Leave (Ctrl-D does too)."""
    repl.done = True


@command("\\dt", "[PATTERN]", script="write SHOW TABLES")
def tables(repl: Repl, arg: str) -> Result:
    """List the tables (PATTERN: a glob such as 'aud*')."""
    names = repl.session.tables(arg or None)
    return Result(["table"], iter([{"table": n} for n in names]))


@command("\\dt+", "[PATTERN]", script="write SHOW TABLES, and DESCRIBE t for each table")
def tables_plus(repl: Repl, arg: str) -> Result:
    """List the tables with their keys, indexes, items and size."""
    from decimal import Decimal

    names = list(tables(repl, arg).rows)
    rows = []
    for row in names:
        info = repl.session.table(row["table"], fresh=True)  # as DESCRIBE: as it is now
        rows.append(
            {
                "table": info.name,
                "partition key": f"{info.keys.pk} ({info.keys.pk_type})",
                "sort key": f"{info.keys.sk} ({info.keys.sk_type})" if info.keys.sk else "",
                "indexes": ", ".join(ix.name for ix in info.indexes if ix.name),
                "items": Decimal(info.item_count),
                "bytes": Decimal(info.size_bytes),
            }
        )
    columns = ["table", "partition key", "sort key", "indexes", "items", "bytes"]
    return Result(columns, iter(rows))


@command(
    "\\d",
    "[TABLE]",
    complete="table",
    script=lambda arg: f"write DESCRIBE {arg}" if arg else "write SHOW TABLES",
)
def describe(repl: Repl, arg: str) -> Result:
    """Describe a table: keys, types, indexes with projections, items, size.

    An entity's name describes the entity (its columns, key roles and templates), as
    DESCRIBE does."""
    if not arg:
        return tables(repl, "")
    name = _table_name(arg)
    if repl.session.entity(name) is not None:
        from dynosql.sql import ast

        return repl.session.run_statement(ast.DescribeEntity(name))
    from dynosql.statements.show import describe_result

    return describe_result(repl.session.table(name, fresh=True))  # as DESCRIBE


@command(
    "\\x",
    "[on|off]",
    complete="onoff",
    script="write SET format = vertical, or give --format vertical",
)
def expanded(repl: Repl, arg: str) -> Result:
    """Toggle vertical output (one block per row)."""
    settings = repl.settings
    on = _switch(arg, settings.format == "vertical", "\\x")
    if on and settings.format != "vertical":
        repl.format_before_x = settings.format
        settings.format = "vertical"
    elif not on and settings.format == "vertical":
        settings.format = repl.format_before_x or "table"
    return status(f"expanded display is {'on' if on else 'off'}")


@command(
    "\\i", "FILE", complete="path", script=lambda arg: f"give the file with -f {arg or 'FILE'}"
)
def include(repl: Repl, arg: str) -> Iterator[Result]:
    """Run the statements of a .sql file (it never asks before a Scan)."""
    if not arg:
        raise CommandError("\\i takes a file name")
    path = os.path.expanduser(_unquote_path(arg))
    try:
        with open(path, encoding="utf-8") as f:
            script = read_script(f, path)
    except OSError as err:
        raise CommandError(f"cannot read {path}: {err.strerror}") from err
    except DynosqlError as err:
        raise CommandError(str(err)) from err
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text") from None
    return repl.session.run(script)


@command(
    "\\undo",
    "[FILE]",
    complete="path",
    script=lambda arg: f"write UNDO '{arg}'" if arg else "write UNDO LAST",
)
def undo(repl: Repl, arg: str) -> Result:
    """Undo the newest write's journal (or FILE's), after saying what it will restore."""
    if arg:
        return repl.session.undo(os.path.expanduser(_unquote_path(arg)))
    return repl.session.undo(last=True)


@command(
    "\\o",
    "[FILE]",
    complete="path",
    script=lambda arg: f"send the output to a file: dynosql … > {arg or 'FILE'}",
)
def output(repl: Repl, arg: str) -> Result:
    """Send results to FILE (overwritten); without FILE, back to the screen."""
    repl.close_output()
    if not arg:
        return status("results go to the screen")
    path = os.path.expanduser(_unquote_path(arg))
    try:
        repl.open_output(path)
    except OSError as err:
        raise CommandError(f"cannot write {path}: {err.strerror}") from err
    return status(f"results go to {path}")


@command("\\e")
def edit(repl: Repl, arg: str) -> Result | None:
    """Edit the last statement in $EDITOR; it comes back at the prompt."""
    text = arg or repl.last_statement
    edited = edit_text(text)
    if edited is None:
        raise CommandError("the editor failed; nothing changed")
    repl.next_default = edited.rstrip("\n")
    return None


def _bind_in_a_script(arg: str) -> str:
    name, _, value = arg.partition(" ")
    return f"give -v {name.lstrip(':') or 'NAME'}={value.strip() or 'VALUE'}"


@command("\\set", "[NAME [VALUE]]", script=_bind_in_a_script)
def set_param(repl: Repl, arg: str) -> Result:
    """Bind :NAME to VALUE (a number if it reads as one); alone, list the parameters."""
    from dynosql.render import json_text
    from dynosql.session import parse_param

    def shown(name: str) -> str:  # ?1: the first ? of a statement (\set 1 VALUE, \set ?1 …)
        return f"?{name}" if name.isdigit() else f":{name}"

    session = repl.session
    if not arg:
        rows = [{"name": shown(k), "value": json_text(v)} for k, v in session.params.items()]
        return Result(["name", "value"], iter(rows))
    name, _, value = arg.partition(" ")
    name = name.lstrip(":?")
    if not value.strip():
        session.params.pop(name, None)
        return status(f"{shown(name)} unset")
    key, parsed = parse_param(f"{name}={value.strip()}")
    session.params[key] = parsed
    return status(f"{shown(key)} = {json_text(parsed)}")


@command(
    "\\settings",
    script="SET name = value changes a setting, and dynosql --help lists them as flags",
)
def settings(repl: Repl, arg: str) -> Result:
    """Show the settings (SET name = value changes them)."""
    return repl.session.settings_result()


@command("\\refresh", script="each run reads the tables afresh: leave it out")
def refresh(repl: Repl, arg: str) -> Result:
    """Forget cached tables and attribute names (completion reads them again)."""
    repl.metadata.refresh()
    return status("table and attribute names will be read again")


def _setting_command(setting: Setting) -> None:
    """``\\name [VALUE]`` for a setting of the table: alone it shows the value (a switch
    toggles), with a value it sets it through the session, as SET does."""

    def run(repl: Repl, arg: str) -> Result:
        session = repl.session
        if not arg:
            if not isinstance(setting.kind, Switch):
                words = setting.kind.words
                choices = f" (choices: {', '.join(words)})" if words else ""
                return status(f"{setting.name} is {session.settings.show(setting.name)}{choices}")
            arg = "off" if getattr(session.settings, setting.name) else "on"
        try:
            session.set(setting.name, arg)
        except SettingError as err:
            raise CommandError(str(err)) from err
        return status(f"{setting.name} is {session.settings.show(setting.name)}")

    def instead(arg: str) -> str:
        """SET, or the flag (a switch's flag turns it on)."""
        switch = isinstance(setting.kind, Switch)
        value = arg or ("on" if switch else "VALUE")
        flag = setting.flag if not switch else setting.flag if value == "on" else None
        flag = f"{flag} {value}" if flag and not switch else flag
        return f"write SET {setting.name} = {value}" + (f", or give {flag}" if flag else "")

    run.__doc__ = setting.help[0].upper() + setting.help[1:]
    usage = "[on|off]" if isinstance(setting.kind, Switch) else "[VALUE]"
    complete = f"setting:{setting.name}"
    command(str(setting.command), usage, complete, instead)(run)


for _setting in SETTINGS:
    if _setting.command:
        _setting_command(_setting)


# --- helpers -------------------------------------------------------------------------------------


def _unquote_path(arg: str) -> str:
    try:
        parts = shlex.split(arg)
    except ValueError:
        return arg
    return parts[0] if len(parts) == 1 else arg


def editor_command() -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(editor)


def edit_text(text: str) -> str | None:
    """`text` after the user edited it in $VISUAL/$EDITOR (None if the editor failed)."""
    fd, path = tempfile.mkstemp(prefix="dynosql-", suffix=".sql")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + ("\n" if text and not text.endswith("\n") else ""))
        try:
            code = subprocess.call([*editor_command(), path])
        except OSError:
            return None
        if code != 0:
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()
    finally:
        os.unlink(path)


def help_texts() -> dict[str, str]:
    return {name: c.help for name, c in COMMANDS.items()}


def argument_kinds() -> dict[str, str]:
    return {name: c.complete for name, c in COMMANDS.items() if c.complete}


# --- named queries, \watch, \h, \s (the dbcli family's habits) ------------------------------------


@command("\\n", "[NAME [ARG …]]")
def named_query(repl: Repl, arg: str) -> Result | Iterator[Result]:
    """Run a named query ($1 … from ARGs, name=value binds :name); alone, list them."""
    from dynosql.repl import named

    if not arg:
        return Result(["name", "query"], iter(named.rows()))
    try:
        name, *args = shlex.split(arg)
    except ValueError as err:
        raise CommandError(f"\\n: {err}") from None
    sql = named.load().get(name)
    if sql is None:
        saved = ", ".join(named.load()) or "none saved yet (\\ns name SQL)"
        raise CommandError(f"no named query {name} ({saved})")
    try:
        text, values = named.fill(name, sql, args)
    except ValueError as err:
        raise CommandError(str(err)) from None
    return _run_text(repl, text, values)


@command("\\ns", "NAME SQL")
def named_save(repl: Repl, arg: str) -> Result:
    """Save SQL as a named query (in the config directory, 0600)."""
    from dynosql.repl import named

    name, _, sql = arg.partition(" ")
    if not name:
        raise CommandError("\\ns takes a name and a query: \\ns name SELECT …")
    try:
        named.save(name, sql)
    except (ValueError, OSError) as err:
        raise CommandError(str(err)) from None
    return status(f"saved {name}")


@command("\\nd", "NAME")
def named_delete(repl: Repl, arg: str) -> Result:
    """Delete a named query."""
    from dynosql.repl import named

    if not arg:
        raise CommandError("\\nd takes the name of a query")
    if not named.delete(arg):
        raise CommandError(f"no named query {arg}")
    return status(f"deleted {arg}")


def _run_text(repl: Repl, text: str, params: dict[str, str]) -> Iterator[Result]:
    """Run SQL as if typed (it becomes the last statement: \\e and \\watch see it), with
    `params` (``name=value`` texts) bound like ``-v``."""
    from dynosql.session import parse_param

    bound = dict(parse_param(f"{k}={v}") for k, v in params.items())
    repl.last_statement = text
    yield from repl.session.run(text, bound or None)


@command("\\watch", "[SECONDS [TIMES]]", script="run the command again (watch -n 2 dynosql -e …)")
def watch(repl: Repl, arg: str) -> Iterator[Result]:
    """Run the last statement every SECONDS (2) until Ctrl-C, with each run's capacity."""
    text = repl.last_statement
    if not text:
        raise CommandError("\\watch runs the last statement, and there is none yet")
    parts = arg.split()
    try:
        seconds = float(parts[0]) if parts else 2.0
        times = int(parts[1]) if len(parts) > 1 else None
    except ValueError:
        raise CommandError("\\watch takes the seconds between runs (and how many runs)") from None
    if seconds < 0 or len(parts) > 2 or (times is not None and times < 1):
        raise CommandError("\\watch takes the seconds between runs (and how many runs)")
    total, runs = Decimal(0), 0
    estimated = False
    try:
        while times is None or runs < times:
            if runs:
                repl.session.pause(seconds)
            runs += 1
            for result in repl.session.run(text):
                yield result  # shown (and its rows read) before this resumes
                total += result.stats.capacity
                estimated = estimated or result.stats.capacity_estimated
                yield status(
                    f"run {runs}: {result.stats.capacity_text()} · total {_rcu(total, estimated)}"
                )
    except KeyboardInterrupt:
        pass
    yield status(f"\\watch stopped after {counted(runs, 'run')}: {_rcu(total, estimated)} in all")


def _rcu(total: Decimal, estimated: bool) -> str:
    return f"~{total.normalize():f} RCU est." if estimated else f"{total.normalize():f} RCU"


@command("\\h", "[STATEMENT]", script="grammar/README.md gives each statement's syntax")
def syntax(repl: Repl, arg: str) -> Result:
    """Show a statement's syntax from grammar/README.md (help SELECT does too)."""
    from dynosql.repl import grammar_help

    try:
        lines = grammar_help.syntax(arg)
    except LookupError as err:
        raise CommandError(str(err)) from None
    return Result(["syntax"], iter({"syntax": line} for line in lines), show_footer=False)


@command("\\s", "[N]")
def history(repl: Repl, arg: str) -> Result:
    """Show the history (the newest N entries; all without N)."""
    entries = repl.history()
    if arg:
        if not arg.isdigit():
            raise CommandError("\\s takes a number of entries")
        entries = entries[-int(arg) :] if int(arg) else []
    first = len(repl.history()) - len(entries) + 1
    rows = [{"#": Decimal(first + i), "statement": e} for i, e in enumerate(entries)]
    return Result(["#", "statement"], iter(rows), show_footer=False)
