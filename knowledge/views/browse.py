from __future__ import annotations

import tempfile
from pathlib import Path

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.roles import RESEARCHER, has_role, role_required
from cocoweb.http import Request
from cocoweb.uploads import accepts_uploads
from commonsense.io import DataFormatError
from knowledge import selectors
from knowledge.forms.imports import DataImportForm
from knowledge.models import Graph, QuestionSet, StatementSet
from knowledge.services import imports as services
from knowledge.services.set_actions import question_set_export_refusal, question_set_usage
from knowledge.services.set_quality import build_funnels, quality_lines, shortcut_rows


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        from django.contrib.auth.views import redirect_to_login

        return redirect_to_login(request.get_full_path())
    if not has_role(request.user, RESEARCHER):
        return redirect("annotation:index")
    return render(
        request,
        "knowledge/home.html",
        {
            "graphs": selectors.graph_list(),
            "question_sets": selectors.question_set_list(),
            "statement_sets": selectors.statement_set_list(),
            "build_jobs": selectors.build_job_recent(),
        },
    )


@role_required(RESEARCHER)
def graph_detail(request: HttpRequest, name: str) -> HttpResponse:
    graph = get_object_or_404(Graph, name=name)
    return render(
        request,
        "knowledge/graph_detail.html",
        {
            "graph": graph,
            "relations": selectors.graph_relation_counts(graph),
            "sources": graph.sources.all(),
        },
    )


# The set page's downloads (the other formats come from the command line).
DOWNLOADS = (
    ("jsonl", "JSONL"),
    ("csv", "CSV"),
    ("lm-eval", "lm-eval task (zip)"),
    ("hf", "Hugging Face dataset with its card (zip)"),
)


def _downloads(qset: QuestionSet, user: object) -> list[tuple[str, str, str | None]]:
    """``(format, label, refusal)`` per download: a link only where the export rule lets this user
    have it, else the reason (the link would answer 403)."""
    return [(fmt, label, question_set_export_refusal(qset, user, fmt)) for fmt, label in DOWNLOADS]


@role_required(RESEARCHER)
def question_set_detail(request: HttpRequest, name: str) -> HttpResponse:
    qset = get_object_or_404(QuestionSet, name=name)
    page = Paginator(qset.questions.all(), 25).get_page(request.GET.get("page"))
    downloads = _downloads(qset, request.user)
    return render(
        request,
        "knowledge/question_set_detail.html",
        {
            "qset": qset,
            "page": page,
            "structures": selectors.question_structure_counts(qset),
            "usage": question_set_usage(qset),
            "downloads": downloads,
            "download_refusals": list(dict.fromkeys(r for _, _, r in downloads if r)),
            "quality": quality_lines(qset.quality or {}, funnels=False, shortcuts=False),
            "funnels": build_funnels(qset.quality or {}),
            "shortcuts": shortcut_rows(qset.quality or {}),
        },
    )


@role_required(RESEARCHER)
def statement_set_detail(request: HttpRequest, name: str) -> HttpResponse:
    sset = get_object_or_404(StatementSet, name=name)
    page = Paginator(sset.statements.all(), 25).get_page(request.GET.get("page"))
    return render(request, "knowledge/statement_set_detail.html", {"sset": sset, "page": page})


@accepts_uploads
@role_required(RESEARCHER)
def data_import(request: Request) -> HttpResponse:
    form = DataImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        kind, _, fmt = form.cleaned_data["kind"].partition(":")
        upload = form.cleaned_data["file"]
        name = form.cleaned_data["name"]
        again = {"allow_duplicate": form.cleaned_data["allow_duplicate"]}
        suffix = Path(upload.name).suffix
        with tempfile.NamedTemporaryFile(suffix=suffix) as tmp:
            for chunk in upload.chunks():
                tmp.write(chunk)
            tmp.flush()
            try:
                if kind == "graph":
                    summary = services.graph_import(
                        tmp.name, name=name, fmt=fmt, user=request.user, display_name=upload.name, **again
                    ).summary()
                elif kind == "statements":
                    summary = services.statements_import(
                        tmp.name, name=name, user=request.user, display_name=upload.name, **again
                    ).summary("statements")
                else:
                    summary = services.questions_import(
                        tmp.name, name=name, fmt=fmt, user=request.user, display_name=upload.name, **again
                    ).summary("questions")
            except DataFormatError as exc:
                # The error names the temp file; report the uploaded file's name instead.
                exc_msg = str(exc).replace(Path(tmp.name).name, upload.name)
                form.add_error("file", f"Import failed, nothing was stored: {exc_msg}")
            except services.DuplicateContent as exc:
                form.offer_duplicate()
                form.add_error(
                    "allow_duplicate",
                    f"Nothing was stored: {exc}. Choose the file again and tick the box to import it anyway.",
                )
            except services.ImportRefused as exc:
                form.add_error("name", f"Import refused, nothing was stored: {exc}")
            else:
                messages.success(request, summary)
                return redirect("home")
    return render(request, "knowledge/import.html", {"form": form}, status=400 if form.errors else 200)
