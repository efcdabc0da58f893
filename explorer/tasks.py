"""Thin Celery wrappers of :mod:`explorer.services`."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task


@shared_task(name="explorer.surveys_warm", ignore_result=True)
def surveys_warm_task(within_seconds: float) -> dict[int, list[int]]:
    from .services import surveys_warm_recent

    return surveys_warm_recent(timedelta(seconds=within_seconds))
