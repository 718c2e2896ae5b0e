"""SET name = value: a session setting (a limit given on the command line only tightens)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynosql.errors import SqlError
from dynosql.result import Changes, Result
from dynosql.settings import SettingError
from dynosql.sql import ast
from dynosql.statements.kind import Kind, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context


def set_setting(ctx: Context, name: str, value: str) -> Result:
    """A setting's new value, checked, in `Result.changes` (the Session sets it):
    SettingError when the name or value is not accepted."""
    setting, checked = ctx.settings.checked(name, value)
    result = Result.status(f"SET {setting.name} = {setting.kind.show(checked)}")
    result.change(Changes(setting=(setting.name, checked)))
    return result


def run(ctx: Context, option: ast.SetOption) -> Result:
    try:
        return set_setting(ctx, option.name, option.value)
    except SettingError as err:
        raise SqlError(str(err), option.pos.line, option.pos.col) from err


KINDS = {ast.SetOption: Kind(named("SET"), unplanned(run), example=("SET numeric_digits = 10",))}
