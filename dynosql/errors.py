"""The errors dynosql reports: each is one sentence for the user, never a traceback."""

from __future__ import annotations


class DynosqlError(Exception):
    """Base: a message fit to print after ``error:``. Exit code 1 unless a subclass says."""

    exit_code = 1

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        # one line, always: a quoted piece of input may hold line breaks
        message = message.replace("\r", "\\r").replace("\n", "\\n")
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


def translate_error(err: Exception) -> Exception:
    """An AWS or connection error as one sentence for the user."""
    if isinstance(err, DynosqlError):
        return err
    name = type(err).__name__
    response = getattr(err, "response", None)
    if isinstance(response, dict) and "Error" in response:
        code = response["Error"].get("Code", name)
        message = response["Error"].get("Message", "") or ""
        if message.lstrip().startswith("<"):  # an HTML error page (a proxy, an emulator's 500)
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", "?")
            message = f"HTTP {status} from the server (an HTML error page)"
        message = " ".join(message.split())  # one line, whatever the server sent
        if code in (
            "ProvisionedThroughputExceededException",
            "ThrottlingException",
            "RequestLimitExceeded",
        ):
            return ExecutionError(
                f"DynamoDB kept throttling the reads after retries ({code}): {message}"
            )
        if code in (
            "UnrecognizedClientException",
            "InvalidSignatureException",
            "ExpiredTokenException",
            "ExpiredToken",
        ):
            return ExecutionError(f"AWS rejected the credentials ({code}): {message}")
        if code == "ResourceNotFoundException":
            return ExecutionError(f"DynamoDB: {message or 'table or index not found'}")
        return ExecutionError(f"DynamoDB refused the request ({code}): {message}")
    if name == "NoCredentialsError":
        return ExecutionError(
            "no AWS credentials found: set AWS_PROFILE or AWS_ACCESS_KEY_ID, or use --local"
        )
    if name in (
        "EndpointConnectionError",
        "ConnectionClosedError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
    ):
        return ExecutionError(f"cannot reach DynamoDB: {err}")
    if name == "NoRegionError":
        return ExecutionError("no AWS region set: use --region or AWS_REGION")
    if name in (
        "ProfileNotFound",
        "TokenRetrievalError",
        "SSOTokenLoadError",
        "UnauthorizedSSOTokenError",
    ):
        return ExecutionError(str(err))
    return err
