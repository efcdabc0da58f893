"""The review stage (issue 26, session 20; annotation/services/reviews.py): a settled MCQA item is served,
as it will be published, to K further people in the reader's framing, and the verified set keeps it only
when every review names its gold. Planted: items every annotator answered alike, ticking only the built
answer (they settle unanimous and the first stage keeps them all), which one reviewer finds to have
several defensible answers or another answer - they must be left out (``review_rejected``)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign, Item, Response, VerifiedSet
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.verified import verified_set_preview
from commonsense.review import review_label, review_normalise
from commonsense.validation import NONE_CORRECT, answer_normalise
from knowledge.services.set_quality import quality_lines
from tests.annotation.validation_helpers import answer_all, demo_2i_set
from tests.conftest import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def validated(tmp_path: Path, people) -> Campaign:  # type: ignore[no-untyped-def]
    qset = demo_2i_set(tmp_path, 4)
    c = campaign_create(name="val", title="t", kind="mcqa", question_set=qset, reviews=2)  # the defaults otherwise
    campaign_status_set(c, "open")
    # three annotators answer every item alike, the built answer alone: all settle unanimous
    answer_all(c, people("annotator", "a1", "a2", "a3"), lambda item, n: {"plausible": [item.question.answer_index]})
    return c


def _gold(item: Item) -> int:
    return int(item.gold["answer"])


def test_a_settled_item_is_served_as_published_to_fresh_reviewers(validated: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    review = Campaign.objects.get(review_of=validated)
    assert (review.name, review.kind, review.status, review.redundancy) == ("val-review", "review", "open", 2)
    (first,) = people("annotator", "r1")
    step = queue.next_step(review, first)  # the first request copies the settled items in
    assert step.assignment is not None
    items = list(Item.objects.filter(campaign=review))
    assert len(items) == 4
    for it in items:
        src = Item.objects.get(campaign=validated, position=it.position)
        opts = it.payload["options"]
        assert len(opts) == 5
        assert opts[4] == NONE_CORRECT
        assert opts[_gold(it)] == src.question.options[src.question.answer_index]  # gold = the built answer
        assert set(opts[:4]) <= set(src.payload["options"])
    # an annotator of the validation campaign never reviews it
    a1 = validated.responses.first().user
    refused = queue.next_step(review, a1)
    assert refused.assignment is None
    assert "did not" in refused.message


def test_the_api_shows_a_reviewer_no_gold_and_refuses_an_ill_formed_review(validated: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "r1")
    client = login("r1")
    step = client.post("/api/annotation/campaigns/val-review/next/").json()
    assert step["state"] == "item"
    assert set(step["item"]) == {"id", "role", "payload"}
    assert set(step["item"]["payload"]) == {
        "context",
        "stem",
        "options",
    }
    url = f"/api/annotation/campaigns/val-review/items/{step['item']['id']}/response/"
    bad = client.post(url, {"answer": {"verdict": "several", "pick": 1}}, content_type="application/json")
    assert bad.status_code == 400
    assert "pick goes with the verdict 'one' only" in str(bad.json())
    ok = client.post(url, {"answer": {"verdict": "one", "pick": 0}}, content_type="application/json")
    assert ok.status_code == 201


def test_items_every_annotator_accepted_but_a_reviewer_rejects_are_left_out(validated: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    review = Campaign.objects.get(review_of=validated)
    r1, r2 = people("annotator", "r1", "r2")
    answer_all(review, [r1], lambda item, n: {"verdict": "one", "pick": _gold(item)})
    # one reviewer so far: nothing is published yet
    assert verified_set_preview(validated)["review_pending"] == 4
    plan = {
        0: lambda it: {"verdict": "one", "pick": _gold(it)},
        1: lambda it: {"verdict": "one", "pick": _gold(it)},
        2: lambda it: {"verdict": "several"},  # "distractor also right": the reader's most common cause
        3: lambda it: {"verdict": "one", "pick": (_gold(it) + 1) % 4},  # another option
    }
    answer_all(review, [r2], lambda item, n: plan[item.position](item))
    parents = Item.objects.filter(campaign=validated)
    assert {i.answer_count for i in parents} == {3}  # reviews never count toward the first stage
    campaign_status_set(validated, "closed")
    out = StringIO()
    call_command("verified_set", "val", name="val-v", stdout=out)
    assert "2 rejected by a blind review" in out.getvalue()
    v = VerifiedSet.objects.get(question_set__name="val-v")
    assert (v.counts["kept"], v.counts["review_rejected"]) == (2, 2)
    for q in v.question_set.questions.all():
        meta = q.metadata["verified"]
        reviewed = Item.objects.get(pk=meta["reviews"]["review_item_id"])
        assert q.options == reviewed.payload["options"]  # exactly the item the reviewers read
        assert q.answer_index == _gold(reviewed)
        assert meta["reviews"]["n"] == 2
    assert v.question_set.params["verified_from"]["reviews"] == 2
    lines = quality_lines(v.question_set.quality)
    assert any("review rejected 2" in line for line in lines)  # the set page's left-out line
    assert any("blind review" in line and "2.00 reviews per kept item" in line for line in lines)


def test_the_dashboard_shows_the_review_stage(validated: Campaign, people, researcher) -> None:  # type: ignore[no-untyped-def]
    review = Campaign.objects.get(review_of=validated)
    (r1,) = people("annotator", "r1")
    answer_all(
        review,
        [r1],
        lambda item, n: {"verdict": "none"} if item.position == 0 else {"verdict": "one", "pick": _gold(item)},
    )
    page = researcher.get(reverse("annotation:dashboard", kwargs={"slug": "val"}))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Blind review" in text
    assert "1 rejected" in text
    assert "3 waiting" in text
    assert Response.objects.filter(campaign=review).count() == 4
    assert researcher.get(reverse("annotation:dashboard", kwargs={"slug": "val-review"})).status_code == 200


def test_review_answers_and_labels() -> None:
    assert review_normalise({"verdict": "one", "pick": 2}, 5) == {"verdict": "one", "pick": 2}
    assert answer_normalise("review", {"verdict": "unclear"}, n_options=5) == {"verdict": "unclear"}
    for bad in (
        {"verdict": "one"},
        {"verdict": "one", "pick": 5},
        {"verdict": "one", "pick": True},
        {"verdict": "maybe"},
    ):
        with pytest.raises(ValueError):
            review_normalise(bad, 5)
    label, votes, agreement, unanimous, n, decided = review_label(
        [{"verdict": "one", "pick": 1}, {"verdict": "one", "pick": 1}, {"verdict": "several"}], 5
    )
    assert label == {"pick": None}
    assert votes["picks"] == [0, 2, 0, 0, 0]
    assert votes["several"] == 1
    assert agreement == pytest.approx(1 / 3)
    assert not unanimous
    assert n == 3
    assert review_label([{"verdict": "one", "pick": 3}] * 2, 5)[0] == {"pick": 3}


def test_a_reviewer_waits_while_the_campaign_under_review_is_still_annotated(tmp_path: Path, people) -> None:  # type: ignore[no-untyped-def]
    qset = demo_2i_set(tmp_path, 2)
    c = campaign_create(name="val", title="t", kind="mcqa", question_set=qset, reviews=1)
    campaign_status_set(c, "open")
    review = Campaign.objects.get(review_of=c)
    (r1,) = people("annotator", "r1")
    assert queue.next_step(review, r1).state == "wait"  # nothing settled yet, more will come
    answer_all(c, people("annotator", "a1", "a2", "a3"), lambda item, n: {"plausible": [item.question.answer_index]})
    step = queue.next_step(review, r1)
    assert step.state == "item"
    queue.response_submit(step.assignment.item, r1, {"verdict": "unclear"}, idempotency_key="r1-0")
    step = queue.next_step(review, r1)
    queue.response_submit(step.assignment.item, r1, {"verdict": "none"}, idempotency_key="r1-1")
    assert queue.next_step(review, r1).state == "done"  # everything settled and reviewed


def test_a_review_campaign_is_made_only_by_its_validation_campaign(validated: Campaign) -> None:
    with pytest.raises(ValidationError, match="comes with its MCQA validation campaign"):
        campaign_create(name="r", title="t", kind="review", question_set=validated.question_set)
    with pytest.raises(ValidationError, match="exists already"):
        from annotation.services.reviews import review_stage_create

        review_stage_create(validated)
