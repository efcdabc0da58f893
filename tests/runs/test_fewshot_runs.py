"""Few-shot and letter-logit runs on the demo CommonsenseQA questions with a tiny GPT-2 (built from
a config): exemplars drawn from the chosen set with the run's seed, never the item itself, stored on
each prediction; the same seed draws the same exemplars."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.models import QuestionSet
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def _run(qset: QuestionSet, model: Path, scoring: str, seed: int, **opts: object) -> Run:
    run = run_create(
        question_set=qset,
        backend="hf",
        model=str(model),
        scoring=scoring,
        seed=seed,
        limit=6,
        params={"scoring_options": {"chat": False, **opts}},
        enqueue=False,
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.get(pk=run.pk)


def test_letter_logit_eight_shot(csqa_set: QuestionSet, tiny_gpt2: Path) -> None:
    run = _run(csqa_set, tiny_gpt2, "letter", 3, shots=8, exemplar_set="csqa-demo")
    assert run.scorer_settings["method"] == "letter"
    assert run.scorer_settings["shots"] == 8
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) == 6
    for p in preds:
        ex = p.extra["exemplars"]
        assert len(ex) == 8
        assert str(p.question_id) not in ex
        assert len(p.scores) == len(p.question.options)
        assert p.chosen == max(range(5), key=p.scores.__getitem__)
    again = _run(csqa_set, tiny_gpt2, "letter", 3, shots=8, exemplar_set="csqa-demo")
    other = _run(csqa_set, tiny_gpt2, "letter", 4, shots=8, exemplar_set="csqa-demo")
    ex = lambda r: [p.extra["exemplars"] for p in Prediction.objects.filter(run=r).order_by("position")]  # noqa: E731
    assert ex(again) == ex(run)
    assert ex(other) != ex(run)


def test_one_shot_cot_generation(csqa_set: QuestionSet, tiny_gpt2: Path) -> None:
    run = _run(csqa_set, tiny_gpt2, "cot", 1, shots=1, reasoning_tokens=8)
    assert run.scorer_settings["cot"] is True
    assert run.scorer_settings["exemplar_set"] == "csqa-demo"
    for p in Prediction.objects.filter(run=run):
        assert len(p.extra["exemplars"]) == 1
        assert str(p.question_id) not in p.extra["exemplars"]
