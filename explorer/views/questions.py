"""Question pages: the filtered list (filters live in the URL) and one question in full."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from explorer.panels.base import Panel
from explorer.views.panel_pages import render_with_panels
from knowledge.selectors import attach_model_scores

from .. import charts
from ..selectors import questions as qs
from ..selectors import sources


@role_required(RESEARCHER)
def question_list(request: Request) -> HttpResponse:
    f = qs.QuestionFilters.from_query(request.GET)
    page = Paginator(qs.question_pages(f), 25).get_page(request.GET.get("page"))
    ctx = {
        "filters": f,
        "choices": qs.question_filter_choices(f),
        "page": page,
        "validation_pending": not sources.annotation_available(),
    }
    if request.htmx and request.htmx.target == "question-results":
        return render(request, "explorer/_question_results.html", ctx)
    return render(request, "explorer/question_list.html", ctx)


@role_required(RESEARCHER)
def question_detail(request: HttpRequest, question_id: int) -> HttpResponse:
    q = get_object_or_404(qs.question_detail(), pk=question_id)
    chains = qs.question_chain(q)
    meta = q.metadata or {}
    anchors = [str(a) for a in meta.get("anchors", [])]
    panels = [
        Panel(
            f"structure-{i}",
            f"Query structure{f' (chain {i + 1})' if len(chains) > 1 else ''}",
            charts.query_structure_figure(chain, answers=q.answers or [], anchors=anchors),
            ["head", "relation", "tail"],
            chain,
            click="",
        )
        for i, chain in enumerate(chains or [[]])
    ]
    predictions = qs.question_predictions(q)
    triples = qs.question_triples(q)
    attach_model_scores(triples)
    ctx = {
        "q": q,
        "chains": chains,
        "anchors": anchors,
        "triples": triples,
        "group": qs.question_group(q),
        "predictions": predictions,
        "votes": sources.question_votes([q.pk]).get(q.pk),
        "votes_available": sources.annotation_available(),
        "letters": [chr(65 + i) for i in range(len(q.options or []))],
        "meta": {k: v for k, v in meta.items() if k not in ("chain", "chains", "anchors")},
    }
    return render_with_panels(request, "explorer/question_detail.html", ctx, panels, stem=f"question-{q.pk}")
