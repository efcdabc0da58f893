"""Model votes beside humans (issue 26 item 5): a model answers each validation item as an annotator
would; its vote never counts toward answers, redundancy or labels, is never shown to annotators,
the dashboard compares it with the human majority (κ per option), and a campaign can serve first
the items where the model and the build disagree."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import api_token_renew
from annotation.models import Campaign, FinalLabel, Item, ModelVote, Response
from annotation.queue import operations as queue
from annotation.selectors.verification import model_agreement
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.model_votes import model_votes_record
from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db
MODEL = "planted:judge"


class Judge:
    """P(yes) 0.9 for the build's answer and 0.1 for the rest, except on the items listed in
    ``wrong`` where it finds the first non-gold option plausible instead."""

    model_key = MODEL

    def __init__(self, campaign: Campaign, wrong: set[int]) -> None:
        self.expect: dict[str, float] = {}
        for item in Item.objects.filter(campaign=campaign).select_related("question"):
            gold = item.question.answer_index
            pick = next(j for j in range(item.n_options) if j != gold) if item.position in wrong else gold
            for j, o in enumerate(item.payload["options"]):
                text = " ".join(x for x in (item.payload["context"], item.payload["stem"], o) if x)
                self.expect[text.strip()] = 0.9 if j == pick else 0.1
        self.calls = 0

    def p_yes(self, statements: Sequence[str]) -> list[float]:
        self.calls += 1
        return [self.expect[s] for s in statements]


def _campaign(csqa_set, **kw) -> Campaign:  # type: ignore[no-untyped-def]
    c = campaign_create(name="mv", title="t", kind="mcqa", question_set=csqa_set, **kw)
    Item.objects.filter(campaign=c, position__gte=6).delete()
    return campaign_status_set(c, "open")


def test_model_votes_never_count_and_are_never_shown(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    c = _campaign(csqa_set)
    judge = Judge(c, wrong={4, 5})
    assert model_votes_record(c, judge) == 6
    assert model_votes_record(c, judge) == 0  # idempotent: one vote per item and model
    assert ModelVote.objects.filter(campaign=c, disagrees=True).count() == 2
    assert not Response.objects.exists()
    assert not FinalLabel.objects.exists()
    assert set(Item.objects.filter(campaign=c).values_list("answer_count", "slots_taken", "answers_wanted")) == {
        (0, 0, 3)
    }
    # annotators: every item still wants three human answers, and nothing of the vote reaches them
    (u,) = people("annotator", "ann")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token " + api_token_renew(u))
    nxt = api.post(f"/api/annotation/campaigns/{c.name}/next/").content.decode()
    page = login("ann").get(reverse("annotation:item", args=[c.name])).content.decode()
    for shown in (nxt, page):
        assert MODEL not in shown
        assert "model" not in shown.lower().replace("modal", "")
        assert "0.9" not in shown
    # humans answer with the build's gold: the model agrees on four items, not on two
    users = [u, *people("annotator", "h1", "h2")]  # ann answers the item on their screen
    for user in users:
        while (step := queue.next_step(c, user)).assignment is not None:
            item = step.assignment.item
            queue.response_submit(item, user, {"plausible": [item.question.answer_index]})
    assert Response.objects.filter(campaign=c).count() == 18  # the model's votes added none
    assert all(fl.n_answers == 3 and fl.votes["n"] == 3 for fl in FinalLabel.objects.filter(item__campaign=c))
    (m,) = model_agreement(c)
    assert m.model == MODEL
    assert m.items == 6
    assert m.disagrees_with_build == 2
    assert m.agreement == pytest.approx((30 - 4) / 30)  # two items, two option verdicts each, differ
    assert m.overall is not None
    assert 0 < m.overall < 1
    people("researcher", "res")
    dash = login("res").get(reverse("annotation:dashboard", args=[c.name])).content.decode()
    assert 'id="model-agreement"' in dash
    assert MODEL in dash
    assert "κ A" in dash


def test_queue_serves_disagreements_first_when_asked(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    c = _campaign(csqa_set, serve_disagreements_first=True)
    model_votes_record(c, Judge(c, wrong={4}))
    assert list(Item.objects.filter(campaign=c, priority=1).values_list("position", flat=True)) == [4]
    (u,) = people("annotator", "first")
    assert queue.next_step(c, u).assignment.item.position == 4
    other = _campaign_plain(csqa_set)
    model_votes_record(other, Judge(other, wrong={4}))
    (v,) = people("annotator", "second")
    assert queue.next_step(other, v).assignment.item.position == 0  # the campaign's own order


def _campaign_plain(csqa_set) -> Campaign:  # type: ignore[no-untyped-def]
    c = campaign_create(name="mv-plain", title="t", kind="mcqa", question_set=csqa_set)
    Item.objects.filter(campaign=c, position__gte=6).delete()
    return campaign_status_set(c, "open")


@pytest.mark.slow
def test_model_votes_command_with_a_real_model(csqa_set, tiny_gpt2: Path) -> None:  # type: ignore[no-untyped-def]
    """The command through the plausibility judge on a tiny GPT-2 built from a config (the same
    code path as SmolLM2 or a served model)."""
    c = _campaign(csqa_set)
    call_command("model_votes", c.name, backend="hf", model=str(tiny_gpt2), text=True, verbosity=0)
    votes = list(ModelVote.objects.filter(campaign=c))
    assert len(votes) == 6
    assert all(len(v.scores) == 5 and 0 <= min(v.scores) <= max(v.scores) <= 1 for v in votes)
    assert all(v.answer["plausible"] == [j for j, s in enumerate(v.scores) if s >= 0.5] for v in votes)
    assert not Response.objects.exists()
