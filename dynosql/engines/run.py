"""Which engine answers a SELECT: the export read by DuckDB, or Athena."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..result import Result
from ..sql import ast

if TYPE_CHECKING:
    from ..session import Session


def run_engine(session: Session, statement: ast.Select) -> Result:
    if statement.sample is not None:
        from ..errors import PlanError

        raise PlanError("TABLESAMPLE samples a DynamoDB Scan: run it with --engine dynamodb")
    if session.settings.engine == "athena":
        from .athena import run

        return run(session, statement)
    from .export import run as run_export

    return run_export(session, statement)
