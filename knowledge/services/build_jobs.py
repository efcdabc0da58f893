"""Writes for browser builds: create a :class:`BuildJob` and enqueue its task after commit, re-queue
a failed or stalled one. The build itself runs in :mod:`knowledge.services.build_execution` on a worker.

A stalled job (``build_jobs_stalled``: its worker died, or its message was lost) never blocks its
name: a new build of the same name marks it failed ("superseded") in the transaction that queues
the new one."""

from __future__ import annotations

import shlex
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.people import User
from knowledge.models import BuildJob, Graph, QuestionSet
from knowledge.selectors import build_jobs_stalled
from knowledge.services.abstract_files import abstract_dir
from knowledge.services.build_options import COCO, COM2, job_command_args
from knowledge.services.imports import ImportRefused
from knowledge.tasks import BUILD_QUEUE, build_job_run_task


def _enqueue(job_id: int) -> None:
    transaction.on_commit(lambda: build_job_run_task.apply_async((job_id,), queue=BUILD_QUEUE))


def build_job_name_clash(name: str) -> str | None:
    """Why ``name`` cannot be used for a new set, or None."""
    if QuestionSet.objects.filter(name=name).exists():
        return f"a question set named {name!r} already exists"
    active = (
        BuildJob.objects.filter(name=name, state__in=BuildJob.ACTIVE)
        .exclude(pk__in=build_jobs_stalled().values("pk"))
        .values_list("pk", flat=True)
        .first()
    )
    if active is not None:
        return f"build job {active} is already building a set named {name!r}"
    return None


def build_job_create(
    *, kind: str, graph: Graph, name: str, seed: int, params: dict[str, Any], user: User | None = None
) -> BuildJob:
    """Store a queued job and enqueue ``knowledge.build_job_run`` once the transaction commits."""
    if kind not in BuildJob.Kind.values:
        raise ImportRefused(f"unknown build kind {kind!r}; choose one of {', '.join(BuildJob.Kind.values)}")
    clash = build_job_name_clash(name)
    if clash:
        raise ImportRefused(clash)
    try:
        with transaction.atomic():
            build_jobs_stalled().filter(name=name).update(
                state=BuildJob.State.FAILED,
                lease=None,
                finished_at=timezone.now(),
                error="superseded by a new build of the same name (no worker was building this one)",
            )
            job = BuildJob.objects.create(
                kind=kind,
                graph=graph,
                name=name,
                seed=seed,
                params=params,
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
            _enqueue(job.pk)
    except IntegrityError:  # another request queued the same name in between
        raise ImportRefused(build_job_name_clash(name) or f"a set named {name!r} is being built") from None
    return job


def build_job_is_stalled(job: BuildJob) -> bool:
    """Unfinished, but no worker is working on it: its worker died or its message was lost."""
    return build_jobs_stalled().filter(pk=job.pk).exists()


def build_job_retry(job: BuildJob) -> None:
    """Queue a failed or stalled job again (same parameters and seed). Raises ImportRefused with
    the reason when it cannot be."""
    if not (job.state == BuildJob.State.FAILED or build_job_is_stalled(job)):
        raise ImportRefused(
            f"build job {job.pk} is {job.get_state_display().lower()}; only a failed or stalled job can be re-queued"
        )
    if QuestionSet.objects.filter(name=job.name).exists():
        raise ImportRefused(f"a question set named {job.name!r} already exists; start a new build with another name")
    try:
        with transaction.atomic():
            retryable = BuildJob.objects.filter(pk=job.pk, state=BuildJob.State.FAILED) | build_jobs_stalled().filter(
                pk=job.pk
            )
            n = retryable.update(
                state=BuildJob.State.QUEUED,
                lease=None,
                heartbeat_at=timezone.now(),  # a queued job's heartbeat_at: when its message was sent
                finished_at=None,
                error="",
                error_detail="",
                stage="",
                stage_index=0,
                stage_count=0,
                progress_done=0,
                progress_total=None,
            )
            if n:
                _enqueue(job.pk)
    except IntegrityError:
        raise ImportRefused(build_job_name_clash(job.name) or f"a set named {job.name!r} is being built") from None
    if not n:
        raise ImportRefused(f"build job {job.pk} changed meanwhile; reload the page")


def build_job_command(job: BuildJob) -> str:
    """The management command that builds the same set (the same questions, byte for byte): its
    arguments are the job's params as ``knowledge/services/build_options.py`` writes them."""
    p = job.params
    com2 = job.kind == BuildJob.Kind.COM2
    args = ["--graph", job.graph.name]
    if com2:  # the kind first: it says what is built
        args += ["--kind", str(p["kind"]), "--count", str(p["count"])]
    args += ["--seed", str(job.seed), "--name", job.name]
    if p.get("abstract"):
        args += ["--abstract", str(abstract_dir() / p["abstract"])]
    rest = {k: v for k, v in p.items() if k not in ("kind", "count")}
    args += job_command_args(COM2 if com2 else COCO, rest)
    return " ".join(
        ["python", "manage.py", "build_questions" if com2 else "build_coco", *(shlex.quote(a) for a in args)]
    )
