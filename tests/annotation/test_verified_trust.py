"""A verified set that can be trusted (issue 26 item 3): only settled items by default, an explicit
stored and displayed override for unsettled ones, COM2 A.4's top-up from the item's own checked
distractor pool (five options kept, the topped-up one marked), votes, confidence and provenance per
item, and the set page's figures."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, FinalLabel, Item, VerifiedSet
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.verified import verified_set_preview
from commonsense.validation import NONE_CORRECT
from knowledge.models import Question
from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db

POOL = ["buy a new umbrella", "call a plumber"]


def _other(q: Question, k: int) -> int:
    """The k-th option that is not the gold."""
    return [i for i in range(len(q.options)) if i != q.answer_index][k]


def _plan(position: int, n: int, q: Question) -> dict[str, Any]:
    g = q.answer_index
    if position == 2:  # the second distractor ticked by two of three: 2-1, not settled at the maximum of 3
        return {"plausible": sorted({g, _other(q, 0)})} if n < 2 else {"plausible": [g]}
    if position in (3, 4):  # every annotator ticks the gold and two distractors: two negatives remain
        return {"plausible": sorted({g, _other(q, 0), _other(q, 1)})}
    return {"plausible": [g]}


@pytest.fixture
def trust_campaign(csqa_set, people) -> Campaign:  # type: ignore[no-untyped-def]
    c = campaign_create(
        name="trust",
        title="t",
        kind="mcqa",
        question_set=csqa_set,
        redundancy=3,
        max_answers=3,
        settlement_rule="all_verdicts",  # the rule whose trust these tests check (item 2 exhausted, not disputed)
        require_agreement=False,
    )
    Item.objects.filter(campaign=c, position__gte=5).delete()
    item3 = Item.objects.get(campaign=c, position=3)
    Question.objects.filter(pk=item3.question_id).update(metadata={"distractor_pool": POOL})  # item 4 has none
    campaign_status_set(c, "open")
    for n, u in enumerate(people("annotator", "t0", "t1", "t2")):
        while (step := queue.next_step(c, u)).assignment is not None:
            item = step.assignment.item
            queue.response_submit(item, u, _plan(item.position, n, item.question))
    return c


def test_only_settled_items_by_default_and_the_override_is_stored_and_shown(trust_campaign: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    c = trust_campaign
    fl = FinalLabel.objects.get(item__campaign=c, item__position=2)
    assert fl.settlement == "exhausted"
    assert not fl.settled
    assert fl.confidence < 0.95
    assert verified_set_preview(c)["unsettled"] == 1
    out = StringIO()
    call_command("verified_set", "trust", name="trust-v", top_up=True, stdout=out)
    assert "1 are not settled" in out.getvalue()
    v = VerifiedSet.objects.get(question_set__name="trust-v")
    assert not v.include_unsettled
    assert v.counts["kept"] == 3
    assert v.counts["unsettled"] == 1
    assert v.counts["too_few_negatives"] == 1
    kept = {q.metadata["verified"]["item_id"] for q in v.question_set.questions.all()}
    assert Item.objects.get(campaign=c, position=2).pk not in kept
    for q in v.question_set.questions.all():
        meta = q.metadata["verified"]
        assert meta["settled"]
        assert meta["settlement"] == "unanimous"
        assert meta["confidence"] >= 0.95
        assert len(meta["posteriors"]) == 6
        assert meta["votes"]["n"] == 3
        assert meta["n_answers"] == 3
        assert meta["provenance"] == "unanimous"
        assert meta["label_rule"] == "majority"
        assert meta["campaign"] == "trust"

    call_command("verified_set", "trust", name="trust-all", include_unsettled=True, top_up=True, stdout=StringIO())
    v2 = VerifiedSet.objects.get(question_set__name="trust-all")
    assert v2.include_unsettled
    assert v2.counts["kept"] == 4
    assert "unsettled" not in v2.counts
    assert v2.question_set.params["verified_from"]["include_unsettled"] is True
    people("researcher", "res")
    client = login("res")
    page = client.get(reverse("knowledge:question_set", args=["trust-all"])).content.decode()
    assert "UNSETTLED ITEMS INCLUDED" in page
    assert "shortcut audit" in page
    assert "None of the answers are correct." in page
    assert "answers spent per kept item: 3.00" in page
    # the set's report recomputed (set_quality) keeps the validation figures
    from knowledge.services.set_quality import question_set_quality

    assert question_set_quality(v2.question_set)["verified"]["include_unsettled"] is True
    assert "shortcut_audit" in v2.question_set.quality["verified"]
    default_page = client.get(reverse("knowledge:question_set", args=["trust-v"])).content.decode()
    assert "only settled items (the default)" in default_page
    assert "UNSETTLED" not in default_page
    # the dashboard's button takes the same choice
    r = client.post(reverse("annotation:verified_set", args=["trust"]), {"name": "btn", "include_unsettled": "on"})
    assert r.status_code == 302
    btn = VerifiedSet.objects.get(question_set__name="btn")
    assert btn.include_unsettled
    assert btn.question_set.params["verified_from"]["top_up"] is False  # the button's default: no top-up
    assert btn.counts["too_few_negatives"] == 2  # item 3's pool is not used


def test_top_up_keeps_five_options_from_the_items_own_pool(trust_campaign: Campaign) -> None:
    call_command("verified_set", "trust", "--top-up", name="trust-v", stdout=StringIO())
    item3 = Item.objects.get(campaign=trust_campaign, position=3)
    (q,) = [
        q
        for q in Question.objects.filter(question_set__name="trust-v")
        if q.metadata["verified"]["item_id"] == item3.pk
    ]
    meta = q.metadata["verified"]
    assert len(q.options) == 5
    assert q.options[4] == NONE_CORRECT
    (topped,) = meta["topped_up"]
    assert q.options[topped] in POOL
    assert q.options[topped] not in item3.payload["options"]
    negatives = [o for i, o in enumerate(q.options[:4]) if i != q.answer_index]
    plausible = {item3.payload["options"][i] for i in meta["label"]["plausible"]}
    assert len(plausible) == 3
    assert len(negatives) == 3
    assert q.options[q.answer_index] in plausible
    assert not plausible & set(negatives)
    # the item without a pool is left out rather than stored with four options
    assert all(len(x.options) == 5 for x in Question.objects.filter(question_set__name="trust-v"))
