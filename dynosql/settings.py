"""Every setting a user can change, in one table.

A `Setting` row names the setting, how its text is read (`Kind`), its default, its help, and
where it may be given: a command-line flag, ``SET name = value``, a backslash command in the
REPL, the config file. argparse (`add_arguments`), SET (`Settings.set`), the backslash commands,
the config file (`dynosql.config`) and completion all read this table, so every door accepts the
same words: ``on``/``off``/``true``/``false``/``yes``/``no``/``1``/``0`` for a switch, ``auto``
or ``off`` where a number may be absent.

Cheap to import: the command line uses it while parsing its arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
from decimal import Decimal, InvalidOperation
from typing import Any

FORMATS = ("table", "csv", "tsv", "json", "jsonl", "markdown", "vertical")

TRUE_WORDS = ("on", "true", "yes", "1")
FALSE_WORDS = ("off", "false", "no", "0")


class Kind:
    """How a setting's value is written: `parse` reads text (ValueError says what is expected),
    `show` writes it back, `words` are what completion offers."""

    expected = "a value"
    words: tuple[str, ...] = ()

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def show(self, value: Any) -> str:
        return str(value)

    def from_config(self, value: Any) -> Any:
        """A TOML value (bool, int, float, str) read the same way as text."""
        if isinstance(value, bool):
            return self.parse("on" if value else "off")
        if isinstance(value, (int, float, str)):
            return self.parse(str(value))
        raise ValueError(self.expected)

    def to_config(self, value: Any) -> str:
        """The TOML text of a value (the config file's commented defaults)."""
        return f'"{self.show(value)}"'


class Switch(Kind):
    expected = "on or off"
    words = ("on", "off")

    def parse(self, text: str) -> bool:
        word = text.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError(self.expected)

    def show(self, value: Any) -> str:
        return "on" if value else "off"

    def to_config(self, value: Any) -> str:
        return "true" if value else "false"


ON_THE_COMMAND_LINE = "on the command line"


@dataclasses.dataclass(frozen=True)
class Choice(Kind):
    choices: tuple[str, ...]

    @property
    def expected(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(self.choices)

    @property
    def words(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.choices

    def parse(self, text: str) -> str:
        word = text.strip().lower()
        if word not in self.choices:
            raise ValueError(self.expected)
        return word


@dataclasses.dataclass(frozen=True)
class Whole(Kind):
    """A whole number in [low, high]; `absent` (e.g. ``auto``) stands for None."""

    low: int
    high: int
    absent: str | None = None

    @property
    def expected(self) -> str:  # type: ignore[override]
        text = f"a whole number from {self.low} to {self.high}"
        return f"{text}, or {self.absent}" if self.absent else text

    @property
    def words(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.absent,) if self.absent else ()

    def parse(self, text: str) -> int | None:
        word = text.strip().lower()
        if self.absent and word in (self.absent, "none"):
            return None
        try:
            n = int(word)
        except ValueError:
            raise ValueError(self.expected) from None
        if not self.low <= n <= self.high:
            raise ValueError(self.expected)
        return n

    def show(self, value: Any) -> str:
        if value is None:
            return self.absent or "none"
        return str(value)

    def to_config(self, value: Any) -> str:
        return f'"{self.show(value)}"' if value is None else str(value)


@dataclasses.dataclass(frozen=True)
class Amount(Kind):
    """A finite decimal number (capacity units): positive, or zero too when `zero`;
    `absent` (``off``) stands for None. Never a float: 0.1 stays 0.1."""

    zero: bool = False
    absent: str | None = None

    @property
    def expected(self) -> str:  # type: ignore[override]
        text = "a number (0 or more)" if self.zero else "a positive number"
        return f"{text}, or {self.absent}" if self.absent else text

    @property
    def words(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.absent,) if self.absent else ()

    def parse(self, text: str) -> Decimal | None:
        word = text.strip().lower()
        if self.absent and word in (self.absent, "none"):
            return None
        try:
            d = Decimal(word)
        except InvalidOperation:
            raise ValueError(self.expected) from None
        if not d.is_finite() or d < 0 or (d == 0 and not self.zero):
            raise ValueError(self.expected)
        return d

    def show(self, value: Any) -> str:
        if value is None:
            return self.absent or "none"
        return format(value.normalize(), "f") if value else "0"

    def to_config(self, value: Any) -> str:
        return f'"{self.show(value)}"' if value is None else self.show(value)


class Text(Kind):
    expected = "text"

    def parse(self, text: str) -> str:
        return text.strip()

    def to_config(self, value: Any) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclasses.dataclass(frozen=True)
class Setting:
    """One row of the table. `flag`: the command-line option (a switch flag turns it on);
    `command`: the REPL backslash command that shows or changes it (a switch toggles);
    `live`: SET can change it in a running session (else it is read once at start, from the
    config file); `repl`: it only matters in the REPL; `latch`: a switch SET can turn on and
    never off."""

    name: str
    kind: Kind
    default: Any
    help: str
    flag: str | None = None
    metavar: str | None = None
    command: str | None = None
    live: bool = True
    repl: bool = False
    config: str = ""  # the comment above the key in the config file (default: the help)
    # a limit: which way is tighter ("on" for a switch, "lower" for a number where off/None is
    # no limit). Given on the command line, SET may only tighten it (a script cannot undo it).
    tighter: str | None = None
    # a switch that, once on, stays on for the session: SET turns it on, never off
    latch: bool = False

    def within(self, limit: Any, value: Any) -> bool:
        """Whether `value` is at least as tight as `limit` (always, for a non-limit)."""
        if self.tighter == "on":
            return bool(value) or not limit
        if self.tighter == "lower":
            return limit is None or (value is not None and value <= limit)
        return True


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "format",
        Choice(FORMATS),
        "table",
        "output format: " + ", ".join(FORMATS),
        flag="--format",
        metavar="FMT",
        command="\\format",
    ),
    Setting(
        "numeric_digits",
        Whole(1, 38, absent="off"),
        12,
        "significant digits of AVG and division results in table, markdown and vertical "
        "output (json, jsonl, csv and tsv stay exact; off: all 38)",
    ),
    Setting(
        "consistent",
        Switch(),
        False,
        "strongly consistent reads (twice the cost; not on GSIs)",
        flag="--consistent",
        command="\\consistent",
    ),
    Setting(
        "segments",
        Whole(1, 1000000, absent="auto"),
        None,
        "parallel Scan workers (a number, or auto: by table size)",
        flag="--segments",
        metavar="N",
    ),
    Setting(
        "max_rcu",
        Amount(absent="off"),
        None,
        "stop a statement that consumes more RCU than this (a number, or off)",
        flag="--max-rcu",
        metavar="N",
        tighter="lower",
    ),
    Setting(
        "rate_limit",
        Amount(absent="off"),
        None,
        "read at most this many RCU per second (a number, or off)",
        flag="--rate-limit",
        metavar="RCU",
        tighter="lower",
    ),
    Setting(
        "fail_on_scan",
        Switch(),
        False,
        "refuse a statement that would Scan (exit 3 in a script)",
        flag="--fail-on-scan",
        tighter="on",
    ),
    Setting(
        "timing",
        Switch(),
        False,
        "show how long each statement took, rendering included",
        command="\\timing",
        repl=True,
    ),
    Setting(
        "scan_confirm_rcu",
        Amount(zero=True),
        Decimal(100),
        "ask before a Scan estimated above this many RCU (0 never asks; \\i never asks)",
        repl=True,
    ),
    Setting(
        "pager",
        Text(),
        "",
        'pager for results taller or wider than the screen ("" = $PAGER, else less -SRXF; '
        '"off" never pages)',
        repl=True,
    ),
    Setting(
        "sample_rows",
        Whole(0, 1000),
        20,
        "items read per table (once, one small Scan) to learn attribute names for completion; "
        "0 reads nothing",
        repl=True,
    ),
    Setting(
        "history_size",
        Whole(0, 10_000_000),
        10000,
        "statements kept in the history file ($XDG_STATE_HOME/dynosql/history)",
        live=False,
        repl=True,
    ),
    Setting(
        "highlight",
        Switch(),
        True,
        "syntax highlighting of the statement being typed",
        live=False,
        repl=True,
    ),
    Setting(
        "key_bindings",
        Choice(("emacs", "vi")),
        "emacs",
        "editing keys: emacs or vi",
        live=False,
        repl=True,
    ),
    Setting(
        "connect_timeout",
        Amount(),
        Decimal(5),
        "seconds to wait for a connection to DynamoDB",
        flag="--connect-timeout",
        metavar="S",
        live=False,
    ),
    Setting(
        "read_timeout",
        Amount(),
        Decimal(10),
        "seconds to wait for an answer once a request is sent",
        flag="--read-timeout",
        metavar="S",
        live=False,
    ),
    Setting(
        "deadline",
        Amount(),
        Decimal(30),
        "give up on one request after this many seconds, retries included",
        flag="--deadline",
        metavar="S",
        tighter="lower",
    ),
    Setting(
        "dry_run",
        Switch(),
        False,
        "writes run their reads and report what they would change, but write nothing",
        flag="--dry-run",
        tighter="on",
    ),
    Setting(
        "read_only",
        Switch(),
        False,
        "refuse every statement that changes data or tables (INSERT, UPSERT, UPDATE, DELETE, UNDO, "
        "CREATE/ALTER/DROP, COPY FROM) before any request",
        flag="--read-only",
        tighter="on",
        latch=True,  # SET read_only = on turns it on; nothing in a session turns it off
    ),
    Setting(
        "confirm_over",
        Whole(0, 2**31 - 1),
        100,
        "ask before a write whose read finds more items than this: UPDATE, DELETE, INSERT … SELECT, "
        "UNDO (a script needs --yes)",
        flag="--confirm-over",
        metavar="N",
        tighter="lower",
    ),
    Setting(
        "max_wcu",
        Amount(absent="off"),
        None,
        "stop a write statement that consumes more WCU than this (a number, or off)",
        flag="--max-wcu",
        metavar="N",
        tighter="lower",
    ),
    Setting(
        "journal_dir",
        Text(),
        "",
        'directory of the undo journals ("" = $XDG_STATE_HOME/dynosql/journal; "off" keeps none)',
    ),
    Setting(
        "skip_bad",
        Switch(),
        False,
        "COPY FROM: put lines that cannot be read in a side file (FILE.bad) and go on",
        flag="--skip-bad",
    ),
    Setting(
        "engine",
        Choice(("dynamodb", "export", "athena")),
        "dynamodb",
        "where a SELECT runs: dynamodb (Query/Scan), export (a table export read by DuckDB "
        "here) or athena (the export queried by Amazon Athena)",
        flag="--engine",
        metavar="ENGINE",
    ),
    Setting(
        "export_s3",
        Text(),
        "",
        "where --engine export/athena write table exports: s3://bucket/prefix/",
        flag="--export-s3",
        metavar="URI",
    ),
    Setting(
        "athena_workgroup",
        Text(),
        "primary",
        "the Athena workgroup for --engine athena",
        flag="--athena-workgroup",
        metavar="NAME",
    ),
    Setting(
        "athena_output",
        Text(),
        "",
        "where Athena writes query results: s3://bucket/prefix/ (default: the workgroup's)",
        flag="--athena-output",
        metavar="URI",
    ),
    Setting(
        "prices",
        Text(),
        "",
        "override the price constants EXPLAIN uses: name=dollars,... (rcu_million, export_gb, "
        "pitr_gb_month, athena_tb)",
        flag="--prices",
        metavar="LIST",
    ),
    Setting(
        "memory_budget",
        Amount(absent="off"),
        Decimal(256),
        "MB a client-side sort or GROUP BY may hold before spilling to temporary files (off: "
        "no bound)",
        flag="--memory-budget",
        metavar="MB",
    ),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


class SettingError(ValueError):
    """A setting name or value that is not accepted; the message is one sentence."""


def lookup(name: str) -> Setting:
    setting = BY_NAME.get(name.strip().lower())
    if setting is None:
        known = ", ".join(s.name for s in SETTINGS if s.live)
        raise SettingError(f"unknown setting {name} (settings: {known})")
    return setting


def parse_value(setting: Setting, text: str) -> Any:
    try:
        return setting.kind.parse(text)
    except ValueError as err:
        raise SettingError(f"bad value {text.strip()!r} for {setting.name}: {err}") from err


@dataclasses.dataclass
class Settings:
    """The current value of every setting (the table's defaults unless changed)."""

    format: str = "table"
    numeric_digits: int | None = 12
    consistent: bool = False
    segments: int | None = None
    max_rcu: Decimal | None = None
    rate_limit: Decimal | None = None
    fail_on_scan: bool = False
    timing: bool = False
    scan_confirm_rcu: Decimal = Decimal(100)
    pager: str = ""
    sample_rows: int = 20
    history_size: int = 10000
    highlight: bool = True
    key_bindings: str = "emacs"
    connect_timeout: Decimal = Decimal(5)
    read_timeout: Decimal = Decimal(10)
    deadline: Decimal = Decimal(30)
    dry_run: bool = False
    read_only: bool = False
    confirm_over: int = 100
    max_wcu: Decimal | None = None
    journal_dir: str = ""
    skip_bad: bool = False
    engine: str = "dynamodb"
    export_s3: str = ""
    athena_workgroup: str = "primary"
    athena_output: str = ""
    prices: str = ""
    memory_budget: Decimal | None = Decimal(256)

    def __post_init__(self) -> None:
        # limits given outside the session (the command line, the config file, connect()):
        # name -> (the limit, where it was given); SET may only tighten them
        self.pinned: dict[str, tuple[Any, str]] = {}

    def give(self, name: str, value: Any, origin: str) -> None:
        """Set `name` from outside the session (`origin`: "on the command line", …); a limit
        given so is pinned, so that a script's SET can only tighten it."""
        setting = lookup(name)
        setattr(self, setting.name, value)
        if setting.tighter:
            self.pinned[setting.name] = (value, origin)

    def set(self, name: str, text: str) -> Setting:
        """``SET name = text`` (and the backslash commands): SettingError when not accepted,
        or when it would loosen a limit given on the command line."""
        setting, value = self.checked(name, text)
        setattr(self, setting.name, value)
        return setting

    def checked(self, name: str, text: str) -> tuple[Setting, Any]:
        """What ``SET name = text`` would make the setting, changing nothing: SettingError
        when not accepted, or when it would loosen a limit given on the command line."""
        setting = lookup(name)
        if not setting.live:
            raise SettingError(
                f"{setting.name} is read when dynosql starts: change it in the config file"
            )
        value = parse_value(setting, text)
        if setting.latch and getattr(self, setting.name) and not value:
            raise SettingError(
                f"{setting.name} is on for this session: SET cannot turn it off (it only turns "
                "it on; start a session without it)"
            )
        if setting.name in self.pinned and not setting.within(self.pinned[setting.name][0], value):
            limit, origin = self.pinned[setting.name]
            name = setting.flag if origin == ON_THE_COMMAND_LINE and setting.flag else setting.name
            given = name if setting.tighter == "on" else f"{name} {setting.kind.show(limit)}"
            raise SettingError(
                f"SET {setting.name} = {setting.kind.show(value)} would loosen {given} "
                f"given {origin} (a script may only tighten it)"
            )
        return setting, value

    def show(self, name: str) -> str:
        setting = lookup(name)
        return setting.kind.show(getattr(self, setting.name))

    def rows(self) -> list[dict[str, str]]:
        """One row per setting, for ``\\settings`` and ``SHOW SETTINGS``."""
        return [
            {"setting": s.name, "value": self.show(s.name), "meaning": s.help} for s in SETTINGS
        ]


def _check_table() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(Settings)}
    assert list(fields) == [s.name for s in SETTINGS], "Settings fields follow the table"
    for s in SETTINGS:
        assert fields[s.name] == s.default, f"the default of {s.name} is the table's"


_check_table()


# --- argparse --------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """The flags of the settings that have one; each defaults to None (not given), so the
    config file can fill in what the command line left unset."""
    for s in SETTINGS:
        if s.flag is None:
            continue
        dest = s.name
        if isinstance(s.kind, Switch):
            parser.add_argument(s.flag, dest=dest, action="store_true", default=None, help=s.help)
        else:
            parser.add_argument(
                s.flag,
                dest=dest,
                type=_argparse_type(s),
                metavar=s.metavar,
                default=None,
                help=s.help,
            )


def _argparse_type(setting: Setting) -> Any:
    def convert(text: str) -> Any:
        try:
            return setting.kind.parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"{err}, got {text!r}") from err

    convert.__name__ = setting.name  # argparse names the type in its messages
    return convert


def from_arguments(args: Any, base: Settings | None = None) -> Settings:
    """`base` (the defaults, or the config file's) with every flag that was given applied."""
    settings = Settings()
    if base is not None:
        settings = dataclasses.replace(base)
        settings.pinned = dict(base.pinned)  # the config file's limits stay pinned
    for s in SETTINGS:
        if s.flag is not None:
            value = getattr(args, s.name, None)
            if value is not None:
                settings.give(s.name, value, ON_THE_COMMAND_LINE)
    return settings
