"""The client's checks on what the backend port read: each page's items that pass the conditions
DynamoDB did not evaluate (the request's residual; on a Scan's first page sent whole for the
hints, the statement's whole WHERE), each item once where several requests may return it (IN
and OR branches), a Select=COUNT plan's count, a sample's pages by segment.

The port (`dynosql.plan.port`) sends requests and pages their answers; it evaluates nothing.
Everything here is pure: DynamoDB's semantics for conditions are `dynosql.evaluate.predicate`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from dynosql import values
from dynosql.evaluate.predicate import matches
from dynosql.sql import ast

Item = dict[str, Any]
# called with every item of a Scan's first page (sent whole), before the next page is read
FirstPage = Callable[[list[Item]], None]


class Page(Protocol):
    """What this module reads of a page (`dynosql.plan.port.Page` is one)."""

    @property
    def items(self) -> list[Item]: ...

    @property
    def residual(self) -> ast.Condition | None: ...

    @property
    def whole(self) -> bool: ...

    @property
    def count(self) -> int: ...

    @property
    def segment(self) -> int: ...

    @property
    def scanned(self) -> int: ...


def passing(
    page: Page, where: ast.Condition | None, first_page: FirstPage | None = None
) -> list[Item]:
    """The page's items that pass what the client must still check: its residual, or for a
    page sent whole the statement's `where` (`first_page` sees that page's items first)."""
    check = page.residual
    if page.whole:
        if first_page is not None:
            first_page(page.items)
        check = where
    if check is None:
        return page.items
    return [item for item in page.items if matches(check, item)]


def rows(
    pages: Iterable[Page],
    where: ast.Condition | None,
    once_by: tuple[str, ...] | None = None,
    first_page: FirstPage | None = None,
) -> Iterator[Item]:
    """Every item of the pages that passes the client's checks; `once_by`: the key names by
    which an item read by two requests is kept once."""
    items = (item for page in pages for item in passing(page, where, first_page))
    return items if once_by is None else _once(items, once_by)


def count(
    pages: Iterable[Page], where: ast.Condition | None, first_page: FirstPage | None = None
) -> int:
    """A Select=COUNT plan's count: DynamoDB's Count of each page; a page sent whole counts
    its items that pass `where`."""
    return sum(
        len(passing(page, where, first_page)) if page.whole else page.count for page in pages
    )


def sampled(pages: Iterable[Page]) -> Iterator[tuple[int, int, list[Item]]]:
    """A sampled Scan's pages as (segment's index in the sample, items scanned, items that
    pass the client's checks): what `dynosql.evaluate.sample_stats` takes."""
    for page in pages:
        yield page.segment, page.scanned, passing(page, None)


def _once(items: Iterator[Item], names: tuple[str, ...]) -> Iterator[Item]:
    seen: set[Any] = set()
    for item in items:
        key = values.key_tuple(item, names)
        if key not in seen:
            seen.add(key)
            yield item
