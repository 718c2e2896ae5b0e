"""What undo writes: one restore per item (per unbroken run of its writes), and its condition.

An item a journal wrote several times is put back once, to the image before the first of the
writes, not once per write: its entries, in journal order, form a *chain* while each write
found the item as the one before left it (its old image is the previous new image). Undoing
the chain is one write, from the last new image straight to the first old one, so undo never
passes through a state a statement wrote, and an item a file's statements left as they found
it (``n = 5`` then ``n = 0``) needs no write at all. A break in the chain (someone else wrote
the item between two of the journal's writes) starts another chain: those are undone newest
first, and the older one then finds the item changed since, as it is (never overwritten).

A write whose answer never reached the journal (an intent that holds its images) may or may
not have applied: the item may be as the chain's last write leaves it, or as the write before
left it. Both are states undo restores from (`Restore.left`). A later write in the file that
read the item as it was *before* that write says it did not apply: it leaves the chain.

"Already restored" is recognised on the item itself: as the image before the first write, it
needs nothing (an undo run before, or stopped half way, restored it; or the writes never
applied). Each restore is conditional (`condition`): it applies only while the item is still
exactly as read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dynosql import values
from dynosql.errors import DynosqlError
from dynosql.journal.file import ident
from dynosql.journal.read import Entry
from dynosql.plan.expressions import MAX_EXPRESSION_BYTES, Placeholders, equal_text

Image = dict[str, Any] | None


@dataclass
class Restore:
    """Putting one item back: to `target` (the image before the chain's first write; None: it
    did not exist) from any of the states `left` (the chain's last new image first)."""

    table: str
    key: dict[str, Any]  # decoded
    target: Image
    left: list[Image]
    chain: list[Entry]

    @property
    def line(self) -> int:
        """The journal line of its newest write (where undo lists it)."""
        return self.chain[-1].line

    @property
    def answered(self) -> bool:
        """Whether any of its writes is known to have applied."""
        return any(not e.unanswered for e in self.chain)

    def recovered(self, state: int) -> bool:
        """Whether restoring from `left[state]` means an unanswered write had applied."""
        return state == 0 and self.chain[-1].unanswered

    def request(self, state: int, pk: str) -> tuple[str, dict[str, Any]]:
        """The conditional PutItem or DeleteItem that puts the item back from `left[state]`."""
        ph = Placeholders()
        params: dict[str, Any] = {"TableName": self.table}
        if self.target is None:
            operation = "DeleteItem"
            params["Key"] = values.encode_item(self.key)
        else:
            operation = "PutItem"
            params["Item"] = values.encode_item(self.target)
        params["ConditionExpression"] = condition(self.key, self.left[state], self.target, pk, ph)
        params["ReturnValues"] = "ALL_OLD"
        params["ReturnConsumedCapacity"] = "TOTAL"
        ph.into(params)
        return operation, params


def restores(entries: Iterable[Entry]) -> list[Restore]:
    """The restores of `entries` (in journal order), newest first. An item with nothing to
    undo (its chain leaves it as it found it) has none."""
    by_item: dict[str, list[Entry]] = {}
    for entry in entries:
        by_item.setdefault(ident(entry.table, values.encode_item(entry.key)), []).append(entry)
    out = [
        restore
        for item in by_item.values()
        for chain in _chains(item)
        if (restore := _restore(chain)) is not None
    ]
    out.sort(key=lambda r: r.line, reverse=True)
    return out


def _chains(entries: list[Entry]) -> list[list[Entry]]:
    """One item's entries as unbroken runs (each write found the item as the one before left
    it), an unanswered write that a later one shows had not applied left out."""
    chains: list[list[Entry]] = []
    for entry in entries:
        while chains:
            last = chains[-1][-1]
            if same_image(entry.old, last.new):
                chains[-1].append(entry)
                break
            if last.unanswered and same_image(entry.old, last.old):  # `last` had not applied
                chains[-1].pop()
                if not chains[-1]:
                    chains.pop()
                continue
            chains.append([entry])
            break
        else:
            chains.append([entry])
    return chains


def _restore(chain: list[Entry]) -> Restore | None:
    target = chain[0].old
    left: list[Image] = [chain[-1].new]
    for entry in reversed(chain):  # trailing unanswered writes: each may not have applied
        if not entry.unanswered:
            break
        left.append(entry.old)
    states: list[Image] = []
    for state in left:
        if not same_image(state, target) and state_of(state, states) is None:
            states.append(state)
    if not states:
        return None  # the item is left as it was found: nothing to undo
    first = chain[0]
    return Restore(first.table, first.key, target, states, chain)


def same_image(a: Image, b: Image) -> bool:
    """Whether two images are one item to DynamoDB: the same attributes, each of the same type
    and value (Python's ``True == 1`` and ``False == 0`` are not: a boolean made a number
    is a change to undo)."""
    return values.items_equal(a, b)


def state_of(image: Image, states: list[Image]) -> int | None:
    """The index of the first of `states` that `image` is (`same_image`), or None."""
    return next((i for i, state in enumerate(states) if same_image(image, state)), None)


def condition(key: dict[str, Any], left: Image, target: Image, pk: str, ph: Placeholders) -> str:
    """ "Still as `left`": every attribute of `left` equal, every attribute of `target` that
    `left` lacks absent (`left` None: the item absent). An item too large for one 4 KB
    condition is checked on its key and the attributes that differ from `target`."""
    if left is None:
        return f"attribute_not_exists({ph.name(pk)})"
    full = _equal_all(left, target, ph, list(left))
    if len(full.encode("utf-8")) <= MAX_EXPRESSION_BYTES:
        return full
    ph.names.clear()
    ph.values.clear()
    ph._by_name.clear()
    before = target or {}
    changed = [n for n in left if n not in before or not values.values_equal(before[n], left[n])]
    text = _equal_all(left, target, ph, [*key, *changed])
    if len(text.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        raise DynosqlError(f"the item {key} is too large to check before restoring it")
    return text


def _equal_all(left: dict[str, Any], target: Image, ph: Placeholders, names: list[str]) -> str:
    parts = [equal_text(ph.name(n), left[n], ph) for n in dict.fromkeys(names)]
    for name in target or {}:
        if name not in left:
            parts.append(f"attribute_not_exists({ph.name(name)})")
    return " AND ".join(parts)
