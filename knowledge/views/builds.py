"""Build pages (researchers): the COM2 and CoCo build forms, the job list, a job's page with its
htmx-polled progress box, and re-queueing a failed or stalled job."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from cocoweb.uploads import accepts_uploads
from commonsense.io import DataFormatError
from knowledge import selectors
from knowledge.forms.builds import CocoBuildForm, QuestionBuildForm
from knowledge.models import BuildJob
from knowledge.services.abstract_files import abstract_file_save
from knowledge.services.build_jobs import build_job_command, build_job_create, build_job_is_stalled, build_job_retry
from knowledge.services.imports import ImportRefused
from knowledge.services.set_quality import build_funnels, shortcut_rows


def _queued(request: HttpRequest, job: BuildJob) -> HttpResponse:
    messages.success(request, f"Build job {job.pk} queued: {job.name} from {job.graph.name}.")
    return redirect("knowledge:build_job", job_id=job.pk)


_FORMS: dict[str, type[QuestionBuildForm | CocoBuildForm]] = {
    BuildJob.Kind.COM2: QuestionBuildForm,
    BuildJob.Kind.COCO: CocoBuildForm,
}
_TEMPLATES: dict[str, str] = {
    BuildJob.Kind.COM2: "knowledge/build_questions.html",
    BuildJob.Kind.COCO: "knowledge/build_coco.html",
}


def _build_form_page(request: Request, kind: str) -> HttpResponse:
    """Show a build form; a valid post queues a job and goes to its page. A CoCo form may carry an
    abstract file upload, validated and stored before the job is queued."""
    form = _FORMS[kind](request.POST or None, request.FILES or None, initial={"graph": request.GET.get("graph", "")})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            if isinstance(form, CocoBuildForm):
                abstract = d["abstract"] or None
                if d["abstract_upload"]:
                    abstract, _ = abstract_file_save(d["abstract_upload"])
                params = form.params(abstract)
            else:
                params = form.params()
            job = build_job_create(
                kind=kind, graph=d["graph"], name=d["name"], seed=d["seed"], params=params, user=request.user
            )
        except DataFormatError as exc:
            form.add_error("abstract_upload", f"not an abstract triples file, nothing was queued: {exc}")
        except ImportRefused as exc:
            form.add_error("name", str(exc))
        else:
            return _queued(request, job)
    status = 400 if request.method == "POST" else 200
    return render(request, _TEMPLATES[kind], {"form": form}, status=status)


@role_required(RESEARCHER)
def build_questions(request: Request) -> HttpResponse:
    """COM2 form. ``?graph=NAME`` preselects a graph and lists its relations; htmx asks for the
    relations box alone (target ``relations-field``) when the graph changes."""
    if request.method == "GET" and request.htmx and request.htmx.target == "relations-field":
        form = QuestionBuildForm(initial={"graph": request.GET.get("graph", "")})
        return render(request, "knowledge/_relations_field.html", {"field": form["relations"]})
    return _build_form_page(request, BuildJob.Kind.COM2)


@accepts_uploads
@role_required(RESEARCHER)
def build_coco(request: Request) -> HttpResponse:
    return _build_form_page(request, BuildJob.Kind.COCO)


@role_required(RESEARCHER)
def build_job_list(request: HttpRequest) -> HttpResponse:
    jobs = selectors.build_jobs_listed()
    page = Paginator(jobs, 50).get_page(request.GET.get("page"))
    return render(request, "knowledge/build_jobs.html", {"page": page})


def _job(job_id: int) -> BuildJob:
    return get_object_or_404(selectors.build_jobs_listed(), pk=job_id)


def _progress_context(job: BuildJob) -> dict[str, object]:
    requested = job.params.get("count") if job.kind == BuildJob.Kind.COM2 else None
    short = job.question_set is not None and isinstance(requested, int) and job.question_set.question_count < requested
    done = job.question_set if job.state == BuildJob.State.DONE else None
    return {
        "job": job,
        "stalled": build_job_is_stalled(job),
        "requested": requested,
        "short": short,
        # issue 27: the build funnel says which stage kept how many candidates
        "funnels": build_funnels(done.quality or {}) if done is not None else {},
        # issue 25: the shortcut audit of the built set
        "shortcuts": shortcut_rows(done.quality or {}) if done is not None else [],
    }


@role_required(RESEARCHER)
def build_job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(job_id)
    params = [(k, ", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in job.params.items()]
    return render(
        request,
        "knowledge/build_job.html",
        {**_progress_context(job), "params": params, "command": build_job_command(job)},
    )


@role_required(RESEARCHER)
def build_job_progress(request: Request, job_id: int) -> HttpResponse:
    """The progress box. htmx polls it while the job is queued or running; the box of a finished
    job has no trigger, so polling stops. A plain GET goes to the job's page."""
    if not request.htmx:
        return redirect("knowledge:build_job", job_id=job_id)
    return render(request, "knowledge/_build_job_progress.html", _progress_context(_job(job_id)))


@role_required(RESEARCHER)
@require_POST
def build_job_requeue(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _job(job_id)
    try:
        build_job_retry(job)
    except ImportRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Build job {job.pk} queued again (same parameters and seed).")
    return redirect("knowledge:build_job", job_id=job.pk)
