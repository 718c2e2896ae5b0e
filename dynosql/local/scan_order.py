"""Where a Scan meets each item, as DynamoDB Local orders and splits it.

AWS documents that a parallel Scan's segments "logically divide a table into equally sized
portions" (ScanRequest.TotalSegments), not how, nor in which order a Scan reads the items
(on DynamoDB, by a hash of the partition key, its own). DynamoDB Local, AWS's own emulator
and the oracle of these tests, hashes a partition key as the SHA-1 of the bytes ``LocalDdb``
then the key's bytes (a string's UTF-8, a binary's bytes, a number in its order-preserving
encoding, `number_bytes`), read as a 160-bit number; segment ``i`` of ``n`` holds the hashes
from ``(2**160 - 1) // n * i`` up to the next segment's start, the last one up to
``2**160 - 1``; a segment, and a Scan in one stream, is read in hash order, a partition's
items by sort key. A local index is read as the table, by its own sort key first; a global
index in the order of its keys' values (partition key, then sort key), its entries that share
them by a hash of the item's keys the index lacks (`ScanKeys`); both are split into segments
by the table's partition key, as the table is. (Read in DynamoDB Local 3.3.1's ScanFunction,
LocalDBUtils and SQLiteDBAccess, and measured.)

The embedded server (moto) read a Scan in the order of the key values and put an item in
segment ``md5(key)[0] % n``: each segment held other items, and a page of a table larger than
1 MB ended on other items, so --local billed some Scans differently from DynamoDB Local (2.4
MB of items of 10 to 4,000 bytes in 4 segments: 290.5 RCU against 290; in 2: 291 against
290.5). With this order and split (`dynosql.local.moto_reads`) every page holds the items
DynamoDB Local's holds, for tables keyed by strings, numbers (negative, fractional, 38
digits) and binaries and for their indexes: ``tests/test_moto_reads.py``.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

_SALT = b"LocalDdb"
HASH_SPACE = (1 << 160) - 1  # SHA-1's largest value: the end of the last segment

Key = tuple[Any, ...]  # an item's place in a Scan, compared as a tuple


@dataclass(frozen=True)
class ScanKeys:
    """The key attributes a Scan of a table, or of one of its indexes, is ordered by."""

    table_hash: str
    table_range: str | None
    index_hash: str | None = None  # None: a Scan of the table itself
    index_range: str | None = None
    local: bool = False  # an LSI: the table's partition key, the index's sort key

    def place(self, value_of: Callable[[str], Any]) -> tuple[int, Key]:
        """(the hash that picks the item's segment, its place in the read), from its key
        attributes' values (moto ``DynamoType``, None where absent)."""
        hashed = key_hash(value_of(self.table_hash))
        table_range = self._sorted(value_of, self.table_range)
        if self.index_hash is None:
            return hashed, (hashed, *table_range)
        index_range = self._sorted(value_of, self.index_range)
        if self.local:
            return hashed, (hashed, *index_range, *table_range)
        own = (*self._sorted(value_of, self.index_hash), *index_range)
        return hashed, (*own, *self._tie(value_of, hashed))

    def _tie(self, value_of: Callable[[str], Any], hashed: int) -> Key:
        """What orders a GSI's entries of equal keys: the item's keys the index lacks, hashed
        (DynamoDB Local's ``getTrailingHashColumnName``)."""
        keys = (self.index_hash, self.index_range)
        lacked = self.table_range if self.table_range not in keys else None
        if self.table_hash in keys:
            return (key_hash(value_of(lacked)),) if lacked else ()
        if lacked:
            return (item_hash(value_of(self.table_hash), value_of(lacked)),)
        return (hashed,)

    @staticmethod
    def _sorted(value_of: Callable[[str], Any], name: str | None) -> Key:
        return sort_value(value_of(name)) if name else ()


def number_bytes(number: Decimal) -> bytes:
    """DynamoDB Local's encoding of a number key (its bytes sort as the numbers do): an
    exponent byte (of base 100, complemented when negative), then the digits two by two, each
    pair plus one (101 minus it when negative; a short negative number ends in 102); zero is
    a single 0x80."""
    if not number:
        return b"\x80"
    negative = number < 0
    _, digit_tuple, exponent = number.as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")  # not normalize(): it rounds to 28
    point = len(digit_tuple) + int(exponent)  # digits before the decimal point
    odd = point % 2  # an odd count starts with a half pair: a leading zero
    point += odd
    pairs = (len(digits) + odd + 1) // 2
    out = bytearray(pairs + 2 if negative and pairs < 20 else pairs + 1)
    if negative and pairs < 20:
        out[-1] = 102
    out[0] = (192 + point // 2) & 0xFF
    if negative:
        out[0] ^= 0xFF
    padded = ("0" if odd else "") + digits
    for i in range(0, len(padded), 2):
        pair = int(padded[i : i + 2].ljust(2, "0"))
        out[i // 2 + 1] = 101 - pair if negative else pair + 1
    return bytes(out)


def key_hash(value: Any) -> int:
    """The hash DynamoDB Local gives a partition key (a moto ``DynamoType``), as a number."""
    return int.from_bytes(_digest(_key_bytes(value)), "big")


def item_hash(*values: Any) -> int:
    """The hash DynamoDB Local gives an item's whole key (partition key, then sort key): the
    hash of the keys' own hashes. It orders an index's entries that share the index's keys."""
    return int.from_bytes(_digest(b"".join(_digest(_key_bytes(v)) for v in values)), "big")


def _key_bytes(value: Any) -> bytes:
    kind, raw = value.type, value.value
    if kind == "S":
        return bytes(raw.encode())
    if kind == "B":
        return raw if isinstance(raw, bytes) else base64.b64decode(raw)
    return number_bytes(Decimal(raw))


def _digest(data: bytes) -> bytes:
    return hashlib.sha1(_SALT + data).digest()


def segment(hashed: int, total: int) -> int:
    """The segment of ``total`` that holds a partition key of this hash."""
    return min(hashed // (HASH_SPACE // total), total - 1)


def sort_value(value: Any) -> Any:
    """A sort key (a moto ``DynamoType``) as Python orders it as DynamoDB does: numbers
    exactly, strings by code point (= UTF-8 byte order), binaries by unsigned bytes."""
    if value is None:
        return ()
    if value.type == "N":
        return (Decimal(value.value),)
    if value.type == "B":
        raw = value.value
        return (raw if isinstance(raw, bytes) else base64.b64decode(raw),)
    return (value.value,)
