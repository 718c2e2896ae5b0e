"""The REPL habits of the dbcli family (issue 23): named queries, \\watch, help SELECT / \\h,
\\s. In-process (prompt_toolkit reads keys from a pipe) on the example tables; the real
terminal, Ctrl-C included, is tests/test_repl_e2e.py's."""

from __future__ import annotations

import json
import stat

import pytest
from repl_driver import drive

from dynosql.repl import grammar_help, named
from dynosql.session import Session

ANA = "WHERE PK = 'ACTOR#ana.silva'"


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PAGER", raising=False)


@pytest.fixture
def session(moto_examples_backend):
    s = Session(moto_examples_backend.client())
    yield s
    s.close()


def test_named_queries_are_saved_private_run_with_arguments_and_deleted(session, tmp_path):
    keys = (
        "\\ns actions SELECT SK, action FROM audit WHERE PK = '$1' AND SK >= :since LIMIT 2\r"
        "\\n actions ACTOR#ana.silva since=EVT#2026-03-31\r"
        "\\n\r"
        "\\n actions\r"
        "\\nd actions\r"
        "\\n actions x\r"
        "\\q\r"
    )
    screen, repl = drive(session, keys)
    assert "saved actions" in screen
    assert "| EVT#2026-03-31T12:16:44.008Z |" in screen  # $1 and :since both filled
    assert "2 rows · Query audit" in screen
    assert "| actions | SELECT SK, action FROM audit WHERE PK = '$1'" in screen  # \n lists
    assert "error: actions takes 1 argument ($1 … $1), got 0" in screen
    assert "deleted actions" in screen
    assert "error: no named query actions" in screen
    path = tmp_path / "config" / "dynosql" / "named_queries.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {}


def test_named_query_arguments_are_checked():
    sql = "SELECT * FROM t WHERE a = '$1' AND b = '$2'"
    assert named.fill("q", sql, ["x", "y", "n=5"]) == (
        "SELECT * FROM t WHERE a = 'x' AND b = 'y'",
        {"n": "5"},
    )
    with pytest.raises(ValueError, match="q takes 2 arguments"):
        named.fill("q", sql, ["x"])
    with pytest.raises(ValueError, match="q uses no \\$3"):
        named.fill("q", sql, ["x", "y", "z"])
    with pytest.raises(ValueError, match="a query name is letters"):
        named.save("no good", "SELECT 1")


def test_watch_reruns_the_last_statement_with_capacity_per_run_and_in_all(session):
    keys = f"SELECT COUNT(*) AS n FROM audit {ANA};\r\\watch 0 3\r\\q\r"
    screen, repl = drive(session, keys)
    assert screen.count("1 row · Query audit") == 4  # once typed, three times watched
    assert "run 1: ~2 RCU est. · total ~2 RCU est." in screen
    assert "run 3: ~2 RCU est. · total ~6 RCU est." in screen
    assert "\\watch stopped after 3 run(s): ~6 RCU est. in all" in screen


def test_watch_needs_a_statement_and_good_numbers(session):
    screen, _ = drive(session, "\\watch\r\\q\r")
    assert "error: \\watch runs the last statement, and there is none yet" in screen
    screen, _ = drive(session, "SHOW TABLES;\r\\watch soon\r\\q\r")
    assert "error: \\watch takes the seconds between runs (and how many runs)" in screen


def test_help_statement_and_h_show_the_grammar(session):
    screen, _ = drive(session, "help SELECT\r\\h show hot keys\r\\h\r\\h FROB\r\\q\r")
    assert 'select      = "SELECT" [ "DISTINCT" ] columns' in screen
    assert 'show_hot_keys = "SHOW" "HOT" "KEYS" "FROM" table' in screen
    assert "statement   = select | explain" in screen  # \h alone: the statements
    assert "error: no syntax for FROB; statements:" in screen


def test_every_statement_of_the_grammar_has_help():
    every = grammar_help.rules()
    assert {"select", "insert", "update", "delete", "create_table", "copy_from"} <= set(every)
    assert grammar_help.syntax("insert")[0].startswith("insert")
    assert any(line.startswith("create_index") for line in grammar_help.syntax("create"))


def test_s_shows_the_history_oldest_first(session):
    screen, repl = drive(session, "SHOW TABLES;\r\\dt\r\\s\r\\s 1\r\\q\r")
    lines = [line for line in screen.splitlines() if "SHOW TABLES;" in line or "| \\dt" in line]
    assert lines[0].startswith("|   1 | SHOW TABLES;")
    assert "|   2 | \\dt" in screen
    assert "|   3 | \\s " in screen or "|   3 | \\s" in screen
