"""The REPL in-process: prompt_toolkit reads keys from a pipe, results go to a StringIO.

Sessions run on the moto server with the example datasets (``moto_examples_backend``); each
test gets its own Session (settings are per session), the server is shared and read-only.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from decimal import Decimal

import pytest
from prompt_toolkit.history import FileHistory, InMemoryHistory
from repl_driver import drive

from dynosql import config as config_module
from dynosql.config import Config
from dynosql.repl import ReplOptions, commands, grammar_help, named
from dynosql.repl.app import Repl, buffer_complete, open_history, trim_history
from dynosql.repl.highlight import SqlLexer, tokenize
from dynosql.repl.toolbar import toolbar_parts
from dynosql.session import Session

ANA = "WHERE PK = 'ACTOR#ana.silva'"
ANA_FIRST = "EVT#2026-03-01T06:56:13.455Z"


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    """No test touches the user's files: HOME and the XDG directories point at tmp_path."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("PAGER", raising=False)


@pytest.fixture
def session(moto_examples_backend):
    s = Session(moto_examples_backend.client())
    yield s
    s.close()


# --- statements -----------------------------------------------------------------------------


def test_multi_line_statement_runs_when_it_ends_with_a_semicolon(session):
    keys = f"SELECT SK, action\rFROM audit\r{ANA}\rLIMIT 2\r;\r\\q\r"
    screen, repl = drive(session, keys)
    assert screen.count(ANA_FIRST) == 1  # ran once, after the `;` line
    assert "2 rows · Query audit · 2 items scanned · 0.5 RCU ·" in screen
    entries = list(repl.prompt_session.history.get_strings())
    assert entries[0] == f"SELECT SK, action\nFROM audit\n{ANA}\nLIMIT 2\n;"  # one entry


def test_an_unfinished_statement_does_not_run(session):
    screen, _ = drive(session, f"SELECT SK FROM audit {ANA}\r")  # then EOF
    assert ANA_FIRST not in screen


def test_several_statements_in_one_buffer_run_in_order(session):
    screen, _ = drive(session, f"SELECT SK FROM audit {ANA} LIMIT 1; SHOW TABLES;\r\\q\r")
    assert screen.index(ANA_FIRST) < screen.index("sensors")


def test_warning_comes_before_the_rows_and_footer_after(session):
    screen, _ = drive(session, "SELECT pk FROM tenants LIMIT 1;\r\\q\r")
    warning = screen.index("warning: Scan of tenants")
    row = screen.index("TENANT#")
    footer = screen.index("1 row · Scan tenants")
    assert warning < row < footer


def test_sql_error_keeps_the_session_and_points_at_the_column(session):
    keys = f"SELECT SK\rFROM audit\rWHERE PK = = 'x';\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r"
    screen, _ = drive(session, keys)
    assert "error: line 3, column" in screen
    assert "  WHERE PK = = 'x';" in screen and "^" in screen
    assert ANA_FIRST in screen  # the next statement still ran


def test_unknown_table_is_an_error_line(session):
    screen, _ = drive(session, "SELECT * FROM nosuch;\r\\q\r")
    assert "error: no table named nosuch" in screen


def test_fail_on_scan_guard_refuses_and_the_session_goes_on(session):
    session.settings.fail_on_scan = True
    screen, _ = drive(session, f"SELECT * FROM audit;\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r")
    assert "error: refused: this statement would Scan audit" in screen
    assert ANA_FIRST in screen


def test_set_statement_changes_the_format(session):
    screen, _ = drive(session, f"SET format = csv;\rSELECT SK, action FROM audit {ANA} LIMIT 1;\r")
    assert "SET format = csv" in screen
    assert f"SK,action\n{ANA_FIRST},read\n" in screen


def test_parameters_from_backslash_set(session):
    keys = "\\set who ACTOR#ana.silva\rSELECT SK FROM audit WHERE PK = :who LIMIT 1;\r\\set\r"
    screen, _ = drive(session, keys)
    assert ":who = " in screen and ANA_FIRST in screen
    assert '"ACTOR#ana.silva"' in screen  # \set lists it


def test_quit_and_ctrl_d_leave(session):
    screen, repl = drive(session, "quit\rSHOW TABLES;\r")
    assert repl.done and "sensors" not in screen
    screen, repl = drive(session, "\x04SHOW TABLES;\r")  # Ctrl-D on an empty line
    assert "sensors" not in screen


# --- Ctrl-C ---------------------------------------------------------------------------------


def test_ctrl_c_cancels_the_statement_being_typed(session):
    keys = f"SELECT SK FROM audit\r{ANA}\x03SELECT SK, action FROM audit {ANA} LIMIT 1;\r\\q\r"
    screen, repl = drive(session, keys)
    assert screen.count(ANA_FIRST) == 1 and "1 row · Query audit" in screen
    assert not any("\x03" in e for e in repl.prompt_session.history.get_strings())


class InterruptAfterFirstPage:
    """Stands in for the terminal's Ctrl-C: KeyboardInterrupt while the read is in flight."""

    def __init__(self):
        self.calls = 0
        self.cleared = 0

    def __call__(self, stats):
        self.calls += 1
        raise KeyboardInterrupt

    def clear(self):
        self.cleared += 1


def test_ctrl_c_stops_the_read_in_flight_and_keeps_the_session(session):
    session.progress = InterruptAfterFirstPage()
    keys = "SELECT * FROM sensors;\rSHOW TABLES;\r\\q\r"
    screen, repl = drive(session, keys)
    assert "interrupted: read" in screen and "before stopping" in screen
    assert "| dev-" not in screen  # no rows were shown
    assert "tenants" in screen  # the next statement ran
    assert session.progress.calls == 1 and session.progress.cleared >= 1
    assert session.total_capacity > 0  # what the read consumed still counts


def test_ctrl_c_during_a_script_stops_the_script(session, tmp_path):
    script = tmp_path / "two.sql"
    script.write_text(f"SELECT * FROM sensors;\nSELECT SK FROM audit {ANA};\n")
    session.progress = InterruptAfterFirstPage()
    screen, _ = drive(session, f"\\i {script}\r\\q\r")
    assert "interrupted" in screen and ANA_FIRST not in screen


# --- asking before a large Scan --------------------------------------------------------------


def test_large_scan_asks_and_no_means_nothing_is_read(session):
    session.settings.scan_confirm_rcu = Decimal(1)
    screen, _ = drive(session, "SELECT COUNT(*) FROM sensors;\rn\r\\q\r")
    assert "cancelled: nothing was read" in screen and "1300" not in screen
    assert session.total_capacity == 0


def test_large_scan_asks_and_yes_runs_it(session):
    session.settings.scan_confirm_rcu = Decimal(1)
    screen, _ = drive(session, "SELECT COUNT(*) FROM sensors;\ry\r\\q\r")
    assert "1300" in screen and "Scan sensors · 1300 items scanned" in screen


def test_scan_below_the_threshold_and_queries_never_ask(session):
    session.settings.scan_confirm_rcu = Decimal(1000)
    keys = f"SELECT COUNT(*) FROM sensors;\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r"
    screen, repl = drive(session, keys)
    assert "1300" in screen and ANA_FIRST in screen
    assert repl._confirm_session is None  # never asked


def test_scripts_never_ask(session, tmp_path):
    script = tmp_path / "count.sql"
    script.write_text("SELECT COUNT(*) FROM sensors;\n")
    session.settings.scan_confirm_rcu = Decimal(1)
    screen, repl = drive(session, f"\\i {script}\r\\q\r")
    assert "1300" in screen and repl._confirm_session is None


def test_hot_keys_and_explain_analyze_ask_too(session):
    session.settings.scan_confirm_rcu = Decimal(1)
    keys = "SHOW HOT KEYS FROM sensors LIMIT 2;\rn\rEXPLAIN ANALYZE SELECT * FROM audit;\rn\r"
    keys += "SHOW ENTITIES FROM audit;\rn\rSHOW ENTITIES FROM audit SAMPLE 5;\r"
    keys += "EXPLAIN SELECT * FROM audit;\r\\q\r"
    screen, _ = drive(session, keys)
    assert screen.count("cancelled: nothing was read") == 3
    assert "EVT#{timestamp}" in screen  # the SAMPLE form reads 5 items without asking
    assert "plan only: no request was sent" in screen  # plain EXPLAIN reads nothing: no question


# --- backslash commands ---------------------------------------------------------------------


def test_dt_lists_tables(session):
    screen, _ = drive(session, "\\dt\r\\dt s*\r\\q\r")
    for name in ("audit", "drive", "sensors", "tenants", "usage"):
        assert f"| {name}" in screen
    assert "5 rows" in screen and "1 row" in screen


def test_dt_plus_shows_keys(session):
    screen, _ = drive(session, "\\dt+ sensors\r\\q\r")
    assert "deviceId (S)" in screen and "by_region" in screen


def test_d_describes_a_table(session):
    screen, _ = drive(session, "\\d audit\r\\d sensors\r\\d nosuch\r\\q\r")
    assert "table audit: " in screen and "PK (S)" in screen and "SK (S)" in screen
    assert "INCLUDE temperature" in screen and "GSI" in screen
    assert "error: no table named nosuch" in screen


def test_x_toggles_vertical_output(session):
    keys = f"\\x\rSELECT SK, action FROM audit {ANA} LIMIT 1;\r\\x\r"
    keys += f"SELECT SK, action FROM audit {ANA} LIMIT 1;\r\\q\r"
    screen, _ = drive(session, keys)
    assert "expanded display is on" in screen and "-[ RECORD 1 ]" in screen
    assert f"SK     | {ANA_FIRST}" in screen
    assert "expanded display is off" in screen and f"| {ANA_FIRST} |" in screen
    assert session.settings.format == "table"


def test_x_restores_the_previous_format(session):
    _, repl = drive(session, "\\format csv\r\\x on\r\\x off\r\\q\r")
    assert session.settings.format == "csv"


def test_format_json(session):
    screen, _ = drive(session, f"\\format json\rSELECT SK, ok FROM audit {ANA} LIMIT 2;\r\\q\r")
    start, end = screen.index("["), screen.index("]\n") + 1
    rows = json.loads(screen[start:end])
    assert rows[0]["SK"] == ANA_FIRST and len(rows) == 2
    assert "format is json" in screen


def test_format_rejects_unknown_and_shows_current(session):
    screen, _ = drive(session, "\\format xml\r\\format\r\\q\r")
    assert "error: bad value 'xml' for format: one of table, csv" in screen
    assert "format is table (choices: table, csv" in screen


def test_timing(session):
    screen, repl = drive(session, f"\\timing\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r")
    assert "timing is on" in screen and session.settings.timing
    assert "Time: " in screen.split(ANA_FIRST)[1]
    screen, _ = drive(session, f"\\timing off\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r")
    assert "timing is off" in screen and "Time: " not in screen


def test_consistent_on_and_off(session):
    _, repl = drive(session, "\\consistent on\r")
    assert session.settings.consistent is True
    assert "consistent" in toolbar_parts(repl)
    screen, _ = drive(session, f"SELECT SK FROM audit {ANA} LIMIT 1;\r\\consistent off\r")
    assert "· 1 RCU ·" in screen  # strongly consistent: twice the cost of 0.5
    assert "consistent is off" in screen
    assert session.settings.consistent is False
    screen, _ = drive(session, "\\consistent maybe\r")
    assert "error: bad value 'maybe' for consistent: on or off" in screen


def test_i_runs_a_script(session, tmp_path):
    script = tmp_path / "script.sql"
    script.write_text(f"-- two statements\nSELECT SK FROM audit {ANA} LIMIT 1;\nDESCRIBE drive;\n")
    screen, _ = drive(session, f"\\i {script}\r\\i {tmp_path / 'missing.sql'}\r\\q\r")
    assert ANA_FIRST in screen and "table drive:" in screen
    assert "error: cannot read" in screen and "missing.sql" in screen


def test_i_parses_the_whole_script_first(session, tmp_path):
    script = tmp_path / "bad.sql"
    script.write_text(f"SELECT SK FROM audit {ANA} LIMIT 1;\nSELECT FROM;\n")
    screen, _ = drive(session, f"\\i {script}\r\\q\r")
    assert "error: line 2" in screen and ANA_FIRST not in screen


def test_o_sends_results_to_a_file(session, tmp_path):
    out = tmp_path / "out.txt"
    keys = f"\\o {out}\rSELECT SK, action FROM audit {ANA} LIMIT 2;\r\\o\r"
    keys += "SHOW TABLES;\r\\q\r"
    screen, repl = drive(session, keys)
    written = out.read_text()
    assert ANA_FIRST in written and "| SK " in written
    assert ANA_FIRST not in screen  # the rows went to the file ...
    assert "2 rows · Query audit" in screen  # ... the footer to the screen
    assert "sensors" in screen and "sensors" not in written  # \o alone: back to the screen
    assert repl.output_file is None


def test_o_to_an_unwritable_place_is_an_error(session, tmp_path):
    screen, repl = drive(session, f"\\o {tmp_path / 'no' / 'such' / 'dir.txt'}\r\\q\r")
    assert "error: cannot write" in screen and repl.output_file is None


def test_help_lists_every_command(session):
    screen, _ = drive(session, "\\?\r\\q\r")
    for name in commands.COMMANDS:
        assert f"| {name}" in screen
    assert "rows ·" not in screen  # a help screen has no footer


# every command but these says what a script writes instead (a new command must decide)
REPL_ONLY = {"\\e", "\\n", "\\ns", "\\nd", "\\s"}


def test_every_command_says_what_a_script_writes_instead_and_that_sql_parses():
    """The error a backslash command gets in a script (`commands.in_a_script`) names the SQL
    to write instead: the SQL it names, with an argument and without, is SQL dynosql reads."""
    from dynosql.errors import ReplCommandError
    from dynosql.sql import parse_script

    assert {name for name, c in commands.COMMANDS.items() if c.script is None} == REPL_ONLY
    for name, command in commands.COMMANDS.items():
        if command.script is None:
            continue
        for arg in ("", "drive", "json"):
            said = str(commands.in_a_script(ReplCommandError(name, arg, 1, 1)))
            assert said.startswith(f"line 1, column 1: {name} is a command of the REPL: in a ")
            written = re.search(r"\bwrite (.+?)(?:, or |, and |$)", said)
            if written:
                parse_script(written.group(1))  # raises if it is not dynosql's SQL


def test_a_command_of_no_script_and_an_unknown_one_say_so():
    from dynosql.errors import ReplCommandError

    assert str(commands.in_a_script(ReplCommandError("\\e", "", 2, 3))) == (
        "line 2, column 3: \\e is a command of the REPL, with no equivalent in a script"
    )
    assert str(commands.in_a_script(ReplCommandError("\\foo", "", 1, 1))) == (
        "line 1, column 1: \\foo is not SQL, and not a command of the REPL either (\\? lists them)"
    )


@pytest.mark.parametrize("word", ["help", "HELP;", "?"])
def test_bare_help_shows_the_help_screen(session, word):
    screen, repl = drive(session, f"{word}\r\\q\r")
    for name in commands.COMMANDS:
        assert f"| {name}" in screen
    assert "error" not in screen and repl.done


def test_q_leaves_at_once(session):
    screen, repl = drive(session, "\\q\rSHOW TABLES;\r")
    assert repl.done and "sensors" not in screen


def test_a_failing_command_is_one_error_line(session, monkeypatch):
    def broken(*_args):
        raise ConnectionError("endpoint unreachable")

    monkeypatch.setattr(session.port.catalog, "table_names", broken)
    screen, _ = drive(session, f"\\dt\rSELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r")
    assert "error: internal error: ConnectionError: endpoint unreachable" in screen
    assert ANA_FIRST in screen  # the session goes on


def test_unknown_command(session):
    screen, _ = drive(session, "\\nope\r\\q\r")
    assert "error: unknown command \\nope (\\? lists the commands)" in screen


def test_settings_lists_them(session):
    session.settings.max_rcu = Decimal(50)
    screen, _ = drive(session, "\\settings\r\\q\r")
    assert "| max_rcu " in screen and "| 50 " in screen and "scan_confirm_rcu" in screen


def test_refresh_forgets_names(session):
    _, repl = drive(session, "\\refresh\r\\q\r")
    repl.metadata.attributes("audit")
    assert "action" in repl.metadata.attributes("audit")
    repl.metadata.refresh()
    assert repl.metadata.cached_attributes() == []


def test_e_edits_the_last_statement(session, tmp_path, monkeypatch):
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\n"
        "p = sys.argv[1]\n"
        "text = open(p).read()\n"
        "open(p, 'w').write(text.replace('LIMIT 1', 'LIMIT 2'))\n"
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    keys = f"SELECT SK FROM audit {ANA} LIMIT 1;\r\\e\r\r\\q\r"  # edit, then Enter runs it
    screen, repl = drive(session, keys)
    assert "1 row · Query audit" in screen and "2 rows · Query audit" in screen
    history = list(repl.prompt_session.history.get_strings())
    assert f"SELECT SK FROM audit {ANA} LIMIT 2;" in history


def test_trailing_backslash_e_edits_the_typed_statement(session, tmp_path, monkeypatch):
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'a').write('LIMIT 1;')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    screen, _ = drive(session, f"SELECT SK FROM audit {ANA} \\e\r\r\\q\r")
    assert "1 row · Query audit" in screen


def test_a_command_under_an_unfinished_statement_runs_and_gives_it_back(session):
    keys = f"SELECT SK\r\\d audit\rFROM audit {ANA} LIMIT 1;\r\\q\r"
    screen, repl = drive(session, keys)
    assert "table audit: " in screen  # \d ran at once
    assert ANA_FIRST in screen  # then the statement, finished on the next prompt
    history = list(repl.prompt_session.history.get_strings())
    assert f"SELECT SK\nFROM audit {ANA} LIMIT 1;" in history


def test_commands_return_results():
    """One renderer for both: each command gives Results, or nothing."""
    from types import SimpleNamespace

    from dynosql.result import Result

    repl = SimpleNamespace(session=SimpleNamespace(settings=SimpleNamespace()))
    result = commands.COMMANDS["\\?"].run(repl, "")
    assert isinstance(result, Result) and result.columns == ["command", "does"]
    assert commands.split("\\format  json ;") == ("\\format", "json")


# --- pager ----------------------------------------------------------------------------------


def _terminal(repl: Repl, rows: int, columns: int) -> None:
    repl.is_terminal = True
    repl.colour = False
    repl.terminal_size = lambda: (rows, columns)


def test_tall_results_go_through_the_pager(session, tmp_path):
    paged = tmp_path / "paged.txt"
    session.settings.pager = f"cat > {paged}"
    keys = "SELECT SK FROM audit WHERE PK = 'ACTOR#ana.silva';\rSHOW TABLES;\r\\q\r"
    text, _ = drive(session, keys, prepare=lambda repl: _terminal(repl, rows=12, columns=200))
    assert ANA_FIRST in paged.read_text() and ANA_FIRST not in text
    assert "rows · Query audit" in text  # the footer after the pager, on the screen
    assert "| sensors" in text  # 5 tables fit: no pager


def test_wide_results_go_through_the_pager(session, tmp_path):
    paged = tmp_path / "paged.txt"
    session.settings.pager = f"cat > {paged}"
    keys = f"SELECT SK, action FROM audit {ANA} LIMIT 1;\r\\q\r"
    drive(session, keys, prepare=lambda repl: _terminal(repl, rows=50, columns=20))
    assert ANA_FIRST in paged.read_text()


def test_explain_shorter_than_the_screen_is_never_paged(session, tmp_path):
    """Issue 23, as pgcli: an EXPLAIN's wide request lines are printed when it fits in height."""
    paged = tmp_path / "paged.txt"
    session.settings.pager = f"cat > {paged}"
    keys = f"EXPLAIN SELECT SK FROM audit {ANA} LIMIT 1;\r\\q\r"
    text, _ = drive(session, keys, prepare=lambda repl: _terminal(repl, rows=50, columns=20))
    assert "KeyConditionExpression" in text and not paged.exists()


def test_pager_choice(monkeypatch):
    from types import SimpleNamespace

    from dynosql.settings import Settings

    repl = SimpleNamespace(settings=Settings())
    choose = Repl.pager_command
    assert choose(repl) == "less -SRXF"
    monkeypatch.setenv("PAGER", "more")
    assert choose(repl) == "more"
    repl.settings.pager = "off"
    assert choose(repl) is None
    repl.settings.pager = "most"
    assert choose(repl) == "most"


def test_no_pager_when_not_a_terminal(session):
    screen, repl = drive(session, "SELECT SK FROM audit WHERE PK = 'ACTOR#ana.silva';\r\\q\r")
    assert ANA_FIRST in screen and not repl.is_terminal


# --- toolbar, quiet, highlighting -----------------------------------------------------------


def test_toolbar_shows_where_mode_format_and_capacity(session):
    _, repl = drive(session, f"SELECT SK FROM audit {ANA} LIMIT 1;\r\\timing on\r")
    parts = toolbar_parts(repl)
    assert parts[1:4] == ["eventual", "table", "0.5 RCU used"]
    assert "timing" in parts
    assert session.region in parts[0]


def test_toolbar_counts_writes_apart_from_reads(session, tmp_path):
    """One ledger: an INSERT's WCU show as WCU, never added to the RCU."""
    session.settings.journal_dir = str(tmp_path)
    drive(session, "INSERT INTO tenants (pk, sk) VALUES ('TENANT#toolbar', 'X');\r\\q\r")
    _, repl = drive(session, "DELETE FROM tenants WHERE pk = 'TENANT#toolbar' AND sk = 'X';\r")
    parts = toolbar_parts(repl)
    assert parts[3] == "0 RCU · 2 WCU used"


def test_quiet_leaves_out_banner_warnings_and_footer(session):
    options = ReplOptions(quiet=True)
    screen, _ = drive(session, "SELECT pk FROM tenants LIMIT 1;\r\\q\r", options=options)
    assert "TENANT#" in screen
    assert "warning" not in screen and "row ·" not in screen and "dynosql 0." not in screen


def test_lexer_styles_tokens():
    from prompt_toolkit.document import Document

    get_line = SqlLexer().lex_document(Document("SELECT COUNT(*) FROM t\nWHERE a = 'x' -- c"))
    first = get_line(0)
    assert first[0] == ("class:sql.keyword", "SELECT")
    assert ("class:sql.function", "COUNT") in first
    second = get_line(1)
    assert ("class:sql.string", "'x'") in second and ("class:sql.comment", "-- c") in second


def test_a_bad_colour_is_a_warning_not_a_crash(session):
    config = Config()
    config.colours["keyword"] = "bold nosuchcolour"
    screen, _ = drive(session, "\\q\r", config)
    assert "warning: config: colour 'bold nosuchcolour' for sql.keyword not understood" in screen


def test_tokenizer_keeps_unfinished_strings_open():
    (token,) = tokenize("'abc")
    assert token.kind == "string" and not token.closed
    assert tokenize("'it''s'")[0].closed
    assert tokenize('"a""b"')[0].kind == "identifier"
    assert [t.kind for t in tokenize("/* x")] == ["comment"]


@pytest.mark.parametrize(
    "text, complete",
    [
        ("", True),
        ("SELECT 1", False),
        ("SELECT 1;", True),
        ("SELECT ';'", False),
        ("SELECT 1; -- done", True),
        ("\\dt", True),
        ("SELECT * FROM t \\e", True),
        ("quit", True),
        ("exit;", True),
        ("help", True),
        ("SELECT 1 -- ;", False),
        ("SELECT *\n\\d audit", True),
        ("SELECT 'a\n\\x'", False),
    ],
)
def test_buffer_complete(text, complete):
    assert buffer_complete(text) is complete


# --- history --------------------------------------------------------------------------------


def test_history_file_is_private_and_under_xdg_state(session, tmp_path):
    path = config_module.history_path()
    assert path == tmp_path / "state" / "dynosql" / "history"
    drive(session, "SHOW TABLES;\r\\q\r", history=None)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert "+SHOW TABLES;" in path.read_text()


def test_history_file_permissions_are_tightened(tmp_path):
    path = tmp_path / "h"
    path.write_text("")
    os.chmod(path, 0o644)
    assert isinstance(open_history(path, 10), FileHistory)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_history_is_trimmed_to_its_size(tmp_path):
    path = tmp_path / "h"
    history = FileHistory(str(path))
    for i in range(5):
        history.store_string(f"SELECT {i}\nFROM t;")
    trim_history(path, 2)
    assert list(FileHistory(str(path)).load_history_strings()) == [
        "SELECT 4\nFROM t;",
        "SELECT 3\nFROM t;",
    ]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_history_size_zero_keeps_nothing_on_disk(tmp_path):
    assert isinstance(open_history(tmp_path / "h", 0), InMemoryHistory)
    assert not (tmp_path / "h").exists()


def test_ctrl_r_searches_the_history(session):
    history = InMemoryHistory()
    history.append_string(f"SELECT SK, action FROM audit {ANA} LIMIT 1;")
    history.append_string("SHOW TABLES;")
    screen, _ = drive(session, "\x12action\r\r\\q\r", history=history)
    assert ANA_FIRST in screen and "| sensors" not in screen


# --- config ---------------------------------------------------------------------------------


def test_first_run_writes_commented_defaults(tmp_path):
    config = config_module.load()
    path = tmp_path / "config" / "dynosql" / "config.toml"
    assert config.path == path and path.exists()
    text = path.read_text()
    assert '# format = "table"' in text and "# scan_confirm_rcu = 100" in text
    assert config == Config(path=path)  # everything commented: the defaults
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it names a command run by a shell
    assert config_module.parse_toml(text) == {"colours": {}}


def test_config_values_are_read(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        'format = "json"\npager = "off"\nhistory_size = 5\nsegments = 4\nrate_limit = 2.5\n'
        'scan_confirm_rcu = 10\ntiming = true\n[colours]\nkeyword = "bold red"\n'
    )
    config = config_module.load(path)
    s = config.settings
    assert (s.format, s.pager, s.history_size) == ("json", "off", 5)
    assert (s.segments, s.rate_limit) == (4, Decimal("2.5"))
    assert s.scan_confirm_rcu == 10 and s.timing is True
    assert config.colours["keyword"] == "bold red" and config.warnings == []
    assert config.given == {
        "format",
        "pager",
        "history_size",
        "segments",
        "rate_limit",
        "scan_confirm_rcu",
        "timing",
    }


def test_bad_config_values_warn_and_keep_defaults(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('format = "xml"\nsegments = -1\nwhat = 1\n')
    config = config_module.load(path)
    assert config.settings.format == "table" and config.settings.segments is None
    assert len(config.warnings) == 3 and "unknown setting what" in config.warnings[2]


def test_broken_toml_warns_and_uses_defaults(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("format = \n")
    config = config_module.load(path)
    assert config.settings.format == "table" and config.warnings


def test_the_config_file_keys_are_the_settings_and_same_words_as_set(tmp_path):
    from dynosql.settings import SETTINGS

    text = config_module.DEFAULT_TEXT
    for setting in SETTINGS:
        assert f"# {setting.name} = " in text
    # uncommenting every default gives the defaults, with no warning
    path = tmp_path / "c.toml"
    path.write_text(re.sub(r"(?m)^# (\w+ = )", r"\1", text))
    config = config_module.load(path, create=False)
    assert config.warnings == [] and config == Config(
        settings=config.settings, given=config.given, path=path
    )
    assert config.settings == Config().settings
    # the words SET takes are taken here too
    path.write_text('consistent = "yes"\nsegments = "auto"\nmax_rcu = "off"\n')
    config = config_module.load(path, create=False)
    assert config.warnings == [] and config.settings.consistent is True


def test_importing_the_repl_package_is_cheap():
    import subprocess

    code = (
        "import sys, dynosql.repl; print('prompt_toolkit' in sys.modules, 'boto3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_table_qualified_key_is_no_scan_to_confirm(session):
    """Issue 11: `drive.PK = …` is the key PK, so nothing asks before the (keyed) read."""
    session.settings.scan_confirm_rcu = Decimal(1)
    keys = "SELECT drive.SK FROM drive WHERE drive.PK = 'DRIVE#bob' AND drive.SK = 'root/';\r\\q\r"
    screen, repl = drive(session, keys)
    assert "GetItem drive" in screen and repl._confirm_session is None


# --- the dbcli family's habits (issue 23): named queries, \watch, help SELECT / \h, \s -------


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
    assert "run 1: 2 RCU · total 2 RCU" in screen  # the embedded moto reports capacity
    assert "run 3: 2 RCU · total 6 RCU" in screen
    assert "\\watch stopped after 3 runs: 6 RCU in all" in screen


def test_ctrl_c_while_a_watched_run_is_shown_still_ends_watch_in_its_own_words(session):
    # Ctrl-C can land while the screen shows a run's figures rather than while \watch waits:
    # it must end \watch the same way, with its summary, not as an interrupted statement
    def prepare(repl):
        present = repl.present

        def present_then_ctrl_c(result):
            present(result)
            if (result.title or "").startswith("run 1:"):
                raise KeyboardInterrupt

        repl.present = present_then_ctrl_c

    keys = f"SELECT COUNT(*) AS n FROM audit {ANA};\r\\watch 0 3\r\\q\r"
    screen, _ = drive(session, keys, prepare=prepare)
    assert "run 2:" not in screen
    assert "\\watch stopped after 1 run: 2 RCU in all" in screen
    assert "interrupted" not in screen


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


def test_the_repl_starts_without_a_region_and_says_so_at_the_first_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No AWS region: the REPL starts (its banner says ``aws · ?``), runs what sends no request,
    and the first statement that needs DynamoDB gets the one-line message."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    screen, _repl = drive(Session(), "SELECT 1 AS one;\nSHOW TABLES;\nSELECT 2 AS two;\n")
    assert "aws · ?" in screen
    assert "error: no AWS region set: use --region or AWS_REGION" in screen
    assert screen.index("one") < screen.index("no AWS region") < screen.index("two")
