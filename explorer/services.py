"""Writes of the explorer: it keeps no rows of its own, only the cache of finished runs'
aggregates (:mod:`explorer.selectors.run_aggregates`)."""

from __future__ import annotations

from typing import Any


def run_aggregates_warm(run_id: int, **_: Any) -> None:
    """Compute a finished run's cached aggregates as its pages compute them (the run's page builds
    every one of them; the compare page reads the same entries run by run), so that the first view
    of the run is served from the cache. Connected to ``runs.signals.run_finished``: the worker that
    ran the run does it when the run ends, which helps the web processes when the cache is shared
    (Redis, as in production; not the per-process local-memory default)."""
    from .selectors import errors as es  # the panels import plotly: not at start-up
    from .views.run_panels import question_run_panels, statement_run_panels

    run = es.runs_with_sets().filter(pk=run_id).first()
    if run is None or not run.is_finished or run.finished_at is None:
        return
    if run.is_statement_run:
        statement_run_panels(run)
    else:
        question_run_panels(run)
