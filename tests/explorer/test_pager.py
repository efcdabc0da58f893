"""templates/pager.html keeps the list's other parameters (its filters, its search) when paging:
before, its links were ``?page=N`` alone, so the second page of a filtered list was unfiltered."""

from __future__ import annotations

import re

import pytest
from django.core.paginator import Paginator
from django.template.loader import render_to_string
from django.test import Client, RequestFactory

from knowledge.models import Question, QuestionSet


def _links(html: str) -> dict[str, str]:
    """{link text: href} of the pager's links (entities decoded)."""
    return {
        text.strip(): href.replace("&amp;", "&")
        for href, text in re.findall(r'<a href="([^"]*)"[^>]*>([^<]*)</a>', html.split('class="pager"', 1)[1])
    }


def test_pager_links_keep_every_other_parameter_and_replace_the_page() -> None:
    request = RequestFactory().get("/runs/", {"state": "done", "q": "a b&c", "page": "2"})
    page = Paginator(list(range(100)), 25).get_page(2)
    html = render_to_string("pager.html", {"page": page}, request=request)
    links = _links(html)
    assert links["← previous"] == "?state=done&q=a+b%26c&page=1"
    assert links["next →"] == "?state=done&q=a+b%26c&page=3"
    assert "hx-get" not in html  # a plain page: no htmx unless the includer names a target


def test_pager_with_an_htmx_target_swaps_the_same_url() -> None:
    request = RequestFactory().get("/x/", {"kind": "2p"})
    page = Paginator(list(range(60)), 25).get_page(1)
    html = render_to_string("pager.html", {"page": page, "hx_target": "#results"}, request=request)
    assert 'href="?kind=2p&amp;page=2" hx-get="?kind=2p&amp;page=2" hx-target="#results"' in html


@pytest.mark.django_db
def test_the_explorer_question_list_pages_through_the_filtered_questions(researcher: Client) -> None:
    qset = QuestionSet.objects.create(name="paged", kind=QuestionSet.Kind.COM2, question_count=60)
    Question.objects.bulk_create(
        Question(
            question_set=qset,
            position=i,
            stem=f"question {i}",
            options=["a", "b"],
            answer_index=0,
            structure="2p" if i % 2 else "2i",
        )
        for i in range(60)
    )
    first = researcher.get("/explorer/questions/", {"set": "paged", "kind": "2p"}).content.decode()
    href = _links(first)["next →"]
    assert "set=paged" in href
    assert "kind=2p" in href
    assert href.endswith("page=2")
    second = researcher.get("/explorer/questions/" + href).content.decode()
    assert "30 questions" in second  # still the filtered list: 30 of the 60 questions are 2p
    assert _links(second)["← previous"].endswith("page=1")
    assert "kind=2p" in _links(second)["← previous"]
