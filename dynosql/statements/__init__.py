"""Statement kinds: one module per statement family, each exporting ``KINDS`` (statement type →
`Kind`). This registry maps every statement type to its module, imported on first use (a
``dynosql -e`` loads only the families it runs); `kind_for` is the one dispatch."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from dynosql.sql import ast
from dynosql.statements.kind import Kind

MODULES: dict[type, str] = {
    ast.Select: "select",
    ast.SelectValues: "select_values",
    ast.Explain: "explain",
    ast.ShowTables: "show",
    ast.Describe: "show",
    ast.SetOption: "setting",
    ast.ShowHotKeys: "hot_keys",
    ast.ShowEntities: "entities",
    ast.CreateEntity: "entity_defs",
    ast.DropEntity: "entity_defs",
    ast.ShowDeclaredEntities: "entity_defs",
    ast.ShowCreateEntity: "entity_defs",
    ast.DescribeEntity: "entity_defs",
    ast.EntitySelect: "entity_select",
    ast.EntityWrite: "entity_write",
    ast.JoinSelect: "join_select",
    ast.Insert: "write",
    ast.Update: "write",
    ast.Delete: "write",
    ast.Transaction: "transaction",
    ast.ConditionCheck: "transaction",
    ast.Undo: "undo",
    ast.CreateTable: "table",
    ast.CreateIndex: "table",
    ast.DropIndex: "table",
    ast.AlterTable: "table",
    ast.DropTable: "table",
    ast.ShowCreateTable: "table",
    ast.SetPointInTimeRecovery: "backups",
    ast.CopyTo: "copy",
    ast.CopyFrom: "copy",
    ast.ImportModel: "models",
    ast.ExportModel: "models",
}


def kind_of(statement: Any) -> Kind[Any]:
    """The kind that runs `statement` (a bound statement object)."""
    return kind_of_type(type(statement))


def kind_of_type(statement_type: type) -> Kind[Any]:
    """The kind that runs statements of this type."""
    module = MODULES.get(statement_type)
    if module is None:
        from dynosql.errors import SqlError

        raise SqlError(f"cannot run {statement_type.__name__}")
    kinds: dict[type, Kind[Any]] = importlib.import_module(f"dynosql.statements.{module}").KINDS
    return kinds[statement_type]


def registered() -> dict[type, Kind[Any]]:
    """Every kind, by statement type: every module of this package imported, for the tests
    and tools that walk them all (a run imports only the kinds it meets)."""
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
