"""The configuration file: ``$XDG_CONFIG_HOME/dynosql/config.toml``.

``$XDG_CONFIG_HOME`` defaults to ``~/.config``. The first run of the REPL writes the file with
every setting commented out at its default, so the file documents itself; a missing or
unreadable file means the defaults. The keys are the settings of `dynosql.settings.SETTINGS`
(the same names and words as ``SET``), read by the REPL and by scripts; command-line flags win
over the file. A bad value is reported as a warning and its default used: a typo in the config
must never keep dynosql from starting. ``[colours]`` styles the REPL.

TOML is read with ``tomllib`` (Python 3.11+) or ``tomli`` (a dependency on 3.10).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from dynosql.settings import SETTINGS, Settings, lookup

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
    """What the file said: the settings it gives (over the defaults), the colours, and the
    problems found reading it."""

    settings: Settings = dataclasses.field(default_factory=Settings)
    given: set[str] = dataclasses.field(default_factory=set)  # the keys the file set
    colours: dict[str, str] = dataclasses.field(default_factory=lambda: dict(DEFAULT_COLOURS))
    warnings: list[str] = dataclasses.field(default_factory=list)
    path: Path | None = None
    schema: list[str] = dataclasses.field(default_factory=list)  # schema files (entities)


def default_text() -> str:
    """The file written on the first run: every setting commented out at its default."""
    lines = [
        "# dynosql configuration, written with the defaults on the first run of the REPL.",
        "# Every setting is commented out at its default value: uncomment a line to change it.",
        "# The same names and values as SET; command-line options win over this file.",
    ]
    for s in SETTINGS:
        lines.append("")
        lines.append(f"# {s.config or s.help[0].upper() + s.help[1:]}.")
        lines.append(f"# {s.name} = {s.kind.to_config(s.default)}")
    lines += [
        "",
        "# Schema files: their CREATE ENTITY statements are declared at every start (before",
        "# --schema FILE); the REPL offers to append a new CREATE ENTITY to the last one,",
        '# e.g. ["entities.sql", "~/team/shop.sql"] (relative to the current directory).',
        "# schema = []",
    ]
    lines += [
        "",
        '# Colours: prompt_toolkit style strings ("bold ansiblue", "#ff8800", "bg:ansiblack", '
        '"" = none).',
        "[colours]",
    ]
    lines += [f'# {name} = "{style}"' for name, style in DEFAULT_COLOURS.items()]
    return "\n".join(lines) + "\n"


DEFAULT_TEXT = default_text()


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
    """Write the commented defaults to `path` (0600: it names a pager command that runs through
    a shell) unless a file is there; True if written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return False  # there already, or a read-only home: run on the defaults
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(DEFAULT_TEXT)
    return True


def load(path: Path | None = None, create: bool = True) -> Config:
    """The configuration at `path` (default: `config_path()`), writing the defaults first
    when `create`."""
    path = path or config_path()
    config = Config(path=path)
    if create:
        write_default(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
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
    """Set what `data` names, collecting a warning for each bad key or value."""
    for key, value in data.items():
        if key in ("colours", "colors"):
            _colours(config, value)
            continue
        if key == "schema":
            _schema(config, value)
            continue
        try:
            setting = lookup(key)
        except ValueError:
            config.warnings.append(f"config: unknown setting {key} ignored")
            continue
        try:
            parsed = setting.kind.from_config(value)
        except ValueError as err:
            config.warnings.append(f"config: {key} = {value!r} is not {err}; using the default")
            continue
        config.settings.give(setting.name, parsed, "in the config file")
        config.given.add(setting.name)


def _schema(config: Config, value: Any) -> None:
    """``schema = ["a.sql", …]`` (or one path): schema files, relative to the current directory."""
    files = [value] if isinstance(value, str) else value
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        config.warnings.append("config: schema is not a list of file names; ignored")
        return
    config.schema = list(files)


def _colours(config: Config, value: Any) -> None:
    if not isinstance(value, dict):
        config.warnings.append("config: colours is not a table of styles; using the defaults")
        return
    for name, style in value.items():
        if name in DEFAULT_COLOURS and isinstance(style, str):
            config.colours[name] = style
        else:
            config.warnings.append(f"config: colours.{name} ignored")


# --- TOML ----------------------------------------------------------------------------------------


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text to a dict; ValueError (with a line number) when it is not valid."""
    if sys.version_info >= (3, 11):
        import tomllib as toml
    else:  # pragma: no cover - Python 3.10
        import tomli as toml
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as err:
        raise ValueError(str(err)) from err
