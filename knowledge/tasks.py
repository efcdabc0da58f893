"""Thin Celery wrappers: they take ids and call :mod:`knowledge.execution`.

``build_job_run_task`` is acknowledged late and idempotent: a redelivered message finds its job
done, failed, or held by a live worker and does nothing; a job whose worker died (stale
heartbeat) is taken over and built again from the start (nothing of a failed attempt is stored).
"""

from __future__ import annotations

from celery import shared_task

from .execution import build_job_run, worker_name

BUILD_QUEUE = "default"


@shared_task(name="knowledge.build_job_run", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def build_job_run_task(job_id: int) -> str:
    return build_job_run(job_id, worker=worker_name())
