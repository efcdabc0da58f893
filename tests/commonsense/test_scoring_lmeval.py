"""lm-evaluation-harness on the tiny GPT-2: its real samples_*.jsonl replays, and cocoweb's loglik
makes the same acc / acc_norm choices (float32)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commonsense.scoring.replay import LmEvalSamplesReplay, make_replay
from commonsense.scoring.types import Item
from tests.conftest import shared_file

pytestmark = pytest.mark.slow

TASK = """task: tiny_csqa
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
validation_split: validation
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{choices.label.index(answerKey)}}}}"
doc_to_choice: "{{{{choices.text}}}}"
metric_list:
  - metric: acc
  - metric: acc_norm
"""


def test_lmeval_samples_file_replays_and_matches_cocoweb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_gpt2: Path
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.loglik import LoglikScorer

    rows = [json.loads(x) for x in shared_file("commonsenseqa_dev/dev_rand_split.jsonl").read_text().splitlines()[:12]]
    data = tmp_path / "csqa.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "tiny_csqa.yaml").write_text(TASK.format(data=data))
    model_dir = tiny_gpt2
    lm = HFLM(pretrained=str(model_dir), dtype="float32", batch_size=4, device="cpu")
    res = simple_evaluate(
        model=lm,
        tasks=["tiny_csqa"],
        task_manager=TaskManager(include_path=str(tasks)),
        log_samples=True,
        verbosity="ERROR",
    )
    tracker = EvaluationTracker(output_path=str(tmp_path / "out" / "results.json"))
    tracker.date_id = "2025-01-01T00-00-00"
    tracker.save_results_samples(task_name="tiny_csqa", samples=res["samples"]["tiny_csqa"])
    files = list((tmp_path / "out").rglob("samples_tiny_csqa_*.jsonl"))
    assert len(files) == 1

    replay = make_replay(files[0])
    assert isinstance(replay, LmEvalSamplesReplay)
    items = [Item(id=r["id"], question=r["question"], options=tuple(r["choices"]["text"])) for r in rows]
    replayed = replay.score_batch(items)
    ours = LoglikScorer(HFBackend(model_dir, dtype="float32")).score_batch(items)
    gold = [r["choices"]["label"].index(r["answerKey"]) for r in rows]
    for rep, own, g in zip(replayed, ours, gold, strict=True):
        assert rep.error is None
        assert float(rep.chosen == g) == rep.extra["lmeval_acc"]  # replay re-derives lm-eval's own metrics
        assert float(rep.chosen_norm == g) == rep.extra["lmeval_acc_norm"]
        assert (own.chosen, own.chosen_norm) == (rep.chosen, rep.chosen_norm)
        assert own.scores == pytest.approx(rep.scores, abs=1e-4)
