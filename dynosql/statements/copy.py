"""COPY: a table (or a SELECT's rows) to a file, and a file into a table.

COPY TO reads through the ordinary SELECT machinery (the same plan, segments, pacing, guards
and progress as any read) and writes each row as it arrives: memory stays flat whatever the
row count. The file is written under a temporary name and renamed when complete, so a failed
or interrupted COPY leaves no half file behind. CSV needs its header (every column, with its
type) before the first row: the rows are spooled to a temporary file first, not held in memory.

COPY FROM reads the file with `dynosql.files` and writes with BatchWriteItem, 25 items a call
(`write_batch`: UnprocessedItems and throttles retried). A bad line stops the load before it is
written (the items of earlier lines are written first) unless SKIP BAD (or --skip-bad) sends
it to a side file. Any stop says how to continue: ``COPY t FROM 'f' START AT LINE n`` (in a
JSON array file, ``START AT ELEMENT n``: several elements may share a line).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynosql import files, values
from dynosql.errors import DynosqlError, ExecutionError, PlanError
from dynosql.guards import READS, Ask, Effects, Steps, Verdict
from dynosql.journal import JournalError
from dynosql.plan import cost
from dynosql.plan.copy import key_types
from dynosql.plan.ddl import quote
from dynosql.plan.port import put_requests
from dynosql.plan.write import check_item
from dynosql.result import (
    Changes,
    Result,
    Stats,
    WriteStats,
    carried,
    counted,
    format_capacity,
    plural,
)
from dynosql.sql import ast
from dynosql.statements.copy_journal import LoadJournal
from dynosql.statements.kind import Kind, Planned, named, unplanned

if TYPE_CHECKING:
    from dynosql.context import Context
    from dynosql.plan.schema import TableInfo

BATCH = 25  # BatchWriteItem's limit
IN_FLIGHT = 2  # batches queued for the writer thread while the next lines are read


# --- COPY TO ---------------------------------------------------------------------------------


def copy_to(ctx: Context, planned: Planned[ast.CopyTo]) -> Result:
    statement = planned.statement
    kind, query = planned.plan
    result = kind.run(ctx, query)  # guarded as the COPY: its Scan is the COPY's
    rows = iter(result)
    part = _part_name(statement.path)
    notes: list[str] = []
    try:
        if statement.format == "parquet":
            from dynosql.engines import parquet

            notes = parquet.write(rows, result.columns, part)
        else:
            with files.open_file(part, "w", gzipped=statement.path.endswith(".gz")) as out:
                if statement.format == "csv":
                    _write_csv(rows, result.columns, out)
                else:
                    _write_lines(rows, statement.format, out)
        os.replace(part, statement.path)
    except OSError as err:
        raise ExecutionError(f"cannot write {statement.path}: {err.strerror or err}") from err
    finally:
        if os.path.exists(part):
            os.unlink(part)
    stats = result.stats
    stats.finish()
    done = Result.status(f"COPY {stats.footer()} → {statement.path}", stats, result.warnings)
    done.notes.extend(notes)
    return done


def _part_name(path: str) -> str:
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.part")


def _write_lines(rows: Iterator[dict[str, Any]], fmt: str, out: Any) -> None:
    encode = files.dynamodb_line if fmt == "dynamodb" else files.item_json
    if fmt == "json":
        out.write("[")
        first = True
        for row in rows:
            out.write(("\n" if first else ",\n") + encode(row))
            first = False
        out.write("]\n" if first else "\n]\n")
        return
    for row in rows:
        out.write(encode(row) + "\n")


def _write_csv(rows: Iterator[dict[str, Any]], columns: list[str], out: Any) -> None:
    """Spool the rows as jsonl, learning every column and its types; then the typed header
    and the rows. Memory holds the column names, never the rows."""
    seen: dict[str, set[str]] = {name: set() for name in columns}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for row in rows:
            for name, value in row.items():
                if value is not values.MISSING:
                    seen.setdefault(name, set()).add(files.type_code(value))
            spool.write(files.item_json(row) + "\n")
        kinds = {name: files.column_type(codes) for name, codes in seen.items()}
        writer = files.csv_writer(out)
        writer.writerow(files.csv_header(kinds))
        spool.seek(0)
        for text in spool:
            item = files.parse_jsonl(text)
            writer.writerow(
                [
                    files.csv_cell(item.get(name, values.MISSING), kind)
                    for name, kind in kinds.items()
                ]
            )


# --- COPY FROM -------------------------------------------------------------------------------


def write_batch(
    ctx: Context,
    table: str,
    items: list[dict[str, Any]],
    stats: WriteStats,
    journal: LoadJournal | None = None,
) -> Decimal:
    """One group of at most 25 puts (distinct keys) through the writer every write statement
    uses (`Port.write_batches`: UnprocessedItems, throttles and dropped connections
    retried, --max-wcu over the whole load, as `stats` is the load's); with a journal, the
    keys' old images are read first and each processed put is journaled. Returns the capacity
    it consumed in WCU (the server's, or estimated by item size: the larger image)."""
    before = stats.wcu
    if journal is not None:
        journal.before(items)
    try:
        ctx.port.write_batches(
            table,
            put_requests(items),
            stats,
            workers=1,
            paced=False,  # --rate-limit: _Load._pace
            on_written=None if journal is None else journal.written,
            on_sending=None if journal is None else journal.sending,
        )
    except BaseException as err:
        if journal is not None:
            journal.failed(err)
        raise
    return stats.wcu - before


def copy_from(ctx: Context, statement: ast.CopyFrom) -> Steps[Result]:
    info = ctx.table(statement.table)
    stats = Stats(operations=[f"BatchWriteItem {info.name}"], capacity_estimated=ctx.estimating)
    with carried(stats):  # stopped midway: the session still learns of the load's journal
        return (yield from _copy_from(ctx, statement, info, stats))


def _copy_from(
    ctx: Context, statement: ast.CopyFrom, info: TableInfo, stats: Stats
) -> Steps[Result]:
    types = key_types(info)
    skip_bad = statement.skip_bad or bool(getattr(ctx.settings, "skip_bad", False))
    bad_path = statement.bad_path or statement.path.removesuffix(".gz") + ".bad"
    try:  # items given in memory (IMPORT MODEL) need no file
        stream = files.open_file(statement.path, "r") if statement.items is None else nullcontext()
    except OSError as err:
        raise ExecutionError(f"cannot read {statement.path}: {err.strerror or err}") from err
    # --dry-run (the pipeline's verdict): every line read and checked, nothing written
    dry = (yield Ask()) is Verdict.DRY
    load = _Load(ctx, statement, stats, dry)
    bad_file = None
    bad = 0
    try:
        if not dry:
            load.journal = LoadJournal.open(ctx, info, load.resume(statement.start_line))
        if load.journal is not None:
            load.writes.journal = load.journal.path
            stats.change(Changes(wrote=load.writes))  # the session's last write
        with stream:
            header = ""
            for line in _lines(statement, stream, types):
                if line.item is None and line.error is None:
                    header = line.raw
                    continue
                if line.number < statement.start_line:
                    continue
                error = line.error
                if error is None:
                    assert line.item is not None
                    try:  # the one item validator INSERT and UPSERT use
                        if statement.prepare is not None:  # an entity's: its keys composed
                            line.item = statement.prepare(line.item)
                        check_item(line.item, info)
                    except PlanError as err:
                        error = err.message
                if error is not None:
                    where = f"{statement.path} {line.where()}: {error}"
                    if dry and (not skip_bad or line.fatal):
                        raise PlanError(f"{where} (dry run: nothing was written)")
                    if not skip_bad or line.fatal:
                        load.drain()
                        raise PlanError(
                            f"{where}; nothing from this {position(statement)} on was written "
                            f"(fix it, then: {load.resume(line.number)})"
                        )
                    if bad_file is None and not dry:
                        # a resumed load adds to the .bad file of the run it continues
                        resumed = statement.start_line > 1 and os.path.exists(bad_path)
                        bad_file = files.open_file(bad_path, "a" if resumed else "w")
                        if not resumed:
                            bad_file.write(header)
                    if bad_file is not None:
                        bad_file.write(line.raw if line.raw.endswith("\n") else line.raw + "\n")
                    bad += 1
                    ctx.tell(f"skipped {where}")
                    continue
                load.add(line.number, line.item)  # type: ignore[arg-type]
            load.drain()
    except UnicodeDecodeError as err:
        load.drain()
        raise PlanError(f"{statement.path} is not UTF-8 text ({err.reason})") from err
    except OSError as err:  # gzip's BadGzipFile, a vanished file
        raise ExecutionError(f"cannot read {statement.path}: {err}") from err
    except (KeyboardInterrupt, DynosqlError) as err:
        if isinstance(err, KeyboardInterrupt):
            ctx.cancelled.set()  # the batch being written stops at its next wait
        if not isinstance(err, PlanError):  # a bad line says it itself
            load.stop()  # the batch being written finishes: the count below is exact
            journal = f" (journal {load.journal.path})" if load.journal is not None else ""
            written = f"{load.writes.changed} {plural(load.writes.changed, 'item')} written"
            so_far = f"{written}{journal}; to continue: {load.resume()}"
            if isinstance(err, JournalError):
                raise JournalError(f"{err.message}; {so_far}") from err
            ctx.tell(so_far)
        raise
    finally:
        load.close()
        if bad_file is not None:
            bad_file.close()
    stats.finish()
    cost = format_capacity(stats.capacity)
    cost = f"~{cost} WCU est." if stats.capacity_estimated else f"{cost} WCU"
    rows = f"{load.written} {plural(load.written, 'row')}"
    if dry:
        wcu = format_capacity(load.dry_wcu)
        title = f"COPY dry run: {rows} of {statement.path} would be written (~{wcu} WCU est.)"
        if bad:
            title += f" · {bad} bad {plural(bad, position(statement))}"
        return Result.status(title + " · nothing was written", stats)
    calls = counted(stats.requests, "BatchWriteItem call")
    title = f"COPY {rows} ← {statement.path} · {calls} · {cost}"
    if load.journal is not None:  # the reads that fed the journal
        title += f" {load.journal.footer()}"
    title += f" · {stats.elapsed:.3f}s"
    if bad:
        title += f" · {bad} bad {position(statement)}{'s' if bad != 1 else ''} skipped → {bad_path}"
    if load.writes.journal:
        title += f" · journal {load.writes.journal}"
    return Result.status(title, stats)


def _lines(statement: ast.CopyFrom, stream: Any, types: dict[str, str]) -> Iterator[files.Line]:
    if statement.items is not None:
        return (files.Line(n, dict(item)) for n, item in enumerate(statement.items, 1))
    if statement.format == "parquet":
        from dynosql.engines import parquet

        return parquet.read(statement.path)  # by name, through DuckDB (`stream` is unread)
    return files.read_items(stream, statement.format, types)


def position(statement: ast.CopyFrom) -> str:
    """What a load counts: lines, or in a JSON array elements (several may share a line)."""
    return "element" if statement.format == "json" else "line"


class _Load:
    """The batch being gathered, the batches being written, and where to continue from.

    One writer thread sends the batches in file order while the next lines are read and
    checked (reading overlaps the network wait); at most `IN_FLIGHT` batches are queued. Only
    batches whose call has returned count as written, so the line to continue from is never
    past an unwritten one (a batch sent again is harmless: puts of the same items)."""

    def __init__(self, ctx: Context, statement: ast.CopyFrom, stats: Stats, dry: bool):
        self.ctx = ctx
        self.statement = statement
        self.stats = stats
        # the load's writes as one statement's: --max-wcu counts across all its batches
        self.writes = WriteStats(verb="COPY", table=statement.table)
        self.items: list[dict[str, Any]] = []
        self.keys: set[tuple[Any, ...]] = set()
        self.lines: list[int] = []
        self.written = 0
        self.next_line = statement.start_line  # the first line not known to be written
        self.names = ctx.table(statement.table).keys.names
        self.started = time.monotonic()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="copy-from")
        self.journal: LoadJournal | None = None  # set once the file is open
        self.dry = dry
        self.dry_wcu = Decimal(0)  # what a dry run would have written
        self.in_flight: deque[tuple[Future[Any], int, int]] = deque()  # call, items, last line

    def add(self, number: int, item: dict[str, Any]) -> None:
        key = tuple(values.hashable(item[n]) for n in self.names)
        if key in self.keys:  # one batch may not put the same key twice: the later one wins
            self.send()
        self.items.append(item)
        self.keys.add(key)
        self.lines.append(number)
        if len(self.items) == BATCH:
            self.send()

    def send(self) -> None:
        """Queue the gathered batch for the writer; wait for the oldest when enough are queued."""
        if self.items and self.dry:  # counted and priced, not sent
            self.written += len(self.items)
            table = self.ctx.table(self.statement.table)
            for item in self.items:
                self.dry_wcu += cost.item_write(None, item, table, values.item_size).total
            self.items, self.keys, self.lines = [], set(), []
        if self.items:
            ctx = self.ctx
            call = self.pool.submit(
                write_batch, ctx, self.statement.table, self.items, self.writes, self.journal
            )
            self.in_flight.append((call, len(self.items), self.lines[-1]))
            self.items, self.keys, self.lines = [], set(), []
        while len(self.in_flight) > IN_FLIGHT:
            self._collect()

    def drain(self) -> None:
        """Send what is gathered and wait until every batch is written."""
        self.send()
        while self.in_flight:
            self._collect()

    def stop(self) -> None:
        """After a failure or Ctrl-C: no queued batch starts, the one being written finishes,
        and every batch that completed counts (`next_line` moves past it)."""
        for call, _count, _last in self.in_flight:
            call.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
        while self.in_flight:
            call, count, last = self.in_flight[0]
            if call.cancelled() or call.exception() is not None:
                break
            self.in_flight.popleft()
            self.written += count
            self.next_line = last + 1

    def close(self) -> None:
        for call, _count, _last in self.in_flight:
            call.cancel()
        # with a journal, the batch being written finishes and is journaled before it closes
        self.pool.shutdown(wait=self.journal is not None, cancel_futures=True)
        if self.journal is not None:
            self.writes.journal = self.journal.close(self.ctx.keep_journal())

    def _collect(self) -> None:
        call, count, last = self.in_flight.popleft()
        try:
            capacity = call.result()
        except BaseException:
            self.close()  # later batches must not land after a failed one
            self.in_flight.clear()
            raise
        self.stats.capacity += capacity
        self.stats.requests += 1
        self.written += count
        self.stats.rows = self.written
        self.next_line = last + 1
        self._pace()
        status = getattr(self.ctx.doors.progress, "status", None)
        if status is not None and self.stats.elapsed > 1.0:
            written = f"{self.written} {plural(self.written, 'item')}"
            status(f"… {written} written, {self.stats.elapsed:.0f}s")

    def _pace(self) -> None:
        """--rate-limit holds the load to that many capacity units a second."""
        limit = self.ctx.settings.rate_limit
        if limit:
            ahead = float(self.stats.capacity / limit) - (time.monotonic() - self.started)
            if ahead > 0:
                self.ctx.port.pause(ahead)

    def resume(self, line: int | None = None) -> str:
        s = self.statement
        if s.items is not None:  # a load of items given in memory is continued by its own
            return s.again
        extra = f" FORMAT {s.format}"
        if s.skip_bad:
            extra += " SKIP BAD" + (f" '{s.bad_path}'" if s.bad_path else "")
        quoted = s.path.replace("'", "''")
        unit = position(s).upper()
        return (
            f"COPY {quote(s.entity or s.table)} FROM '{quoted}'{extra} START AT {unit} "
            f"{line or self.next_line}"
        )


# --- the kinds -----------------------------------------------------------------------------


def _query(statement: ast.CopyTo) -> ast.Select:
    return statement.query or ast.Select(table=statement.table or "", index=None, items=None)


def _copy_to_plan(ctx: Context, statement: ast.CopyTo, explaining: bool) -> Planned[ast.CopyTo]:
    """COPY t TO reads like SELECT * FROM t (t an entity: its physical SELECT), planned as
    that SELECT's kind plans it: its Scan is the COPY's."""
    from dynosql.statements import kind_of
    from dynosql.statements.entity_resolve import resolve

    query = resolve(ctx, _query(statement))
    kind = kind_of(query)
    inner = kind.plan(ctx, query, explaining)
    return Planned(statement, (kind, inner), inner.scans)


def _explain_copy_to(ctx: Context, planned: Planned[ast.CopyTo], _analyze: bool) -> Result:
    """EXPLAIN COPY t TO 'f' is the EXPLAIN of the SELECT it runs."""
    kind, query = planned.plan
    assert kind.explain is not None
    return kind.explain(ctx, query, False)


def _explain_copy_from(ctx: Context, planned: Planned[ast.CopyFrom], _analyze: bool) -> Result:
    from dynosql.statements.copy_explain import explain_copy

    return explain_copy(ctx, planned.statement)


KINDS: dict[type, Kind[Any]] = {
    ast.CopyTo: Kind(
        named("COPY TO"),
        copy_to,
        lambda _s: READS,
        _explain_copy_to,
        plan=_copy_to_plan,
        example=("COPY {t} TO '{dir}/out.jsonl'",),
    ),
    ast.CopyFrom: Kind(
        named("COPY FROM"),
        unplanned(copy_from),
        lambda _s: Effects(writes=True, rollback=False),
        _explain_copy_from,
        example=("COPY {t} TO '{dir}/in.jsonl'", "COPY {t} FROM '{dir}/in.jsonl'"),
    ),
}
