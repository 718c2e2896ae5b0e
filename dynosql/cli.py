"""The ``dynosql`` command: a thin layer over ``dynosql.Session``.

stdout carries data only; warnings, footers and errors go to stderr, so pipelines stay clean.
Exit codes: 0 all statements succeeded; 1 a statement failed; 2 bad command-line usage;
3 refused by a guard (--fail-on-scan, --max-rcu); 130 interrupted.

This module imports neither boto3 nor moto at the top: ``--version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

from dynosql.errors import DynosqlError, GuardError, ReplCommandError, internal_error_text
from dynosql.process import (
    GuardedOutput,
    OutputError,
    check_output,
    collect_less_at_start,
    discard_output,
    interrupt_code,
    read_script,
    settled,
    sigterm_as_interrupt,
)
from dynosql.result import interrupted_text, plural
from dynosql.settings import Settings, add_arguments, from_arguments
from dynosql.version import __version__

if TYPE_CHECKING:
    from dynosql.session import Session

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2  # 3, 130, 143: errors.exit_code, process.py

EPILOG = """\
examples:
  dynosql --local                                   the REPL on the embedded example tables
  dynosql --local --model shop.json                 ... on a NoSQL Workbench model's tables
  dynosql --local -e "SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva' ORDER BY SK DESC LIMIT 5"
  dynosql --local -e "SHOW HOT KEYS FROM sensors LIMIT 5"
  dynosql --local -f examples/drive.sql --format jsonl > out.jsonl
  dynosql --local --explain -f patterns.sql        plan each statement: its operation, key and RCU
  echo "SELECT COUNT(*) FROM drive;" | dynosql --local --format csv
  dynosql --profile prod --region eu-west-1 --fail-on-scan -f report.sql -v day=2026-11-30
  dynosql --endpoint-url http://localhost:8000 -e "SHOW TABLES"
  dynosql --local --dry-run -e "DELETE FROM audit WHERE PK = 'ACTOR#ana.silva'"
  dynosql --local --yes --journal undo.jsonl -e "UPDATE drive SET size = size + 1"
  dynosql --local undo undo.jsonl                   put back what a write changed
  dynosql undo --last                               undo the newest write (asks first)

exit codes: 0 ok, 1 a statement failed, 2 bad usage, 3 refused by a guard, 130 interrupted,
  143 terminated (SIGTERM)
"""


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every other error (exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"error: {message} (see dynosql --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="dynosql",
        description="SQL over Amazon DynamoDB, compiled to the cheapest GetItem, "
        "BatchGetItem, Query or Scan calls, with the capacity each statement consumed.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"dynosql {__version__}")
    conn = p.add_argument_group("connection")
    conn.add_argument(
        "--local",
        action="store_true",
        help="run an embedded DynamoDB (moto, in-process) loaded with the example datasets",
    )
    conn.add_argument(
        "--model",
        action="append",
        metavar="FILE.json",
        default=[],
        help="with --local: start the embedded DynamoDB with a NoSQL Workbench model's tables, "
        "indexes and items instead of the examples, its facets declared as entities "
        "(repeatable; on another endpoint: IMPORT MODEL 'FILE.json')",
    )
    conn.add_argument(
        "--print-endpoint",
        action="store_true",
        help="with --local: print the embedded DynamoDB's URL on stdout (its region and "
        "credentials on stderr) and serve it, for boto3 or the AWS CLI, until Ctrl-C",
    )
    conn.add_argument(
        "--endpoint-url", metavar="URL", help="DynamoDB endpoint (e.g. a local server)"
    )
    conn.add_argument("--region", help="AWS region (default: AWS_REGION / the profile's)")
    conn.add_argument("--profile", help="AWS profile (default: AWS_PROFILE)")
    src = p.add_argument_group("input")
    src.add_argument(
        "-e", "--execute", action="append", metavar="SQL", default=[], help="run SQL (repeatable)"
    )
    src.add_argument("-f", "--file", metavar="FILE", help="run a .sql script ('-' for stdin)")
    src.add_argument(
        "--explain",
        action="store_true",
        help="plan every statement instead of running it (only DescribeTable is sent): one row "
        "each with its leading comment, operation, key condition, estimated RCU and whether it "
        "would Scan; exit 3 if any would (access patterns checked in CI)",
    )
    src.add_argument(
        "--schema",
        action="append",
        metavar="FILE",
        default=[],
        help="declare the CREATE ENTITY statements of FILE at start (repeatable; also "
        "schema = [...] in the config file); the REPL offers to append new ones to the last",
    )
    src.add_argument(
        "-v",
        "--var",
        action="append",
        metavar="NAME=VALUE",
        default=[],
        help="bind :NAME (a number if it reads as one, else a string); NAME:=JSON for a typed value",
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "-q", "--quiet", action="store_true", help="no footer, warnings or notes on stderr"
    )
    writes = p.add_argument_group("writes")
    writes.add_argument(
        "--yes",
        action="store_true",
        help="answer yes where a script cannot be asked: writes that need a confirmation (no "
        "WHERE, a Scan, more than --confirm-over items) and DROP TABLE",
    )
    writes.add_argument(
        "--journal",
        metavar="FILE",
        help="append the undo journal of every write to FILE (default: a new file per "
        "statement in $XDG_STATE_HOME/dynosql/journal)",
    )
    add_arguments(p.add_argument_group("settings (also SET name = value, and the config file)"))
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def entry() -> None:
    """The ``dynosql`` command and ``python -m dynosql``: `main` as a process of its own."""
    collect_less_at_start()
    sys.exit(main())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = _undo_command(list(sys.argv[1:] if argv is None else argv), parser)
    args = parser.parse_args(argv)
    try:
        return _main(parser, args)
    except KeyboardInterrupt as interrupt:
        _err("interrupted")
        return interrupt_code(interrupt)
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_OK


def _main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.local and args.endpoint_url:
        parser.error("--local and --endpoint-url exclude each other")
    if args.execute and args.file:
        parser.error("give SQL with -e or -f, not both")
    if args.model and not args.local:
        parser.error(
            "--model starts the embedded DynamoDB with a model: it needs --local (on another "
            "endpoint: IMPORT MODEL 'FILE.json')"
        )
    if args.print_endpoint and not args.local:
        parser.error("--print-endpoint prints the embedded DynamoDB's URL: it needs --local")
    if args.print_endpoint and (args.execute or args.file):
        parser.error("--print-endpoint serves the embedded DynamoDB until Ctrl-C: no -e or -f")
    params: dict[str, Any] = {}
    from dynosql.session import parse_param

    for text in args.var:
        try:
            name, value = parse_param(text)
        except ValueError as err:
            parser.error(str(err))
        params[name] = value

    if args.print_endpoint:
        return _serve(args)
    scripts = _scripts(args)
    interactive = scripts is None
    if args.explain and interactive:
        parser.error("--explain plans a script: give it with -f FILE or -e SQL")
    parsed: list[Any] = []
    names: list[Any] = []  # --explain: where each statement is and its leading comment
    if scripts is not None:
        try:
            check_output(sys.stdout)
        except DynosqlError as err:
            return _fail(err, args)
        # parse everything before the first request: a typo on the last line costs nothing;
        # a script run before is found parsed on disk (sql/cache.py: no sqlglot to import)
        from dynosql.sql import parse_script

        for label, script in scripts:
            try:
                parsed.extend(parse_script(script, across_runs=True))
            except ReplCommandError as err:  # \dt in a script: what to write instead
                from dynosql.repl.commands import in_a_script

                return _fail(in_a_script(err), args, prefix=label)
            except DynosqlError as err:
                return _fail(err, args, prefix=label)
            if args.explain:
                from dynosql.access_patterns import named

                names.extend(named(script))
    settings, config = _settings(args, interactive)
    try:
        session = _connect(args, params, settings)
    except DynosqlError as err:
        return _fail(err, args)
    _doors(session, args, interactive)
    try:
        try:
            session.load_schemas([*config.schema, *map(_script_path, args.schema)])
        except DynosqlError as err:
            return _fail(err, args)
        if args.explain:
            from dynosql.access_patterns import check

            return check(session, parsed, names, sys.stdout, sys.stderr, args.quiet)
        if interactive:
            from dynosql.repl import ReplOptions, run_repl

            return run_repl(session, ReplOptions(quiet=args.quiet, debug=args.debug), config)
        # a script stops on SIGTERM as on Ctrl-C (the REPL keeps the default: it ends)
        with sigterm_as_interrupt():
            return run_statements(session, parsed, args, sys.stdout, sys.stderr)
    finally:
        session.close()


def _serve(args: argparse.Namespace) -> int:
    """``--local --print-endpoint``: the embedded DynamoDB, loaded with the examples, until
    Ctrl-C or SIGTERM; its URL alone on stdout (for ``$(…)``), how to reach it on stderr."""
    settings, _config = _settings(args, interactive=False)
    try:
        session = _connect(args, {}, settings)
    except DynosqlError as err:
        return _fail(err, args)
    try:
        local = session.embedded
        assert local is not None
        print(local.endpoint_url, flush=True)
        if not args.quiet:
            _err(
                f"serving the embedded DynamoDB at {local.connection_text()} until Ctrl-C; e.g. "
                f"AWS_ACCESS_KEY_ID=dynosql-local AWS_SECRET_ACCESS_KEY=dynosql-local aws "
                f"dynamodb list-tables --endpoint-url {local.endpoint_url} --region "
                f"{local.region}"
            )
        with sigterm_as_interrupt():
            threading.Event().wait()  # until KeyboardInterrupt or Terminated
    finally:
        session.close()
    return EXIT_OK  # pragma: no cover - the wait ends only by an interruption


UNDO_FLAGS = {"--force-target": "FORCE TARGET", "--force-damaged": "FORCE DAMAGED"}
UNDO_USAGE = "dynosql undo {FILE | --last} [--force-target] [--force-damaged] [options]"
UNDO_HELP = f"""\
usage: {UNDO_USAGE}

Put back what a write changed, from its undo journal (every write's footer names it). An item
changed since the write, or one the table cannot take since its keys or indexes changed, is
listed and left alone, and undo exits 3; an item already restored needs nothing, so a second
undo writes nothing. Undo asks first on a terminal; a script needs --yes.

arguments:
  FILE             the journal to undo
  --last           the last write's journal: the --journal file, else the last journal of a
                   write in the journal directory (by its sequence number, not the clock)
  --force-target   undo here a journal written against another endpoint, region or table
  --force-damaged  undo what can be read of a journal whose lines are missing or edited
  options          dynosql's own, before or after the word undo (--local, --endpoint-url,
                   --yes, --journal, --max-wcu, ...): see dynosql --help
"""


def _undo_command(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``dynosql [options] undo {FILE | --last} [--force-target] [--force-damaged] [options]``
    is ``dynosql -e "UNDO 'FILE'" [options]`` (``UNDO LAST``, ``FORCE TARGET``, …): the word
    ``undo`` is the first argument that is neither an option nor an option's value. Undo's own
    flags go before or after the word; ``undo --help`` prints undo's help."""
    at = _first_positional(argv, parser, 0)
    if at is None or argv[at] != "undo":
        return argv
    before, after = argv[:at], argv[at + 1 :]
    if any(a in ("-h", "--help") for a in after):
        print(UNDO_HELP, end="")
        raise SystemExit(EXIT_OK)
    mine = {*UNDO_FLAGS, "--last"}
    forced = [UNDO_FLAGS[a] for a in before + after if a in UNDO_FLAGS]
    last = "--last" in before + after
    before = [a for a in before if a not in mine]
    rest = before + [a for a in after if a not in mine]
    where = _first_positional(rest, parser, len(before))
    if (where is None) == (not last):
        _err(f"error: dynosql undo takes a journal file or --last: {UNDO_USAGE}")
        raise SystemExit(EXIT_USAGE)
    if last:
        target = "LAST"
    else:
        assert where is not None
        target = "'" + rest.pop(where).replace("'", "''") + "'"
    return ["-e", " ".join(["UNDO", target, *dict.fromkeys(forced)]), *rest]


def _first_positional(argv: list[str], parser: argparse.ArgumentParser, start: int) -> int | None:
    """The index of the first argument from `start` that is not an option or its value."""
    takes_value = {
        option
        for action in parser._actions
        if action.nargs != 0
        for option in action.option_strings
    }
    i = start
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return i + 1 if i + 1 < len(argv) else None
        if arg.startswith("-") and arg != "-":
            if arg in takes_value:
                i += 1  # its value
            i += 1
            continue
        return i
    return None


def _scripts(args: argparse.Namespace) -> list[tuple[str | None, str]] | None:
    """The scripts to run, or None for the REPL (a terminal and no SQL given)."""
    if args.execute:
        many = len(args.execute) > 1
        return [(f"-e #{i}" if many else None, sql) for i, sql in enumerate(args.execute, 1)]
    if args.file:
        if args.file == "-":
            return [(None, _read(sys.stdin, "standard input"))]
        try:
            with open(_script_path(args.file), encoding="utf-8") as f:
                return [(None, _read(f, args.file))]
        except OSError as err:
            _err(f"error: cannot read {args.file}: {err.strerror} (see dynosql --help)")
            raise SystemExit(EXIT_USAGE) from None
        except UnicodeDecodeError:
            _err(f"error: {args.file} is not UTF-8 text")
            raise SystemExit(EXIT_FAILED) from None
    if not sys.stdin.isatty():
        return [(None, _read(sys.stdin, "standard input"))]
    return None


def _read(stream: Any, label: str) -> str:
    try:
        return read_script(stream, label)
    except DynosqlError as err:
        _err(f"error: {err}")
        raise SystemExit(err.exit_code) from None


def _settings(args: argparse.Namespace, interactive: bool) -> tuple[Settings, Any]:
    """The config file's settings (written with its commented defaults on the REPL's first
    run) under the command line's flags."""
    from dynosql import config as config_module

    config = config_module.load(create=interactive)
    if not args.quiet and not interactive:  # the REPL shows them under its banner
        for warning in config.warnings:
            _err(f"warning: {warning}")
    return from_arguments(args, config.settings), config


def _script_path(path: str) -> str:
    """`path`, or, for ``examples/NAME.sql`` that is not here, the copy installed with
    dynosql (so the examples `--help` shows work from any directory)."""
    if os.path.exists(path):
        return path
    parts = os.path.normpath(path).split(os.sep)
    if len(parts) == 2 and parts[0] == "examples" and parts[1].endswith(".sql"):
        packaged = os.path.join(os.path.dirname(__file__), "examples", parts[1])
        if os.path.exists(packaged):
            return packaged
    return path


def _connect(args: argparse.Namespace, params: dict[str, Any], settings: Settings) -> Any:
    from dynosql.session import Session

    progress = Progress(sys.stderr) if sys.stderr.isatty() and not args.quiet else None
    if args.local:
        session = Session.local(
            load_examples=not args.model, settings=settings, params=params, progress=progress
        )
        try:
            notes = session.load_models(args.model)
        except BaseException:
            session.close()
            raise
        if not args.quiet:
            for note in notes:
                _err(f"note: {note}")
    else:
        session = Session(
            endpoint_url=args.endpoint_url,
            region=args.region,
            profile=args.profile,
            settings=settings,
            params=params,
            progress=progress,
        )
    settled()  # the statements, the REPL or --print-endpoint's server: collected as usual
    return session


def run_statements(
    session: Session, statements: list[Any], args: argparse.Namespace, out: TextIO, err: TextIO
) -> int:
    """Run parsed statements in order; stop at the first failure (earlier output stays)."""
    from dynosql.render import render

    out = GuardedOutput(out)  # type: ignore[assignment]
    for statement in statements:
        result = None
        try:
            result = session.run_statement(statement)
            if not args.quiet:
                for warning in result.warnings:
                    print(f"warning: {warning}", file=err)
            render(result, session.settings.format, out)
            out.flush()
        except KeyboardInterrupt as interrupt:
            session.cancel()  # workers stop; a request that never answers is left behind
            if session.progress is not None:
                session.progress.clear()
            print(interrupted_text(result), file=err)
            written = session.last_write
            if result is None and written is not None and written.journal:
                print(
                    f"note: what was written is in the journal {written.journal} "
                    f"(dynosql undo {written.journal} puts it back)",
                    file=err,
                )
            return interrupt_code(interrupt)
        except BrokenPipeError:
            raise
        except DynosqlError as error:
            if session.progress is not None:
                session.progress.clear()
            if isinstance(error, OutputError):  # a full disk, /dev/full: stop reading too
                session.cancel()
                discard_output()
                return _fail(error, args)
            out.flush()
            return _fail(error, args)
        except Exception as error:  # a bug: one line, unless --debug
            out.flush()
            if args.debug:
                raise
            print(internal_error_text(error, debug=False), file=err)
            return EXIT_FAILED
        if session.progress is not None:
            session.progress.clear()
        if not args.quiet:
            for note in result.notes:
                print(f"note: {note}", file=err)
            print(result.footer(), file=err)
        if result.incomplete:
            print(f"error: {result.incomplete}", file=err)
            return GuardError.exit_code
    if session.in_transaction:
        print("error: BEGIN without COMMIT: the queued writes were not sent", file=err)
        return EXIT_FAILED
    return EXIT_OK


def _doors(session: Session, args: argparse.Namespace, interactive: bool) -> None:
    """How the session asks before a write that needs a yes or DROP TABLE (the REPL asks its
    own way; a script on a terminal asks there; elsewhere only --yes says yes), and says
    things before a result (CREATE INDEX's backfill cost)."""
    session.assume_yes = args.yes
    session.journal_file = args.journal
    if not interactive and sys.stdin.isatty():
        session.confirm = _ask_on_terminal
    if not args.quiet:
        session.notice = lambda text: _err(f"note: {text}")


def _ask_on_terminal(question: str) -> bool:
    """A confirmation (a large write, DROP TABLE), asked on the terminal (stderr, so stdout
    stays data)."""
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (KeyboardInterrupt, EOFError):
        return False
    return answer.strip().lower() in ("y", "yes")


def _fail(error: DynosqlError, args: argparse.Namespace, prefix: str | None = None) -> int:
    if args.debug:
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    text = f"{prefix}: {error}" if prefix else str(error)
    _err(f"error: {text}")
    return error.exit_code


def _err(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (BrokenPipeError, ValueError):
        pass


def _quiet_broken_pipe() -> None:
    """`dynosql … | head`: the reader left; say nothing and leave no flush error behind."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


class Progress:
    """One self-overwriting line on a terminal's stderr during long reads."""

    def __init__(self, stream: TextIO, every: float = 0.25):
        import threading

        self.lock = threading.Lock()  # parallel segments report from several threads
        self.stream = stream
        self.every = every
        self.last = 0.0
        self.shown = False
        self.pages = 0

    def __call__(self, stats: Any) -> None:
        with self.lock:
            self._show(stats)

    def _show(self, stats: Any) -> None:
        self.pages += 1
        now = time.monotonic()
        if now - self.last < self.every or stats.elapsed < 1.0:
            return
        self.last = now
        text = (
            f"… {stats.items_scanned} {plural(stats.items_scanned, 'item')} read, "
            f"{stats.capacity_text()}, {self.pages} {plural(self.pages, 'page')}, "
            f"{stats.elapsed:.1f}s"
        )
        if stats.expected_items:
            text += f" (of ~{stats.expected_items} {plural(stats.expected_items, 'item')})"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.shown = True

    def waiting(self, operation: str, deadline: float | None) -> None:
        """A request has not been answered for a while (a hung endpoint)."""
        limit = f"; gives up after {deadline:g} s (the deadline setting)" if deadline else ""
        with self.lock:
            self.stream.write(f"\r\x1b[K… waiting for DynamoDB to answer {operation}{limit}")

    def status(self, text: str) -> None:
        """A line of its own (waiting for a table, a load's progress), overwritten in place."""
        with self.lock:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        self.pages = 0
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


if __name__ == "__main__":
    sys.exit(main())
