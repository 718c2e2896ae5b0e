"""dynosql: a SQL workbench over Amazon DynamoDB.

SQL in, the cheapest DynamoDB calls out, and what each statement cost. The library API is
``dynosql.Session`` (``dynosql.connect`` is its DB-API 2.0 door); the command line
(``dynosql``) and the REPL are thin layers over it. Importing the package stays cheap: boto3
and moto load only when a session starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from dynosql.dbapi import connect
    from dynosql.session import Session


def __getattr__(name: str) -> Any:
    if name == "Session":
        from dynosql.session import Session

        return Session
    if name == "connect":  # the DB-API 2.0 driver (PEP 249): dynosql.connect(...)
        from dynosql.dbapi import connect

        return connect
    raise AttributeError(name)


__all__ = ["Session", "__version__", "connect"]
