"""The run of one :class:`~knowledge.models.BuildJob`, called by ``knowledge.build_job_run``.

* **Lease** (:mod:`cocoweb.leases`). A worker claims a job with one conditional UPDATE: the job
  must be queued, or running with a heartbeat older than ``COCOWEB_BUILD_STALE_SECONDS`` (its
  worker died). Every later write of the attempt is conditioned on the lease token; an attempt that
  lost its lease stops. Housekeeping re-sends stale and orphaned jobs (``knowledge/tasks.py``).
* **Progress** is written on the row when a step begins and, within a step, at most every
  ``COCOWEB_BUILD_PROGRESS_SECONDS`` (0.5 s): the builders call back every 50 questions, and a
  database write per call would slow a fast build down.
* **Idempotent.** The question set is stored in the same transaction that marks the job done, so
  a redelivered or duplicated task finds the job done (or another attempt's lease) and does nothing.
* **Failures** leave nothing stored (the set is written in one transaction) and keep a message.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid
from typing import Any

from django.conf import settings
from django.db import IntegrityError
from django.db.models import Q
from django.utils import timezone

from cocoweb.leases import Heartbeat, LeaseLost, lease_claim, lease_guarded, lease_write
from commonsense.io import DataFormatError
from knowledge.models import BuildJob, QuestionSet
from knowledge.services.abstract_files import abstract_file_path
from knowledge.services.build_options import COCO, COM2, builder_keys
from knowledge.services.builds import Step, question_set_build
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import ImportRefused

log = logging.getLogger(__name__)

# The params a job passes to its builder as stored: every option the build declares
# (knowledge/services/build_options.py), so an option the form gives reaches the build.
COM2_PARAMS = builder_keys(COM2)
COCO_PARAMS = builder_keys(COCO)


def progress_seconds() -> float:
    return float(settings.COCOWEB_BUILD_PROGRESS_SECONDS)


def build_job_claim(job_id: int, worker: str = "") -> uuid.UUID | None:
    """Take the job for this attempt, or None when it is finished or held by a live worker."""
    return lease_claim(
        BuildJob,
        job_id,
        Q(state=BuildJob.State.QUEUED),
        worker,
        state=BuildJob.State.RUNNING,
        started_at=timezone.now(),
        stage="",
        stage_index=0,
        stage_count=0,
        progress_done=0,
        progress_total=None,
        error="",
        error_detail="",
    )


class Reporter:
    """Writes the builder's step and progress callbacks on the job row (lease-guarded)."""

    def __init__(self, job_id: int, token: uuid.UUID, min_interval: float | None = None) -> None:
        self.job_id, self.token = job_id, token
        self.min_interval = progress_seconds() if min_interval is None else min_interval
        self._last = time.monotonic()  # the interval counts from creation (not from boot: monotonic() is uptime)
        self.writes = 0

    def write(self, **fields: Any) -> None:
        self.writes += 1
        lease_write(BuildJob, self.job_id, self.token, **fields)

    def step(self, s: Step) -> None:
        self.write(stage=s.name, stage_index=s.number, stage_count=s.of, progress_done=0, progress_total=s.total)
        self._last = time.monotonic()

    def progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.min_interval:
            return
        self._last = now
        self.write(progress_done=done, progress_total=total)


def _build(job: BuildJob, reporter: Reporter, on_stored: Any) -> QuestionSet:
    p = job.params
    common = {
        "graph": job.graph.name,
        "name": job.name,
        "seed": job.seed,
        "user": job.created_by,
        "progress": reporter.progress,
        "step": reporter.step,
        "on_stored": on_stored,
    }
    if job.kind == BuildJob.Kind.COM2:
        return question_set_build(**common, **{k: p[k] for k in COM2_PARAMS if k in p})
    if job.kind == BuildJob.Kind.COCO:
        try:
            abstract = abstract_file_path(p["abstract"]) if p.get("abstract") else None
        except (OSError, ValueError) as exc:
            raise ImportRefused(str(exc)) from None
        return coco_build(**common, abstract=abstract, **{k: p[k] for k in COCO_PARAMS if k in p})
    raise ImportRefused(f"unknown build kind {job.kind!r}")


def _fail(job_id: int, token: uuid.UUID, message: str, detail: str = "") -> None:
    """The job failed with ``message`` (shown to researchers). ``detail``, a traceback, is stored for
    the page only in development (server paths and code); the caller has logged it."""
    lease_guarded(BuildJob, job_id, token).update(
        state=BuildJob.State.FAILED,
        error=message,
        error_detail=detail if settings.DEBUG else "",
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )


def build_job_run(job_id: int, *, worker: str = "", heartbeat: bool = True) -> str:
    """Claim the job and build its set; returns what happened (for the task's log)."""
    token = build_job_claim(job_id, worker)
    if token is None:
        state = BuildJob.objects.filter(pk=job_id).values_list("state", flat=True).first()
        return f"build job {job_id}: skipped ({state or 'no such job'})"
    job = BuildJob.objects.select_related("graph", "created_by").get(pk=job_id)
    reporter = Reporter(job_id, token)

    def on_stored(qset: QuestionSet) -> None:  # inside the transaction that stores the set
        reporter.write(
            state=BuildJob.State.DONE,
            question_set=qset,
            finished_at=timezone.now(),
            stage="done",
            progress_done=qset.question_count,
            progress_total=qset.question_count,
        )

    beat = Heartbeat(BuildJob, job_id, token) if heartbeat else None
    if beat is not None:
        beat.start()
    try:
        qset = _build(job, reporter, on_stored)
    except LeaseLost as exc:
        log.warning("%s", exc)
        return str(exc)
    except (ImportRefused, DataFormatError) as exc:
        _fail(job_id, token, str(exc))
        return f"build job {job_id}: failed: {exc}"
    except IntegrityError as exc:
        taken = QuestionSet.objects.filter(name=job.name).exists()
        msg = (
            f"a question set named {job.name!r} was stored by someone else while this job ran"
            if taken
            else f"the database refused the set: {exc}"
        )
        log.exception("build job %s failed", job_id)
        _fail(job_id, token, msg, traceback.format_exc())
        return f"build job {job_id}: failed: {msg}"
    except Exception as exc:
        log.exception("build job %s failed", job_id)
        msg = f"unexpected error in step {_current_stage(job_id)!r}: {type(exc).__name__}: {exc}"
        _fail(job_id, token, msg, traceback.format_exc())
        return f"build job {job_id}: failed: {msg}"
    finally:
        if beat is not None:
            beat.stop()
    return f"build job {job_id}: {qset.name} stored ({qset.question_count} questions)"


def _current_stage(job_id: int) -> str:
    return BuildJob.objects.filter(pk=job_id).values_list("stage", flat=True).first() or "start"
