"""The campaign dashboard's "Make verified set" button (issue 11 item 7) and "Refit annotator
models" button (issue 26)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from annotation.models import Campaign
from annotation.services.labels import final_labels_refresh
from annotation.services.quality import annotator_quality_refresh
from annotation.services.verified import verified_set_create
from commonsense.annotators import LABEL_RULES


@require_POST
@role_required(RESEARCHER)
def verified_set_make(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, name=slug)
    name = (request.POST.get("name") or "").strip()
    if not name:
        messages.error(request, "Give the verified set a name.")
        return redirect("annotation:dashboard", slug=slug)
    try:
        v = verified_set_create(
            campaign,
            name=name,
            user=request.user,
            include_unsettled=request.POST.get("include_unsettled") == "on",
            top_up=request.POST.get("top_up") == "on",
            require_built_answer=request.POST.get("any_gold") != "on",
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("annotation:dashboard", slug=slug)
    messages.success(
        request, f"Verified set {v.question_set.name}: {v.counts['kept']} of {v.counts['items']} items kept."
    )
    return redirect("knowledge:question_set", name=v.question_set.name)


@require_POST
@role_required(RESEARCHER)
def quality_refresh(request: HttpRequest, slug: str) -> HttpResponse:
    """Fit the campaign's annotator models now and judge every item again."""
    campaign = get_object_or_404(Campaign, name=slug)
    if not campaign.adaptive:
        messages.error(request, "Annotator models are fitted over MCQA validation answers.")
        return redirect("annotation:dashboard", slug=slug)
    n = annotator_quality_refresh(campaign)
    messages.success(request, f"Annotator models fitted over {n} annotators; every item judged again.")
    return redirect("annotation:dashboard", slug=slug)


@require_POST
@role_required(RESEARCHER)
def label_rule_set(request: HttpRequest, slug: str) -> HttpResponse:
    """The researcher's choice of final labels (majority, or weighted by Dawid–Skene or MACE):
    stored on the campaign, and every item judged again under it."""
    campaign = get_object_or_404(Campaign, name=slug)
    rule = request.POST.get("label_rule", "")
    if not campaign.adaptive or rule not in LABEL_RULES:
        messages.error(request, f"Choose one of {', '.join(LABEL_RULES)} (MCQA validation campaigns).")
        return redirect("annotation:dashboard", slug=slug)
    Campaign.objects.filter(pk=campaign.pk).update(label_rule=rule)
    campaign.label_rule = rule
    final_labels_refresh(campaign)
    messages.success(request, f"Final labels are now made by {campaign.get_label_rule_display().lower()}.")
    return redirect("annotation:dashboard", slug=slug)
