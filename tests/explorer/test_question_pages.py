"""The question list as the Paginator reads it (explorer.selectors.questions.QuestionPages): a count
per set and a page read set by set in position order give the same rows, in the same order, as the
one ordered query (set name, position) over every filter; and Question.answer_count, the stored
generated column the answers filter reads, is the length of ``answers`` however a row is written."""

from __future__ import annotations

import json

import pytest
from django.core.paginator import Paginator
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Campaign, Item
from explorer.selectors import questions as qsel
from knowledge.models import Question
from knowledge.services.imports import questions_import
from tests.conftest import shared_file

from .factories import QuestionFactory, QuestionSetFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_sets():
    """Sets whose name order is not their id order, with 0-6 answers per question, holes in the
    positions, and some questions in a campaign (not "unvalidated")."""
    sets = [QuestionSetFactory(name=n) for n in ("m-set", "b-set", "x-set")]
    answers = [["a"], ["a", "b"], [], ["a"], ["a", "b", "c", "d", "e", "f"], ["a"], ["b"]]
    qs = []
    for s_i, qset in enumerate(sets):
        for i in range(7 + 3 * s_i):
            qs.append(
                QuestionFactory(
                    question_set=qset,
                    position=100 - 7 * i if s_i == 1 else 3 * i,  # b-set: positions against id order
                    answers=answers[(i + s_i) % len(answers)],
                    structure="2p" if i % 2 else "1p",
                )
            )
    camp = Campaign.objects.create(name="c", title="c", kind="mcqa", question_set=sets[0])
    for i, q in enumerate(qs[::4]):
        Item.objects.create(campaign=camp, position=i, question=q, key=str(i))
    return qs


FILTERS = [
    qsel.QuestionFilters(),
    qsel.QuestionFilters(answers="1"),
    qsel.QuestionFilters(answers="0"),
    qsel.QuestionFilters(answers="5+"),
    qsel.QuestionFilters(answers="1", validation="unvalidated"),
    qsel.QuestionFilters(validation="in-progress"),
    qsel.QuestionFilters(set="b-set", answers="1"),
    qsel.QuestionFilters(kind="2p", answers="2"),
    qsel.QuestionFilters(answers="4"),  # no match
]


def _row(q: Question) -> tuple[int, str, int, int]:
    return (q.pk, q.question_set.name, q.position, q.n_answers)


@pytest.mark.parametrize("f", FILTERS, ids=lambda f: json.dumps(f.active()))
@pytest.mark.parametrize("per_page", [1, 3, 25])
def test_every_page_is_the_ordered_lists_page(three_sets, f, per_page):
    expected = [_row(q) for q in qsel.question_list(f)]
    assert all(n == len(Question.objects.get(pk=pk).answers) for pk, _, _, n in expected)
    pages = Paginator(qsel.question_pages(f), per_page)
    assert pages.count == len(expected)
    got = [_row(q) for number in pages.page_range for q in pages.page(number)]
    assert got == expected
    # a slice that starts and ends inside sets, and one past the end
    source = qsel.question_pages(f)
    assert [_row(q) for q in source[2:13]] == expected[2:13]
    assert [_row(q) for q in source[len(expected) - 1 : len(expected) + 5]] == expected[-1:]
    assert [_row(q) for q in source] == expected
    if expected:
        assert _row(source[len(expected) // 2]) == expected[len(expected) // 2]


def test_a_page_reads_one_set_with_one_statement(three_sets):
    source = qsel.question_pages(qsel.QuestionFilters(answers="1"))
    source.count()
    with CaptureQueriesContext(connection) as ctx:
        rows = source[0:2]
    assert len(ctx.captured_queries) == 1
    assert len(rows) == 2
    with CaptureQueriesContext(connection) as ctx:
        rows = source[0:100]  # every set: one statement each
    assert len(ctx.captured_queries) == 3
    with CaptureQueriesContext(connection) as ctx:
        shown = [(q.question_set.name, q.stem, q.structure, q.role, q.position, q.n_answers) for q in rows]
    assert len(ctx.captured_queries) == 0
    assert len(shown) == len(rows)


def test_the_list_page_shows_the_counts_and_pages(researcher, three_sets):
    f = qsel.QuestionFilters(answers="1")
    expected = list(qsel.question_list(f))
    r = researcher.get(reverse("explorer:questions"), {"answers": "1"})
    assert r.status_code == 200
    assert r.context["page"].paginator.count == len(expected)
    assert [q.pk for q in r.context["page"]] == [q.pk for q in expected[:25]]


def test_answer_count_is_the_length_of_answers_however_written(tmp_path):
    qset = QuestionSetFactory(name="ac")
    q = QuestionFactory(question_set=qset, answers=["a", "b"])
    Question.objects.bulk_create(
        [Question(question_set=qset, position=50 + i, stem=f"s{i}", answers=["x"] * i) for i in range(4)]
    )
    rows = dict(Question.objects.filter(question_set=qset).values_list("position", "answer_count"))
    assert rows[q.position] == 2
    assert [rows[50 + i] for i in range(4)] == [0, 1, 2, 3]
    Question.objects.filter(pk=q.pk).update(answers=["a", "b", "c"])
    q.answers = ["a", "b", "c", "d"]
    q.save()
    assert Question.objects.get(pk=q.pk).answer_count == 4
    Question.objects.filter(pk=q.pk).update(answers={"not": "a list"})  # no array: no answer, on both databases
    assert Question.objects.get(pk=q.pk).answer_count == 0
    # an import writes them too
    lines = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:4]
    (tmp_path / "ax.jsonl").write_text("\n".join(lines) + "\n")
    questions_import(tmp_path / "ax.jsonl", name="imp", fmt="rica-axioms")
    got = list(Question.objects.filter(question_set__name="imp").values_list("answers", "answer_count"))
    assert got
    assert all(len(a) == n for a, n in got)
