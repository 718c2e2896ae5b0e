"""One table of settings: every door (flags, SET, backslash commands, the config file,
completion) accepts the same words and derives from `dynosql.settings.SETTINGS`."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dynosql import cli, config
from dynosql.errors import SqlError
from dynosql.repl import commands
from dynosql.repl.completer import SETTING_VALUES, SETTINGS
from dynosql.session import Session
from dynosql.settings import SETTINGS as TABLE
from dynosql.settings import SettingError, Settings, Switch

SAME_WORDS = [
    ("consistent", "yes", True),
    ("consistent", "ON", True),
    ("consistent", "0", False),
    ("fail_on_scan", "true", True),
    ("segments", "auto", None),
    ("segments", "12", 12),
    ("max_rcu", "off", None),
    ("max_rcu", "2.5", Decimal("2.5")),
    ("rate_limit", "100", Decimal(100)),
    ("format", "JSONL", "jsonl"),
    ("timing", "no", False),
    ("scan_confirm_rcu", "0", Decimal(0)),
]


@pytest.mark.parametrize(("name", "text", "value"), SAME_WORDS)
def test_set_and_the_config_file_take_the_same_words(name, text, value, tmp_path):
    settings = Settings()
    settings.set(name, text)
    assert getattr(settings, name) == value
    path = tmp_path / "c.toml"
    path.write_text(f'{name} = "{text}"\n')
    loaded = config.load(path, create=False)
    assert loaded.warnings == [] and getattr(loaded.settings, name) == value


@pytest.mark.parametrize(("name", "text", "value"), SAME_WORDS)
def test_flags_take_the_same_words(name, text, value):
    setting = next(s for s in TABLE if s.name == name)
    if setting.flag is None:
        pytest.skip(f"{name} has no flag")
    parser = cli.build_parser()
    if isinstance(setting.kind, Switch):
        args = parser.parse_args([setting.flag])
        assert getattr(args, name) is True
        return
    args = parser.parse_args([setting.flag, text])
    assert getattr(args, name) == value


@pytest.mark.parametrize(
    ("name", "text"),
    [("segments", "0"), ("max_rcu", "-1"), ("max_rcu", "NaN"), ("format", "xml"), ("timing", "x")],
)
def test_bad_values_are_refused_everywhere_with_one_message(name, text, tmp_path, capsys):
    with pytest.raises(SettingError) as refused:
        Settings().set(name, text)
    message = str(refused.value)
    assert message.startswith(f"bad value {text!r} for {name}: ")
    path = tmp_path / "c.toml"
    path.write_text(f'{name} = "{text}"\n')
    assert len(config.load(path, create=False).warnings) == 1
    setting = next(s for s in TABLE if s.name == name)
    if setting.flag and not isinstance(setting.kind, Switch):
        with pytest.raises(SystemExit) as exited:
            cli.build_parser().parse_args([setting.flag, text])
        assert exited.value.code == 2
        assert message.split(": ", 1)[1] in capsys.readouterr().err


def test_startup_settings_are_not_changed_by_set():
    with pytest.raises(SettingError, match="config file"):
        Settings().set("history_size", "5")


def test_unknown_setting_names_the_known_ones():
    with pytest.raises(SettingError, match=r"unknown setting colour \(settings: format, "):
        Settings().set("colour", "on")


def test_set_statement_reports_position_and_the_value_it_kept(moto_examples_backend):
    session = Session(moto_examples_backend.client())
    result = session.execute("SET consistent = yes")
    assert result.title == "SET consistent = on" and session.settings.consistent is True
    with pytest.raises(SqlError) as refused:
        session.execute("SET segments = lots")
    assert refused.value.line == 1 and "segments" in str(refused.value)


def test_completion_and_backslash_commands_come_from_the_table():
    assert set(SETTINGS) == {s.name for s in TABLE if s.live}
    assert SETTING_VALUES["format"] == (
        "table",
        "csv",
        "tsv",
        "json",
        "jsonl",
        "markdown",
        "vertical",
    )
    for setting in TABLE:
        if setting.command:
            assert (
                commands.COMMANDS[setting.command]
                .help.lower()
                .startswith(setting.help[:10].lower())
            )
    assert {"\\format", "\\consistent", "\\timing"} <= set(commands.COMMANDS)


def test_every_row_is_in_the_default_config_file():
    for setting in TABLE:
        assert (
            f"# {setting.name} = {setting.kind.to_config(setting.default)}" in config.DEFAULT_TEXT
        )


def _read_by_the_guards() -> set[str]:
    """Every setting the guard pipeline (dynosql/guards.py) or the read budget reads."""
    import re
    from pathlib import Path

    import dynosql

    root = Path(dynosql.__file__).parent
    text = (root / "guards.py").read_text() + (root / "dynamo" / "budget.py").read_text()
    # a setting the command line gives (the REPL's own preferences, such as the question's
    # threshold scan_confirm_rcu, are no limits a script was started with)
    given = {s.name for s in TABLE if s.flag is not None}
    names = set(re.findall(r"settings\.([a-z_]+)", text)) & given
    return names | {"max_rcu", "rate_limit", "deadline"}  # the reader's limits (Backend._executor)


def test_every_limit_has_a_direction():
    """A limit given on the command line can only be tightened by SET: each needs a direction."""
    limits = _read_by_the_guards()
    assert {"read_only", "dry_run", "fail_on_scan", "max_wcu", "confirm_over"} <= limits
    by_name = {s.name: s for s in TABLE}
    missing = sorted(name for name in limits if by_name[name].tighter is None)
    assert missing == []


LOOSENING = [
    ("--dry-run", "SET dry_run = off"),
    ("--fail-on-scan", "SET fail_on_scan = off"),
    ("--max-wcu 5", "SET max_wcu = off"),
    ("--max-wcu 5", "SET max_wcu = 6"),
    ("--confirm-over 10", "SET confirm_over = 11"),
    ("--max-rcu 10", "SET max_rcu = off"),
    ("--rate-limit 50", "SET rate_limit = 51"),
    ("--deadline 5", "SET deadline = 6"),
]


@pytest.mark.parametrize(("flags", "statement"), LOOSENING)
def test_set_cannot_loosen_a_command_line_limit(moto_examples_backend, flags, statement):
    """Through the real command: the SET is refused with the flag named, before any statement
    after it runs (here a write the loosened limit would have let through)."""
    from tests.cli_runner import run_cli

    sql = f"{statement}; DELETE FROM tenants WHERE pk = 'TENANT#none' AND sk = 'x'"
    run = run_cli("--endpoint-url", moto_examples_backend.endpoint_url, *flags.split(), "-e", sql)
    assert run.returncode == 1
    assert f"would loosen {flags} given on the command line" in run.one_error()


def test_set_may_tighten_a_write_limit(moto_examples_backend):
    from tests.cli_runner import run_cli

    run = run_cli(
        "--endpoint-url",
        moto_examples_backend.endpoint_url,
        "--max-wcu",
        "5",
        "-e",
        "SET max_wcu = 4; SET dry_run = on; SHOW TABLES",
    )
    assert run.returncode == 0, run.stderr


def test_set_cannot_loosen_a_config_file_limit(moto_examples_backend, tmp_path):
    """The config file's limits are the user's as much as the flags are: a script's SET may
    tighten them, not loosen them; a flag given on the command line still overrides them."""
    from tests.cli_runner import cli_env, run_cli

    env = cli_env(tmp_path)
    path = tmp_path / "config" / "dynosql" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text("max_wcu = 5\ndry_run = true\n")
    url = moto_examples_backend.endpoint_url
    run = run_cli("--endpoint-url", url, "-e", "SET max_wcu = 6; SHOW TABLES", env=env)
    assert run.returncode == 1 and run.stdout == ""
    assert "would loosen max_wcu 5 given in the config file" in run.one_error()
    run = run_cli("--endpoint-url", url, "-e", "SET dry_run = off", env=env)
    assert "would loosen dry_run given in the config file" in run.one_error()
    run = run_cli("--endpoint-url", url, "-e", "SET max_wcu = 4; SHOW TABLES", env=env)
    assert run.returncode == 0, run.stderr
    # the command line overrides the file, and pins its own value
    run = run_cli("--endpoint-url", url, "--max-wcu", "8", "-e", "SET max_wcu = 7", env=env)
    assert run.returncode == 0, run.stderr
    run = run_cli("--endpoint-url", url, "--max-wcu", "8", "-e", "SET max_wcu = 9", env=env)
    assert "would loosen --max-wcu 8 given on the command line" in run.one_error()
