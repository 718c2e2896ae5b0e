"""The command in-process (tests/cli_runner.py) against the shared example servers: the same
exit codes, stdout and stderr as a real process, in milliseconds."""

from __future__ import annotations

import json

from cli_runner import cli_env, run_cli


def test_select_json_and_footer(examples_backend, tmp_path):
    url = examples_backend.endpoint_url
    run = run_cli(
        "--endpoint-url",
        url,
        "--format",
        "json",
        "-e",
        "SELECT PK, SK FROM drive WHERE PK = 'DRIVE#alice' ORDER BY SK LIMIT 2",
        env=cli_env(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert [r["PK"] for r in rows] == ["DRIVE#alice", "DRIVE#alice"]
    assert rows[0]["SK"] < rows[1]["SK"]
    assert run.err_lines[-1].startswith("2 rows · Query drive · ")


def test_bad_sql_is_one_line_and_exit_1(examples_backend, tmp_path):
    run = run_cli(
        "--endpoint-url", examples_backend.endpoint_url, "-e", "SELEC 1", env=cli_env(tmp_path)
    )
    assert run.returncode == 1
    assert run.one_error().startswith("error: line 1, column ")


def test_flags_win_over_the_config_file_which_wins_over_defaults(examples_backend, tmp_path):
    config = tmp_path / "config" / "dynosql" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('format = "csv"\nfail_on_scan = "yes"\n')
    env = cli_env(tmp_path)
    url = ["--endpoint-url", examples_backend.endpoint_url]
    run = run_cli(*url, "-e", "SELECT COUNT(*) FROM drive", env=env)
    assert run.returncode == 3 and "--fail-on-scan" in run.one_error()
    run = run_cli(*url, "-e", "SELECT PK FROM drive WHERE PK = 'DRIVE#alice' LIMIT 1", env=env)
    assert run.returncode == 0 and run.stdout.splitlines() == ["PK", "DRIVE#alice"]
    run = run_cli(
        *url,
        "--format",
        "jsonl",
        "-e",
        "SELECT PK FROM drive WHERE PK = 'DRIVE#alice' LIMIT 1",
        env=env,
    )
    assert run.stdout == '{"PK": "DRIVE#alice"}\n'


def test_a_bad_config_value_warns_and_keeps_the_default(examples_backend, tmp_path):
    config = tmp_path / "config" / "dynosql" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('format = "xml"\n')
    run = run_cli(
        "--endpoint-url",
        examples_backend.endpoint_url,
        "-e",
        "SET format = csv",
        env=cli_env(tmp_path),
    )
    assert run.returncode == 0
    assert "warning: config: format = 'xml' is not one of table" in run.stderr


def test_a_backslash_command_in_a_script_names_its_line_and_the_sql_instead(tmp_path):
    """In a -f script, `\\d drive` on line 3 is named where it stands, with the statement a
    script writes (DESCRIBE drive); nothing before it runs."""
    script = tmp_path / "s.sql"
    script.write_text("SHOW TABLES;\n-- the drive table\n  \\d drive\n")
    run = run_cli("--endpoint-url", "http://127.0.0.1:9", "-f", str(script), env=cli_env(tmp_path))
    assert run.returncode == 1 and run.stdout == ""  # the endpoint is never reached
    assert run.one_error() == (
        "error: line 3, column 3: \\d is a command of the REPL: in a script, write DESCRIBE drive"
    )


def test_a_statement_that_sends_no_request_needs_no_region(tmp_path):
    """SELECT 1, SET and EXPLAIN of values run with no AWS region (and no credentials); the
    first statement that needs DynamoDB gets the one-line message, exit 1."""
    env = {
        k: v for k, v in cli_env(tmp_path).items() if k not in ("AWS_REGION", "AWS_DEFAULT_REGION")
    }
    env.pop("AWS_ACCESS_KEY_ID")
    env.pop("AWS_SECRET_ACCESS_KEY")
    run = run_cli(
        "-q",
        "--format",
        "csv",
        "-e",
        "SET numeric_digits = 5",
        "-e",
        "SELECT 1 + 1 AS two",
        env=env,
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "two\n2\n", "")
    explained = run_cli("-q", "-e", "EXPLAIN SELECT 'a' AS x", env=env)
    assert explained.returncode == 0 and "no request (no table: values only)" in explained.stdout
    for sql in ("SHOW TABLES", "SELECT * FROM t WHERE id = 'a'", "EXPLAIN SELECT * FROM t"):
        refused = run_cli("--format", "csv", "-e", "SELECT 1 AS one", "-e", sql, env=env)
        assert refused.returncode == 1 and refused.stdout == "one\n1\n", sql
        assert refused.one_error() == "error: no AWS region set: use --region or AWS_REGION"
