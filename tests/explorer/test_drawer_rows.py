"""The drawer's rows built in Python (explorer/views/drawer_rows.py, what the drawer and its page
show) are the template ``explorer/_drawer_item.html`` character for character, for the rows the
drawer's selector returns: questions and statements, source triples with and without a file,
votes of every shape, other runs' answers, no answer, text that needs escaping."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from annotation.models import Campaign, FinalLabel, Item
from explorer.selectors.drawer import DrawerRow, drawer_items
from explorer.views.drawer_rows import row_html, rows_html

from .factories import (
    QuestionFactory,
    QuestionSetFactory,
    SourceFactory,
    StatementFactory,
    StatementSetFactory,
    TripleFactory,
    make_run,
    predict,
    predict_statement,
)

pytestmark = pytest.mark.django_db

VOTES = [  # (provenance, agreement, votes JSON)
    ("unanimous", 1.0, {"option_ticks": [3, 0, 1, 0, 0], "n": 3}),
    ("majority", None, {"agree_yes": 2, "n": 3}),
    ("adjudicated", 0.3333333, {"agree_yes": 0}),
    ("majority", 0.5, {}),
    ("majority", 0.75, {"option_ticks": ["<a>", "&"], "agree_yes": 1}),
    ("majority", 0.6, ["not", "a", "dict"]),
]


def _label(campaign: Campaign, pos: int, provenance: str, agreement: float | None, votes: object, **item) -> None:  # type: ignore[no-untyped-def]
    it = Item.objects.create(campaign=campaign, position=pos, key=str(pos), **item)
    FinalLabel.objects.create(
        item=it, provenance=provenance, agreement=agreement, n_answers=3, label={"plausible": [0]}, votes=votes
    )


def _same(rows: list[DrawerRow], is_statement: bool) -> None:
    assert rows
    for row in rows:
        template = render_to_string("explorer/_drawer_item.html", {"row": row, "is_statement": is_statement})
        assert row_html(row, is_statement) + "\n" == template


def test_question_rows_are_the_template(researcher) -> None:  # type: ignore[no-untyped-def]
    qset = QuestionSetFactory(name="drawer <q&a>")
    src = SourceFactory(filename="atomic <train>.tsv")
    questions = []
    for i in range(9):
        q = QuestionFactory(
            question_set=qset,
            position=i * 1000,
            stem=f"Why <b>{i}</b> & \"quoted\" 'text'?",
            options=["<x>", "b & c", "d", 4, "é"][: 2 + i % 4],
            answer_index=None if i == 3 else i % 2,
            structure="" if i % 3 == 0 else "2p",
            role="" if i % 2 else "atomic_1",
        )
        for k in range(i % 3):
            q.triples.add(TripleFactory(source=src if k == 0 else None, source_line=17 + i if k == 0 else None))
        questions.append(q)
    run, other, third = make_run(question_set=qset), make_run(question_set=qset), make_run(question_set=qset)
    camp = Campaign.objects.create(name="c", title="c", kind="mcqa", question_set=qset)
    for i, q in enumerate(questions):
        predict(run, q, None if i == 4 else i % 3)
        if i % 2 == 0:
            predict(other, q, 0)
        if i % 3 == 0:
            predict(third, q, None)
        if i < len(VOTES):
            _label(camp, i, *VOTES[i], question=q)
    found = drawer_items(run, {}, None, 500)
    assert found.total == 9
    _same(found.rows, is_statement=False)
    # the page shows them (and the drawer the same rows)
    page = researcher.get(reverse("explorer:run_items", args=[run.pk])).content.decode()
    assert rows_html(found.rows, False) in page


def test_statement_rows_are_the_template(researcher) -> None:  # type: ignore[no-untyped-def]
    sset = StatementSetFactory(name="<statements & co>")
    run, other = make_run(statement_set=sset, scoring="yesno"), make_run(statement_set=sset, scoring="yesno")
    camp = Campaign.objects.create(name="s", title="s", kind="survey", statement_set=sset)
    for i in range(8):
        st = StatementFactory(
            statement_set=sset, position=i, text=f"<i>{i}</i> & it is so", human_majority=[None, 0, 1][i % 3]
        )
        if i == 5:  # only the binary answer, no P(yes)
            from runs.models import Prediction

            Prediction.objects.create(run=run, statement=st, position=i, chosen=1, extra={"q1": {"chosen": 1}})
        elif i == 6:
            from runs.models import Prediction

            Prediction.objects.create(run=run, statement=st, position=i, chosen=None, extra={"q1": [0.5]})
        else:
            predict_statement(run, st, [0.0, 0.25, 1.0, 0.123456, 0.5][i % 5], 0.4)
        if i % 2:
            predict_statement(other, st, 0.9)
        if i < len(VOTES):
            _label(camp, i, *VOTES[i], statement=st)
    found = drawer_items(run, {}, None, 500)
    assert found.total == 8
    _same(found.rows, is_statement=True)
    page = researcher.get(reverse("explorer:run_items", args=[run.pk])).content.decode()
    assert rows_html(found.rows, True) in page


def test_no_rows(researcher) -> None:  # type: ignore[no-untyped-def]
    run = make_run(question_set=QuestionSetFactory(name="empty"))
    assert rows_html([], False) == "<p>No items.</p>"
    page = researcher.get(reverse("explorer:run_items", args=[run.pk])).content.decode()
    assert "<p>No items.</p>\n</div>" in page
