"""The item box built in Python (annotation/views/item_box.py, what every htmx answer returns) is the
template annotation/_item.html character for character: both are rendered over every kind of
campaign and every state - answers shown again, an error, progress shown or not, qualification and
attention items, the wait and done messages, text that needs escaping - and compared."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from annotation.models import Campaign, Item, Membership
from annotation.queue import operations as queue
from annotation.selectors.work import Progress
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.views import annotator as views
from annotation.views import item_box
from commonsense.validation import JUDGEMENTS
from knowledge.models import Question, QuestionSet
from tests.conftest import GOLD_FILE

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[A-Za-z0-9]+"')
HOSTILE = "<b>Tom</b> & \"Ann\" isn't 'here' {{ x }} %s"


def _request(htmx: bool = True) -> Any:
    request = RequestFactory().post("/", HTTP_HX_REQUEST="true" if htmx else "")
    request.user = AnonymousUser()
    return request


def _both(ctx: dict[str, Any], *, crowd: bool = False) -> tuple[str, str]:
    request = _request()
    name = "annotation/crowd/_item.html" if crowd else "annotation/_item.html"
    template = render_to_string(name, ctx, request=request)
    python = item_box.render(request, ctx, crowd=crowd)
    # the CSRF token is masked anew at every read: compare everything else
    return TOKEN.sub("csrf", template), TOKEN.sub("csrf", python)


def _ctx(campaign: Campaign, step: queue.Step, user: Any, **kw: Any) -> dict[str, Any]:
    request = _request()
    request.user = user
    return views._item_context(request, campaign, step, **kw)


def _campaigns(statement_set: Any, csqa_set: Any) -> list[Campaign]:
    survey = campaign_create(name="sv", title="sv", kind="survey", statement_set=statement_set, ask_common_sense=True)
    survey2 = campaign_create(name="sv2", title="sv2", kind="survey", statement_set=statement_set)
    mcqa = campaign_create(
        name="mc",
        title="mc",
        kind="mcqa",
        question_set=csqa_set,
        qualification_file=GOLD_FILE,
        qualification_positions=[0, 3],  # gold: option 3, none
        attention_positions=[1],
    )
    qs = QuestionSet.objects.create(name="rica-mini", kind=QuestionSet.Kind.RICA_PROBES)
    Question.objects.create(
        question_set=qs,
        position=0,
        stem="A is heavier than B, so A is [MASK] likely to sink.",
        options=["more", "less"],
        answer_index=0,
    )
    rica = campaign_create(name="rc", title="rc", kind="rica", question_set=qs)
    return [campaign_status_set(c, "open") for c in (survey, survey2, mcqa, rica)]


def _generation_step(user: Any) -> tuple[Campaign, queue.Step]:
    """A generation campaign's item as the queue hands it out. (Such a campaign is made from a
    model run, which test_generation_campaign.py builds with a real model; the box only reads the
    item's payload, so here the rows are written directly.)"""
    campaign = Campaign.objects.create(name="gen", title="gen", kind="generation", status="open")
    payload = {"context": HOSTILE, "stem": "Why?", "generation": HOSTILE}
    Item.objects.create(campaign=campaign, role="regular", position=0, payload=payload)
    return campaign, queue.next_step(campaign, user)


def test_the_python_item_box_is_the_template(statement_set, csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    (u,) = people("annotator", "ann")
    compared = 0
    for campaign in _campaigns(statement_set, csqa_set):
        step = queue.next_step(campaign, u)
        assert step.state == "item"
        item = step.assignment.item  # type: ignore[union-attr]
        previous_answers: list[dict[str, Any] | None] = [None]
        if campaign.kind == "survey":
            previous_answers += [{"agree": 1, "predict": 0, "common": 1}, {"agree": True, "predict": False}]
        elif campaign.kind == "mcqa":
            previous_answers += [
                {"plausible": [0, 2], "none_correct": False, "bad_context": True},
                {"plausible": [], "none_correct": True, "bad_context": False},
            ]
        else:
            previous_answers += [{"valid": 1}, {"valid": 0}]
        for role in ("qualification", "attention", "regular"):
            item.role = role
            for previous in previous_answers:
                for error in ("", HOSTILE):
                    ctx = _ctx(campaign, step, u, error=error, previous=previous)
                    template, python = _both(ctx)
                    assert python == template, (campaign.kind, role, previous, error)
                    compared += 1
        # text that needs escaping, and a box without progress (the crowd's qualification)
        item.payload = {
            **item.payload,
            **{k: HOSTILE for k in ("text", "context", "stem")},
            **({"options": [HOSTILE, "b"]} if campaign.kind == "mcqa" else {}),
            **({"statements": [HOSTILE, HOSTILE + "!"]} if campaign.kind == "rica" else {}),
        }
        ctx = _ctx(campaign, step, u)
        ctx["progress"] = Progress("Qualification", None, None)
        ctx["item_ref"] = "a ref&one"  # not a URL's plain characters: quoted as reverse() quotes it
        template, python = _both(ctx)
        assert python == template
        assert "&lt;b&gt;Tom" in python
        assert "/items/a%20ref&amp;one/submit/" in python
        compared += 1
    gen, step = _generation_step(u)
    for judged in (None, *JUDGEMENTS):
        ctx = _ctx(gen, step, u, previous={"judgement": judged} if judged else None)
        template, python = _both(ctx)
        assert python == template, judged
        compared += 1
    assert compared == 3 * 3 * 2 * 4 + 4 + 4


@pytest.mark.parametrize("state", ["wait", "done", "failed", "blocked"])
def test_the_python_item_box_is_the_template_without_an_item(state: str, mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    (u,) = people("annotator", "ann")
    step = queue.Step(state, message=HOSTILE)
    template, python = _both(_ctx(mcqa_campaign, step, u, error="an error"))
    assert python == template


@pytest.mark.parametrize("state", ["item", "wait", "done"])
def test_the_crowd_box_is_its_template(state: str, statement_set, csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """The crowd's box (annotation/crowd/_item.html): the qualification result once, no campaign list."""
    (u,) = people("annotator", "ann")
    compared = 0
    for campaign in _campaigns(statement_set, csqa_set)[:3]:
        step = queue.next_step(campaign, u)
        if state != "item":
            step = queue.Step(state, message=HOSTILE)
        for score, member_state, answered in [
            (None, "active", 0),
            (0.875, "active", 0),
            (0.125, "active", 0),
            (1.0, "active", 3),
            (0.9, "qualifying", 0),
        ]:
            m = Membership(campaign=campaign, user=u, state=member_state, regular_answered=answered)
            m.qualification_score = score
            ctx = _ctx(campaign, step, u, error="")
            ctx["membership"] = m
            ctx["previous"] = ""  # the crowd's box shows no answer again
            template, python = _both(ctx, crowd=True)
            assert python == template, (campaign.kind, state, score, member_state, answered)
            compared += 1
    assert compared == 15


def test_htmx_answers_are_the_python_box_and_pages_the_template(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    """The htmx submit's and item box's answers come from item_box.render (the template engine is
    not used for them); the full work page still includes the template."""
    from django.test.signals import template_rendered

    from tests.annotation.conftest import login

    people("annotator", "ann")
    c = login("ann")
    rendered: list[str] = []

    def seen(sender: Any, template: Any, **kw: Any) -> None:
        rendered.append(template.name)

    template_rendered.connect(seen, dispatch_uid="test_item_box")
    try:
        box = c.get(reverse("annotation:item", args=[mcqa_campaign.name]), HTTP_HX_REQUEST="true").content.decode()
        uid = re.search(r'data-item="([^"]+)"', box).group(1)  # type: ignore[union-attr]
        key = re.search(r'name="idempotency_key" value="(\w+)"', box).group(1)  # type: ignore[union-attr]
        r = c.post(
            reverse("annotation:submit", args=[mcqa_campaign.name, uid]),
            {"plausible": "1", "idempotency_key": key},
            HTTP_HX_REQUEST="true",
        )
        assert r.status_code == 200
        assert 'class="item-box" data-state="item"' in r.content.decode()
        assert rendered == []
        page = c.get(reverse("annotation:work", args=[mcqa_campaign.name])).content.decode()
        assert "annotation/_item.html" in rendered
        assert 'class="item-box"' in page
    finally:
        template_rendered.disconnect(dispatch_uid="test_item_box")


def _review_step(user: Any) -> tuple[Campaign, queue.Step]:
    """A review campaign's item (annotation/services/reviews.py) as the queue hands it out: the rows
    are written directly, as for generations (a review item is the published form of a settled item)."""
    parent = Campaign.objects.create(name="val", title="val", kind="mcqa", status="open", reviews=1)
    campaign = Campaign.objects.create(name="val-review", title="r", kind="review", status="open", review_of=parent)
    payload = {
        "context": HOSTILE,
        "stem": "Why?",
        "options": [HOSTILE, "b", "c", "d", "None of the answers are correct."],
    }
    Item.objects.create(campaign=campaign, role="regular", position=0, payload=payload, gold={"answer": 1})
    return campaign, queue.next_step(campaign, user)


def test_the_review_box_is_the_template_and_takes_a_web_answer(people) -> None:  # type: ignore[no-untyped-def]
    from annotation.submissions import answer_draft, answer_from_post

    (u,) = people("annotator", "ann")
    campaign, step = _review_step(u)
    assert step.state == "item"
    previous: list[dict[str, Any] | None] = [
        None,
        {"verdict": "one", "pick": 2},
        {"verdict": "several"},
        {"verdict": "unclear"},
    ]
    for prev in previous:
        for error in ("", HOSTILE):
            template, python = _both(_ctx(campaign, step, u, error=error, previous=prev))
            assert python == template, (prev, error)
    assert (
        'name="review" value="2" data-key="3" required checked'
        in _both(_ctx(campaign, step, u, previous=previous[1]))[1]
    )
    assert "&lt;b&gt;Tom" in python
    assert 'value="several" data-key="m"' in python
    item = step.assignment.item  # type: ignore[union-attr]
    assert answer_from_post(campaign, item, {"review": "3"}) == {"verdict": "one", "pick": 3}
    assert answer_from_post(campaign, item, {"review": "none"}) == {"verdict": "none"}
    assert answer_draft(campaign, item, {"review": "bogus"}) == {}
    with pytest.raises(Exception, match="the one answer you would defend"):
        answer_from_post(campaign, item, {})
