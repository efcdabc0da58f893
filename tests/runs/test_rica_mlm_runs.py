"""RICA end to end: axioms imported from ../shared/data/rica, a novel-entity copy built by
build_rica, both scored by masked-word prediction with a tiny BERT (built from a config, local
tokenizer); Joint score, positivity bias and names vs novel checked against hand counts from the
stored predictions, and the explorer's RICA panels opened with data."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from django.core.management import call_command

from explorer import charts
from explorer.panels.runs import compare_panels, question_run_panels
from knowledge.models import QuestionSet
from knowledge.services.imports import questions_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db
tiny_bert = pytest.importorskip("tests.commonsense.tiny_bert")
POSITIVE = {"more", "better", "easier", "higher", "larger", "faster"}


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_bert.build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def _mlm_run(qset: QuestionSet, model: Path) -> Run:
    run = run_create(question_set=qset, backend="hf", model=str(model), scoring="rica-mlm", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.select_related("question_set").get(pk=run.pk)


def _value(run: Run, name: str) -> float | None:
    return RunMetric.objects.get(run=run, name=name, scope="overall").value


def test_masked_lm_runs_names_vs_novel(bert_dir: Path, tmp_path: Path) -> None:
    lines = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:10]
    (tmp_path / "ax.jsonl").write_text("\n".join(lines) + "\n")
    questions_import(tmp_path / "ax.jsonl", name="rica-ax", fmt="rica-axioms")
    call_command("build_rica", "--set", "rica-ax", "--name", "rica-ax-novel", "--seed", "2")
    names = _mlm_run(QuestionSet.objects.get(name="rica-ax"), bert_dir)
    novel = _mlm_run(QuestionSet.objects.get(name="rica-ax-novel"), bert_dir)
    assert names.scorer_settings["method"] == "rica-mlm"
    per_run = {}
    for run in (names, novel):
        preds = list(Prediction.objects.filter(run=run).select_related("question"))
        by_axiom: dict[str, list[bool]] = defaultdict(list)
        words = []
        for p in preds:
            by_axiom[p.question.group].append(p.chosen == p.question.answer_index)
            words.append(p.question.options[p.chosen])
            assert len(p.scores) == 2
        joint = sum(all(v) for v in by_axiom.values()) / len(by_axiom)
        assert _value(run, "all_perturbations_correct") == pytest.approx(joint)
        assert _value(run, "positivity_bias") == pytest.approx(sum(w in POSITIVE for w in words) / len(words))
        per_run[run.pk] = sum(sum(v) for v in by_axiom.values()) / len(preds)

    (summary,) = [p for p in question_run_panels(names) if p.key == "rica-summary"]
    col = list(summary.columns).index("all perturbations right (axioms)")
    assert not charts.is_empty(summary.figure)
    assert summary.rows[0][col] == pytest.approx(_value(names, "all_perturbations_correct"))
    panels = {p.key: p for p in compare_panels([names, novel])}
    assert not charts.is_empty(panels["rica-summary"].figure)
    assert len(panels["rica-summary"].rows) == 2
    assert [r[2] for r in panels["rica-summary"].rows] == ["as imported", "novel"]
    pair = panels["rica-names-novel"]
    assert not charts.is_empty(pair.figure)
    (row,) = pair.rows
    # every axiom of the source is in the novel copy: the shared-axiom accuracy is each run's accuracy
    assert row[2] == pytest.approx(per_run[names.pk])
    assert row[3] == pytest.approx(per_run[novel.pk])


def test_rica_mlm_needs_the_hf_backend(tmp_path: Path) -> None:
    from django.core.exceptions import ValidationError

    qs = QuestionSet.objects.create(name="r", kind=QuestionSet.Kind.RICA_AXIOMS)
    with pytest.raises(ValidationError, match="rica-mlm"):
        run_create(question_set=qs, backend="random", scoring="rica-mlm", enqueue=False)


def test_masked_lm_run_with_a_tiny_roberta(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """A RoBERTa folder (byte-level BPE, <mask>) through run_create/run_execute: every stored
    candidate score is the model's log-probability of the candidate's "Ġ" pieces at the masks."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tiny_roberta = pytest.importorskip("tests.commonsense.tiny_roberta")
    folder = tiny_roberta.build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"))
    lines = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:2]
    (tmp_path / "ax.jsonl").write_text("\n".join(lines) + "\n")
    questions_import(tmp_path / "ax.jsonl", name="rica-rob", fmt="rica-axioms")
    run = _mlm_run(QuestionSet.objects.get(name="rica-rob"), folder)
    assert run.scorer_settings["architecture"] == "RobertaForMaskedLM"
    tok = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForMaskedLM.from_pretrained(str(folder)).eval()
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) >= 8
    for p in preds:
        pre, _, post = p.question.stem.partition("[MASK]")
        want = []
        for word in p.question.options:
            pieces = tok.convert_tokens_to_ids(tok.tokenize(" " + word))
            before = tok.convert_tokens_to_ids(tok.tokenize(pre.rstrip()))
            ids = [tok.bos_token_id, *before, *[tok.mask_token_id] * len(pieces)]
            ids += [*tok.convert_tokens_to_ids(tok.tokenize(post)), tok.eos_token_id]
            with torch.no_grad():
                logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], dim=-1)
            want.append(sum(float(logp[1 + len(before) + i, t]) for i, t in enumerate(pieces)))
        assert p.scores == pytest.approx(want, abs=1e-4)
        assert p.chosen == max(range(len(want)), key=lambda i: want[i])
