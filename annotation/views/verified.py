"""The campaign dashboard's "Make verified set" button (issue 11 item 7)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from annotation.models import Campaign
from annotation.services.verified import verified_set_create


@require_POST
@role_required(RESEARCHER)
def verified_set_make(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, name=slug)
    name = (request.POST.get("name") or "").strip()
    if not name:
        messages.error(request, "Give the verified set a name.")
        return redirect("annotation:dashboard", slug=slug)
    try:
        v = verified_set_create(campaign, name=name, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("annotation:dashboard", slug=slug)
    messages.success(
        request, f"Verified set {v.question_set.name}: {v.counts['kept']} of {v.counts['items']} items kept."
    )
    return redirect("knowledge:question_set", name=v.question_set.name)
