"""Thin Celery wrappers: they take ids and call :mod:`runs.execution` / :mod:`runs.services`.

Reliability: tasks are acknowledged late and rejected when their worker is lost (settings), and
every task is idempotent — a redelivered ``run_execute_task`` skips a run that is finished or held
by a live worker, and resumes one whose worker died. Messages that die with a SIGKILLed worker (the
embedded SQLite broker never redelivers them; Redis only after its visibility timeout) are covered
by ``runs_requeue_stale_task``: it re-enqueues every active run whose heartbeat is stale. Each
worker schedules it when it starts, and it re-schedules itself while runs are active.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from .execution import run_execute, stale_seconds, worker_name

EVAL_QUEUE = "eval"
HOUSEKEEPING_QUEUE = "housekeeping"


@shared_task(name="runs.run_execute", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_execute_task(run_id: int) -> str:
    return run_execute(run_id, worker=worker_name())


@shared_task(name="runs.requeue_stale", ignore_result=True)
def runs_requeue_stale_task(reschedule: bool = True) -> list[int]:
    from django.db import transaction

    from .models import Run
    from .selectors import runs_stale

    ids = [r.pk for r in runs_stale()]
    for run_id in ids:
        transaction.on_commit(lambda rid=run_id: run_execute_task.apply_async((rid,), queue=EVAL_QUEUE))
    if reschedule and Run.objects.filter(state__in=Run.ACTIVE).exists():
        runs_requeue_stale_task.apply_async((True,), queue=HOUSEKEEPING_QUEUE, countdown=stale_seconds())
    return ids


@worker_ready.connect
def _on_worker_ready(sender: Any = None, **_: Any) -> None:
    """A (re)started worker checks for orphaned runs once their heartbeats can have gone stale."""
    try:
        runs_requeue_stale_task.apply_async((True,), queue=HOUSEKEEPING_QUEUE, countdown=stale_seconds() + 1)
    except Exception:  # the broker may be unreachable; the worker itself must still start
        import logging

        logging.getLogger(__name__).warning("could not schedule runs.requeue_stale", exc_info=True)
