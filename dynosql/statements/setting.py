"""SET name = value: a session setting (a limit given on the command line only tightens)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dynosql.errors import SqlError
from dynosql.position import NOWHERE, Pos
from dynosql.result import Changes, Result
from dynosql.settings import SettingError
from dynosql.sql import ast
from dynosql.sql.keywords import Starter
from dynosql.sql.split import Chunk
from dynosql.statements.kind import Kind, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context


@dataclass(frozen=True)
class SetOption(ast.Statement):
    """``SET name = value``: a session setting (segments, consistent, format, ...)."""

    name: str
    value: str
    pos: Pos = field(default=NOWHERE, compare=False)


_SET = re.compile(r"\s*SET\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|\s+TO\s+)\s*(.+?)\s*$", re.I | re.S)


def parse_set(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ast.Statement:
    """``SET name = value`` or ``SET name TO value`` (a value in 'quotes' is taken without
    them); any other SET is told what SET takes."""
    m = _SET.match(code)
    if m is None:
        at = position(len(code) - len(code.lstrip()))
        raise SqlError(
            "SET takes a setting and its value: SET name = value (or SET name TO value)",
            at.line,
            at.col,
        )
    value = m.group(2).strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        value = value[1:-1].replace("''", "'")
    return SetOption(m.group(1).lower(), value, position(m.start(1)))


def set_setting(ctx: Context, name: str, value: str) -> Result:
    """A setting's new value, checked, in `Result.changes` (the Session sets it):
    SettingError when the name or value is not accepted."""
    setting, checked = ctx.settings.checked(name, value)
    result = Result.status(f"SET {setting.name} = {setting.kind.show(checked)}")
    result.change(Changes(setting=(setting.name, checked)))
    return result


def run(ctx: Context, option: SetOption) -> Result:
    try:
        return set_setting(ctx, option.name, option.value)
    except SettingError as err:
        raise SqlError(str(err), option.pos.line, option.pos.col) from err


STARTERS = (Starter("SET", "SET", parser=parse_set),)
KINDS = {SetOption: Kind(named("SET"), unplanned(run), example=("SET numeric_digits = 10",))}
