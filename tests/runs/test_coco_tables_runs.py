"""CoCo on a set built from the ATOMIC demo graph: the five-metric Average and the ↑/↓ marks
stored with a run's metrics; error categories of a generative run (a tiny GPT-2 writes the answers)
by the rule, a reviewer's override through the review page, and the explorer panel with data."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from commonsense.metrics.coco_tables import error_category
from explorer import charts
from explorer.panels.runs import question_run_panels
from knowledge.models import QuestionSet
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def coco(db: None) -> QuestionSet:
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="atomic", fmt="atomic-tsv")
    return coco_build(
        graph="atomic", seed=7, name="coco", abstract=FIXTURES / "abstract_demo.tsv", per_relation=20, per_kind=30
    )


def _m(run: Run, name: str, scope: str = "overall") -> RunMetric:
    return RunMetric.objects.get(run=run, name=name, scope=scope)


def test_average_and_marks_of_a_run(coco: QuestionSet) -> None:
    run = run_create(question_set=coco, backend="random", scoring="loglik", seed=5, enqueue=False)
    assert run_execute(run.pk) == Run.State.DONE
    five = [_m(run, "MEM").value, _m(run, "COM").value]
    five += [_m(run, f"{k}_macro", "aspect").value for k in ("REA", "FAI", "APP")]
    avg = _m(run, "coco_average").value
    if None in five:  # a query kind with no reasoning question right leaves FAI undefined
        assert avg is None
    else:
        assert avg == pytest.approx(sum(five) / 5)  # type: ignore[arg-type]
    marked = RunMetric.objects.filter(run=run, name="MEM", scope__startswith="aspect=")
    assert marked.exists()
    for r in marked:
        want = "↑" if r.value > five[0] else "↓" if r.value < five[0] else "="
        assert r.data["vs_overall"] == want


def test_error_categories_rule_override_and_panel(coco: QuestionSet, tiny_gpt2: Path) -> None:
    run = run_create(
        question_set=coco,
        backend="hf",
        model=str(tiny_gpt2),
        scoring="generate",
        limit=12,
        params={"scoring_options": {"chat": False, "max_new_tokens": 6}},
        enqueue=False,
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    rule = [error_category(p.chosen, p.question.answer_index, p.raw_output) for p in preds]
    assert [p.extra["error_category"] for p in preds] == rule
    wrong = [r for r in rule if r]
    assert wrong, "a tiny random model must get some wrong"
    for c in ("No Answer", "Hallucination", "Reasoning Error"):
        assert _m(run, "error_share", f"category={c}").n == wrong.count(c)

    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    client = Client()
    client.login(username="res", password="pw-long-enough-123")
    page = client.get(reverse("runs:error_review", args=[run.pk])).content.decode()
    target = next(p for p, r in zip(preds, rule, strict=True) if r)
    assert f'action="{reverse("runs:prediction_error_category", args=[run.pk, target.pk])}"' in page
    url = reverse("runs:prediction_error_category", args=[run.pk, target.pk])
    assert client.post(url, {"category": "Metric Limit"}).status_code == 302
    assert _m(run, "error_share", "category=Metric Limit").n == 1
    assert client.post(url, {"category": "Nonsense"}).status_code == 400
    (panel,) = [p for p in question_run_panels(run) if p.key == "error-categories"]
    assert not charts.is_empty(panel.figure)
    assert ("Metric Limit", 1) in [(r[1], r[2]) for r in panel.rows]
