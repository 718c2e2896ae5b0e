"""Which journal UNDO LAST takes: the ``--journal`` file, else the last write's journal in the
journal directory.

"Last" is the journal's sequence (`journal.sequence`: the directory's monotonic count, in each
header), never its name or start time: a clock that ran ahead, or was set back, cannot make an
older write the last one. Journals without a sequence (an older dynosql) come before every
numbered one, in name order. Passed over, each said: an undo's own journal (so a second UNDO
LAST finds the same write, already undone, rather than redoing it) and a journal that wrote
nothing (a cancelled transaction, a statement killed before its first write was sent). When
the clock disagrees with the sequence, both times are said.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dynosql.errors import DynosqlError
from dynosql.journal import JournalFile, journal_dir, read_journal
from dynosql.journal.sequence import header_of

if TYPE_CHECKING:
    from dynosql.context import Context


def is_undo(header: dict[str, Any]) -> bool:
    """Whether a journal header is an undo's (``undoes``; before version 3, its statement)."""
    return "undoes" in header or str(header.get("statement", "")).startswith("UNDO ")


def last_journal(ctx: Context) -> tuple[str, JournalFile]:
    """UNDO LAST's journal, read; what was passed over and why is told (`Context.tell`)."""
    if ctx.journal_file:
        return ctx.journal_file, read_journal(ctx.journal_file)
    directory = journal_dir(ctx.settings.journal_dir)
    if directory is None:
        raise DynosqlError("UNDO LAST: journaling is off (journal_dir = off): there is no journal")
    found = []
    for path in directory.glob("*.jsonl") if directory.is_dir() else []:
        header = header_of(path)
        if header and not is_undo(header):
            found.append((_order(header, path), header, path))
    found.sort(key=lambda x: x[0], reverse=True)
    for at, (_order_key, header, path) in enumerate(found):
        journal = read_journal(path)
        if not journal.wrote:
            ctx.tell(f"UNDO LAST: passed over {path.name} ({_statement(header)}): it wrote nothing")
            continue
        _say_clock(ctx, header, path, [(h, p) for _k, h, p in found[at + 1 :]])
        return str(path), journal
    raise DynosqlError(f"UNDO LAST: no journal of a write in {directory}")


def _order(header: dict[str, Any], path: Path) -> tuple[int, str]:
    sequence = header.get("sequence")
    return (sequence if isinstance(sequence, int) else -1, path.name)


def _statement(header: dict[str, Any]) -> str:
    text = " ".join(str(header.get("statement", "?")).split())
    return text if len(text) <= 80 else text[:77] + "…"


def _say_clock(
    ctx: Context, header: dict[str, Any], path: Path, older: list[tuple[dict[str, Any], Path]]
) -> None:
    """Tell when a journal before the chosen one (by sequence) started later by the clock."""
    later = [(h, p) for h, p in older if p.name > path.name]  # names carry the clock's time
    if not later or not isinstance(header.get("sequence"), int):
        return
    other, other_path = max(later, key=lambda x: x[1].name)
    ctx.tell(
        f"UNDO LAST: {path.name} is the last write (sequence {header['sequence']}, started "
        f"{header.get('started')} by the clock), though {other_path.name} (sequence "
        f"{other.get('sequence')}) says it started later, {other.get('started')}: the clock "
        "moved between them; the sequence decides"
    )
