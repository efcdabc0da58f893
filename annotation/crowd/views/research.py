"""Researcher pages of a crowd study: the live overview (started, finished, returned, screened
out, median time per item, attention and qualification pass rates, items short of redundancy, the
human distribution of commonsensicality M), the per-participant and per-account tables with block,
unblock and reset-qualification, the study-link settings, and the participant CSV."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from annotation import charts
from annotation.crowd import services as participants
from annotation.crowd.exports import participants_csv
from annotation.crowd.forms import CrowdStudyForm
from annotation.crowd.selectors import (
    PERSON_ACTIONS,
    campaign_memberships,
    crowd_overview,
    crowd_study,
    person_actions_of,
    person_rows,
)
from annotation.models import Campaign, CrowdStudy
from annotation.selectors.agreement import campaign_nww
from annotation.selectors.export_access import REFUSAL, campaign_export_allowed
from cocoweb.http import Request


def _campaign(slug: str) -> Campaign:
    return get_object_or_404(Campaign, name=slug)


def _overview_ctx(campaign: Campaign) -> dict[str, object]:
    return {"campaign": campaign, "o": crowd_overview(campaign)}


@role_required(RESEARCHER)
def participants_page(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    study = crowd_study(campaign)
    form = CrowdStudyForm(instance=study or CrowdStudy(campaign=campaign))
    figures = {}
    res = campaign_nww(campaign, n_boot=200)
    if res is not None:
        figures["human_m"] = charts.commonsensicality_histogram(
            res.raters.commonsensicality.tolist(), "Raters' commonsensicality M (NWW Fig. 2A, Eqs. 9–11)", "raters"
        )
    link = request.build_absolute_uri(reverse("crowd:join", kwargs={"slug": campaign.name}))
    ctx = {
        **_overview_ctx(campaign),
        "study": study,
        "form": form,
        "link": link,
        "participants": person_rows(campaign),
        # Platform ids and completion codes only for who may export the campaign (issue 31 item 8).
        "personal": campaign_export_allowed(campaign, request.user),
        "accounts": person_rows(campaign, named=True),
        "figures": figures,
    }
    return render(request, "annotation/crowd/participants.html", ctx)


@role_required(RESEARCHER)
def participants_live(request: Request, slug: str) -> HttpResponse:
    """The overview numbers alone (htmx polls them); a plain request gets the whole page."""
    if not request.htmx:
        return redirect("annotation:participants", slug=slug)
    return render(request, "annotation/crowd/_overview.html", _overview_ctx(_campaign(slug)))


@require_POST
@role_required(RESEARCHER)
def study_settings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    study = participants.study_of(campaign)
    form = CrowdStudyForm(request.POST, instance=study)
    if form.is_valid():
        try:
            participants.crowd_study_enable(campaign, **form.study_settings())
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, "Study link settings saved.")
    else:
        messages.error(request, "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in form.errors.items()))
    return redirect("annotation:participants", slug=slug)


@require_POST
@role_required(RESEARCHER)
def person_action(request: HttpRequest, slug: str, user_id: int, action: str) -> HttpResponse:
    campaign = _campaign(slug)
    m = get_object_or_404(campaign_memberships(campaign), user_id=user_id)
    if action not in PERSON_ACTIONS:
        messages.error(request, f"unknown action {action!r}; one of {', '.join(PERSON_ACTIONS)}")
        return redirect("annotation:participants", slug=slug)
    if action not in (allowed := person_actions_of(campaign, m)):
        # the table offers only these; a stale page (or a crafted post) gets told why nothing happened
        what = ", ".join(allowed) or "none"
        messages.error(
            request,
            f"{action.replace('-', ' ')} does not apply to someone {m.get_state_display().lower()}; applies: {what}",
        )
        return redirect("annotation:participants", slug=slug)
    if action == "block":
        participants.membership_block(campaign, m.user, True)
    elif action == "unblock":
        participants.membership_block(campaign, m.user, False)
    else:  # reset-qualification
        participants.qualification_reset(campaign, m.user, keep_history=False)
    messages.success(request, f"{action.replace('-', ' ')}: done.")
    return redirect("annotation:participants", slug=slug)


@role_required(RESEARCHER)
def participants_download(request: HttpRequest, slug: str) -> HttpResponse:
    """Platform ids, completion codes, demographics: the campaign's export rule (creator, admins)."""
    campaign = _campaign(slug)
    if not campaign_export_allowed(campaign, request.user):
        raise PermissionDenied(REFUSAL)
    resp = HttpResponse(participants_csv(campaign), content_type="text/csv")
    resp["Content-Disposition"] = f'attachment; filename="{campaign.name}-participants.csv"'
    return resp
