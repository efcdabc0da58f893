"""Annotator pages: the campaign list and the one-item-per-screen work page. The item box is an
htmx partial; every action is also a plain form post with a real URL (no JavaScript needed)."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.people import Visitor
from accounts.roles import ANNOTATOR, RESEARCHER, has_role, role_required
from annotation.models import Campaign, Item, Membership
from annotation.queue import operations as queue
from annotation.selectors.campaigns import campaign_for_work, campaign_items, campaign_rows_for, campaigns_closed
from annotation.selectors.work import item_counts, submit_target, work_progress
from annotation.services.qualification import qualification_terms
from annotation.services.rica import rica_choice
from annotation.submissions import answer_draft, web_submission
from annotation.views.item_box import render as item_box_html
from annotation.views.presentation import option_rows, survey_questions
from cocoweb.http import Request
from commonsense.review import REVIEW_CHOICES
from commonsense.validation import JUDGEMENT_NAMES, JUDGEMENTS

# COM2 §6.3 / Table 4, as the annotator reads them beside the three keys
JUDGEMENT_HELP = {
    "plausible": "the answer fits the whole question: every event it names, every step of the chain",
    "one_hop": "the answer fits only part of it: one of the events of a 'both … and also …' question, "
    "or only the first step of a chained question",
    "false": "the answer does not fit, is empty, or only repeats the question's events",
}


@role_required(ANNOTATOR)
def index(request: Request) -> HttpResponse:
    rows = campaign_rows_for(request.user)
    return render(request, "annotation/index.html", {"rows": rows, "can_manage": has_role(request.user, RESEARCHER)})


def _campaign(slug: str, user: Visitor) -> Campaign:
    # The work pages never show the campaign's source set: no joins.
    campaign = campaign_for_work(slug, user)
    if campaign is None:
        raise Http404("no such campaign")
    return campaign


# The URL names the item box (annotation/_item.html) posts to and polls.
ITEM_VIEWS = {
    "submit": "annotation:submit",
    "skip": "annotation:skip",
    "poll": "annotation:item",
    "work": "annotation:work",
}

CLOSED_MESSAGE = "This campaign is closed: it takes no more answers. Thank you for your part in it."


def _closed(request: Request, slug: str) -> HttpResponse:
    """An annotator opening a campaign that was closed learns so (410), instead of a 404 that
    reads like a broken link; drafts and unknown names stay 404."""
    campaign = get_object_or_404(campaigns_closed(), name=slug)
    template = "annotation/_closed.html" if request.htmx else "annotation/closed.html"
    return render(request, template, {"campaign": campaign, "message": CLOSED_MESSAGE}, status=410)


def _item_context(
    request: Request,
    campaign: Campaign,
    step: queue.Step,
    *,
    error: str = "",
    previous: dict[str, Any] | None = None,
) -> dict[str, Any]:
    m = step.membership or queue.membership_get(campaign, request.user)
    ctx: dict[str, Any] = {
        "campaign": campaign,
        "step": step,
        "membership": m,
        "progress": work_progress(campaign, m),
        "error": error,
        "previous": previous or {},
        "idempotency_key": uuid.uuid4().hex,
        "item_views": ITEM_VIEWS,
    }
    if step.assignment is not None:
        item = step.assignment.item
        ctx["item"] = item
        ctx["item_ref"] = item.uid
        if campaign.kind == Campaign.Kind.MCQA:
            picked = set((previous or {}).get("plausible", []))
            ctx["options"] = option_rows(item.payload.get("options", []), picked)
        if campaign.kind == Campaign.Kind.REVIEW:
            prev = previous or {}
            pick = {prev["pick"]} if prev.get("verdict") == "one" and isinstance(prev.get("pick"), int) else set()
            ctx["options"] = option_rows(item.payload.get("options", []), pick)
            ctx["review_verdicts"] = [
                {"value": v, "key": key, "text": text, "checked": prev.get("verdict") == v}
                for v, key, text in REVIEW_CHOICES
            ]
        if campaign.kind == Campaign.Kind.RICA and previous:
            ctx["previous_choice"] = rica_choice(item, previous)
        if campaign.kind == Campaign.Kind.GENERATION:
            judged = (previous or {}).get("judgement")
            ctx["judgements"] = [
                {
                    "value": j,
                    "key": i + 1,
                    "name": JUDGEMENT_NAMES[j],
                    "help": JUDGEMENT_HELP[j],
                    "checked": j == judged,
                }
                for i, j in enumerate(JUDGEMENTS)
            ]
        ctx["survey_questions"] = survey_questions(campaign.ask_common_sense, previous)
    return ctx


def _item_response(
    request: Request,
    campaign: Campaign,
    step: queue.Step,
    *,
    status: int = 200,
    error: str = "",
    previous: dict[str, Any] | None = None,
) -> HttpResponse:
    ctx = _item_context(request, campaign, step, error=error, previous=previous)
    if request.htmx:  # the template's markup, built without the template engine (annotation/views/item_box.py)
        return HttpResponse(item_box_html(request, ctx), status=status)
    m = step.membership
    qualifying = m is not None and m.state == Membership.State.QUALIFYING
    ctx["qualifying"] = qualifying  # no Undo offered inside the test (nor accepted: queue.response_undo)
    # nor before a first answer of the person's own (what queue.response_undo could withdraw)
    ctx["answered"] = m is not None and (m.regular_answered + m.attention_passed + m.attention_failed) > 0
    if qualifying:
        ctx["terms"] = qualification_terms(campaign, item_counts(campaign).get(Item.Role.QUALIFICATION, 0))
    return render(request, "annotation/work.html", ctx, status=status)


@role_required(ANNOTATOR)
def work(request: Request, slug: str) -> HttpResponse:
    campaign = campaign_for_work(slug, request.user)
    if campaign is None:
        return _closed(request, slug)
    step = queue.next_step(campaign, request.user)
    restored = request.session.pop("annotation_undo", None)  # a plain (no-htmx) undo: show the answer again
    previous = None
    if restored and step.assignment is not None and restored.get("item") == step.assignment.item_id:
        previous = restored.get("answer")
    return _item_response(request, campaign, step, previous=previous)


@role_required(ANNOTATOR)
def item_box(request: Request, slug: str) -> HttpResponse:
    """The item box alone (htmx); a plain request gets the whole page."""
    if not request.htmx:
        return redirect("annotation:work", slug=slug)
    campaign = campaign_for_work(slug, request.user)
    if campaign is None:  # closed while the box was waiting: say so in the box (htmx swaps 4xx only if told)
        return _closed(request, slug)
    return _item_response(request, campaign, queue.next_step(campaign, request.user))


@require_POST
@role_required(ANNOTATOR)
def submit(request: Request, slug: str, uid: str) -> HttpResponse:
    # The campaign (as visible to this person), their assignment and its item in one query; without
    # an assignment the campaign and the item alone (404 when either is not theirs to see).
    a = submit_target(slug, request.user, uid)
    if a is not None:
        campaign, item = a.campaign, a.item
    else:
        found = campaign_for_work(slug, request.user)
        if found is None:
            return _closed(request, slug)
        campaign = found
        item = get_object_or_404(campaign_items(campaign), uid=uid)
    item.campaign = campaign  # already loaded: no second query
    done, step = None, None
    try:
        answer, sent = web_submission(campaign, item, request.POST)
        if request.htmx:  # the response shows the next item: answer and next reservation together
            done, step = queue.response_submit_next(item, request.user, answer, assignment=a, **sent)
        else:
            done = queue.response_submit(item, request.user, answer, assignment=a, **sent)
    except ValidationError as exc:
        message = " ".join(exc.messages)
        step = queue.next_step(campaign, request.user)
        if step.assignment is not None and step.assignment.item_id == item.pk:
            # htmx swaps this 422 (annotate.js): the reason shows in the box, next to the answer as ticked.
            draft = answer_draft(campaign, item, request.POST)
            return _item_response(
                request, campaign, step, status=422 if request.htmx else 200, error=message, previous=draft
            )
        messages.warning(request, message)
    if not request.htmx:
        return redirect("annotation:work", slug=slug)
    return _item_response(request, campaign, step or queue.next_step(campaign, request.user, after=done))


def _back_to_work(request: Request, slug: str, error: str) -> HttpResponse:
    """A plain (no-htmx) post's answer: the work page again, with the refusal as a message."""
    if error:
        messages.warning(request, error)
    return redirect("annotation:work", slug=slug)


@require_POST
@role_required(ANNOTATOR)
def skip(request: Request, slug: str, uid: str) -> HttpResponse:
    campaign = _campaign(slug, request.user)
    item = get_object_or_404(campaign_items(campaign), uid=uid)
    error = ""
    try:
        queue.assignment_skip(campaign, request.user, item)
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if not request.htmx:
        return _back_to_work(request, slug, error)
    return _item_response(request, campaign, queue.next_step(campaign, request.user), error=error)


@require_POST
@role_required(ANNOTATOR)
def undo(request: Request, slug: str) -> HttpResponse:
    campaign = _campaign(slug, request.user)
    error, previous = "", None
    try:
        back = queue.response_undo(campaign, request.user)
        if back is None:
            if request.htmx:  # 204: htmx swaps nothing, so what is filled in on screen stays
                return HttpResponse(status=204)
            error = "There is no answer to undo."
        else:
            previous = getattr(back, "previous_answer", None)
            request.session["annotation_undo"] = {"item": back.item_id, "answer": previous}
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if not request.htmx:
        return _back_to_work(request, slug, error)
    request.session.pop("annotation_undo", None)
    return _item_response(request, campaign, queue.next_step(campaign, request.user), error=error, previous=previous)
