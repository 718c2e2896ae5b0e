"""Statement kinds: one module per statement family, each exporting ``KINDS`` (statement type →
`Kind`). No list here: a statement class names the module that runs it (``kind="…"``, or the
module it is defined in, see `ast.Statement`), imported on first use (a ``dynosql -e`` loads
only the families it runs); `kind_for` is the one dispatch. A kind that reads its own statement
declares its leading words beside ``KINDS`` (``STARTERS``), which the vocabulary reads from the
module's source without importing it (`dynosql.sql.keywords.declared`)."""

from __future__ import annotations

import importlib
from typing import Any

from dynosql.statements.kind import Kind


def kind_of(statement: Any) -> Kind[Any]:
    """The kind that runs `statement` (a bound statement object)."""
    return kind_of_type(type(statement))


def kind_of_type(statement_type: type) -> Kind[Any]:
    """The kind that runs statements of this type."""
    module = getattr(statement_type, "kind_module", "")
    kinds: dict[type, Kind[Any]] = importlib.import_module(module).KINDS if module else {}
    kind = kinds.get(statement_type)
    if kind is None:
        from dynosql.errors import SqlError

        raise SqlError(f"cannot run {statement_type.__name__}")
    return kind


def registered() -> dict[type, Kind[Any]]:
    """Every kind, by statement type: every module of this package imported, for the tests
    and tools that walk them all (a run imports only the kinds it meets)."""
    import pkgutil  # here, not at import: a run never walks them all

    kinds: dict[type, Kind[Any]] = {}
    for module in pkgutil.iter_modules(__path__):
        kinds |= getattr(importlib.import_module(f"{__name__}.{module.name}"), "KINDS", {})
    return kinds


def kind_for(statement: Any, in_transaction: bool) -> Kind[Any]:
    """`kind_of`, except that inside BEGIN … COMMIT a transactional kind is queued."""
    kind = kind_of(statement)
    if in_transaction and kind.transactional:
        from dynosql.statements.transaction import QUEUED

        return QUEUED
    return kind
