"""The explorer's reads of annotation data: validation status filter, accuracy by agreement
level with its drawer, votes on the question page, survey agree rates and rater scores."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Campaign, FinalLabel, Item, Response
from explorer.selectors import questions as qsel
from explorer.selectors import sources

from .factories import QuestionFactory, QuestionSetFactory, StatementFactory, StatementSetFactory, make_run, predict

pytestmark = pytest.mark.django_db


def _label(item, provenance, agreement, below=False, plausible=(0,), none=False):  # type: ignore[no-untyped-def]
    return FinalLabel.objects.create(
        item=item,
        provenance=provenance,
        agreement=agreement,
        below_threshold=below,
        n_answers=3,
        label={"plausible": list(plausible), "none_correct": none, "bad_context": False},
        votes={"option_ticks": [3, 0, 1, 0, 0], "n": 3},
    )


@pytest.fixture
def validated():
    qset = QuestionSetFactory(name="val")
    qs = [QuestionFactory(question_set=qset, answer_index=0) for _ in range(6)]
    camp = Campaign.objects.create(name="c1", title="c1", kind="mcqa", question_set=qset)
    items = [Item.objects.create(campaign=camp, position=i, question=q, key=str(i)) for i, q in enumerate(qs[:5])]
    _label(items[0], "unanimous", 1.0)
    _label(items[1], "majority", 0.8)
    _label(items[2], "majority", 0.4, below=True)
    _label(items[3], "majority", 0.7, plausible=(), none=True)
    # items[4]: in the campaign, no label yet; qs[5]: in no campaign
    run = make_run(question_set=qset)
    for q, chosen in zip(qs, (0, 1, 0, 0, 0, 0), strict=True):
        predict(run, q, chosen)
    return {"qs": qs, "run": run}


@pytest.mark.parametrize(
    "status,expected",
    [
        ("unvalidated", [5]),
        ("in-progress", [4]),
        ("validated", [0, 1]),
        ("contested", [2]),
        ("rejected", [3]),
        ("adjudicated", []),
    ],
)
def test_validation_status_filter(validated, status, expected):
    got = qsel.question_list(qsel.QuestionFilters(set="val", validation=status))
    assert [validated["qs"].index(q) for q in got] == expected


def test_accuracy_by_agreement_level(validated, researcher):
    rows = {r["group"]: (r["ok"], r["n"]) for r in sources.agreement_levels_for_run(validated["run"])}
    assert rows == {"unanimous": (1, 1), "majority": (1, 2), "contested": (1, 1)}
    url = reverse("explorer:run_items", args=[validated["run"].pk]) + "?agreement=majority&correct=0"
    body = researcher.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-total="1"' in body
    assert f'data-item="{validated["qs"][1].pk}"' in body
    assert "3 raters" in body


def test_question_page_shows_votes_and_predictions(validated, researcher):
    q = validated["qs"][2]
    html = researcher.get(reverse("explorer:question", args=[q.pk])).content.decode()
    assert "Campaign c1" in html
    assert "below the agreement threshold" in html
    assert "3 of 3" in html
    assert f"#{validated['run'].pk}" in html


def test_survey_rates_and_rater_scores():
    User = get_user_model()
    sset = StatementSetFactory(name="s")
    sts = [StatementFactory(statement_set=sset) for _ in range(4)]
    camp = Campaign.objects.create(name="surv", title="s", kind="survey", statement_set=sset, redundancy=3)
    users = [User.objects.create(username=f"u{i}") for i in range(3)]
    answers = [[(1, 1), (1, 1), (0, 1), (1, 0)], [(1, 1), (0, 0), (0, 1), (1, 1)], [(1, 0), (1, 1), (0, 0), (1, 1)]]
    for u, row in zip(users, answers, strict=True):
        for i, (st, (a, b)) in enumerate(zip(sts, row, strict=True)):
            item, _ = Item.objects.get_or_create(campaign=camp, position=i, statement=st, key=str(i))
            Response.objects.create(
                campaign=camp, item=item, user=u, answer={"agree": a, "predict": b}, idempotency_key=f"{u.pk}-{i}"
            )
    for i in range(len(sts)):
        item = Item.objects.get(campaign=camp, position=i)
        yes = sum(row[i][0] for row in answers)
        FinalLabel.objects.create(
            item=item,
            provenance="majority",
            agreement=0.5,
            n_answers=3,
            label={"agree": 1},
            votes={"agree_yes": yes, "predict_yes": 2, "n": 3},
        )
    rates = sources.statement_agree_rates(sset)
    assert rates == {sts[0].pk: 1.0, sts[1].pk: pytest.approx(2 / 3), sts[2].pk: 0.0, sts[3].pk: 1.0}
    ms = sources.human_commonsensicality(sset)
    assert len(ms) == 3
    assert all(0 <= m <= 1 for m in ms)


def test_agreement_level_counts_the_latest_label_once(validated, django_assert_num_queries):
    """A question labelled by two campaigns counts once, at its latest label's level; a run with no
    labelled question gives no rows."""
    from datetime import timedelta

    from django.utils import timezone

    q0 = validated["qs"][0]
    camp2 = Campaign.objects.create(name="c2", title="c2", kind="mcqa", question_set=q0.question_set)
    later = _label(Item.objects.create(campaign=camp2, position=0, question=q0, key="x"), "majority", 0.4, below=True)
    FinalLabel.objects.filter(pk=later.pk).update(computed_at=timezone.now() + timedelta(hours=1))
    with django_assert_num_queries(1):
        rows = {r["group"]: (r["ok"], r["n"]) for r in sources.agreement_levels_for_run(validated["run"])}
    assert rows == {"majority": (1, 2), "contested": (2, 2)}
    other = make_run(question_set=QuestionSetFactory(name="unlabelled"))
    assert sources.agreement_levels_for_run(other) == []


def test_question_list_relation_filter_metadata_or_linked_triples(django_assert_max_num_queries):
    from .factories import GraphFactory, RelationFactory, TripleFactory

    qset = QuestionSetFactory(name="rel")
    by_meta = QuestionFactory(question_set=qset, metadata={"relation": "xWant"})
    by_triples = QuestionFactory(question_set=qset, metadata={})
    g = GraphFactory()
    want = RelationFactory(name="xWant")
    by_triples.triples.add(TripleFactory(graph=g, relation=want), TripleFactory(graph=g, relation=want))
    other = QuestionFactory(question_set=qset, metadata={"relation": "xNeed"})
    other.triples.add(TripleFactory(graph=g, relation=RelationFactory(name="oReact")))
    QuestionFactory(question_set=QuestionSetFactory(name="elsewhere"), metadata={"relation": "xWant"})
    with django_assert_max_num_queries(1):
        got = list(qsel.question_list(qsel.QuestionFilters(set="rel", relation="xWant")))
    assert got == [by_meta, by_triples]  # each once, though two linked triples match
    assert list(qsel.question_list(qsel.QuestionFilters(set="rel", relation="xNeed"))) == [other]
