"""The settlement rule ``needs`` through the production path (issue 26 follow-up): a campaign made
by ``campaign_create --settlement-rule needs`` stops serving an item once its answers settle what the
verified item needs (context, gold, three negatives), though they split on the option the verified
item drops; the same answers under the default rule (every verdict) want a fourth answer. The
verified set keeps exactly the gold and the negatives the settlement rested on."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from annotation.models import Campaign, FinalLabel, Item, VerifiedSet
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_status_set
from commonsense.validation import NONE_CORRECT
from commonsense.verified_needs import NEEDS_RULE
from knowledge.models import Question

pytestmark = pytest.mark.django_db


def _dropped(q: Question) -> int:
    return next(i for i in range(len(q.options)) if i != q.answer_index)


def _plan(n: int, q: Question) -> dict[str, Any]:
    """On the first item two of three annotators also tick another option (2-1 plausible: the label
    has two plausible options, the verified item keeps the unanimous one as its gold and drops the
    other); every other item: all tick the gold."""
    if q.position == 0 and n < 2:
        return {"plausible": sorted({q.answer_index, _dropped(q)})}
    return {"plausible": [q.answer_index]}


def _campaign(csqa_set, name: str, *rule: str) -> Campaign:  # type: ignore[no-untyped-def]
    out = StringIO()
    # no review stage: these tests are of the first stage's settlement (test_review_stage.py has the second's)
    args = ["--set", csqa_set.name, "--type", "mcqa", "--name", name, "--reviews", "0", *rule]
    call_command("campaign_create", *args, stdout=out)
    c = Campaign.objects.get(name=name)
    assert Campaign.objects.filter(review_of=c).count() == 0
    Item.objects.filter(campaign=c, position__gte=3).delete()
    return campaign_status_set(c, "open")


def _answer_all(c: Campaign, users) -> list[int]:  # type: ignore[no-untyped-def]
    """Each user answers every item the queue serves them; the positions served to each."""
    served = []
    for n, u in enumerate(users):
        while (step := queue.next_step(c, u)).assignment is not None:
            item = step.assignment.item
            served.append(item.position)
            queue.response_submit(item, u, _plan(n, item.question))
    return served


def test_an_item_stops_being_served_once_its_answers_settle_what_the_verified_item_needs(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    users = people("annotator", *[f"n{i}" for i in range(5)])
    needs_c = _campaign(csqa_set, "needs-c", "--settlement-rule", "needs")
    assert needs_c.settlement_rule == "needs"
    assert (needs_c.redundancy, needs_c.answers_max) == (3, 5)
    assert _answer_all(needs_c, users).count(0) == 3  # the fourth and fifth annotators are not served it
    item0 = Item.objects.get(campaign=needs_c, position=0)
    fl = FinalLabel.objects.get(item=item0)
    q = item0.question
    assert sorted(fl.label["plausible"]) == sorted({q.answer_index, _dropped(q)})
    assert fl.settled
    assert fl.settlement == "unanimous"  # the verdicts it rests on are alike; the dropped option split
    assert fl.confidence >= 0.95
    assert item0.answers_wanted == 3 == item0.answer_count
    assert queue.next_step(needs_c, people("annotator", "late")[0]).state == "done"

    every_c = _campaign(csqa_set, "every-c", "--settlement-rule", "all_verdicts", "--no-agreement")
    assert every_c.settlement_rule == "all_verdicts"
    assert not every_c.require_agreement
    assert _answer_all(every_c, users).count(0) == 5  # the 2-1 split on the dropped option keeps it open
    fl_every = FinalLabel.objects.get(item__campaign=every_c, item__position=0)
    assert fl_every.n_answers == 5

    Campaign.objects.filter(pk=needs_c.pk).update(status=Campaign.Status.CLOSED)
    call_command("verified_set", "needs-c", name="needs-v", stdout=StringIO())
    v = VerifiedSet.objects.get(question_set__name="needs-v")
    assert v.counts["kept"] == 3
    assert v.question_set.params["verified_from"]["settlement_rule"] == "needs"
    vq = v.question_set.questions.get(metadata__verified__item_id=item0.pk)
    meta = vq.metadata["verified"]
    assert meta["settlement_rule"] == "needs"
    assert meta["needs"]["gold"] == q.answer_index
    assert vq.options[vq.answer_index] == q.options[q.answer_index]
    kept_negatives = {q.options[i] for i in meta["needs"]["negatives"]}
    assert len(kept_negatives) == 3
    assert set(vq.options) == {q.options[q.answer_index], *kept_negatives, NONE_CORRECT}
    assert q.options[_dropped(q)] not in vq.options


def test_the_dashboard_states_the_rule_and_the_form_offers_it(csqa_set, people, researcher) -> None:  # type: ignore[no-untyped-def]
    c = _campaign(csqa_set, "needs-d", "--settlement-rule", "needs")
    page = researcher.get(reverse("annotation:dashboard", kwargs={"slug": c.name})).content.decode()
    assert escape(NEEDS_RULE) in page
    assert "what the verified item needs" in page
    form = researcher.get(reverse("annotation:campaign_new")).content.decode()
    assert 'name="settlement_rule"' in form
    assert 'value="needs"' in form
    with pytest.raises(Exception, match="settlement-rule"):
        call_command(
            "campaign_create", "--set", csqa_set.name, "--type", "mcqa", "--name", "bad", "--settlement-rule", "most"
        )
