"""Empty states say what a figure needs and what there is (issue 14, bug 6): a statement run
whose survey has answers from one rater does not claim there are no survey answers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from knowledge.models import StatementSet
from knowledge.services.imports import statements_import
from runs.evaluation import run_execute
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def test_one_rater_survey_says_how_many_raters_the_figure_needs(researcher) -> None:  # type: ignore[no-untyped-def]
    from accounts.services import user_create_with_role

    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    run = run_create(statement_set=sset, backend="replay", model="Mixtral-8x22B", scoring="yesno", enqueue=False)
    run_execute(run.pk, heartbeat=False)
    url = reverse("explorer:run_errors", args=[run.pk])
    assert "No survey answers on this statement set yet" in researcher.get(url).content.decode()  # no campaign at all
    survey = campaign_status_set(
        campaign_create(name="s", title="S", kind="survey", statement_set=sset, redundancy=5), "open"
    )
    page = researcher.get(url).content.decode()
    assert "The survey campaign s has no answers yet." in page
    solo = user_create_with_role("solo", "annotator", "pw-long-enough-123")
    for _ in range(3):
        item = queue.next_step(survey, solo).assignment.item
        queue.response_submit(item, solo, {"agree": 1, "predict": 0})
    page = researcher.get(url).content.decode()
    assert "No survey answers on this statement set yet" not in page
    assert "needs at least 2 raters" in page
    assert "survey campaign s has 1 rater so far" in page
