"""Thin Celery wrappers of :mod:`explorer.services`."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings


@shared_task(name="explorer.surveys_warm", ignore_result=True)
def surveys_warm_task(within_seconds: float) -> dict[int, list[int]]:
    """The explorer's share of the housekeeping tick: the survey figures of the statement sets that
    received answers within ``within_seconds``, and the stored aggregates no page asked for in
    ``COCOWEB_STORED_AGGREGATE_DAYS`` deleted."""
    from .selectors.run_aggregates import prune
    from .services import surveys_warm_recent

    prune(timedelta(days=settings.COCOWEB_STORED_AGGREGATE_DAYS))
    return surveys_warm_recent(timedelta(seconds=within_seconds))


def housekeeping_share(sender: object, *, tick: float, queue: str, **kwargs: object) -> None:
    """Receiver of :data:`runs.signals.housekeeping_tick`: the survey figures of the sets that
    received answers since the last tick (two ticks: overlap); a message that waited a whole tick is
    superseded by the next one. The broker being unreachable is logged by the sender."""
    surveys_warm_task.apply_async(kwargs={"within_seconds": 2 * tick}, queue=queue, retry=False, expires=tick)
