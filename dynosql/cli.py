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
import time
from typing import TYPE_CHECKING, Any, TextIO

from . import __version__
from .errors import DynosqlError
from .process import (
    GuardedOutput,
    OutputError,
    check_output,
    discard_output,
    interrupt_code,
    read_script,
    sigterm_as_interrupt,
)
from .settings import Settings, add_arguments, from_arguments

if TYPE_CHECKING:
    from .session import Session

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_GUARD, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

EPILOG = """\
examples:
  dynosql --local                                   the REPL on the embedded example tables
  dynosql --local -e "SELECT * FROM audit WHERE PK = 'ACTOR#ana.silva' ORDER BY SK DESC LIMIT 5"
  dynosql --local -e "SHOW HOT KEYS FROM sensors LIMIT 5"
  dynosql --local -f examples/drive.sql --format jsonl > out.jsonl
  echo "SELECT COUNT(*) FROM drive;" | dynosql --local --format csv
  dynosql --profile prod --region eu-west-1 --fail-on-scan -f report.sql -v day=2026-11-30
  dynosql --endpoint-url http://localhost:8000 -e "SHOW TABLES"

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
    add_arguments(p.add_argument_group("settings (also SET name = value, and the config file)"))
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
    params: dict[str, Any] = {}
    from .session import parse_param

    for text in args.var:
        try:
            name, value = parse_param(text)
        except ValueError as err:
            parser.error(str(err))
        params[name] = value

    scripts = _scripts(args)
    interactive = scripts is None
    if not interactive:
        try:
            check_output(sys.stdout)
        except DynosqlError as err:
            return _fail(err, args)
        # parse everything before the first request: a typo on the last line costs nothing
        from .sql import parse_script

        parsed = []
        for label, script in scripts:
            try:
                parsed.extend(parse_script(script))
            except DynosqlError as err:
                return _fail(err, args, prefix=label)
    settings, config = _settings(args, interactive)
    try:
        session = _connect(args, params, settings)
    except DynosqlError as err:
        return _fail(err, args)
    try:
        if interactive:
            from .repl import ReplOptions, run_repl

            return run_repl(session, ReplOptions(quiet=args.quiet, debug=args.debug), config)
        # a script stops on SIGTERM as on Ctrl-C (the REPL keeps the default: it ends)
        with sigterm_as_interrupt():
            return run_statements(session, parsed, args, sys.stdout, sys.stderr)
    finally:
        session.close()


def _scripts(args: argparse.Namespace) -> list[tuple[str | None, str]] | None:
    """The scripts to run, or None for the REPL (a terminal and no SQL given)."""
    if args.execute:
        many = len(args.execute) > 1
        return [(f"-e #{i}" if many else None, sql) for i, sql in enumerate(args.execute, 1)]
    if args.file:
        if args.file == "-":
            return [(None, _read(sys.stdin, "standard input"))]
        try:
            with open(args.file, encoding="utf-8") as f:
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
    from . import config as config_module

    config = config_module.load(create=interactive)
    if not args.quiet and not interactive:  # the REPL shows them under its banner
        for warning in config.warnings:
            _err(f"warning: {warning}")
    return from_arguments(args, config.settings), config


def _connect(args: argparse.Namespace, params: dict[str, Any], settings: Settings) -> Any:
    from .session import Session

    progress = Progress(sys.stderr) if sys.stderr.isatty() and not args.quiet else None
    if args.local:
        return Session.local(settings=settings, params=params, progress=progress)
    return Session(
        endpoint_url=args.endpoint_url,
        region=args.region,
        profile=args.profile,
        settings=settings,
        params=params,
        progress=progress,
    )


def run_statements(
    session: Session, statements: list, args: argparse.Namespace, out: TextIO, err: TextIO
) -> int:
    """Run parsed statements in order; stop at the first failure (earlier output stays)."""
    from .render import render

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
            if result is not None:
                s = result.stats
                print(
                    f"interrupted: read {s.items_scanned} items in {s.requests} requests "
                    f"({s.capacity_text()}) before stopping",
                    file=err,
                )
            else:
                print("interrupted", file=err)
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
            print(
                f"error: internal error: {type(error).__name__}: {error} (run with --debug for the traceback)",
                file=err,
            )
            return EXIT_FAILED
        if session.progress is not None:
            session.progress.clear()
        if not args.quiet:
            for note in result.notes:
                print(f"note: {note}", file=err)
            print(result.footer(), file=err)
    return EXIT_OK


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
            f"… {stats.items_scanned} items read, {stats.capacity_text()}, "
            f"{self.pages} pages, {stats.elapsed:.1f}s"
        )
        if stats.expected_items:
            text += f" (of ~{stats.expected_items} items)"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.shown = True

    def waiting(self, operation: str, deadline: float | None) -> None:
        """A request has not been answered for a while (a hung endpoint)."""
        limit = f"; gives up after {deadline:g} s (the deadline setting)" if deadline else ""
        with self.lock:
            self.stream.write(f"\r\x1b[K… waiting for DynamoDB to answer {operation}{limit}")
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
