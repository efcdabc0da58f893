"""RICA's Joint score (per-probe accuracy on Easy ∪ Hard) and Fig. 5a (accuracy by gold polarity) on
runs made by the evaluation loop: one model's run on a human-verified axiom set (Easy) and on the
human-curated probes (Hard), counted again here prediction by prediction."""

from __future__ import annotations

import pytest

from explorer.panels.runs import compare_panels
from knowledge.models import QuestionSet
from knowledge.services.imports import questions_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.selectors.runs import metric_values
from runs.services import run_create
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


def _run(qset: QuestionSet, backend: str = "random") -> Run:
    run = run_create(question_set=qset, backend=backend, scoring="loglik", seed=5, enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.select_related("question_set").get(pk=run.pk)


def _counts(run: Run) -> tuple[int, int]:
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    return len(preds), sum(p.chosen is not None and p.chosen == p.question.answer_index for p in preds)


def test_joint_panel_and_gold_polarity_accuracy(tmp_path):
    ax = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:8]
    (tmp_path / "ax.jsonl").write_text("\n".join(ax) + "\n")
    cur = shared_file("rica/human_curated_test.tsv").read_text().splitlines()[:41]
    (tmp_path / "cur.tsv").write_text("\n".join(cur) + "\n")
    questions_import(tmp_path / "ax.jsonl", name="rica-easy", fmt="rica-axioms")
    questions_import(tmp_path / "cur.tsv", name="rica-hard", fmt="rica-probes")
    easy, hard = _run(QuestionSet.objects.get(name="rica-easy")), _run(QuestionSet.objects.get(name="rica-hard"))
    (ne, re_), (nh, rh) = _counts(easy), _counts(hard)
    assert ne > 0
    assert nh == 40

    panels = {p.key: p for p in compare_panels([easy, hard])}
    (row,) = panels["rica-joint"].rows
    assert row[2] == pytest.approx(re_ / ne)
    assert row[3] == pytest.approx(rh / nh)
    assert row[4] == pytest.approx((re_ + rh) / (ne + nh))
    assert row[5] == ne + nh
    # another model's run on Hard only: no pair, no second row
    other = _run(QuestionSet.objects.get(name="rica-hard"), backend="random")
    other.model = "another"
    other.save(update_fields=["model"])
    assert len({p.key: p for p in compare_panels([easy, hard, other])}["rica-joint"].rows) == 1

    # Fig. 5a: accuracy over the probes whose gold word is positive / negative, by hand
    preds = list(Prediction.objects.filter(run=hard).select_related("question"))
    by: dict[str, list[bool]] = {"positive": [], "negative": []}
    for p in preds:
        gold = str(p.question.options[p.question.answer_index]).lower()
        pol = "positive" if gold in {"more", "better", "easier", "higher", "larger", "faster"} else None
        pol = pol or ("negative" if gold in {"less", "worse", "harder", "lower", "smaller", "slower"} else None)
        if pol:
            by[pol].append(p.chosen == p.question.answer_index)
    got = {m.name: m.value for m in metric_values([hard], ("accuracy_gold_positive", "accuracy_gold_negative"))}
    assert by["positive"]
    assert by["negative"]
    assert got["accuracy_gold_positive"] == pytest.approx(sum(by["positive"]) / len(by["positive"]))
    assert got["accuracy_gold_negative"] == pytest.approx(sum(by["negative"]) / len(by["negative"]))
