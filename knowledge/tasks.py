"""Thin Celery wrappers: they take ids and call :mod:`knowledge.services.build_execution`.

``build_job_run_task`` is acknowledged late and idempotent: a redelivered message finds its job
done, failed, or held by a live worker and does nothing; a job whose worker died (stale
heartbeat) is taken over and built again from the start (nothing of a failed attempt is stored).

``build_jobs_requeue_stale_task`` is the housekeeping sweep (sent by the ticker in
``runs/tasks.py``, as runs' own): it re-sends the task of every stalled job — running with a stale
heartbeat (its worker was killed; a redelivery while the heartbeat was fresh was skipped) or queued
with no worker picking it up for the stale limit (its message was lost) — and, when asked, of every
queued job (the broker may have restarted empty). A duplicate message is skipped by the claim.
"""

from __future__ import annotations

import logging

from celery import shared_task

from cocoweb.leases import lease_requeue, worker_name
from knowledge.services.build_execution import build_job_run

BUILD_QUEUE = "default"
log = logging.getLogger(__name__)


@shared_task(name="knowledge.build_job_run", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def build_job_run_task(job_id: int) -> str:
    return build_job_run(job_id, worker=worker_name())


@shared_task(name="knowledge.build_jobs_requeue_stale", ignore_result=True)
def build_jobs_requeue_stale_task(resend_queued: bool = False) -> list[int]:
    from django.utils import timezone

    from .models import BuildJob
    from .selectors import build_jobs_stalled

    ids = list(build_jobs_stalled().order_by("created_at", "pk").values_list("pk", flat=True))
    if resend_queued:
        queued = BuildJob.objects.filter(state=BuildJob.State.QUEUED).exclude(pk__in=ids)
        ids += list(queued.order_by("created_at", "pk").values_list("pk", flat=True))
    # For a queued job, heartbeat_at says when its message was last sent (see build_jobs_stalled).
    BuildJob.objects.filter(pk__in=ids, state=BuildJob.State.QUEUED).update(heartbeat_at=timezone.now())
    return lease_requeue(ids, build_job_run_task, queue=BUILD_QUEUE, what="build job(s)")


@shared_task(name="knowledge.question_set_option_only", acks_late=True, ignore_result=True)
def question_set_option_only_task(set_id: int) -> bool:
    """The shortcut audit's option-only baseline of one set (knowledge/services/shortcuts.py): idempotent,
    a redelivered message finds the figures stored and does nothing."""
    from .models import QuestionSet
    from .services.shortcuts import question_set_option_only

    qset = QuestionSet.objects.filter(pk=set_id).first()
    if qset is None:  # deleted since
        return False
    return question_set_option_only(qset) is not None
