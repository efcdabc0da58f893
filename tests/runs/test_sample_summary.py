"""A finished run's sample-viewer counts kept on the run (Run.sample_summary, issue 32 item 3): computed
once as the run ends, served while the run keeps the state and finish time they were read in, read
again when it changes (a resume, a re-scored item); and the viewer's statement count."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from runs.models import Prediction, Run
from runs.selectors.samples import run_summary
from tests.runs.test_samples import com2_run  # noqa: F401  (a finished 60-question COM2 run, through run_execute)

pytestmark = pytest.mark.django_db


def _stored_n(html: str) -> int:
    found = re.search(r"<strong>([\d,]+)</strong> prediction", html)
    assert found, "no prediction count on the page"
    return int(found.group(1).replace(",", ""))


def _prediction_reads(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if "GROUP BY" in q["sql"] and "runs_prediction" in q["sql"]]


def test_the_run_end_keeps_the_summary_and_the_viewer_reads_it(researcher: Client, com2_run: Run) -> None:  # noqa: F811
    assert com2_run.sample_summary is not None  # run_finished -> run_summary_warm
    assert com2_run.sample_summary["stamp"].startswith("done|")
    url = reverse("runs:samples", args=[com2_run.pk])
    with CaptureQueriesContext(connection) as ctx:
        html = researcher.get(url, {"correct": "0"}).content.decode()
    assert not _prediction_reads(ctx)  # counts from the run, not aggregated again
    assert len(ctx.captured_queries) <= 7
    assert _stored_n(html) == Prediction.objects.filter(run=com2_run, correct=False).count()
    # what is shown is what is stored: a planted summary of the run's present state is served as is
    planted = {**com2_run.sample_summary, "groups": [{**com2_run.sample_summary["groups"][0], "n": 12345}]}
    Run.objects.filter(pk=com2_run.pk).update(sample_summary=planted)
    assert _stored_n(researcher.get(url).content.decode()) == 12345


def test_a_summary_of_another_state_is_never_served(researcher: Client, com2_run: Run) -> None:  # noqa: F811
    url = reverse("runs:samples", args=[com2_run.pk])
    total = Prediction.objects.filter(run=com2_run).count()
    stale = {**com2_run.sample_summary, "groups": [{**com2_run.sample_summary["groups"][0], "n": 12345}]}
    stale["stamp"] = "done|2001-01-01T00:00:00+00:00"  # read before the run's last finish
    Run.objects.filter(pk=com2_run.pk).update(sample_summary=stale)
    assert _stored_n(researcher.get(url).content.decode()) == total
    assert Run.objects.get(pk=com2_run.pk).sample_summary["groups"] != stale["groups"]  # read again and kept


def test_a_resumed_run_is_counted_afresh_and_kept_again_when_it_ends(researcher: Client, com2_run: Run) -> None:  # noqa: F811
    url = reverse("runs:samples", args=[com2_run.pk])
    total = Prediction.objects.filter(run=com2_run).count()
    assert _stored_n(researcher.get(url).content.decode()) == total
    # resumed: running again, some items scored anew (their former predictions gone)
    Run.objects.filter(pk=com2_run.pk).update(state=Run.State.SCORING)
    Prediction.objects.filter(run=com2_run, position__gte=50).delete()
    with CaptureQueriesContext(connection) as ctx:
        assert _stored_n(researcher.get(url).content.decode()) == 50
    assert _prediction_reads(ctx)  # a running run is aggregated on every view
    assert sum(g["n"] for g in Run.objects.get(pk=com2_run.pk).sample_summary["groups"]) == total  # not written
    # it ends again, later: the summary of its new predictions is kept under the new finish
    run = Run.objects.get(pk=com2_run.pk)
    Run.objects.filter(pk=run.pk).update(state=Run.State.DONE, finished_at=run.finished_at + timedelta(minutes=5))
    assert _stored_n(researcher.get(url).content.decode()) == 50
    kept = Run.objects.get(pk=run.pk)
    assert kept.sample_summary["stamp"] == f"done|{kept.finished_at.isoformat()}"
    assert sum(g["n"] for g in kept.sample_summary["groups"]) == 50


def test_the_summary_counts_what_the_predictions_say(com2_run: Run) -> None:  # noqa: F811
    Run.objects.filter(pk=com2_run.pk).update(sample_summary=None)
    run = Run.objects.get(pk=com2_run.pk)
    groups = run_summary(run)["groups"]
    preds = Prediction.objects.filter(run=run)
    assert sum(g["n"] for g in groups) == preds.count()
    assert sum(g["ok"] for g in groups) == preds.filter(correct=True).count()
    assert sum(g["scored"] for g in groups) == preds.exclude(correct=None).count()
    for kind in {p.item_kind for p in preds}:
        assert sum(g["n"] for g in groups if g["item_kind"] == kind) == preds.filter(item_kind=kind).count()


@pytest.mark.parametrize(
    "params",
    [{}, {"page": "last"}, {"correct": "0", "page": "2"}, {"relation": "xWant", "kind": "2i"}, {"q": "Person"}],
)
def test_every_viewer_page_within_seven_statements(researcher: Client, com2_run: Run, params: dict) -> None:  # noqa: F811
    """Session, user, run, stored headline metric, the page's positions and its rows (+1 on the first
    view of a finished run without a summary)."""
    url = reverse("runs:samples", args=[com2_run.pk])
    with CaptureQueriesContext(connection) as ctx:
        assert researcher.get(url, params).status_code == 200
    assert len(ctx.captured_queries) <= 7, [q["sql"][:120] for q in ctx.captured_queries]
