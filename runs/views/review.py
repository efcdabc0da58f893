"""A reviewer sets the CoCo error category of one prediction (§6.4: "Metric Limit" needs a person)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from commonsense.metrics.coco_tables import CATEGORIES
from runs.models import Run
from runs.reports.coco import error_category_review
from runs.selectors import runs as selectors


@role_required(RESEARCHER)
@require_POST
def prediction_error_category(request: HttpRequest, run_id: int, prediction_id: int) -> HttpResponse:
    pred = get_object_or_404(selectors.prediction_with_run(), pk=prediction_id, run_id=run_id)
    try:
        error_category_review(pred, request.POST.get("category", "").strip())
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc))
    messages.success(request, f"Prediction {pred.pk}: error category saved.")
    nxt = request.POST.get("next", "")
    if nxt and url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()}):
        return redirect(nxt)
    return redirect("explorer:run_errors", run_id=run_id)


@role_required(RESEARCHER)
def error_review(request: HttpRequest, run_id: int) -> HttpResponse:
    """The wrong or unanswered predictions of a generative run with the rule's error category and
    a form to set the reviewer's (first 200, in item order)."""
    run = get_object_or_404(Run, pk=run_id)
    preds = selectors.predictions_to_review(run, 200)
    return render(request, "runs/error_review.html", {"run": run, "preds": preds, "categories": CATEGORIES})
