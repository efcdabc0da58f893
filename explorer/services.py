"""Writes of the explorer: the aggregates of finished runs and of surveys, computed ahead of the
first view and kept in the cache and the database (:mod:`explorer.selectors.run_aggregates`)."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from typing import Any

from django.apps import apps
from django.core.cache import cache
from django.db.models import Exists, OuterRef
from django.utils import timezone

from .selectors.run_aggregates import TTL, code_version

log = logging.getLogger(__name__)
WARM_RUNS_PER_SET = 5  # a survey's figures are computed ahead for the newest finished runs on its set


def run_aggregates_warm(run_id: int, **_: Any) -> None:
    """Compute a finished run's aggregates as its pages compute them (the run's page builds every
    one of them; the compare page reads the same entries run by run), so that the first view of the
    run is served them from the cache or the database. Connected to ``runs.signals.run_finished``:
    the worker that ran the run does it when the run ends."""
    from explorer.panels.nww_population import silicon_report
    from explorer.panels.runs import question_run_panels
    from explorer.panels.statements import statement_run_panels
    from explorer.selectors import errors as es  # the panels import plotly: not at start-up

    run = es.runs_with_sets().filter(pk=run_id).first()
    if run is None or not run.is_finished or run.finished_at is None:
        return
    if run.is_statement_run:
        statement_run_panels(run)
        silicon_report(run)  # a compare page shows every run but the first without the survey
    else:
        question_run_panels(run)
        if run.question_set is not None and run.question_set.kind.startswith("rica"):
            es.rica_axiom_counts(run)  # what a compare page of names vs novel entities reads per run


def survey_aggregates_warm(statement_set_id: int) -> list[int]:
    """Compute what the pages of the newest finished runs on this statement set compute from its
    survey's answers (the population report, the standings among the humans, the raters' M) under
    the answers' present state; returns the runs' ids ([] when that state was computed before by
    any process sharing the cache, or the set has no survey campaign). Figures already kept for
    that state are read, not computed again."""
    from explorer.panels.statements import statement_run_panels
    from explorer.selectors import errors as es

    from .selectors.sources import SurveyReads

    StatementSet = apps.get_model("knowledge", "StatementSet")
    version = SurveyReads(StatementSet(pk=statement_set_id)).version
    if not version:
        return []
    state = hashlib.sha256(f"{code_version()}|{version}".encode()).hexdigest()
    done = f"explorer:survey-warmed:{statement_set_id}:{state}"
    if not cache.add(done, True, TTL):
        return []  # this state was computed (or is being computed) by another tick
    try:
        runs = list(
            es.runs_with_sets()
            .filter(statement_set_id=statement_set_id, finished_at__isnull=False)
            .order_by("-finished_at", "-pk")[: WARM_RUNS_PER_SET * 4]
        )
        runs = [r for r in runs if r.is_finished][:WARM_RUNS_PER_SET]
        for run in runs:
            statement_run_panels(run)
    except BaseException:
        cache.delete(done)  # the next tick tries again
        raise
    return [r.pk for r in runs]


def surveys_warm_recent(within: timedelta) -> dict[int, list[int]]:
    """:func:`survey_aggregates_warm` for every statement set whose survey campaigns received an
    answer within ``within`` (the crowd's answers, an import): {statement set id: run ids}. Sent by
    the housekeeping worker's timer (runs.tasks.HousekeepingTicker), so that a survey's figures
    follow its answers without a view paying for them; an answer withdrawn is computed at the next
    view."""
    if not apps.is_installed("annotation"):
        return {}
    Campaign = apps.get_model("annotation", "Campaign")
    Response = apps.get_model("annotation", "Response")
    recent = Response.objects.filter(campaign=OuterRef("pk"), created_at__gte=timezone.now() - within)
    sets = (
        Campaign.objects.filter(kind="survey", statement_set__isnull=False)
        .filter(Exists(recent))  # per campaign, on the index (campaign, created_at)
        .values_list("statement_set_id", flat=True)
        .distinct()
    )
    done = {}
    for set_id in sorted(set(sets)):
        try:
            done[set_id] = survey_aggregates_warm(set_id)
        except Exception:  # one set's failure leaves the others warmed; its page computes on view
            log.exception("could not compute the survey figures of statement set %s", set_id)
    return {k: v for k, v in done.items() if v}
