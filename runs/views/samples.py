"""The per-sample log viewer of a run: every prediction, filtered and searched on the server,
one page at a time, with the run's partial metrics polled while it is going."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from runs.models import Run
from runs.selectors import runs as selectors
from runs.selectors import samples


def _run(run_id: int) -> Run:
    return get_object_or_404(selectors.run_list(), pk=run_id)


@role_required(RESEARCHER)
def run_samples(request: Request, run_id: int) -> HttpResponse:
    run = _run(run_id)
    filters = samples.SampleFilters.from_params(request.GET)
    summary = samples.run_summary(run)
    page = samples.sample_page(run, filters, request.GET.get("page"), summary)
    ctx = {
        "run": run,
        "filters": filters,
        "facets": samples.sample_facets(run, summary),
        "page": page,
        "rows": samples.sample_rows(run, list(page.object_list)),
        "live": samples.partial_metrics(run, summary),
        "filter_query": filters.query(),
    }
    template = "runs/_samples_table.html" if request.htmx and request.htmx.target == "samples" else "runs/samples.html"
    return render(request, template, ctx)


@role_required(RESEARCHER)
def run_samples_live(request: HttpRequest, run_id: int) -> HttpResponse:
    """The partial-metrics box: polled every 2 s while the run is active; the box of a finished
    run carries no trigger, so polling stops."""
    run = _run(run_id)
    return render(request, "runs/_samples_live.html", {"run": run, "live": samples.partial_metrics(run)})
