"""The crowd participant's pages under ``/join/<campaign>/``: the study link, consent,
instructions with worked examples, the researcher's demographics questions, the items (the
qualification first, with its score and the attempts allowed), and the completion page with the
participant's completion code. Items are addressed by their opaque ``uid``; attention items are
rendered exactly like regular ones (Skip included).

Only the participant the study link signed in, in the browser that holds them, gets these pages
for their own campaign; everyone else gets 403 (or the "open in another window" page)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth import SESSION_KEY, login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import user_role
from annotation.crowd import selectors as crowd_selectors
from annotation.crowd import services as svc
from annotation.crowd.join_limits import join_refused
from annotation.crowd.selectors import crowd_progress
from annotation.models import Assignment, Campaign, CrowdStudy, Item, Membership, Participant
from annotation.queue import operations as queue
from annotation.selectors.work import answers_total, item_counts, membership_of
from annotation.services.qualification import Terms, qualification_terms
from annotation.submissions import web_submission
from annotation.views.item_box import render as item_box_html
from annotation.views.presentation import option_rows, survey_questions
from cocoweb.http import Request

CLAIM = "crowd_claim"
STAGE_VIEW: dict[str, str] = {
    Participant.Stage.CONSENT: "crowd:consent",
    Participant.Stage.INSTRUCTIONS: "crowd:instructions",
    Participant.Stage.DEMOGRAPHICS: "crowd:demographics",
    Participant.Stage.ITEMS: "crowd:work",
    Participant.Stage.FINISHED: "crowd:done",
    Participant.Stage.RETURNED: "crowd:done",
    Participant.Stage.SCREENED_OUT: "crowd:done",
}
# The URL names the item box (annotation/_item.html, crowd/_item.html) posts to and polls.
ITEM_VIEWS = {"submit": "crowd:submit", "skip": "crowd:skip", "poll": "crowd:work", "work": "crowd:work"}
# One page for every refusal (in use elsewhere, ended, no or another session reference): it does
# not tell whether an id is active.
BUSY = (
    "This study cannot be opened in this browser for your participant id: it is open in another browser "
    "window or on another device, or it has ended for this id. Carry on where it is open; if that window "
    "is gone, open the study again from your platform's page {minutes} minutes after its last answer."
)


def _message(request: HttpRequest, title: str, text: str, status: int) -> HttpResponse:
    return render(request, "annotation/crowd/message.html", {"title": title, "text": text}, status=status)


# A bad study link (a mistyped campaign name, an item that is not theirs): this page whatever DEBUG
# says, never Django's technical 404 with the URL patterns (issue 29 item 15), and it does not tell a
# campaign without a study link from no campaign at all.
NOT_FOUND = (
    "Study not found",
    "This study link does not lead to a study. Please check it against the link on your platform's "
    "study page, or contact the researcher through the platform.",
)


def _not_found(request: HttpRequest) -> HttpResponse:
    return _message(request, *NOT_FOUND, 404)


def bad_link(request: HttpRequest, rest: str) -> HttpResponse:
    return _not_found(request)


def _busy(request: HttpRequest) -> HttpResponse:
    minutes = int(svc.SESSION_HOLD.total_seconds() // 60)
    return _message(request, "Already open elsewhere", BUSY.format(minutes=minutes), 409)


def _ended_here(request: HttpRequest, campaign: Campaign) -> bool:
    """Whether this browser holds a participant of ``campaign`` whose study has ended (finished,
    returned, screened out): their done page, with the completion code, outlives the campaign.
    Only the holding browser: an ended participant is never handed to another one."""
    signed_in = request.session.get(SESSION_KEY)
    if signed_in is None or not str(signed_in).isdigit():
        return False
    got = crowd_selectors.participant_of(int(signed_in))
    if got is None or got[1].pk != campaign.pk or not got[0].user.is_active:
        return False
    return request.session.get(CLAIM) == got[0].claim and got[0].stage in svc.ENDED_STAGES


def join(request: HttpRequest, slug: str) -> HttpResponse:
    """The study link. A GET that may create the participant: crowd platforms send people here
    with a plain link, so there is no form to post. A signed-in lab member (someone with a role) is
    asked first and goes on with a POST of the same link."""
    campaign = Campaign.objects.select_related("crowd").filter(name=slug, crowd__isnull=False).first()
    if campaign is None:
        return _not_found(request)
    if not campaign.is_open:
        if _ended_here(request, campaign):  # they come back for their completion code (issue 29 item 1)
            return redirect("crowd:done", slug=slug)
        return _message(request, "Study not open", "This study is not taking participants at the moment.", 410)
    try:
        ident = svc.identity_from_query(request.GET)
    except ValidationError as exc:
        return _message(request, "Incomplete study link", " ".join(exc.messages), 400)
    if ident.preview:
        return render(request, "annotation/crowd/preview.html", {"campaign": campaign})
    role = user_role(request.user)
    if role is not None and request.method != "POST":
        # Someone with a role (a lab member) would be signed out and in as the participant the link
        # names: ask first, with a button that posts (and so needs this page's CSRF token).
        ctx = {"campaign": campaign, "who": request.user.get_username(), "role": role, "ident": ident}
        return render(request, "annotation/crowd/switch.html", ctx)
    held = request.session.get(CLAIM, "") if request.user.is_authenticated else ""
    if not svc.participant_known(campaign, ident):  # a new participant: within the join limits?
        refused = join_refused(request, campaign)
        if refused:
            return _message(request, "Please try again later", refused, 429)
    try:
        joined = svc.participant_join(campaign, ident, held)
    except ValidationError as exc:
        return _message(request, "Study session in use", " ".join(exc.messages), 409)
    if joined.outcome == "busy":
        return _busy(request)
    p = joined.participant
    p.user._crowd_participant = True  # type: ignore[attr-defined]  # their pages show no staff chrome
    p.user._cocoweb_role = None  # type: ignore[attr-defined]  # and hold no role (as participant_required says)
    if request.user.pk != p.user_id:
        login(request, p.user, backend="accounts.backends.RoleModelBackend")
    request.session[CLAIM] = p.claim
    if p.stage == Participant.Stage.CONSENT:  # the study link answers with the first page itself
        return _consent_page(request, campaign, campaign.crowd)
    return redirect(STAGE_VIEW[p.stage], slug=slug)


Ctx = tuple[Participant, Campaign, CrowdStudy]


def participant_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The signed-in participant of this campaign, in the browser that holds them."""

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        # The signed-in user's id from the session, and the participant, campaign, study and user row
        # in one statement: the participant's requests skip the authentication backend's lookup
        # (the claim below, a secret this browser got at the study link, is what binds them).
        signed_in = request.session.get(SESSION_KEY)
        if signed_in is None or not str(signed_in).isdigit():
            return _message(
                request, "Open your study link", "Please open this study through the link your platform gave you.", 403
            )
        got = crowd_selectors.participant_of(int(signed_in))
        if got is None or got[1].name != slug or not got[0].user.is_active:
            raise PermissionDenied("this page belongs to another study")
        p, campaign, study = got
        if request.session.get(CLAIM) != p.claim:
            return _busy(request)
        p.user._cocoweb_role = None  # type: ignore[attr-defined]  # a participant holds no role
        p.user._crowd_participant = True  # type: ignore[attr-defined]  # and sees no staff chrome
        request.user = p.user
        svc.participant_touch(p)
        try:
            return view(request, (p, campaign, study), *args, **kwargs)
        except Http404:
            return _not_found(request)

    return wrapper


def _at(p: Participant, stage: str) -> HttpResponse | None:
    """A redirect to the participant's current stage when it is not ``stage``."""
    return None if p.stage == stage else redirect(STAGE_VIEW[p.stage], slug=p.campaign.name)


def _terms(campaign: Campaign, study: CrowdStudy) -> Terms | None:
    """The qualification's items, pass mark and attempts, stated before it starts."""
    pool = item_counts(campaign).get(Item.Role.QUALIFICATION, 0)
    return qualification_terms(campaign, pool, attempts=study.qualification_attempts)


def _budget(campaign: Campaign) -> int | None:
    """The items consent promises, counted as the progress bar counts them (attention checks
    included); None when the campaign sets no budget (every item)."""
    return answers_total(campaign) if campaign.max_items_per_annotator else None


def _consent_page(request: HttpRequest, campaign: Campaign, study: CrowdStudy, form: Any = None) -> HttpResponse:
    """Consent, the instructions with their worked examples and the demographics questions on one
    page: one request (and one answer) instead of three on the way to the first item."""
    from annotation.crowd.forms import DemographicsForm

    ctx = {
        "campaign": campaign,
        "study": study,
        "form": form if form is not None else DemographicsForm(study.demographics),
        "terms": _terms(campaign, study),
        "budget": _budget(campaign),
    }
    return render(request, "annotation/crowd/consent.html", ctx)


@participant_required
def consent(request: HttpRequest, ctx: Ctx) -> HttpResponse:
    from annotation.crowd.forms import DemographicsForm

    p, campaign, study = ctx
    if (r := _at(p, Participant.Stage.CONSENT)) is not None:
        return r
    if request.method != "POST":
        return _consent_page(request, campaign, study)
    if request.POST.get("consent") != "yes":
        svc.consent_record(p, False, study)
    else:
        form = DemographicsForm(study.demographics, request.POST)
        if not form.is_valid():
            return _consent_page(request, campaign, study, form)
        svc.consent_record(p, True, study, form.cleaned_data)
    return redirect(STAGE_VIEW[p.stage], slug=campaign.name)


@participant_required
def instructions(request: HttpRequest, ctx: Ctx) -> HttpResponse:
    p, campaign, study = ctx
    if (r := _at(p, Participant.Stage.INSTRUCTIONS)) is not None:
        return r
    if request.method == "POST":
        svc.instructions_done(p, study)
        return redirect(STAGE_VIEW[p.stage], slug=campaign.name)
    return render(
        request,
        "annotation/crowd/instructions.html",
        {
            "campaign": campaign,
            "study": study,
            "terms": _terms(campaign, study),
            "budget": _budget(campaign),
        },
    )


@participant_required
def demographics(request: HttpRequest, ctx: Ctx) -> HttpResponse:
    from annotation.crowd.forms import DemographicsForm

    p, campaign, study = ctx
    if (r := _at(p, Participant.Stage.DEMOGRAPHICS)) is not None:
        return r
    form = DemographicsForm(study.demographics, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        svc.demographics_record(p, study, form.cleaned_data)
        return redirect(STAGE_VIEW[p.stage], slug=campaign.name)
    return render(request, "annotation/crowd/demographics.html", {"campaign": campaign, "form": form})


def _go(request: Request, url: str) -> HttpResponse:
    if request.htmx:
        resp = HttpResponse(status=204)
        resp["HX-Redirect"] = url
        return resp
    return redirect(url)


def _box(
    request: Request, ctx: Ctx, *, step: queue.Step | None = None, error: str = "", status: int = 200
) -> HttpResponse:
    """The participant's next thing: an item, the qualification result, or the end of the study."""
    p, campaign, study = ctx
    step = step or queue.next_step(campaign, request.user)
    m = step.membership or queue.membership_get(campaign, request.user)
    done_url = reverse("crowd:done", kwargs={"slug": campaign.name})
    if step.state == Membership.State.FAILED:
        left = svc.qualification_attempts_left(p, study)
        if not left:
            svc.screen_out(p)
            return _go(request, done_url)
        if request.htmx:  # the result is a page of its own
            return _go(request, reverse("crowd:work", kwargs={"slug": campaign.name}))
        ctx_q = {"campaign": campaign, "left": left, "terms": _terms(campaign, study)}  # no score: attempts remain
        return render(request, "annotation/crowd/qualification_failed.html", ctx_q, status=status)
    if step.state == Membership.State.BLOCKED:
        svc.screen_out(p)
        return _go(request, done_url)
    if step.state == "done" and m.state == Membership.State.ACTIVE:
        svc.participant_finish(p)
        return _go(request, done_url)
    c: dict[str, Any] = {
        "campaign": campaign,
        "step": step,
        "membership": m,
        "error": error,
        "idempotency_key": uuid.uuid4().hex,
        "progress": crowd_progress(campaign, m),
        "item_views": ITEM_VIEWS,
    }
    if step.assignment is not None:
        item = step.assignment.item
        c["item"] = item
        c["item_ref"] = item.uid
        c["options"] = option_rows(item.payload.get("options", []))
        c["survey_questions"] = survey_questions(campaign.ask_common_sense)
    if request.htmx:  # the template's markup, built without the template engine (annotation/views/item_box.py)
        return HttpResponse(item_box_html(request, c, crowd=True), status=status)
    return render(request, "annotation/crowd/work.html", c, status=status)


@participant_required
def work(request: Request, ctx: Ctx) -> HttpResponse:
    if (r := _at(ctx[0], Participant.Stage.ITEMS)) is not None:
        return r
    return _box(request, ctx)


def _assignment(ctx: Ctx, user: Any, uid: str) -> Assignment:
    a = crowd_selectors.assignment_of(ctx[1], user.pk, uid)
    if a is None:
        raise Http404("no such item of yours")
    return a


@require_POST
@participant_required
def submit(request: Request, ctx: Ctx, uid: str) -> HttpResponse:
    if (r := _at(ctx[0], Participant.Stage.ITEMS)) is not None:
        return _go(request, r["Location"])
    a = _assignment(ctx, request.user, uid)
    item = a.item
    item.campaign = ctx[1]
    step = None
    try:
        answer, sent = web_submission(ctx[1], item, request.POST)
        if request.htmx:  # the response shows the next item: answer and next reservation in one transaction
            step = queue.response_submit_next(item, request.user, answer, assignment=a, **sent)[1]
        else:
            queue.response_submit(item, request.user, answer, assignment=a, **sent)
    except ValidationError as exc:
        return _box(request, ctx, error=" ".join(exc.messages), status=422 if request.htmx else 200)
    if not request.htmx:
        return redirect("crowd:work", slug=ctx[1].name)
    return _box(request, ctx, step=step)


@require_POST
@participant_required
def skip(request: Request, ctx: Ctx, uid: str) -> HttpResponse:
    if (r := _at(ctx[0], Participant.Stage.ITEMS)) is not None:
        return _go(request, r["Location"])
    a = _assignment(ctx, request.user, uid)
    error = ""
    try:
        queue.assignment_skip(ctx[1], request.user, a.item)
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if not request.htmx and not error:
        return redirect("crowd:work", slug=ctx[1].name)
    return _box(request, ctx, error=error)


@require_POST
@participant_required
def qualification_retry(request: Request, ctx: Ctx) -> HttpResponse:
    p, campaign, study = ctx
    if (r := _at(p, Participant.Stage.ITEMS)) is not None:
        return r
    m = queue.membership_get(campaign, request.user)
    if m.state == Membership.State.FAILED and svc.qualification_attempts_left(p, study) > 0:
        svc.qualification_reset(campaign, request.user)
    return redirect("crowd:work", slug=campaign.name)


@participant_required
def done(request: HttpRequest, ctx: Ctx) -> HttpResponse:
    p, campaign, study = ctx
    if p.stage not in (Participant.Stage.FINISHED, Participant.Stage.RETURNED, Participant.Stage.SCREENED_OUT):
        return redirect(STAGE_VIEW[p.stage], slug=campaign.name)
    link = study.return_url
    if p.stage == Participant.Stage.FINISHED:
        link = svc.completion_link(study, p)
    elif p.stage == Participant.Stage.SCREENED_OUT:
        link = svc.screenout_link(study) or study.return_url  # no screen-out link set: as before
    ctx_d: dict[str, Any] = {
        "campaign": campaign,
        "participant": p,
        "link": link,
        "qualification": None,
        "screenout_code": study.screenout_code,
    }
    m = membership_of(campaign, request.user)
    if p.stage == Participant.Stage.SCREENED_OUT and m is not None and m.state == Membership.State.FAILED:
        terms = _terms(campaign, study)  # the last attempt failed: now its score is told
        if terms is not None and m.qualification_score is not None:
            ctx_d["qualification"] = {"right": round(m.qualification_score * terms.items), "terms": terms}
    return render(request, "annotation/crowd/done.html", ctx_d)
