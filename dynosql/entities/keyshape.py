"""Key values cut into tokens, and the shape of what varies in them: the vocabulary of
SHOW ENTITIES's templates (``TENANT#{id}``, ``INVOICE#{6 digits}``, ``{path}/{file}``).

A key is cut at ``#`` and ``|``, and at ``:`` outside timestamps (``User:UserA``); the
delimiters are tokens of their own, so a template keeps them as literals. What varies from item
to item is a hole named by its shape: ``{timestamp}``, ``{date}``, ``{email}``, ``{uuid}``,
``{6 digits}`` (one width) or ``{number}`` (mixed widths: not zero-padded), ``{path}``/
``{file}``, else ``{id}``; a label the values share (``dev-0001``, ElectroDB's
``team_purple``) stays literal before the hole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DELIMITERS = frozenset("#|:")
_SPLIT = re.compile(r"([#|])")
_COLON = re.compile(r"(:)")
_DATE_START = re.compile(r"^\d{4}-\d{2}-\d{2}")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# ISO 8601 date-times, also without separators in the time (2019-09-25T010101)
TIMESTAMP = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}(:?\d{2}(:?\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$"
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DIGITS = re.compile(r"^\d+$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# a word that can be a type tag: letters (ElectroDB: a leading $ and a version, `$task_1`)
_WORD = re.compile(r"^\"?\$?[A-Za-z](?:[A-Za-z_.\-]*[A-Za-z])?(?:_\d+)?\"?$")
# a label shared by the values of a hole: `dev-` of dev-0001, `team_` of team_purple
_LABEL = re.compile(r"^(\$?[A-Za-z][A-Za-z0-9]*[_-])(?=.)")
MAX_WORD = 40


def tokens(value: str) -> tuple[str, ...]:
    """``'c#12345'`` → ``('c', '#', '12345')``; a path (``/`` and no ``#``) is one token."""
    if "/" in value and "#" not in value:
        return (value,)
    out: list[str] = []
    for piece in _SPLIT.split(value):
        if piece in DELIMITERS or _DATE_START.match(piece) or ":" not in piece:
            out.append(piece)
        else:
            out.extend(_COLON.split(piece))
    return tuple(out)


def is_delimiter(token: str) -> bool:
    return token in DELIMITERS


def is_word(token: str) -> bool:
    """A token that reads as a type tag: letters, not an id with digits, a date or a number."""
    return len(token) <= MAX_WORD and bool(_WORD.match(token))


def shape(values: Iterable[str]) -> str:
    """The placeholder for the values of one hole: the most specific shape they all have."""
    seen = set(values)
    if not seen:
        return "id"
    for name, test in _SHAPES:
        if all(test(v) for v in seen):
            if name == "digits":
                widths = {len(v) for v in seen}
                return f"{widths.pop()} digits" if len(widths) == 1 else "number"
            return name
    return "id"


_SHAPES = (
    ("timestamp", lambda v: bool(TIMESTAMP.match(v))),
    ("date", lambda v: bool(_DATE.match(v))),
    ("email", lambda v: bool(_EMAIL.match(v))),
    ("uuid", lambda v: bool(_UUID.match(v))),
    ("digits", lambda v: bool(_DIGITS.match(v))),
)


def label(values: Sequence[str]) -> str:
    """The label every value starts with (``dev-``), or '' (then the hole is the whole value)."""
    labels = {m.group(1) if (m := _LABEL.match(v)) else "" for v in values}
    if len(labels) != 1:
        return ""
    (found,) = labels
    return found


@dataclass(frozen=True)
class Hole:
    """A varying part of a key, by its shape."""

    shape: str

    def text(self) -> str:
        return "{" + self.shape + "}"


Part = str | Hole


def template_text(parts: Iterable[Part]) -> str:
    """``TENANT#{id}``: literals as they are, holes by their shape."""
    return "".join(p if isinstance(p, str) else p.text() for p in parts)


def matcher(parts: Sequence[Part]) -> re.Pattern[str]:
    """A regular expression that matches a key of this template, one group per hole."""
    pattern = []
    for p in parts:
        if isinstance(p, str):
            pattern.append(re.escape(p))
        elif p.shape == "path":
            pattern.append("(.*)")
        elif p.shape == "file":
            pattern.append("([^/]*)")
        else:
            pattern.append("([^#|]*?)")
    return re.compile("^" + "".join(pattern) + "$", re.S)


def path_parts(values: Iterable[str]) -> tuple[Part, ...]:
    """A path key: ``{path}/`` for folders, ``{path}/{file}`` for files."""
    folders = all(v.endswith("/") for v in values)
    return (Hole("path"), "/") if folders else (Hole("path"), "/", Hole("file"))
