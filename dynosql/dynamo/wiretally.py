"""Items and billed bytes per partition-key value, read off a Scan page's JSON bytes.

SHOW HOT KEYS needs, per key, how many items there are and what they weigh. Decoding a page of
whole items into Python objects only to size them cost more than twice the CPU of a GROUP BY
that reads the keys alone: the JSON decoder builds a dict and two strings for every attribute.
This module gets the same numbers from the page's bytes with a handful of passes in C (split,
translate, count, regular expressions), and answers None whenever it cannot be sure, so that the
caller decodes that page the usual way (`dynosql.dynamo.wiresize`). Why the answer is exact:

- A page with a backslash anywhere is left alone. Without escapes, every ``"`` in the body
  starts or ends a string, and a string's UTF-8 bytes are its bytes on the wire.
- An item's **shape** is its bytes with every byte but ``"{}[],:`` and whitespace deleted.
  Two items of one shape have the same tree, the same attribute and element positions and the
  same type at each (a scalar string is S, N or B, a literal is BOOL or NULL, ``{`` is M, ``[``
  then ``{`` or ``]`` is L, ``[`` then ``"`` is a set); they differ only in what their strings
  hold and in ``true`` against ``false``. So an item's size is its length on the wire, less an
  overhead that depends only on its shape (quotes, punctuation, tags, the 3 + 1-per-element of
  lists and maps), less what the strings say beyond their length: a number's billed bytes are
  not its digits, a binary's are not its base64, ``false`` is one letter longer than ``true``.
  Those corrections are read from the bytes with patterns that can only match a type tag (a
  ``"N"`` followed by ``:`` and a string is a number; a name is always followed by an object).
- The overhead of each new shape is learned from one item decoded exactly
  (`wiresize.item_size`) and kept for the statement. A page with too many new shapes (free text
  whose spaces and commas vary) is decoded the usual way.
- Items are split where ``}},{"`` (the end of an item, a comma, the next one's opening) is
  followed by a name: not by a type tag and a colon (the next element of a list of maps), nor
  by what follows a closing quote (a string that ends in ``}},{``); or, on a page written as
  moto writes, ``}}, {"``. Every cut is then between two items, and the page's own ``Count``
  must equal the number of pieces, or some boundary was written otherwise (a new line, say)
  and the page is decoded.
- Each item's key is its one top-level attribute named like the key, with a scalar value
  (every item of a table or index has its partition key); a map entry of that name anywhere
  makes more matches than ``Count``, and the page is decoded. Items of one key come together
  (DynamoDB stores an item collection together), so the corrections are read once per run of
  one key, not per item.

Agreement with `values.item_size` of the decoded items is tested on random items of every
type and spelling (tests/test_wiretally.py).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from typing import Any

from dynosql.dynamo import wiresize
from dynosql.dynamo.wire import ReducedPage

ITEMS = re.compile(rb'"Items"\s*:\s*\[')
# Between two items: the end of one (its last value, then itself), a comma, the next one's
# opening and its first name. The same bytes end a map in a list before the next element,
# whose first name is a type tag followed by a colon; and a string may end in "}},{", whose
# closing quote is followed by one of :,}] or a space. Neither is cut. An item whose first name
# looks like either is not cut from the one before it: the page has fewer pieces than its
# Count, and is decoded. moto writes the comma with a space after it (Python's json.dumps).
_NAME_FOLLOWS = rb'(?![:,}\]\s]|(?:S|N|B|BOOL|NULL|M|L|SS|NS|BS)"\s*:)'
BETWEEN = re.compile(rb'\}\},\{"' + _NAME_FOLLOWS)
BETWEEN_SPACED = re.compile(rb'\}\}, \{"' + _NAME_FOLLOWS)
_SHAPE_BYTES = b'"{}[],: \t\n\r\0'  # NUL, never in JSON text, joins the pieces
_NOT_SHAPE = bytes(b for b in range(256) if b not in _SHAPE_BYTES)
_NUMBER = re.compile(rb'"N"\s*:\s*"([^"]*)"')
_BINARY = re.compile(rb'"B"\s*:\s*"([^"]*)"')
_FALSE = re.compile(rb'"BOOL"\s*:\s*f')
_NUMBER_SET = re.compile(rb'"NS"\s*:\s*\[([^\]]*)\]')
_BINARY_SET = re.compile(rb'"BS"\s*:\s*\[([^\]]*)\]')
_ELEMENT = re.compile(rb'"([^"]*)"')
_SET_SHAPE = re.compile(rb'\[\s*"')  # a set's elements are strings; a list's are objects
_DECODER = json.JSONDecoder()
MAX_SHAPES = 4096  # kept per statement
NEW_SHAPES_PER_PAGE = 32  # more new shapes than this (and than 1 in 8 items): decode instead
GIVE_UP_AFTER = 3  # pages with too many new shapes, in one statement


class KeyTally:
    """Reads the pages of one statement, one page at a time (`Executor.wire_pages` holds a
    lock around it): the shapes it learns serve every later page. A page reduces to [key
    wire, items, bytes] by the key's wire form as a tuple, as `hotkeys` tallies a decoded
    page."""

    def __init__(self, key: str) -> None:
        name = re.escape(key.encode("utf-8"))
        self._key = re.compile(rb'"' + name + rb'"\s*:\s*\{\s*"([SNB])"\s*:\s*"([^"]*)"\s*\}')
        self._overheads: dict[bytes, int] = {}
        self._too_varied = 0  # pages with too many new shapes: after a few, stop trying
        self.declined = 0  # pages left to the decoder (tests and benchmarks read it)

    def __call__(self, body: bytes | str) -> ReducedPage[dict[tuple[Any, ...], list[Any]]] | None:
        tally = None
        if isinstance(body, bytes) and self._too_varied < GIVE_UP_AFTER:
            tally = self._read(body)
        if tally is None:
            self.declined += 1
        return tally

    def _read(self, body: bytes) -> ReducedPage[dict[tuple[Any, ...], list[Any]]] | None:
        if b"\\" in body:
            return None
        items = _items(body)
        if items is None:
            return None
        start, stop, pieces, gap = items
        if not pieces:
            return ReducedPage({}, body, 0)
        # an item's length on the wire: its piece's and the separator's 4 bytes it lost (the
        # separator's other `gap` bytes are between the items)
        lengths = list(map(len, pieces))
        lengths[0] -= 2  # the first piece has its item's opening
        lengths[-1] -= 2  # the last its closing
        shape_text = b"\0".join(pieces).translate(None, _NOT_SHAPE)
        shapes = shape_text.split(b"\0")
        if len(shapes) != len(pieces):
            return None  # a NUL: not JSON
        shapes[0] = shapes[0][2:]
        shapes[-1] = shapes[-1][:-2]
        overheads = self._overheads_of(body, start, shapes, lengths, gap)
        if overheads is None:
            return None
        keys = self._key.findall(body, start, stop)
        if len(keys) != len(pieces):
            return None
        sets = _SET_SHAPE.search(shape_text) is not None
        counts: dict[tuple[Any, ...], list[Any]] = {}
        total = first = 0
        at = start
        for (code, text), run in itertools.groupby(keys):
            items_in_run = len(list(run))
            after = first + items_in_run
            length = sum(lengths[first:after]) + 4 * items_in_run
            end = at + length + (items_in_run - 1) * gap  # the items and what is between
            size = length - sum(overheads[first:after]) - _corrections(body, at, end, sets)
            total += size
            wire = {code.decode(): text.decode("utf-8")}
            entry = counts.setdefault(tuple(wire.items()), [wire, 0, 0])
            entry[1] += items_in_run
            entry[2] += size
            first, at = after, end + gap
        return ReducedPage(counts, body[:start] + body[stop:], total)

    def _overheads_of(
        self, body: bytes, start: int, shapes: list[bytes], lengths: list[int], gap: int
    ) -> list[int] | None:
        """Each item's overhead, learning each new shape from its first item; None when the
        page has too many new shapes to be worth it."""
        known = self._overheads
        overheads = list(map(known.get, shapes))
        if None not in overheads:
            return overheads  # type: ignore[return-value]
        new: dict[bytes, int] = {}
        for j, (shape, overhead) in enumerate(zip(shapes, overheads, strict=True)):
            if overhead is None and shape not in new:
                new[shape] = j
        if len(new) > max(NEW_SHAPES_PER_PAGE, len(shapes) // 8):
            self._too_varied += 1
            return None
        if len(known) + len(new) > MAX_SHAPES:  # start again with this page's shapes
            known.clear()
            new = {}
            for j, shape in enumerate(shapes):
                new.setdefault(shape, j)
        step = 4 + gap
        offsets = list(itertools.accumulate(lengths, lambda at, n: at + n + step, initial=start))
        for shape, j in new.items():
            raw = body[offsets[j] : offsets[j] + lengths[j] + 4]
            try:
                size = wiresize.item_size(json.loads(raw))
            except (ValueError, TypeError, AttributeError, KeyError):
                return None  # not an item after all: the page is decoded, and says why
            known[shape] = len(raw) - size - _corrections(raw, 0, len(raw), b"[" in shape)
        return list(map(known.__getitem__, shapes))


def _items(body: bytes) -> tuple[int, int, list[bytes], int] | None:
    """Where the Items array's contents start and stop, the items split at `BETWEEN` (the
    first with its opening ``{"``, the last with its closing ``}}``), and how many bytes are
    between two items (the comma, and moto's space); None unless there are exactly as many
    pieces as the page's Count. Every cut is between two items, so that many pieces are the
    items."""
    found = ITEMS.search(body)
    if found is None:
        return None
    start = found.end()
    if body[start : start + 1] == b"]":
        return start, start, [], 1
    gap = 1
    pieces = BETWEEN.split(body[start:])
    if len(pieces) == 1 and body.find(b"}}, {", start) >= 0:
        gap = 2
        pieces = BETWEEN_SPACED.split(body[start:])
    last = pieces[-1]
    opening = b'{"' if len(pieces) > 1 else b""
    try:  # where the last item ends: after it come the page's other fields
        _, end = _DECODER.raw_decode((opening + last).decode("latin-1"))
        stop = len(body) - len(last) + end - len(opening)
        envelope = json.loads(body[:start] + body[stop:])
        if not isinstance(envelope, dict) or envelope.get("Count") != len(pieces):
            return None
    except ValueError:
        return None
    pieces[-1] = last[: end - len(opening)]
    return start, stop, pieces, gap


def _corrections(body: bytes, start: int, stop: int, sets: bool) -> int:
    """What the strings between `start` and `stop` weigh on the wire beyond their billed bytes:
    numbers' digits against their billed size, base64 against the raw bytes, and one for each
    false."""
    extra = len(_FALSE.findall(body, start, stop))
    numbers = _NUMBER.findall(body, start, stop)
    if numbers:
        extra += sum(map(_number_excess, numbers))
    if body.find(b'"B"', start, stop) >= 0:
        extra += sum(map(_binary_excess, _BINARY.findall(body, start, stop)))
    if sets:
        for elements in _NUMBER_SET.findall(body, start, stop):
            extra += sum(map(_number_excess, _ELEMENT.findall(elements)))
        for elements in _BINARY_SET.findall(body, start, stop):
            extra += sum(map(_binary_excess, _ELEMENT.findall(elements)))
    return extra


@functools.lru_cache(maxsize=1 << 14)  # numbers repeat (prices, counts, readings)
def _number_excess(text: bytes) -> int:
    return len(text) - wiresize.number_text_size(text.decode("utf-8"))


def _binary_excess(text: bytes) -> int:
    return len(text) - wiresize.binary_text_size(text.decode("ascii"))
