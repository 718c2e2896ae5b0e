"""End to end: the real ``dynosql --local`` in a pseudo-terminal, driven like a person would."""

from __future__ import annotations

import os
import re
import signal
import stat
import sys

import pytest

pytestmark = pytest.mark.slow  # real processes, fault injection: run in CI, not in the fast loop

pexpect = pytest.importorskip("pexpect")

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\r")
STARTUP = 60  # seconds: the embedded server loads the example tables first


def _screen(child) -> str:
    return ANSI.sub("", child.before + (child.after if isinstance(child.after, str) else ""))


def _spawn(tmp_path):
    """``dynosql --local`` in a pseudo-terminal, its files under tmp_path."""
    env = dict(os.environ)
    env.update(
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        TERM="xterm-256color",
        PROMPT_TOOLKIT_NO_CPR="1",  # pexpect does not answer cursor-position requests
        PAGER="cat",
    )
    env.pop("VISUAL", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "dynosql", "--local"],
        env=env,
        encoding="utf-8",
        dimensions=(60, 200),
        timeout=20,
        # a runner started as a background job (`.ci/run &`) ignores SIGINT, a child inherits
        # that, and Python then never raises KeyboardInterrupt: Ctrl-C would not reach \watch
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_dynosql_local_repl_in_a_terminal(tmp_path):
    child = _spawn(tmp_path)
    try:
        child.expect("dynosql>", timeout=STARTUP)
        assert "\\? help" in _screen(child)  # the banner

        # a statement over two lines: Enter in the middle continues it
        child.send("SELECT SK, action FROM audit\r")
        child.send("WHERE PK = 'ACTOR#ana.silva' LIMIT 3;\r")
        child.expect(r"3 rows · Query audit · 3 items scanned · 0\.5 RCU · [0-9.]+s")
        screen = _screen(child)
        assert "| SK                           | action   |" in screen
        assert "| EVT#2026-03-01T06:56:13.455Z | read     |" in screen
        assert "| EVT#2026-03-01T13:48:55.178Z | login    |" in screen

        child.expect("dynosql>")
        child.send("\\d sensors\r")
        child.expect(r"by_region \| GSI")
        child.expect("dynosql>")

        child.send("\\q\r")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0

    # what the first run left behind: the commented config and a private history
    config = tmp_path / "config" / "dynosql" / "config.toml"
    assert config.read_text().startswith("# dynosql configuration")
    history = tmp_path / "state" / "dynosql" / "history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert "+WHERE PK = 'ACTOR#ana.silva' LIMIT 3;" in history.read_text()


def test_named_queries_and_watch_in_a_terminal(tmp_path):
    """Issue 23: a named query saved, run with an argument, then watched until Ctrl-C."""
    child = _spawn(tmp_path)
    try:
        child.expect("dynosql>", timeout=STARTUP)
        child.send("\\ns acts SELECT COUNT(*) AS n FROM audit WHERE PK = '$1'\r")
        child.expect("saved acts")
        child.expect("dynosql>")
        child.send("\\n acts ACTOR#ana.silva\r")
        child.expect(r"1 row · Query audit")
        child.expect("dynosql>")
        child.send("\\watch 0.2\r")
        child.expect(r"run 2: [0-9.]+ RCU · total [0-9.]+ RCU")  # the embedded server's figures
        child.sendintr()  # Ctrl-C ends \watch, not the REPL
        child.expect(r"\\watch stopped after \d+ runs?: [0-9.]+ RCU in all")
        child.expect("dynosql>")
        child.send("\\q\r")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    saved = tmp_path / "config" / "dynosql" / "named_queries.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
