"""Model-error pages: one run's errors, several runs side by side, and the drawer listing the items
behind any bar or point (also a real page without htmx)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from cocoweb.params import digits, int_list
from commonsense.metrics.consistency import LABELS as COCO_LABELS
from commonsense.metrics.consistency import category as coco_category
from explorer.panels.runs import compare_panels, question_run_panels
from explorer.panels.statements import statement_run_panels
from explorer.selectors import errors as es
from explorer.selectors.drawer import drawer_items
from explorer.views.panel_pages import render_with_panels
from runs.selectors.runs import run_beside_baselines

from ..selectors import sources
from .drawer_rows import rows_html

DRAWER_LIMIT = 50
# "open as page": every item behind the bar, this many a page (wrong answers first). It showed the first
# 500 and no more: 500 rows with their questions, triples, votes and every other run's answer cost
# ~80 ms of CPU and 300-420 ms at 1 M predictions (perf/RESULTS.md), and the rest were out of reach.
PAGE_LIMIT = 100


@role_required(RESEARCHER)
def run_errors(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(es.runs_with_sets(), pk=run_id)
    only = request.GET.get("csv", "")  # a CSV download computes its one panel
    min_n = min_n_param(request)
    panels = (
        statement_run_panels(run, only=only)
        if run.is_statement_run
        else question_run_panels(run, only=only, min_n=min_n)
    )
    ctx = {"run": run, "min_n": min_n, "baselines": run_beside_baselines(run)}
    return render_with_panels(request, "explorer/run_errors.html", ctx, panels, stem=f"run-{run.pk}")


@role_required(RESEARCHER)
def compare(request: HttpRequest) -> HttpResponse:
    ids = int_list(request.GET.getlist("run"), limit=12)
    runs = es.runs_by_ids(ids)
    min_n = min_n_param(request)
    panels = compare_panels(runs, only=request.GET.get("csv", ""), min_n=min_n) if runs else []
    ctx = {"runs": runs, "min_n": min_n}
    return render_with_panels(request, "explorer/compare.html", ctx, panels, stem="compare")


MIN_N_MAX = 1_000_000


def min_n_param(request: HttpRequest) -> int:
    """``?min_n=N``: breakdown groups with fewer items are hidden (0 or missing: none)."""
    raw = request.GET.get("min_n", "")
    return min(digits(raw) or 0, MIN_N_MAX)


@role_required(RESEARCHER)
def run_items(request: Request, run_id: int) -> HttpResponse:
    """The predictions behind a bar / cell / point: wrong ones first, at most 50, each with its
    provenance (set, position, source triples with file and line), human votes and the other
    runs' answers to the same item. A partial for the drawer (the first 50), a page otherwise (every
    item, ``PAGE_LIMIT`` a page with a pager: no close button, no link to itself, a way back)."""
    run = get_object_or_404(es.runs_with_sets(), pk=run_id)
    params = request.GET
    title = _describe(params)
    cell = None
    if params.get("coco"):
        try:
            knows, solves = (c == "1" for c in params["coco"].split(","))
        except ValueError:
            raise Http404("bad coco cell") from None
        cell = (knows, solves)
        title = COCO_LABELS[coco_category(knows, solves)]
    as_page = not request.htmx
    limit = PAGE_LIMIT if as_page else DRAWER_LIMIT
    number = (digits(params.get("page")) or 1) if as_page else 1
    found = drawer_items(run, params, cell, limit, offset=(number - 1) * limit)
    page = Paginator(range(found.total), limit).get_page(number)  # counts only: the rows are found's
    if page.number != number:  # past the last page (or none): the last page's rows
        found = drawer_items(run, params, cell, limit, offset=page.start_index() - 1 if found.total else 0)
    ctx = {
        "run": run,
        "rows": found.rows,
        "rows_html": rows_html(found.rows, run.is_statement_run),
        "total": found.total,
        "page": page,
        "title": title,
        "limit": limit,
        "page_limit": PAGE_LIMIT,
        "as_page": as_page,
        "is_statement": run.is_statement_run,
        "votes_available": sources.annotation_available(),
        "query": params.urlencode(),
    }
    template = "explorer/run_items.html" if as_page else "explorer/_drawer.html"
    return render(request, template, ctx)


def _describe(params: object) -> str:
    keys = (
        "relation",
        "kind",
        "perturbation",
        "agreement",
        "answer",
        "chosen",
        "correct",
        "human",
        "d_min",
        "d_max",
        "question",
        "statement",
    )
    parts = []
    for k in keys:
        v = params.get(k)  # type: ignore[attr-defined]
        if v not in (None, ""):
            if k in ("answer", "chosen") and (letter := digits(v, max_digits=2)) is not None:
                v = chr(65 + letter)
            if k == "correct":
                v = "yes" if v == "1" else "no"
            parts.append(f"{k} {v}")
    return ", ".join(parts) or "all items"
