"""Curriculum fine-tuning as a job (issue 28 item 2): Reason-CL ordered by a ReComSBench run's d(Q),
LoRA on the tiny GPT-2 through peft, the lease's progress, a worker killed mid-training and the
job taken over from its checkpoint (the same adapter as an uninterrupted job), and Table 3's rows
from ReComSBench runs of the base and the fine-tuned model."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from runs import finetune as F
from runs.evaluation import run_execute
from runs.models import FineTune, Run, RunMetric
from runs.selectors.runs import table3_rows
from runs.services import run_create

pytestmark = pytest.mark.django_db
PATHS = Path(__file__).parents[1] / "commonsense" / "recoms_paths_demo.jsonl"
TINY_OPTS = {"reasoning_tokens": 8, "extract_tokens": 8, "answer_tokens": 4, "chat": False}


@pytest.fixture
def difficulty_run(csqa_set) -> Run:  # type: ignore[no-untyped-def]
    run = run_create(
        question_set=csqa_set, backend="replay", scoring="recoms", params={"source": str(PATHS)}, limit=4, enqueue=False
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.get(pk=run.pk)


def _job(name: str, csqa_set: Any, tiny_gpt2: Path, run: Run) -> FineTune:
    params = {"limit": 4, "batch_size": 1, "checkpoint_every": 1, "r": 4, "alpha": 8, "lr": 0.01}
    return F.finetune_create(
        name=name,
        question_set=csqa_set,
        base_model=str(tiny_gpt2),
        strategy="reason-cl",
        difficulty_run=run,
        params=params,
    )


def test_reason_cl_job_resumes_after_a_killed_worker(csqa_set, tiny_gpt2, difficulty_run, settings, tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_FINETUNE_DIR = tmp_path / "ft"
    whole = _job("whole", csqa_set, tiny_gpt2, difficulty_run)
    assert F.finetune_execute(whole.pk, heartbeat=False) == FineTune.State.DONE
    whole.refresh_from_db()
    # d(Q) of the first four questions: 2, 1, none, 0 -> three items, levels 0 -> 1 -> 2 (Eq. 7)
    assert whole.curriculum["levels"] == {"0": 1, "1": 1, "2": 1}
    assert whole.curriculum["without_difficulty"] == 1
    assert (whole.steps_done, whole.steps_total, len(whole.losses)) == (3, 3, 3)
    assert (Path(whole.output_dir) / "config.json").exists()
    assert whole.attempts == 1

    killed = _job("killed", csqa_set, tiny_gpt2, difficulty_run)
    real = F.lease_write

    class WorkerKilled(BaseException):  # SIGKILL: nothing of the loop runs after it
        pass

    def kill_at_step_2(model: Any, pk: int, token: Any, **fields: Any) -> None:
        real(model, pk, token, **fields)
        if fields.get("steps_done") == 2:
            raise WorkerKilled

    F.lease_write = kill_at_step_2  # type: ignore[assignment]
    try:
        with pytest.raises(WorkerKilled):
            F.finetune_execute(killed.pk, heartbeat=False)
    finally:
        F.lease_write = real  # type: ignore[assignment]
    killed.refresh_from_db()
    assert killed.state == FineTune.State.TRAINING
    assert killed.steps_done == 2
    assert F.finetune_execute(killed.pk, heartbeat=False) == FineTune.State.TRAINING  # a live lease is left alone
    FineTune.objects.filter(pk=killed.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert F.finetune_execute(killed.pk, heartbeat=False) == FineTune.State.DONE  # taken over
    killed.refresh_from_db()
    assert killed.attempts == 2
    assert killed.resumed_from == 2
    assert killed.losses == pytest.approx(whole.losses, rel=1e-5)
    from safetensors.torch import load_file

    a = load_file(str(Path(whole.output_dir).parent / "adapter" / "adapter_model.safetensors"))
    b = load_file(str(Path(killed.output_dir).parent / "adapter" / "adapter_model.safetensors"))
    assert all(a[k].allclose(b[k], atol=1e-6) for k in a)

    # Table 3: ReComSBench runs of the base and of the fine-tuned model, over the replayed paths
    for model in (str(tiny_gpt2), whole.output_dir):
        run = run_create(
            question_set=csqa_set,
            backend="hf",
            model=model,
            scoring="recoms",
            params={"source": str(PATHS), "scoring_options": TINY_OPTS},
            limit=4,
            enqueue=False,
        )
        assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    rows = {r[0]: r for r in table3_rows(list(Run.objects.all()))}
    assert set(rows) == {"Base", "Reason-CL (whole)"}  # the latest run per (method, set)
    tuned = Run.objects.get(model=whole.output_dir)
    acc = RunMetric.objects.get(run=tuned, name="accuracy", scope="overall").value
    assert rows["Reason-CL (whole)"][2] == pytest.approx(acc)


def test_levels_exported_as_training_splits(csqa_set, difficulty_run, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    call_command(
        "finetune", "--set", "csqa-demo", "--model", "x", "--strategy", "reason-cl", "--name", "x",
        "--difficulty-run", str(difficulty_run.pk), "--export-levels", str(tmp_path / "levels"),
    )  # fmt: skip
    assert json.loads(capsys.readouterr().out)["levels"] == {"0": 1, "1": 1, "2": 1}
    rows = {p.name: [json.loads(x) for x in p.read_text().splitlines()] for p in (tmp_path / "levels").iterdir()}
    assert sorted(rows) == ["level-0.jsonl", "level-1.jsonl", "level-2.jsonl"]
    assert rows["level-1.jsonl"][0]["difficulty"] == 1
    assert rows["level-1.jsonl"][0]["prompt"].startswith("Question:")
    assert not FineTune.objects.exists()


def test_finetune_command_refusals(csqa_set, tiny_gpt2, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="Reason-CL needs --difficulty-run"):
        call_command(
            "finetune", "--set", "csqa-demo", "--model", str(tiny_gpt2), "--strategy", "reason-cl", "--name", "x"
        )
    with pytest.raises(CommandError, match="not a model this installation can run"):
        call_command("finetune", "--set", "csqa-demo", "--model", "/etc", "--strategy", "random", "--name", "x")
    with pytest.raises(CommandError, match="unknown fine-tune parameter"):
        call_command(
            "finetune",
            "--set",
            "csqa-demo",
            "--model",
            str(tiny_gpt2),
            "--strategy",
            "random",
            "--name",
            "x",
            "--param",
            "rank=4",
        )
    assert not FineTune.objects.exists()


def test_random_job_through_the_command(csqa_set, tiny_gpt2, settings, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_FINETUNE_DIR = tmp_path / "ft"
    call_command(
        "finetune", "--set", "csqa-demo", "--model", str(tiny_gpt2), "--strategy", "random", "--name", "rnd",
        "--limit", "3", "--param", "batch_size=2", "--inline",
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == "done"
    assert out["steps"] == 2
    assert Path(out["model"]).is_dir()
