"""The undo journal: an append-only JSONL file of what each write changed, and undo.

Format, version 3 (one JSON object a line, DynamoDB JSON for every value, so every type is
exact). Every line carries ``"id"``, its statement's id (12 hex digits, drawn at random), and
``"seq"``, its number within that statement (from 0 at the header), so that statements of two
processes appending to one ``--journal`` file at once read back apart, each whole:

- a header line per statement: ``{"seq": 0, "id": "…", "journal": 3, "sequence": 12,
  "table": "t", "keys": ["pk", "sk"], "statement": "UPDATE …", "started": "2026-12-01T04:16:00Z",
  "target": {…}, "tables": {"t": {"keys": [["pk", "S"], ["sk", "N"]], "indexes": {"by_a":
  [["a", "S"]]}, "created": "…"}}}``: where the writes go (`target`: endpoint, region, the
  table's ARN), each table's key schema, index keys and creation time as the statement saw
  them (undo compares them with the table's before its first write), and ``sequence``: the
  journal directory's monotonic count (`journal.sequence`; UNDO LAST orders by it, not by the
  clock). An undo's header says what it restores: ``"undoes": {"journal": "/abs/path",
  "statements": ["<id>", …]}``;
- before each write is sent, an intent line: ``{"table": "t", "key": {…}, "intent": true}``,
  with ``"old"`` and ``"new"`` when the write's images are known before it is sent (an UPDATE or
  DELETE whose read returned the whole item, a transaction's action, a COPY FROM batch's puts
  and the items it read, an undo's restore);
- once it is answered, one line per item written: ``{"table": "t", "key": {…}, "old": {…} | null,
  "new": {…} | null}`` (``old`` null: the item did not exist; ``new`` null: the write deleted
  it); ``{"unchanged": true}`` when it was not written (its condition failed); ``{"refused":
  "Code: message"}`` when DynamoDB refused it or cancelled its transaction; ``{"not_sent":
  true}`` when the statement stopped before sending it;
- an end line: ``{"end": true, "lines": n, "sha256": "…"}`` over the statement's lines.

Write-ahead: every line is flushed before the statement goes on, the intent on disk (fsync)
before its request is sent. After Ctrl-C, a crash, a kill or exhausted retries the journal lists
exactly what was written, and an intent with no answer line after it is a write whose answer
was never recorded. The file is created 0600 (old images can hold anything), and locked
(`flock`) for each append. Older journals (version 2: no ids, one statement after the other)
read as before.

Undo (``dynosql undo FILE``, ``UNDO 'file'``, `statements.undo`) restores each item, newest
first, to the image before the journal's first write of it, with a conditional write that
succeeds only while the item is still as the journal's writes left it; see `restore`.
"""

from __future__ import annotations

from dynosql.journal.ahead import AHEAD, WriteAhead
from dynosql.journal.file import (
    VERSION,
    Images,
    Journal,
    JournalError,
    journal_dir,
    new_journal_path,
    refusal,
)
from dynosql.journal.read import Entry, JournalFile, Trust, Unknown, Unsent, read_journal
from dynosql.journal.restore import Restore, equal_text, restores

__all__ = [
    "AHEAD",
    "VERSION",
    "Entry",
    "Images",
    "Journal",
    "JournalError",
    "JournalFile",
    "Restore",
    "Trust",
    "Unknown",
    "Unsent",
    "WriteAhead",
    "equal_text",
    "journal_dir",
    "new_journal_path",
    "read_journal",
    "refusal",
    "restores",
]
