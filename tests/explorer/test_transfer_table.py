"""COM2 Table 2's view (issue 28 item 3): the hand-written transfer fixtures imported by the
import command (labels read from the official ``-labels.lst`` beside each file), one model run on
each through the evaluation loop, and the compare view's table holding each run's accuracy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from explorer.panels.runs import compare_panels
from knowledge.models import QuestionSet
from runs.evaluation import run_execute
from runs.models import Run, RunMetric
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
HERE = Path(__file__).parents[1] / "commonsense" / "transfer_fixtures"
FILES = {"anli": "anli-dev", "piqa": "piqa-valid", "siqa": "siqa-dev", "winogrande": "winogrande-dev"}


def test_transfer_table_across_the_sets(tmp_path: Path) -> None:
    runs = []
    for fmt, stem in FILES.items():
        for f in HERE.glob(f"{stem}*"):
            shutil.copy(f, tmp_path / f.name)
        call_command("import_questions", str(tmp_path / f"{stem}.jsonl"), "--name", fmt, "--format", fmt)
        qset = QuestionSet.objects.get(name=fmt)
        assert list(qset.questions.order_by("position").values_list("answer_index", flat=True)) == [0, 1]
    call_command("import_questions", str(FIXTURES / "csqa_demo.jsonl"), "--name", "csqa", "--format", "csqa")
    for name in (*FILES, "csqa"):
        run = run_create(question_set=QuestionSet.objects.get(name=name), backend="random", scoring="loglik", seed=1)
        assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
        runs.append(Run.objects.select_related("question_set").get(pk=run.pk))
    (panel,) = [p for p in compare_panels(runs) if p.key == "transfer-table"]
    chance, row = panel.rows
    assert chance[0] == "random (chance)"
    assert chance[1:6] == pytest.approx((0.5, 0.2, 0.5, 1 / 3, 0.5))
    acc = {r.question_set.name: RunMetric.objects.get(run=r, name="accuracy", scope="overall").value for r in runs}
    assert row[1:6] == pytest.approx(tuple(acc[c] for c in ("anli", "csqa", "piqa", "siqa", "winogrande")))
    assert row[6] == pytest.approx(sum(row[1:6]) / 5)
    assert row[7] is None
    assert panel.columns[-2:] == ["Avg", "COM2 (in-domain)"]
