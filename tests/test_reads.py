"""The client's checks over what the backend port read (dynosql.evaluate.reads): the port
returns pages as DynamoDB answered them, tagged with what is still to check; the checks,
deduplication and counts happen here, with DynamoDB's semantics."""

from __future__ import annotations

from decimal import Decimal

from dynosql.evaluate import reads
from dynosql.plan.port import Page
from dynosql.sql import parse

WHERE = parse("SELECT * FROM t WHERE n > 1").where
RESIDUAL = parse("SELECT * FROM t WHERE s = 'x'").where


def _item(pk: str, n: int, s: str = "x") -> dict:
    return {"pk": pk, "n": Decimal(n), "s": s}


def test_a_page_passes_its_residual_and_a_whole_page_the_statements_where():
    residual = Page([_item("a", 0), _item("b", 5, "y")], RESIDUAL)
    whole = Page([_item("c", 0), _item("d", 5), _item("e", 7, "y")], RESIDUAL, whole=True)
    seen: list[list[dict]] = []
    rows = list(reads.rows([residual, whole], WHERE, first_page=seen.append))
    assert [r["pk"] for r in rows] == ["a", "d", "e"]
    assert seen == [whole.items]  # the hints see the whole page, once, before its rows


def test_items_two_requests_read_are_kept_once_by_key():
    pages = [Page([_item("a", 1), _item("b", 2)]), Page([_item("b", 2), _item("c", 3)])]
    assert [r["pk"] for r in reads.rows(pages, None, once_by=("pk",))] == ["a", "b", "c"]
    assert len(list(reads.rows(pages, None))) == 4


def test_a_count_is_dynamodbs_except_on_a_page_read_whole():
    pages = [Page([], None, count=7), Page([_item("a", 0), _item("b", 3)], None, whole=True)]
    assert reads.count(pages, WHERE) == 8


def test_a_samples_pages_keep_their_segment_and_items_scanned():
    page = Page([_item("a", 0), _item("b", 1, "y")], RESIDUAL, segment=2, scanned=9)
    assert list(reads.sampled([page])) == [(2, 9, [_item("a", 0)])]
