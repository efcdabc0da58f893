"""Question-set actions from the set's page: export, rename, delete (researchers)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from knowledge.models import QuestionSet
from knowledge.services import set_actions
from knowledge.services.set_exports import EXPORT_FORMATS


@role_required(RESEARCHER)
def question_set_export(request: HttpRequest, name: str, fmt: str) -> HttpResponse:
    qset = get_object_or_404(QuestionSet, name=name)
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"export formats: {', '.join(EXPORT_FORMATS)}")
    refusal = set_actions.question_set_export_refusal(qset, request.user, fmt)
    if refusal:
        raise PermissionDenied(refusal)
    body, content_type, filename = set_actions.question_set_export_bytes(qset, fmt)
    resp = HttpResponse(body, content_type=content_type)
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp


@role_required(RESEARCHER)
@require_POST
def question_set_rename(request: HttpRequest, name: str) -> HttpResponse:
    qset = get_object_or_404(QuestionSet, name=name)
    old = qset.name
    try:
        set_actions.question_set_rename(qset, request.POST.get("new_name", ""))
    except ValidationError as exc:
        messages.error(request, f"Not renamed: {' '.join(exc.messages)}")
        return redirect("knowledge:question_set", name=old)
    if qset.name != old:
        messages.success(request, f"Question set {old} is now called {qset.name}.")
    return redirect("knowledge:question_set", name=qset.name)


@role_required(RESEARCHER)
def question_set_delete(request: HttpRequest, name: str) -> HttpResponse:
    """GET: the confirmation page (or the reason it cannot be deleted); POST: delete."""
    qset = get_object_or_404(QuestionSet, name=name)
    if request.method == "POST":
        try:
            n = set_actions.question_set_delete(qset)
        except ValidationError as exc:
            messages.error(request, f"Not deleted: {' '.join(exc.messages)}")
            return redirect("knowledge:question_set", name=name)
        messages.success(request, f"Question set {name} and its {n} questions were deleted.")
        return redirect("home")
    usage = set_actions.question_set_usage(qset)
    return render(request, "knowledge/question_set_delete.html", {"qset": qset, "usage": usage})
