"""The REPL's configuration file: ``$XDG_CONFIG_HOME/dynosql/config.toml``.

``$XDG_CONFIG_HOME`` defaults to ``~/.config``. On the first run the file is written with every
setting commented out at its default, so the file documents itself; a missing or unreadable file
means the defaults. Command-line options win over the file (``--format``, ``--segments``,
``--rate-limit``). A bad value is reported as a warning and its default used: a typo in the
config must never keep the REPL from starting.

TOML is read with ``tomllib`` (Python 3.11+), else ``tomli`` when installed, else a small
parser here that understands what this file needs: ``key = value`` lines with strings,
integers, floats and booleans, ``[table]`` headers and ``#`` comments.
"""

from __future__ import annotations

import dataclasses
import os
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

FORMATS = ("table", "csv", "tsv", "json", "jsonl", "markdown", "vertical")

# token kind -> prompt_toolkit style string (see dynosql.repl.highlight)
DEFAULT_COLOURS: dict[str, str] = {
    "keyword": "bold ansiblue",
    "function": "ansicyan",
    "string": "ansigreen",
    "number": "ansimagenta",
    "comment": "italic ansibrightblack",
    "identifier": "ansiyellow",
    "parameter": "ansired",
    "operator": "",
    "command": "bold ansicyan",
    "toolbar": "bg:ansibrightblack ansiwhite",
}


@dataclasses.dataclass
class Config:
    format: str = "table"
    pager: str = ""  # "" = $PAGER, then `less -SRXF`; "off" = never page
    history_size: int = 10000
    segments: int | None = None
    rate_limit: Decimal | None = None
    scan_confirm_rcu: Decimal = Decimal(100)  # 0 = never ask
    timing: bool = False
    highlight: bool = True
    key_bindings: str = "emacs"  # or "vi"
    sample_rows: int = 20  # items read per table to learn attribute names for completion
    colours: dict[str, str] = dataclasses.field(default_factory=lambda: dict(DEFAULT_COLOURS))
    warnings: list[str] = dataclasses.field(default_factory=list)  # problems found reading it
    path: Path | None = None


DEFAULT_TEXT = """\
# dynosql configuration, written with the defaults on the first run of the REPL.
# Every setting is commented out at its default value: uncomment a line to change it.
# Command-line options (--format, --segments, --rate-limit) win over this file.

# Output format: table, csv, tsv, json, jsonl, markdown or vertical.
# format = "table"

# Pager for results taller or wider than the screen: "" means $PAGER, else "less -SRXF";
# "off" never pages.
# pager = ""

# Statements kept in the history file ($XDG_STATE_HOME/dynosql/history).
# history_size = 10000

# Parallel Scan workers; 0 means automatic (by table size).
# segments = 0

# Read at most this many RCU per second; 0 means no limit.
# rate_limit = 0

# Before a Scan whose estimated cost is above this many RCU, show the estimate and ask
# whether to go on; 0 never asks. Scripts run with \\i never ask.
# scan_confirm_rcu = 100

# Show how long each statement took, rendering included (\\timing toggles it).
# timing = false

# Syntax highlighting of the statement being typed.
# highlight = true

# Editing keys: "emacs" or "vi".
# key_bindings = "emacs"

# Items read (one small Scan per table, once per session) to learn attribute names for
# completion; 0 completes key attributes only and reads nothing.
# sample_rows = 20

# Colours: prompt_toolkit style strings ("bold ansiblue", "#ff8800", "bg:ansiblack", "" = none).
[colours]
# keyword = "bold ansiblue"
# function = "ansicyan"
# string = "ansigreen"
# number = "ansimagenta"
# comment = "italic ansibrightblack"
# identifier = "ansiyellow"
# parameter = "ansired"
# operator = ""
# command = "bold ansicyan"
# toolbar = "bg:ansibrightblack ansiwhite"
"""


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "dynosql"


def config_path() -> Path:
    return config_dir() / "config.toml"


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "dynosql"


def history_path() -> Path:
    return state_dir() / "history"


def write_default(path: Path) -> bool:
    """Write the commented defaults to `path` unless a file is there; True if written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(DEFAULT_TEXT)
        return True
    except FileExistsError:
        return False
    except OSError:
        return False  # a read-only home: run on the defaults


def load(path: Path | None = None, create: bool = True) -> Config:
    """The configuration at `path` (default: `config_path()`), writing the defaults first."""
    path = path or config_path()
    config = Config(path=path)
    if create:
        write_default(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError) as err:
        config.warnings.append(f"cannot read {path}: {err}; using the defaults")
        return config
    try:
        data = parse_toml(text)
    except ValueError as err:
        config.warnings.append(f"{path}: {err}; using the defaults")
        return config
    apply(config, data)
    return config


def apply(config: Config, data: dict[str, Any]) -> None:
    """Set the fields `data` names, collecting a warning for each bad one."""

    def bad(key: str, want: str) -> None:
        config.warnings.append(f"config: {key} = {data[key]!r} is not {want}; using the default")

    for key, value in data.items():
        if key == "format":
            if isinstance(value, str) and value.lower() in FORMATS:
                config.format = value.lower()
            else:
                bad(key, "one of " + ", ".join(FORMATS))
        elif key == "pager":
            if isinstance(value, bool) and not value:
                config.pager = "off"
            elif isinstance(value, str):
                config.pager = value.strip()
            else:
                bad(key, "a command")
        elif key in ("history_size", "sample_rows"):
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(config, key, value)
            else:
                bad(key, "a whole number")
        elif key == "segments":
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1000000:
                config.segments = value or None
            else:
                bad(key, "a whole number from 0 to 1000000")
        elif key in ("rate_limit", "scan_confirm_rcu"):
            number = _decimal(value)
            if number is None or number < 0:
                bad(key, "a number of RCU (0 or more)")
            elif key == "rate_limit":
                config.rate_limit = number or None
            else:
                config.scan_confirm_rcu = number
        elif key in ("timing", "highlight"):
            if isinstance(value, bool):
                setattr(config, key, value)
            else:
                bad(key, "true or false")
        elif key == "key_bindings":
            if isinstance(value, str) and value.lower() in ("emacs", "vi"):
                config.key_bindings = value.lower()
            else:
                bad(key, '"emacs" or "vi"')
        elif key in ("colours", "colors"):
            if not isinstance(value, dict):
                bad(key, "a table of styles")
                continue
            for name, style in value.items():
                if name in DEFAULT_COLOURS and isinstance(style, str):
                    config.colours[name] = style
                else:
                    config.warnings.append(f"config: colours.{name} ignored")
        else:
            config.warnings.append(f"config: unknown setting {key} ignored")


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, str)):
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


# --- TOML ----------------------------------------------------------------------------------------


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text to a dict; ValueError (with a line number) when it is not valid."""
    try:
        import tomllib as toml  # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        try:
            import tomli as toml  # type: ignore[no-redef]
        except ImportError:
            return parse_minimal_toml(text)
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as err:
        raise ValueError(str(err)) from None


_KEY = r"[A-Za-z0-9_-]+"
_LINE = re.compile(rf"\s*({_KEY})\s*=\s*(.*?)\s*$")
_HEADER = re.compile(rf"\s*\[\s*({_KEY})\s*\]\s*(?:#.*)?$")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def parse_minimal_toml(text: str) -> dict[str, Any]:
    """The subset of TOML this file uses, for Python 3.10 without tomli."""
    data: dict[str, Any] = {}
    table = data
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if m := _HEADER.match(line):
            table = data.setdefault(m.group(1), {})
            if not isinstance(table, dict):
                raise ValueError(f"line {number}: {m.group(1)} is already a value")
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"line {number}: expected key = value")
        key, raw = m.groups()
        if key in table:
            raise ValueError(f"line {number}: {key} given twice")
        try:
            table[key] = _value(raw)
        except ValueError as err:
            raise ValueError(f"line {number}: {err}") from None
    return data


def _value(raw: str) -> Any:
    if raw.startswith('"'):
        out, i = [], 1
        while i < len(raw):
            c = raw[i]
            if c == "\\":
                if i + 1 >= len(raw) or raw[i + 1] not in _ESCAPES:
                    raise ValueError("bad escape in a string")
                out.append(_ESCAPES[raw[i + 1]])
                i += 2
                continue
            if c == '"':
                _rest(raw[i + 1 :])
                return "".join(out)
            out.append(c)
            i += 1
        raise ValueError("unterminated string")
    if raw.startswith("'"):
        end = raw.find("'", 1)
        if end < 0:
            raise ValueError("unterminated string")
        _rest(raw[end + 1 :])
        return raw[1:end]
    value = raw.split("#", 1)[0].strip()
    if value in ("true", "false"):
        return value == "true"
    text = value.replace("_", "")
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d+|\d+(\.\d+)?[eE][+-]?\d+)", text):
        return float(text)
    raise ValueError(f"cannot read the value {value!r}")


def _rest(text: str) -> None:
    text = text.strip()
    if text and not text.startswith("#"):
        raise ValueError("unexpected text after a value")
