"""Thin Celery wrappers: they take ids and call :mod:`runs.evaluation` / :mod:`runs.services`.

Reliability: tasks are acknowledged late and rejected when their worker is lost (settings), and
every task is idempotent — a redelivered or duplicated ``run_execute_task`` skips a run that is
finished or held by a live worker, and resumes one whose worker died. Two things can still lose a
run's message: a worker SIGKILLed mid-run (the embedded SQLite broker never redelivers; Redis only
after its visibility timeout) and a broker that restarts without persistence (every queued and
unacknowledged message is gone). ``runs_requeue_stale_task`` covers both: it re-enqueues active
runs whose heartbeat went stale, and, when asked, every run still queued. The ticker below sends
``knowledge.build_jobs_requeue_stale`` (the same sweep for question-set builds) alongside it.

Every worker that consumes the housekeeping queue runs :class:`HousekeepingTicker`: a timer in the
worker process sends the check every ``COCOWEB_RUN_STALE_SECONDS``, and each (re)connection to the
broker sends one that also re-sends queued runs. A timer, not a chain of countdown tasks: a
countdown task waits unacknowledged inside a worker, so a broker restart loses the chain — and
kombu 5.7's Redis transport kills a worker that loses its connection while it holds such a message
and polls for more (``Unrecoverable error: AttributeError … 'hostname'``).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from celery import bootsteps, shared_task

from cocoweb.leases import lease_requeue, stale_seconds, worker_name
from knowledge.tasks import build_jobs_requeue_stale_task
from runs.evaluation import run_execute

from .finetune import finetune_execute
from .models import FineTune, Run
from .signals import housekeeping_tick

EVAL_QUEUE = "eval"
HOUSEKEEPING_QUEUE = "housekeeping"
log = logging.getLogger(__name__)


@shared_task(name="runs.run_execute", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_execute_task(run_id: int) -> str:
    """Run, resume or join ``run_id``; a run split into shards calls as many more workers as it has
    shards beyond the first (each message's worker claims shards until none is left)."""

    def fan_out(n: int) -> None:
        for _ in range(n):
            run_execute_task.apply_async((run_id,), queue=EVAL_QUEUE)

    return run_execute(run_id, worker=worker_name(), fan_out=fan_out)


@shared_task(name="runs.requeue_stale", ignore_result=True)
def runs_requeue_stale_task(resend_queued: bool = False) -> list[int]:
    """Re-enqueue active runs whose worker died; with ``resend_queued`` also every queued run (its
    message may have died with the broker; a duplicate message is skipped by the run's claim)."""
    from runs.selectors.runs import runs_stale

    ids = [r.pk for r in runs_stale()]
    if resend_queued:
        ids += list(
            Run.objects.filter(state=Run.State.QUEUED, cancel_requested=False)
            .order_by("created_at", "pk")
            .values_list("pk", flat=True)
        )
    return lease_requeue(ids, run_execute_task, queue=EVAL_QUEUE, what="run(s)")


@shared_task(name="runs.finetune_execute", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def finetune_execute_task(job_id: int) -> str:
    return finetune_execute(job_id, worker=worker_name())


@shared_task(name="runs.finetunes_requeue_stale", ignore_result=True)
def finetunes_requeue_stale_task(resend_queued: bool = False) -> list[int]:
    """Re-enqueue fine-tunes whose worker died (the next claim takes over from the last
    checkpoint); with ``resend_queued`` also every queued one."""
    from cocoweb.leases import lease_stale

    ids = list(lease_stale(FineTune).values_list("pk", flat=True))
    if resend_queued:
        ids += list(FineTune.objects.filter(state=FineTune.State.QUEUED).order_by("pk").values_list("pk", flat=True))
    return lease_requeue(ids, finetune_execute_task, queue=EVAL_QUEUE, what="fine-tune(s)")


def finetune_enqueue(job: FineTune) -> None:
    """Send a stored fine-tune to a worker once the transaction that made it commits."""
    from django.db import transaction

    transaction.on_commit(partial(finetune_execute_task.apply_async, (job.pk,), queue=EVAL_QUEUE))


class HousekeepingTicker(bootsteps.StartStopStep):
    """A consumer bootstep (registered in ``cocoweb/celery.py``), enabled in workers that consume
    the housekeeping queue. ``start`` runs when the worker first connects and again after every
    reconnection to the broker; ``stop`` when the connection is lost or the worker stops."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, c: Any, **kwargs: Any) -> None:
        self.enabled = HOUSEKEEPING_QUEUE in c.app.amqp.queues.consume_from
        self.tref: Any = None
        super().__init__(c, **kwargs)

    def start(self, c: Any) -> None:
        self._send(resend_queued=True)
        self.tref = c.timer.call_repeatedly(stale_seconds(Run), self._send)

    def stop(self, c: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None

    shutdown = stop

    @staticmethod
    def _send(resend_queued: bool = False) -> None:
        tick = stale_seconds(Run)
        for task, kwargs in (
            (runs_requeue_stale_task, {"resend_queued": resend_queued}),
            (build_jobs_requeue_stale_task, {"resend_queued": resend_queued}),
            (finetunes_requeue_stale_task, {"resend_queued": resend_queued}),
        ):
            try:
                task.apply_async(kwargs=kwargs, queue=HOUSEKEEPING_QUEUE, retry=False)
            except Exception:  # the broker is unreachable: the next tick, or the reconnection, sends again
                log.warning("could not send %s", task.name, exc_info=True)
        # the apps above runs (explorer's survey warm-up) enqueue their share
        for receiver, result in housekeeping_tick.send_robust(HousekeepingTicker, tick=tick, queue=HOUSEKEEPING_QUEUE):
            if isinstance(result, Exception):
                log.warning("housekeeping receiver %r failed", receiver, exc_info=result)
