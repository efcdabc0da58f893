"""What a statement run's page computes from a survey's answers (the population report with the
split half, the standings, the raters' M) is cached under the state of those answers
(``SurveyReads.version``): an answer added or withdrawn is on the next view, and the same answers
are served from the cache. Data through the production paths: the demo statements, replay runs,
ratings through the import, an answer withdrawn as the queue's undo withdraws it."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Campaign, Response
from annotation.services.campaigns import campaign_create
from annotation.services.ratings_import import ratings_import
from explorer.panels.statements import statement_run_panels
from knowledge.models import Statement, StatementSet
from knowledge.services.imports import statements_import
from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
N_SURVEYED = 30


def _replay_run(sset: StatementSet, model: str) -> Run:
    run = run_create(statement_set=sset, backend="replay", model=model, scoring="yesno", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == "done"
    return Run.objects.select_related("statement_set").get(pk=run.pk)


def _ratings(camp: Campaign, sset: StatementSet, raters: range) -> None:
    stmts = list(Statement.objects.filter(statement_set=sset).order_by("position")[:N_SURVEYED])
    header = ["rater"] + [f"{s.external_id or s.position}:{q}" for s in stmts for q in ("a", "b")]
    lines = [",".join(header)]
    for r in raters:
        cells = [str((r * 7 + j * (3 + q)) % 3 % 2) for j in range(len(stmts)) for q in (0, 1)]
        lines.append(",".join([f"rater{r}", *cells]))
    ratings_import(camp, "\n".join(lines) + "\n", create_raters=True)


def _figures(run: Run) -> dict[str, object]:
    panels = {p.key: p for p in statement_run_panels(run)}
    return {
        "humans compared": [row[3] for row in panels["human-percentile"].rows],
        "raters' M": [m for _, m in panels["human-distribution"].rows],
        "fidelity": panels["fidelity"].rows,
        "split half": panels["fidelity"].note,
    }


def surveyed_set(models: tuple[str, ...] = ("Mixtral-8x22B", "GPT-4o")) -> tuple[StatementSet, Run, Campaign]:
    """The demo statements, a replay run per model (the first returned) and a survey campaign with
    five raters' answers through the import."""
    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    runs = [_replay_run(sset, m) for m in models]
    camp = campaign_create(name="surv", title="survey", kind="survey", statement_set=sset, redundancy=20)
    _ratings(camp, sset, range(5))
    return sset, runs[0], camp


def test_survey_figures_follow_the_answers_and_are_cached_under_them():
    sset, run, camp = surveyed_set()
    cache.clear()
    five = _figures(run)
    assert five["humans compared"] == [5, 5]
    assert len(five["raters' M"]) == 5

    with CaptureQueriesContext(connection) as ctx:  # the same answers: served from the cache
        assert _figures(run) == five
    read = [q["sql"] for q in ctx.captured_queries]
    assert not any('"annotation_response"."answer"' in q for q in read), "the answers were read again"
    assert not any("SELECT run_id, statement_id, extra" in q for q in read), "the runs' answers were read again"

    _ratings(camp, sset, range(5, 7))  # two more raters come in through the import
    seven = _figures(run)
    assert seven["humans compared"] == [7, 7]
    assert len(seven["raters' M"]) == 7
    assert seven["fidelity"] != five["fidelity"] or seven["split half"] != five["split half"]

    # as many answers as before, but one rater's replaced by another's: the same count, other answers
    Response.objects.filter(campaign=camp, user__username="rater6").delete()
    _ratings(camp, sset, range(7, 8))
    swapped = _figures(run)
    assert swapped["humans compared"] == [7, 7]
    assert swapped["raters' M"] != seven["raters' M"]

    # an early answer withdrawn: the last answer id is the same, the count is not
    Response.objects.filter(campaign=camp, user__username="rater0").order_by("id").first().delete()
    early = _figures(run)
    assert early != swapped

    # one answer withdrawn, as the queue's undo withdraws it (the response row deleted)
    Response.objects.filter(campaign=camp, user__username="rater7").order_by("-id").first().delete()
    assert _figures(run) != early
    Response.objects.filter(campaign=camp, user__username__in=["rater0", "rater5", "rater7"]).delete()
    Assignment.objects.filter(item__campaign=camp, user__username="rater0").delete()
    _ratings(camp, sset, range(1))  # rater0's answers again, as first imported (new ids)
    assert _figures(run) == five  # the first answers again: the same figures
