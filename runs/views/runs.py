"""Run pages (researchers): list, launch, live progress, cancel, re-run, compare, exports."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from cocoweb.params import int_list
from runs import catalog, services
from runs.forms import RunForm
from runs.models import Run
from runs.reports import run_exports as exports
from runs.selectors import queue, samples
from runs.selectors import runs as selectors
from runs.selectors.runs import run_metrics_json


@role_required(RESEARCHER)
def index(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.run_list(), 50).get_page(request.GET.get("page"))
    runs = list(page.object_list)
    places = queue.runs_queue_places(runs)
    rows = [(r, places.get(r.pk)) for r in runs]
    return render(request, "runs/index.html", {"page": page, "rows": rows})


@role_required(RESEARCHER)
def run_new(request: Request) -> HttpResponse:
    form = RunForm(request.POST or None, initial=request.GET or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            run = services.run_create(
                name=d["name"],
                set_name=d["dataset"],
                backend=d["backend"],
                scoring=d["scoring"],
                model=d["model"].strip(),
                endpoint=d["endpoint"],
                seed=d["seed"] or 0,
                limit=d["limit"],
                params=form.params(),
                user=request.user,
            )
        except ValidationError as exc:
            for m in exc.messages:
                form.add_error(None, m)
        else:
            messages.success(request, f"Run {run.pk} queued; a worker will pick it up.")
            return redirect("runs:detail", run_id=run.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "runs/new.html", {"form": form, "catalog": catalog.catalog()}, status=status)


@role_required(RESEARCHER)
def models(request: HttpRequest) -> HttpResponse:
    """The models this installation can run: packaged, under the models folders, endpoints."""
    return render(request, "runs/models.html", catalog.catalog())


def _run(run_id: int) -> Run:
    return get_object_or_404(selectors.run_list(), pk=run_id)


@role_required(RESEARCHER)
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    preds = selectors.run_predictions(run)[:20]
    return render(
        request,
        "runs/detail.html",
        {
            "run": run,
            "metric_rows": selectors.run_metric_table(run),
            "preds": [exports.prediction_record(run, p) for p in preds],
            "live": samples.partial_metrics(run),
            "baselines": selectors.run_beside_baselines(run),
            "place": queue.run_queue_place(run),
            "shards": queue.run_shard_rows(run),
        },
    )


@role_required(RESEARCHER)
def run_progress(request: Request, run_id: int) -> HttpResponse:
    """The progress box. htmx polls it while the run is active; the box of a finished run has no
    trigger, so polling stops, and ``HX-Refresh`` reloads the page once to show the metrics."""
    if not request.htmx:
        return redirect("runs:detail", run_id=run_id)
    run = _run(run_id)
    resp = render(
        request,
        "runs/_progress.html",
        {"run": run, "place": queue.run_queue_place(run), "shards": queue.run_shard_rows(run)},
    )
    if run.is_finished and request.GET.get("polling"):
        resp["HX-Refresh"] = "true"
    return resp


@role_required(RESEARCHER)
@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    if not run.is_finished and request.POST.get("confirm") != "yes":  # a cancelled run cannot be resumed: ask
        done = (
            f" ({run.items_done:,} of {run.items_total:,} items scored so far; they are kept)"
            if run.items_total
            else ""
        )
        ctx = {
            "title": f"Cancel run {run.pk}?",
            "lines": [f"The run stops at its next chunk{done} and cannot be resumed; re-run it to start again."],
            "action": request.path,
            "fields": [],
            "confirm_label": "Cancel the run",
            "back": reverse("runs:detail", args=[run.pk]),
            "back_label": "Keep it running",
        }
        return render(request, "confirm.html", ctx)
    if services.run_cancel(run):
        messages.success(request, f"Run {run.pk}: cancel requested.")
    else:
        messages.info(request, f"Run {run.pk} has already ended.")
    return redirect("runs:detail", run_id=run.pk)


@role_required(RESEARCHER)
@require_POST
def run_rerun(request: Request, run_id: int) -> HttpResponse:
    try:
        new = services.run_rerun(_run(run_id), user=request.user)
    except ValidationError as exc:  # e.g. its model or endpoint is no longer configured
        messages.error(request, f"Run {run_id} cannot be run again: {' '.join(exc.messages)}")
        return redirect("runs:detail", run_id=run_id)
    messages.success(request, f"Run {new.pk} queued with the settings of run {run_id}.")
    return redirect("runs:detail", run_id=new.pk)


@role_required(RESEARCHER)
def run_compare(request: HttpRequest) -> HttpResponse:
    ids = int_list(request.GET.getlist("runs"), limit=6)
    runs = selectors.runs_by_ids(ids)
    if len(runs) < 2:
        messages.info(request, "Tick at least two runs to compare.")
        return redirect("runs:index")
    return render(request, "runs/compare.html", selectors.runs_compare(runs))


@role_required(RESEARCHER)
def export_predictions(request: HttpRequest, run_id: int, fmt: str) -> HttpResponseBase:
    if fmt not in ("jsonl", "csv"):
        raise Http404("export formats: jsonl, csv")
    run = _run(run_id)
    if fmt == "jsonl":
        resp = StreamingHttpResponse(exports.predictions_jsonl(run), content_type="application/x-ndjson")
    else:
        resp = StreamingHttpResponse(exports.predictions_csv(run), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="run-{run.pk}-predictions.{fmt}"'
    return resp


@role_required(RESEARCHER)
def export_metrics(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    resp = JsonResponse(run_metrics_json(run), json_dumps_params={"indent": 1})
    resp["Content-Disposition"] = f'attachment; filename="run-{run.pk}-metrics.json"'
    return resp
