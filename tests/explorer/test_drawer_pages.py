"""The drawer opened as a page lists every item behind the bar, 100 a page with a pager, wrong
answers first (it listed the first 500 and no more); the drawer itself keeps its first 50."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from explorer.selectors.drawer import drawer_items
from explorer.views.errors import DRAWER_LIMIT, PAGE_LIMIT

from .factories import QuestionFactory, QuestionSetFactory, make_run, predict

pytestmark = pytest.mark.django_db

WRONG, RIGHT = 120, 110


@pytest.fixture
def run():  # type: ignore[no-untyped-def]
    qset = QuestionSetFactory(name="paged")
    run = make_run(question_set=qset)
    for i in range(WRONG + RIGHT):  # right and wrong interleaved by position, then wrong ones
        q = QuestionFactory(question_set=qset, position=i, answer_index=0)
        predict(run, q, 1 if i % 2 == 0 or i >= 2 * RIGHT else 0)
    return run


def _items(body: str) -> list[int]:
    return [int(x) for x in re.findall(r'class="item" data-item="(\d+)"', body)]


def test_every_item_is_on_some_page_once_wrong_answers_first(run, researcher) -> None:  # type: ignore[no-untyped-def]
    url = reverse("explorer:run_items", args=[run.pk])
    pages = [researcher.get(url, {"page": n}).content.decode() for n in (1, 2, 3)]
    ids = [_items(p) for p in pages]
    assert [len(x) for x in ids] == [PAGE_LIMIT, PAGE_LIMIT, WRONG + RIGHT - 2 * PAGE_LIMIT]
    assert len({i for x in ids for i in x}) == WRONG + RIGHT  # every item once
    verdicts = re.findall(r'<span class="(ok|bad)">(?:correct|wrong)</span>', "".join(pages))
    assert verdicts == ["bad"] * WRONG + ["ok"] * RIGHT  # wrong answers first, across the pages
    assert f"230 items (1–{PAGE_LIMIT} here, {PAGE_LIMIT} a page, wrong answers first)" in pages[0]
    assert "page 1 of 3" in pages[0]
    assert 'href="?page=2"' in pages[0]
    assert "page 3 of 3" in pages[2]
    # past the last page: the last page; not a number: the first
    assert _items(researcher.get(url, {"page": "99"}).content.decode()) == ids[2]
    assert _items(researcher.get(url, {"page": "x"}).content.decode()) == ids[0]


def test_paging_keeps_the_bars_filter_and_the_drawer_keeps_its_first_50(run, researcher) -> None:  # type: ignore[no-untyped-def]
    url = reverse("explorer:run_items", args=[run.pk])
    first = researcher.get(url, {"correct": "0"}).content.decode()
    assert "page 1 of 2" in first
    assert 'href="?correct=0&amp;page=2"' in first
    second = researcher.get(url, {"correct": "0", "page": "2"}).content.decode()
    assert len(_items(second)) == WRONG - PAGE_LIMIT
    assert "correct</span>" not in second  # still only the wrong ones
    drawer = researcher.get(url, {"correct": "0"}, HTTP_HX_REQUEST="true").content.decode()
    assert len(_items(drawer)) == DRAWER_LIMIT
    assert "pager" not in drawer
    assert f"(every item, {PAGE_LIMIT} a page)" in drawer


def test_a_page_past_the_end_still_counts_the_items(run) -> None:  # type: ignore[no-untyped-def]
    found = drawer_items(run, {}, None, PAGE_LIMIT, offset=1000)
    assert (found.total, found.rows) == (WRONG + RIGHT, [])
    found = drawer_items(run, {}, (False, True), PAGE_LIMIT, offset=1000)  # no CoCo sets here
    assert (found.total, found.rows) == (0, [])
