"""The errors dynosql reports: each is one sentence for the user, never a traceback."""

from __future__ import annotations


class DynosqlError(Exception):
    """Base: a message fit to print after ``error:``. Exit code 1 unless a subclass says."""

    exit_code = 1

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def __str__(self) -> str:
        if self.line:
            return f"line {self.line}, column {self.col}: {self.message}"
        return self.message


class SqlError(DynosqlError):
    """The text is not SQL we accept (syntax, or a construct we do not support)."""


class PlanError(DynosqlError):
    """The statement is valid SQL but cannot be answered (unknown table, bad index, ...)."""


class GuardError(DynosqlError):
    """Refused by a guard the user asked for (--fail-on-scan, --max-rcu)."""

    exit_code = 3


class ExecutionError(DynosqlError):
    """DynamoDB (or the connection to it) failed and retries could not help."""
