"""Issue 25 item 2: a run's page and its explorer page show the run's accuracy beside the
shortcut baselines of its question set (the set's stored audit)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Run, RunMetric
from runs.selectors.runs import run_beside_baselines
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def test_run_pages_show_the_accuracy_beside_the_baselines(researcher: Client) -> None:
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="atomic", fmt="atomic-tsv")
    qset = question_set_build(graph="atomic", kind="2i", count=10, seed=7, name="com2")
    run = run_create(question_set=qset, backend="random", scoring="loglik", seed=5, enqueue=False)
    assert run_execute(run.pk) == Run.State.DONE
    run = Run.objects.get(pk=run.pk)
    rows = run_beside_baselines(run)
    acc = RunMetric.objects.get(run=run, name="accuracy", scope="overall")
    assert rows[0]["model"]
    assert rows[0]["value"] == acc.value
    assert rows[0]["n"] == acc.n
    audit = qset.quality["shortcuts"]
    by_label = {r["label"]: r for r in rows if not r["model"]}
    at = by_label["answer type (option form vs the relation asked)"]
    assert at["value"] == audit["answer_type"]["value"]
    assert at["n"] == audit["answer_type"]["n"]
    assert "gold position (held-out majority letter)" in by_label
    for url in (reverse("runs:detail", args=[run.pk]), reverse("explorer:run_errors", args=[run.pk])):
        page = researcher.get(url).content.decode()
        assert "Beside the shortcut baselines" in page, url
        assert "this run: accuracy" in page, url
        assert "answer type (option form vs the relation asked)" in page
    # a set without an audit (stored before issue 25): no table, no error
    qset.quality = {}
    qset.save(update_fields=["quality"])
    assert run_beside_baselines(Run.objects.get(pk=run.pk)) == []
    assert "Beside the shortcut baselines" not in researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
