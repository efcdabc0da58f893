"""The hf backend end to end through run_eval: a tiny GPT-2 (built from a config with a locally
trained tokenizer) loaded from a folder, scoring the demo CommonsenseQA questions (loglik) and the
demo statements (yesno)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from runs.models import Prediction, Run

pytestmark = pytest.mark.django_db(transaction=True)  # run_eval --inline beats from a second thread
factory = pytest.importorskip("commonsense.scoring.factory", reason="commonsense.scoring has no factory yet")


def _run_eval(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, float]:
    call_command("run_eval", *args, "--inline")
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_loglik_on_questions(csqa_set, tiny_gpt2: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    metrics = _run_eval(
        capsys,
        "--set",
        "csqa-demo",
        "--backend",
        "hf",
        "--model",
        str(tiny_gpt2),
        "--scoring",
        "loglik",
        "--limit",
        "24",
        "--param",
        "chunk_size=8",
    )
    run = Run.objects.get()
    assert run.state == Run.State.DONE
    assert run.scorer_settings.get("method") == "loglik"
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) == 24
    for p in preds:
        assert len(p.scores) == len(p.question.options)
        assert p.chosen == max(range(len(p.scores)), key=p.scores.__getitem__)
        assert p.chosen_norm is not None
        assert p.norm_scores is not None
    assert metrics["accuracy"] == pytest.approx(sum(p.chosen == p.question.answer_index for p in preds) / 24)
    assert metrics["accuracy_norm"] == pytest.approx(sum(p.chosen_norm == p.question.answer_index for p in preds) / 24)


def test_yesno_on_statements(statement_set, tiny_gpt2: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    metrics = _run_eval(
        capsys,
        "--set",
        "statements-demo",
        "--backend",
        "hf",
        "--model",
        str(tiny_gpt2),
        "--scoring",
        "yesno",
        "--limit",
        "30",
        "--param",
        'scoring_options={"chat": false}',
    )
    run = Run.objects.get()
    preds = list(Prediction.objects.filter(run=run).select_related("statement"))
    assert len(preds) == 30
    p_yes = [p.extra["q1"]["p_yes"] for p in preds]
    assert all(0.0 <= p <= 1.0 for p in p_yes)
    consensus = sum(int(p >= 0.5) == s.statement.human_majority for p, s in zip(p_yes, preds, strict=True)) / 30
    assert metrics["consensus"] == pytest.approx(consensus)
    assert 0.0 <= metrics["commonsensicality"] <= 1.0
