"""The examples of README.md and docs/*.md, read from their Markdown and run: a doctest for SQL.

An example is a block of code with the output it gives, in one of three forms:

- a ```sql block followed by an output block (```text, or ``` with no language; only blank
  lines between): the SQL runs as ``dynosql --local -e SQL`` and the output block is what the
  terminal shows (stdout and stderr as they interleave: warnings, rows, notes, the footer);
- a REPL transcript: a ```text block whose first line starts with the prompt ``dynosql> ``;
  each statement is typed (continued on lines that start ``      -> ``) and followed by what
  the REPL prints; a question the REPL asks is shown with its answer (``… [y/N] y``);
- a shell session: a ```console block of ``$ dynosql …`` commands (and ``$ echo $?`` for the
  exit code), each followed by its output; ``> /dev/null`` drops stdout.

Each page runs top to bottom on a fresh embedded server of its own, loaded with the example
tables as ``--local`` loads them, so a page's writes are seen by its later examples and by no
other page. Every example is its own run (``-e``, a command, a REPL): settings do not carry
from one example to the next. Compared line by line, with trailing spaces dropped and only what
truly varies made equal: elapsed seconds (``0.012s``), the embedded server's port, a journal's
timestamp. An example that cannot run here (it needs AWS, or waits for Ctrl-C) is marked
``<!-- not run: REASON -->`` on a line of its own just before it; the tests list it as
skipped, with its reason.

``python tests/doc_examples.py [--update] FILE.md …`` runs the pages' examples and prints
each difference; with ``--update`` it writes the outputs into the files (review the diff).
"""

from __future__ import annotations

import difflib
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "dynosql> "
CONTINUATION = "      -> "
OUTPUT_LANGUAGES = ("text", "")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->\s*$")
FILE = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->\s*$")
QUESTION = re.compile(r"\[y/N\] (\S*)$")
# REPL commands that change nothing on the server (any other counts as a change: `changes`)
READING_COMMANDS = frozenset(
    ("\\?", "\\dt", "\\dt+", "\\d", "\\x", "\\settings", "\\set", "\\h", "\\s", "\\refresh")
    + ("\\format", "\\timing", "\\consistent")
)

# what truly varies from run to run, made equal on both sides
VARIES = (
    (re.compile(r"\b\d+\.\d+s\b"), "0.000s"),  # elapsed seconds: footers, EXPLAIN ANALYZE
    (re.compile(r"\b127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),  # the embedded server's port
    (re.compile(r"\bdynosql-local-\d+"), "dynosql-local-ACCOUNT"),  # …and its S3 bucket
    (re.compile(r"\b\d{8}T\d{6}\.\d{6}Z"), "YYYYMMDDTHHMMSS.ffffffZ"),  # a journal's name
    # …and its time, in UNDO's note
    (re.compile(r", \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ on "), ", YYYY-MM-DDTHH:MM:SSZ on "),
)


def doc_pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# --- reading the Markdown ------------------------------------------------------------------------


@dataclass
class Block:
    """A fenced code block: its language, its first content line (1-based) and its text."""

    language: str
    line: int
    text: str
    before: list[str]  # the lines between the previous block (or the start) and this one


@dataclass
class Example:
    path: Path
    line: int  # where the code starts
    form: str  # "sql", "repl" or "console"
    code: str
    expected: str
    output_line: int  # where the expected output starts
    not_run: str | None = None  # the reason, when marked not run

    @property
    def where(self) -> str:
        return f"{shown_path(self.path)}:{self.line}"


def shown_path(path: Path) -> str:
    """A page as messages name it: relative to the checkout when it is in it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")


def blocks(text: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    between: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            between.append(lines[i])
            i += 1
            continue
        fence, language = m.group(1), m.group(2).lower()
        start = i + 1
        i = start
        while i < len(lines) and not lines[i].startswith(fence):
            i += 1
        found.append(Block(language, start + 1, "\n".join(lines[start:i]), between))
        between = []
        i += 1
    return found


def _marker(before: list[str], marker: re.Pattern[str]) -> str | None:
    """What a marker (``<!-- not run: REASON -->``, ``<!-- file: NAME -->``) on the last
    non-blank line before a block says."""
    for line in reversed(before):
        if line.strip():
            m = marker.match(line.strip())
            return m.group(1) if m else None
    return None


def examples(path: Path) -> list[Example]:
    """The examples of one page, in order (a file the page writes is one too: form "file",
    its name in `expected`)."""
    found: list[Example] = []
    page = blocks(path.read_text(encoding="utf-8"))
    for i, block in enumerate(page):
        following = page[i + 1] if i + 1 < len(page) else None
        name = _marker(block.before, FILE)
        if name is not None:
            found.append(Example(path, block.line, "file", block.text, name, block.line))
            continue
        if block.language == "sql":
            if following is None or following.language not in OUTPUT_LANGUAGES:
                continue
            if any(line.strip() for line in following.before):
                continue
            if following.text.startswith((PROMPT, "$ ")):
                continue
            example = Example(path, block.line, "sql", block.text, following.text, following.line)
        elif block.language in OUTPUT_LANGUAGES and block.text.startswith(PROMPT):
            example = Example(path, block.line, "repl", block.text, block.text, block.line)
        elif block.language == "console" and block.text.startswith("$ "):
            example = Example(path, block.line, "console", block.text, block.text, block.line)
        else:
            continue
        example.not_run = _marker(block.before, NOT_RUN)
        found.append(example)
    return found


def markers(path: Path) -> list[tuple[int, str]]:
    """Every ``<!-- not run … -->`` line of a page (line, text), wherever it stands."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, line) for n, line in enumerate(lines, 1) if "not run" in line and "<!--" in line]


# --- transcripts -----------------------------------------------------------------------------------


def repl_inputs(transcript: str) -> list[str]:
    """What is typed into the REPL, in order: each statement (its continuation lines joined
    with newlines) and each answer to a question."""
    typed: list[str] = []
    for line in transcript.splitlines():
        if line.startswith(PROMPT):
            typed.append(line[len(PROMPT) :])
        elif line.startswith(CONTINUATION) and typed:
            typed[-1] += "\n" + line[len(CONTINUATION) :]
        elif m := QUESTION.search(line):
            typed.append(m.group(1))
    return typed


def _statements(transcript: str) -> list[list[str]]:
    """The transcript's input lines, grouped by statement (as echoed back)."""
    groups: list[list[str]] = []
    for line in transcript.splitlines():
        if line.startswith(PROMPT):
            groups.append([line])
        elif line.startswith(CONTINUATION) and groups:
            groups[-1].append(line)
    return groups


@dataclass
class ConsoleCommand:
    argv: list[str]
    stdin: str = ""  # `echo TEXT | dynosql …`
    discard_stdout: bool = False
    discard_stderr: bool = False
    exit_code: bool = False  # `echo $?`
    show: tuple[str, int | None] | None = None  # `cat FILE`, `head -n N FILE`: (file, lines)


def console_commands(session: str) -> list[tuple[str, ConsoleCommand]]:
    """The commands of a shell session: (the command as written, what to run)."""
    commands: list[tuple[str, ConsoleCommand]] = []
    lines = session.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        written = [lines[i]]
        while written[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            written.append(lines[i])
        i += 1
        text = " ".join(line.rstrip("\\").strip() for line in written)[2:]
        if text.strip() == "echo $?":
            commands.append(("\n".join(written), ConsoleCommand([], exit_code=True)))
            continue
        command = ConsoleCommand([])
        piped, bar, rest = text.partition(" | ")
        if bar and piped.startswith("echo "):
            command.stdin = " ".join(shlex.split(piped)[1:]) + "\n"
            text = rest
        words = shlex.split(text)
        if len(words) == 2 and words[0] == "cat":
            commands.append(("\n".join(written), ConsoleCommand([], show=(words[1], None))))
            continue
        if len(words) == 4 and words[:2] == ["head", "-n"] and words[2].isdigit():
            command.show = (words[3], int(words[2]))
            commands.append(("\n".join(written), command))
            continue
        for word in words:
            if word in (">/dev/null", "> /dev/null"):
                command.discard_stdout = True
            elif word in ("2>/dev/null",):
                command.discard_stderr = True
            else:
                command.argv.append(word)
        argv = command.argv
        if argv[-2:] == [">", "/dev/null"]:
            command.discard_stdout = True
            del argv[-2:]
        if argv[-2:] == ["2>", "/dev/null"]:
            command.discard_stderr = True
            del argv[-2:]
        if not argv or argv[0] != "dynosql":
            raise ValueError(f"only dynosql, `echo $?`, cat and head -n run: {text!r}")
        commands.append(("\n".join(written), command))
    return commands


# --- running ----------------------------------------------------------------------------------------


class _Text(io.StringIO):
    """A captured stream that says it is not a terminal (as a pipe would)."""

    def isatty(self) -> bool:
        return False


@dataclass
class Page:
    """One page's run: its server, its home directory (the journal, the config) and working
    directory (files COPY writes), and the last exit code."""

    home: Path
    cwd: Path
    exit_code: int = 0
    env: dict[str, str] = field(default_factory=dict)


def _environment(home: Path) -> dict[str, str]:
    from cli_runner import AWS_VARIABLES

    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "XDG_"))}
    env.update(AWS_VARIABLES)
    env["HOME"] = str(home)
    if "XDG_CACHE_HOME" in os.environ:  # the test run's cache (parsed scripts), not the home's
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
    env.pop("PAGER", None)
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    return env


@contextmanager
def _swapped_environment(env: dict[str, str], cwd: Path) -> Iterator[None]:
    saved, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def local_server() -> Iterator[Any]:
    """An embedded server started as ``--local`` starts it: the example tables, each filled
    when a request first names it, and an S3 bucket for exports."""
    from dynosql.local import embedded

    server = embedded.start_local()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def page_server(workdir: Path, server: Any) -> Iterator[Page]:
    """One page's run on `server`: every ``--local`` of the page (``dynosql --local``,
    ``Session.local()``) reaches it instead of starting a server of its own."""
    from dynosql.local import embedded

    real_start, real_stop = embedded.start_local, server.stop
    embedded.start_local = lambda **_: server
    server.stop = lambda: None  # each run's session closes; the server stays up
    home, cwd = workdir / "home", workdir / "work"
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    try:
        yield Page(home, cwd, env=_environment(home))
    finally:
        embedded.start_local = real_start
        server.stop = real_stop


def _run_cli(
    page: Page, argv: list[str], stdin: str = "", out: bool = True, err: bool = True
) -> str:
    """``dynosql ARGV`` in this process, its stdout and stderr on one screen as they
    interleave on a terminal (either dropped, as by ``> /dev/null``)."""
    from dynosql import cli

    screen, dropped = _Text(), _Text()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    sys.stdin = _Text(stdin)
    sys.stdout = screen if out else dropped
    sys.stderr = screen if err else dropped
    try:
        with _swapped_environment(page.env, page.cwd):
            try:
                page.exit_code = cli.main(argv)
            except SystemExit as exit_:
                page.exit_code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    return screen.getvalue()


def _run_repl(page: Page, transcript: str) -> str:
    """The transcript's statements typed into a REPL on ``--local``; what it shows, with each
    statement echoed after its prompt, as the terminal shows it."""
    from repl_driver import drive

    from dynosql.session import Session

    groups = iter(_statements(transcript))

    def prepare(repl: Any) -> None:
        handle, ask = repl.handle, repl.ask
        began = False

        def echoed(text: str) -> None:
            nonlocal began
            if not began:  # the banner says where: not part of a transcript
                repl.screen.seek(0)
                repl.screen.truncate()
                began = True
            repl.screen.write("\n".join(next(groups, [PROMPT + text])) + "\n")
            handle(text)

        def answered(question: str) -> str:
            answer = ask(question)
            repl.screen.write(f"{question}{answer}\n")
            return str(answer)

        repl.handle = echoed
        repl.ask = answered

    keys = "".join(text.replace("\n", "\r") + "\r" for text in repl_inputs(transcript))
    with _swapped_environment(page.env, page.cwd):
        session = Session.local()
        try:
            screen, _ = drive(session, keys, prepare=prepare)
        finally:
            session.close()
    return screen


def _run_console(page: Page, text: str) -> str:
    shown: list[str] = []
    for written, command in console_commands(text):
        shown.append(written + "\n")
        if command.exit_code:
            shown.append(f"{page.exit_code}\n")
            continue
        if command.show is not None:
            name, count = command.show
            lines = (page.cwd / name).read_text(encoding="utf-8").splitlines(keepends=True)
            shown.append("".join(lines[:count]))
            continue
        shown.append(
            _run_cli(
                page,
                command.argv[1:],
                command.stdin,
                out=not command.discard_stdout,
                err=not command.discard_stderr,
            )
        )
    return "".join(shown)


def run(page: Page, example: Example) -> str:
    """What the example shows when it runs (the home directory written as ``~``); a file is
    written into the page's working directory, and shows nothing."""
    if example.form == "file":
        (page.cwd / example.expected).write_text(example.code + "\n", encoding="utf-8")
        return ""
    if example.form == "sql":
        shown = _run_cli(page, ["--local", "-e", example.code])
    elif example.form == "repl":
        shown = _run_repl(page, example.code)
    else:
        shown = _run_console(page, example.code)
    return shown.replace(str(page.home), "~")


# --- comparing --------------------------------------------------------------------------------------


def normal(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        for pattern, same in VARIES:
            line = pattern.sub(same, line)
        lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def difference(example: Example, shown: str) -> str | None:
    """None when the example shows what its page says; else a diff naming the page and line."""
    expected, actual = normal(example.expected), normal(shown)
    if expected == actual:
        return None
    first = next(
        i1
        for tag, i1, _, _, _ in difflib.SequenceMatcher(None, expected, actual).get_opcodes()
        if tag != "equal"
    )
    diff = difflib.unified_diff(
        expected,
        actual,
        f"{shown_path(example.path)}:{example.output_line} (the page)",
        "what it shows now",
        lineterm="",
    )
    return (
        f"{example.where}: the {example.form} example's output differs from line "
        f"{example.output_line + first} on\n" + "\n".join(diff)
    )


def _sql_changes(script: str) -> bool:
    """Whether SQL writes items or changes a table, as its statements' kinds declare (text
    that does not parse runs nothing)."""
    from dynosql.errors import DynosqlError
    from dynosql.sql import parse_script
    from dynosql.statements import kind_of

    try:
        statements = parse_script(script)
    except DynosqlError:
        return False
    return any(kind_of(statement).effects(statement).changes for statement in statements)


def changes(example: Example) -> bool:
    """Whether the example may change what the server holds. A REPL command or a command
    line that is not plain SQL (``\\undo``, ``-f FILE``, ``dynosql undo``) counts as a
    change, unless it is one of the commands that only read (`READING_COMMANDS`)."""
    if example.form == "file":
        return False
    if example.form == "sql":
        return _sql_changes(example.code)
    if example.form == "repl":
        typed = [text for text in repl_inputs(example.code) if text not in ("y", "n", "")]
        return any(
            text.split()[0] not in READING_COMMANDS if text.startswith("\\") else _sql_changes(text)
            for text in typed
        )
    for _, command in console_commands(example.code):
        argv = command.argv[1:]
        if "-e" in argv:
            if _sql_changes(argv[argv.index("-e") + 1]):
                return True
        elif argv and not command.stdin.strip():
            return True  # the REPL, -f FILE, undo: not read here
        if command.stdin.strip() and _sql_changes(command.stdin):
            return True
    return False


def run_page(
    path: Path, workdir: Path, shared: Any = None
) -> tuple[list[str], list[tuple[Example, str]]]:
    """Run every example of a page that is not marked not run: (differences, outputs). A
    page that only reads runs on `shared` when given; a page that changes data or tables, on a
    fresh server of its own, so that no other page sees its changes."""
    runnable = [example for example in examples(path) if example.not_run is None]
    differences: list[str] = []
    outputs: list[tuple[Example, str]] = []
    with ExitStack() as stack:
        server = shared
        if server is None or any(changes(example) for example in runnable):
            server = stack.enter_context(local_server())
        page = stack.enter_context(page_server(workdir, server))
        for example in runnable:
            shown = run(page, example)
            if example.form == "file":
                continue
            outputs.append((example, shown))
            found = difference(example, shown)
            if found:
                differences.append(found)
    return differences, outputs


def _updated(path: Path, outputs: list[tuple[Example, str]]) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    for example, shown in sorted(outputs, key=lambda pair: -pair[0].output_line):
        if difference(example, shown) is None:
            continue
        start = example.output_line - 1
        end = start + len(example.expected.splitlines())
        new = shown.rstrip("\n").splitlines()
        lines[start:end] = [line.rstrip() for line in new]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    update = "--update" in argv
    paths = [Path(a).resolve() for a in argv if a != "--update"] or doc_pages()
    failed = 0
    with local_server() as shared:
        for path in paths:
            failed += _report(path, shared, update)
    return 1 if failed and not update else 0


def _report(path: Path, shared: Any, update: bool) -> int:
    """Run a page, print its differences, and with `update` write its outputs into it."""
    with tempfile.TemporaryDirectory(prefix="dynosql-docs-") as workdir:
        differences, outputs = run_page(path, Path(workdir), shared)
    for found in differences:
        print(found, end="\n\n")
    if update and differences:
        path.write_text(_updated(path, outputs), encoding="utf-8")
        print(f"updated {shown_path(path)}")
    return len(differences)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main(sys.argv[1:]))
