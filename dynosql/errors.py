"""The errors dynosql reports: each is one sentence for the user, never a traceback."""

from __future__ import annotations

import re
from dataclasses import dataclass


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


class ReplCommandError(SqlError):
    """A backslash command where SQL was expected (a script, ``execute``): the commands are
    the REPL's. The command line says what a script writes instead
    (`dynosql.repl.commands.in_a_script`)."""

    def __init__(self, command: str, argument: str, line: int | None, col: int | None):
        super().__init__(
            f"{command} is not SQL: backslash commands are the REPL's (dynosql without -e or -f)",
            line,
            col,
        )
        self.command = command
        self.argument = argument


class PlanError(DynosqlError):
    """The statement is valid SQL but cannot be answered (unknown table, bad index, ...)."""


class GuardError(DynosqlError):
    """Refused by a guard the user asked for (--fail-on-scan, --max-rcu)."""

    exit_code = 3


class Declined(GuardError):
    """The person at the front door said no to a question the guards asked: nothing was done
    (the REPL says so as a plain answer, not an error)."""


class ConditionError(DynosqlError):
    """A write refused, in whole or in part, by its condition: INSERT of a key that exists, a
    transaction cancelled because an action's condition failed. Its own class so a caller can
    tell it from a failure of the service (the DB-API's IntegrityError)."""


class UsageError(DynosqlError):
    """A command-line value that cannot work (an endpoint without a scheme, a malformed
    region, a missing script): exit code 2, like every other usage error."""

    exit_code = 2


class ExecutionError(DynosqlError):
    """DynamoDB (or the connection to it) failed and retries could not help."""


def internal_error_text(err: BaseException, debug: bool) -> str:
    """One line for a bug (anything that is not a DynosqlError)."""
    hint = "" if debug else " (run with --debug for the traceback)"
    return f"error: internal error: {type(err).__name__}: {err}{hint}"


THROTTLE_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)
CREDENTIAL_CODES = frozenset(
    {
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "ExpiredTokenException",
        "ExpiredToken",
    }
)
CONNECTION_ERRORS = frozenset(
    {
        "EndpointConnectionError",
        "ConnectionClosedError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
        "ProtocolError",
        "SSLError",
    }
)
SETUP_ERRORS = frozenset(
    {
        "ProfileNotFound",
        "TokenRetrievalError",
        "SSOTokenLoadError",
        "UnauthorizedSSOTokenError",
        "CredentialRetrievalError",
        "RefreshWithMFAUnsupportedError",
        "PartialCredentialsError",
    }
)


@dataclass(frozen=True)
class Failure:
    """What went wrong with a call, decided once for both the retry policy and the message.

    `kind`: ``throttle``, ``server`` (HTTP 5xx), ``connection`` (dropped or unreachable;
    `dropped` when a request was under way and may be retried), ``credentials``,
    ``not_found``, ``conflict`` (a write refused because a transaction holds the item: nothing
    was applied), ``in_progress`` (a TransactWriteItems whose token is still being applied:
    the same request, sent again, answers as the first did), ``refused`` (any other AWS error answer), ``setup`` (no region, no
    credentials, a bad profile), or ``unknown`` (not an AWS or connection error: a bug).
    What each kind is worth in retries is `dynosql.dynamo.retry.RetryPolicy`'s to decide."""

    kind: str
    code: str = ""
    message: str = ""
    dropped: bool = False

    @property
    def transient(self) -> bool:
        """Worth sending again after a pause."""
        return self.kind in ("throttle", "server", "in_progress") or self.dropped


def classify(err: BaseException) -> Failure:
    name = type(err).__name__
    response = getattr(err, "response", None)
    if isinstance(response, dict) and "Error" in response:
        code = response["Error"].get("Code", name)
        message = response["Error"].get("Message", "") or ""
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0
        if message.lstrip().startswith("<"):  # an HTML error page (a proxy, an emulator's 500)
            message = f"HTTP {status or '?'} from the server (an HTML error page)"
        message = " ".join(message.split())  # one line, whatever the server sent
        if not message and code == str(status):  # a bare HTTP error: not DynamoDB's answer
            message = f"HTTP {status} with no DynamoDB error in it (check --endpoint-url)"
        if code in THROTTLE_CODES:
            return Failure("throttle", code, message)
        if code in CREDENTIAL_CODES:
            return Failure("credentials", code, message)
        if code == "ResourceNotFoundException":
            return Failure("not_found", code, message)
        if code == "TransactionConflictException":
            return Failure("conflict", code, message)
        if code == "TransactionInProgressException":
            return Failure("in_progress", code, message)
        if isinstance(status, int) and status >= 500:
            return Failure("server", code, message)
        return Failure("refused", code, message)
    if name in CONNECTION_ERRORS:
        dropped = name in ("ConnectionClosedError", "ReadTimeoutError", "ProtocolError")
        return Failure("connection", name, str(err), dropped=dropped)
    if name == "NoCredentialsError":
        return Failure(
            "setup",
            name,
            "no AWS credentials found: set AWS_PROFILE or AWS_ACCESS_KEY_ID, or use --local",
        )
    if name == "NoRegionError":
        return Failure("setup", name, "no AWS region set: use --region or AWS_REGION")
    if name in SETUP_ERRORS:
        return Failure("setup", name, str(err))
    return Failure("unknown", name, str(err))


LACKS_ATTRIBUTE = "an item lacks an attribute the SET reads"  # the write path names them

# DynamoDB's refusals of a valid-looking statement, as each backend words them (AWS, DynamoDB
# Local, dynalite and moto differ, and moto sometimes names the wrong operand type), mapped to
# one sentence of dynosql's own: the message never depends on the backend. First match wins.
# (Patterns, compiled on first use: every command imports this module, few meet a refusal.)
REFUSALS: tuple[tuple[str, str], ...] = (
    (
        r"precision up to 38 digits|Number overflow|magnitude (larger|smaller) than "
        r"supported range",
        "a number the write computes needs more than 38 significant digits or leaves "
        "DynamoDB's range (1E-130 to 9.99…E+125)",
    ),
    (
        r"UpdateExpression: Incorrect operand type for operator or function|operand in "
        r"the update expression has an incorrect data type",
        "an item holds a value of the wrong type for this change (+, - and ADD of a number "
        "need numbers, list_append lists, ADD/DELETE of a set a set of the same type)",
    ),
    (
        r"refers to an attribute that does not exist in the item",
        LACKS_ATTRIBUTE + " (if_not_exists(a, 0) + 1 starts a missing number)",
    ),
    (
        r"document path provided in the update expression is invalid for update",
        "an item has no map or list where the SET path goes through one (a.b needs a to be a map)",
    ),
    (
        r"Type mismatch for (Index )?key",
        "a key attribute of the table or of an index must keep its declared type",
    ),
)


def refusal_text(message: str) -> str:
    """dynosql's own sentence for a refusal DynamoDB words differently per backend, or the
    server's message (one line) when it is not one of those."""
    for pattern, ours in REFUSALS:
        if re.search(pattern, message, re.I):
            return ours
    return message


def translate_error(err: Exception, what: str = "requests") -> Exception:
    """An AWS or connection error as one sentence for the user (a `DynosqlError`); anything
    else (a bug) is returned as it is. Raise it ``from err`` so the cause stays chained.
    `what` names the requests a throttle stopped (``reads``, ``writes``)."""
    if isinstance(err, DynosqlError):
        return err
    failure = classify(err)
    code, message = failure.code, failure.message
    if failure.kind == "throttle":
        return ExecutionError(
            f"DynamoDB kept throttling the {what} after retries ({code}): {message}"
        )
    if failure.kind == "credentials":
        hint = ""
        if code.startswith("ExpiredToken"):
            hint = " (refresh them: aws sso login, or a new session token)"
        return ExecutionError(f"AWS rejected the credentials ({code}): {message}{hint}")
    if failure.kind == "not_found":
        return ExecutionError(f"DynamoDB: {message or 'table or index not found'}")
    if failure.kind in ("server", "conflict", "refused"):
        return ExecutionError(f"DynamoDB refused the request ({code}): {refusal_text(message)}")
    if failure.kind == "connection":
        hint = ""
        if code == "SSLError":
            hint = " (an https URL to a plain-http server? try http://)"
        elif code in ("ReadTimeoutError", "ConnectTimeoutError"):
            hint = " (no answer in time: the read_timeout, connect_timeout and deadline settings)"
        return ExecutionError(f"cannot reach DynamoDB: {message}{hint}")
    if failure.kind == "setup":
        if code == "CredentialRetrievalError":
            message = f"{message.rstrip(': ')} (check the profile's credential_process)"
        return ExecutionError(message)
    return err


def not_dynamodb(operation: str, missing: str) -> ExecutionError:
    """An answer without what every DynamoDB answer to `operation` carries (an HTML page or
    ``{}`` with HTTP 200: a proxy, a captive portal, the wrong port)."""
    return ExecutionError(
        f"the endpoint answered {operation} without {missing}: it does not look like DynamoDB "
        "(check --endpoint-url)"
    )
