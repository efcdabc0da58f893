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
