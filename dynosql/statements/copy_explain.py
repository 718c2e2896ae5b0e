"""EXPLAIN COPY: the calls a COPY would send and their price; nothing is sent but DescribeTable.

EXPLAIN COPY t FROM 'f' reads the file (not the table): the first `SAMPLE_ITEMS` items are
parsed for their sizes, and the file's lines are counted to scale that up (exact when the file
has no more items than that). EXPLAIN COPY t TO 'f' is the EXPLAIN of the SELECT it runs.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from dynosql import files, values
from dynosql.errors import ExecutionError
from dynosql.plan import cost
from dynosql.plan.copy import FileMeasure, key_types, plan_copy_from
from dynosql.result import Result
from dynosql.sql import ast

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

SAMPLE_ITEMS = 1000
_CHUNK = 1 << 20


def explain_copy(ctx: Context, statement: ast.CopyFrom) -> Result:
    table = ctx.table(statement.table)
    measure = measure_file(statement, table)
    plan = plan_copy_from(statement, table, measure, ctx.journal_target() is not None)
    return Result.plan(plan.lines(), plan.document())


def measure_file(statement: ast.CopyFrom, table: TableInfo) -> FileMeasure:
    """The items from START AT on: the first `SAMPLE_ITEMS` parsed (bad lines skipped), the
    rest estimated from the file's lines (a JSON array: its bytes, as elements may share one).
    Each item is priced as a new item: the table's units and the indexes it goes into."""
    types = key_types(table)
    path = statement.path
    json_array = statement.format == "json"
    items, wcu, last_line, text_bytes, whole = 0, Decimal(0), 0, 0, True
    try:
        with files.open_file(path, "r") as stream:
            for line in files.read_items(stream, statement.format, types):
                text_bytes += len(line.raw.encode("utf-8")) + 1
                if line.item is None or line.number < statement.start_line:
                    continue
                items += 1
                wcu += cost.item_write(None, line.item, table, values.item_size).total
                last_line = line.number
                if items >= SAMPLE_ITEMS:
                    whole = False
                    break
        if whole or not last_line:
            return FileMeasure(items, wcu, True)
        lines, size = _count(path)
        if json_array:
            scale = size / max(1, text_bytes)
        else:
            scale = (lines - statement.start_line + 1) / (last_line - statement.start_line + 1)
        return FileMeasure(items, wcu, False, max(1.0, scale))
    except (OSError, UnicodeDecodeError) as err:
        raise ExecutionError(
            f"cannot read {path}: {getattr(err, 'strerror', None) or err}"
        ) from err


def _count(path: str) -> tuple[int, int]:
    """The file's lines and (uncompressed) bytes."""
    count, size = 0, 0
    last = b"\n"
    with files.open_bytes(path) as raw:
        while chunk := raw.read(_CHUNK):
            count += chunk.count(b"\n")
            size += len(chunk)
            last = chunk[-1:]
    return count + (last != b"\n"), size
