"""BEGIN … COMMIT: the writes in between are planned (and checked) when given, and sent at
COMMIT as one TransactWriteItems (all or nothing); ROLLBACK discards them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import PlanError
from .result import Result
from .sql import ast

if TYPE_CHECKING:
    from .session import Session


def run_in_transaction(session: Session, statement: ast.Statement) -> Result:
    raise PlanError("transactions are not supported yet")
