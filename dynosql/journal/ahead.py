"""Intents journaled ahead of the writes they announce, a chunk at a time: the group commit of a
run of writes (a write is sent only once its intent is on disk; one fsync a chunk)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from dynosql import values
from dynosql.journal.file import Images, Journal, JournalError, ident

T = TypeVar("T")

# intents journaled (one write, one fsync) ahead of the writes they announce: 128 writes take
# longer to send (8 in flight) than one fdatasync, so the sync of the next chunk stays hidden
# (32 left the writers waiting on it: 1.27x boto3's UPDATE time, 314 syncs for 10,000 writes)
AHEAD = 128


class WriteAhead(Generic[T]):
    """Intents journaled a chunk at a time ahead of the writes: `__call__` wraps the targets
    of a `Writer.run`, and before yielding a chunk of them it has journaled their intents in
    one write and one fsync (the group commit of a batch: a write is sent only once its intent is
    on disk, and a statement of 10,000 writes makes about 10,000 / AHEAD fsyncs, not one per
    write). `start` is called as each write starts; `close`, after the run, journals the
    intents of writes never started (the statement stopped first: Ctrl-C, --max-wcu, an
    error) as not sent, so undo never takes them for writes whose outcome is unknown."""

    def __init__(
        self,
        journal: Journal,
        table: str,
        key_of: Callable[[T], dict[str, Any]],
        images_of: Callable[[T], Images | None] | None = None,
        chunk: int = AHEAD,
    ):
        self.journal = journal
        self.table = table
        self.key_of = key_of
        self.images_of = images_of
        self.chunk = chunk
        self._announced: dict[str, dict[str, Any]] = {}  # journaled, not started: by item
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[list[T]] | None = None

    def __call__(self, targets: Iterable[T]) -> Iterator[T]:
        """The targets, each chunk's intents on disk before its first target is yielded. The
        next chunk is announced (written, synced) in a helper thread while this one is being
        sent, so the sync's wait hides behind the network's."""
        it = iter(targets)
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-ahead")
        self._pool = pool
        try:
            chunk = list(itertools.islice(it, self.chunk))
            self._future = pool.submit(self._announce, chunk) if chunk else None
            while self._future is not None:
                current = self._future.result()  # on disk
                chunk = list(itertools.islice(it, self.chunk))
                self._future = pool.submit(self._announce, chunk) if chunk else None
                yield from current
        finally:
            pool.shutdown(wait=True)

    def _announce(self, chunk: list[T]) -> list[T]:
        keys = [self.key_of(t) for t in chunk]
        images = None if self.images_of is None else [self.images_of(t) for t in chunk]
        self.journal.intents(self.table, keys, images)  # written and fsynced
        with self._lock:
            for key in keys:
                self._announced[ident(self.table, values.encode_item(key))] = key
        return chunk

    def start(self, target: T) -> None:
        """The write of `target` is about to be sent (its intent is on disk)."""
        name = ident(self.table, values.encode_item(self.key_of(target)))
        with self._lock:
            self._announced.pop(name, None)

    def close(self) -> None:
        """Journal the announced writes that never started as not sent (nothing when the
        journal itself failed: its error is the statement's)."""
        if self._pool is not None:  # a chunk being announced is on disk (or failed) first
            self._pool.shutdown(wait=True)
        with self._lock:
            unsent, self._announced = list(self._announced.values()), {}
        if unsent and self.journal.broken is None:
            try:
                self.journal.not_sent(self.table, unsent)
            except JournalError:
                pass
