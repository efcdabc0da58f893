"""ReComSBench through the runs app: a hand-made paths file replayed by run_eval (stored d(Q),
metrics checked by hand, the explorer's difficulty windows), the tiny GPT-2 sampling paths
through run_eval, a resumed run equal to an uninterrupted one, and the launch form."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from explorer.selectors import errors as es
from explorer.selectors.difficulty import difficulty_buckets
from runs.evaluation import run_claim, run_execute
from runs.models import Prediction, Run, RunMetric
from runs.reports.run_exports import predictions_jsonl
from runs.selectors.runs import run_metrics_overall
from runs.services import run_create

pytestmark = pytest.mark.django_db(transaction=True)  # run_eval --inline beats from a second thread
PATHS = Path(__file__).parents[1] / "commonsense" / "recoms_paths_demo.jsonl"
TINY_OPTS = {"reasoning_tokens": 10, "extract_tokens": 10, "answer_tokens": 4, "chat": False}


def _run_eval(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    call_command("run_eval", *args, "--inline")
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_replayed_paths_store_difficulty_and_report_the_metrics(csqa_set, researcher, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    m = _run_eval(
        capsys,
        "--set",
        "csqa-demo",
        "--backend",
        "replay",
        "--scoring",
        "recoms",
        "--paths",
        str(PATHS),
        "--limit",
        "4",
    )
    run = Run.objects.get()
    assert run.state == Run.State.DONE
    assert run.scorer_settings["paths_file"] == str(PATHS)
    preds = list(Prediction.objects.filter(run=run).order_by("position"))
    # csqa-demo's first four: work (d 2), magazines (d 1), hamburger (no correct path), farmland (d 0)
    assert [p.extra["difficulty"] for p in preds] == [2, 1, None, 0]
    assert [p.extra["s_star"] for p in preds] == [2, 0, None, 0]
    assert preds[1].extra["k_prior"] == [["bookstore", "sells", "printed works"]]
    assert [p.correct for p in preds] == [False, True, False, True]
    assert not any(p.error for p in preds)
    # by hand (see tests/commonsense/test_recoms_pipeline.py): first solved at sample 2, 1, never, 1
    want = {
        "pass@1": 0.5,
        "pass@2": 0.75,
        "pass@3": 0.75,
        "msg@2": 0.25,
        "msg@3": 0.0,
        "msg_sum": 0.25,
        "accuracy": 0.5,
        "kba": 0.75,
        "accuracy_easy": 1.0,
        "accuracy_hard": 0.0,
        "accuracy_delta": 1.0,
        "kba_easy": 1.0,
        "kba_hard": 1.0,
        "kba_delta": 0.0,
        "kcr_correct": 0.875,
        "kcr_incorrect": 0.0,
        "difficulty": 1.0,
        "difficulty_defined": 0.75,
    }
    assert {k: m[k] for k in want} == pytest.approx(want)
    assert 0.0 < m["kcr_mannwhitney_p"] < 1.0
    assert RunMetric.objects.get(run=run, name="kcr_mannwhitney_p").data["u"] == 8.0
    wins = RunMetric.objects.filter(run=run, name="accuracy", scope__startswith="window=").order_by("scope")
    # the paper's seven windows over N = 3: items 0, 0, 1, 1, 1, 2, 2
    assert [(w.data["d_min"], w.value) for w in wins] == [
        (0, 1.0),
        (0, 1.0),
        (1, 1.0),
        (1, 1.0),
        (1, 1.0),
        (2, 0.0),
        (2, 0.0),
    ]
    # the explorer's windows read the stored d(Q)
    buckets = difficulty_buckets([run], n_buckets=3)[run.pk]
    assert [(b["d_min"], b["n"], b["ok"]) for b in buckets] == [(0, 1, 1), (1, 1, 1), (2, 1, 0)]
    hard = Prediction.objects.filter(es.prediction_filter({"d_min": "1"}), run=run).order_by("position")
    assert [p.position for p in hard] == [preds[0].position, preds[1].position]
    assert Prediction.objects.filter(es.prediction_filter({"d_max": "0"}), run=run).get().pk == preds[3].pk

    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "pass@1" in page
    assert "kcr_correct" in page
    assert "window=3" in page

    # the run's own JSONL export is a paths file: the same metrics again, or a stricter threshold
    export = tmp_path / "export.jsonl"
    export.write_text("".join(predictions_jsonl(run)))
    again = _run_eval(
        capsys,
        "--set",
        "csqa-demo",
        "--backend",
        "replay",
        "--scoring",
        "recoms",
        "--paths",
        str(export),
        "--limit",
        "4",
    )
    assert again == m
    _run_eval(
        capsys,
        "--set",
        "csqa-demo",
        "--backend",
        "replay",
        "--scoring",
        "recoms",
        "--paths",
        str(export),
        "--limit",
        "4",
        "--param",
        'scoring_options={"threshold": 0.95}',
    )
    strict = list(Prediction.objects.filter(run=Run.objects.latest("pk")).order_by("position"))
    # at 0.95 "magazine is a printed work" (0.92 to the question's triple) is new knowledge; "bookstores
    # sell" still merges (0.99) -> magazines d = 2; work keeps d = 2 but path 1 no longer covers it
    assert [p.extra["difficulty"] for p in strict] == [2, 2, None, 0]
    assert [pt["kcr"] for pt in strict[0].extra["paths"]] == [0.0, 0.0, 1.0]


def test_recoms_rejects_backends_without_paths(csqa_set) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="generative model"):
        call_command("run_eval", "--set", "csqa-demo", "--backend", "random", "--scoring", "recoms", "--inline")
    with pytest.raises(CommandError, match="needs a paths file"):
        call_command("run_eval", "--set", "csqa-demo", "--backend", "replay", "--scoring", "recoms", "--inline")
    with pytest.raises(CommandError, match="options of --scoring recoms"):
        call_command("run_eval", "--set", "csqa-demo", "--backend", "random", "--scoring", "loglik", "--samples", "3")


def _expected(preds: list[Prediction]) -> dict[str, float]:
    """The run's metrics recomputed from what each prediction stored."""
    n = len(preds)
    paths = [[pt["correct"] for pt in p.extra["paths"]] for p in preds]
    return {
        "pass@1": sum(c[0] for c in paths) / n,
        "pass@2": sum(any(c[:2]) for c in paths) / n,
        "msg@2": sum(c[1] and not c[0] for c in paths) / n,
        "accuracy": sum(bool(p.correct) for p in preds) / n,
        "kba": sum(bool(p.extra["kba"]["correct"]) for p in preds) / n,
    }


@pytest.mark.slow
def test_tiny_model_run_and_resume(csqa_set, tiny_gpt2: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = [
        "--set",
        "csqa-demo",
        "--backend",
        "hf",
        "--model",
        str(tiny_gpt2),
        "--scoring",
        "recoms",
        "--samples",
        "2",
        "--seed",
        "5",
        "--limit",
        "3",
        "--param",
        "chunk_size=2",
        "--param",
        f"scoring_options={json.dumps(TINY_OPTS)}",
        "--param",
        'backend_options={"dtype": "float32"}',
    ]
    m = _run_eval(capsys, *args)
    ref = Run.objects.get()
    assert ref.state == Run.State.DONE
    assert ref.scorer_settings["k"] == 2
    assert ref.scorer_settings["seed"] == 5
    preds = list(Prediction.objects.filter(run=ref).select_related("question").order_by("position"))
    assert len(preds) == 3
    for p in preds:
        x = p.extra
        assert len(x["paths"]) == 2
        assert x["paths"][0]["greedy"]
        assert x["paths"][1]["seed"] is not None
        assert all(pt["correct"] == (pt["answer"] == p.question.answer_index) for pt in x["paths"])
        assert x["difficulty"] == (len(x["k_prior"]) if any(pt["correct"] for pt in x["paths"]) else None)
        assert p.chosen == x["direct"]["chosen"]
        assert p.completion_tokens > 0
    assert {k: m[k] for k in _expected(preds)} == pytest.approx(_expected(preds))
    assert "pass@3" not in m
    assert {"msg_sum", "kcr_correct", "difficulty_defined"} <= m.keys()

    # the same run again, whose first worker stored two items and died: the resumed attempt samples
    # the third exactly as the uninterrupted run did (seeds from the run seed and the item)
    run = run_create(
        question_set=csqa_set,
        backend="hf",
        model=str(tiny_gpt2),
        scoring="recoms",
        seed=5,
        limit=3,
        params=ref.params,
        enqueue=False,
    )
    assert run_claim(run.pk) is not None
    kept = []
    for p in preds[:2]:
        p.pk, p.run = None, run
        kept.append(p)
    Prediction.objects.bulk_create(kept)
    Run.objects.filter(pk=run.pk).update(state=Run.State.SCORING, heartbeat_at=timezone.now() - timedelta(hours=1))
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    a = Prediction.objects.get(run=ref, position=preds[2].position)
    b = Prediction.objects.get(run=run, position=preds[2].position)
    assert b.extra == a.extra
    assert b.chosen == a.chosen
    assert Prediction.objects.filter(run=run).count() == 3
    assert run_metrics_overall(run) == run_metrics_overall(ref)


@pytest.mark.slow
def test_tiny_model_answers_over_replayed_paths(csqa_set, tiny_gpt2: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """hf + --paths: the file's paths and triples give d(Q) (the "sole basis"); the model, not the
    file, gives the direct and KBA answers."""
    m = _run_eval(
        capsys,
        "--set",
        "csqa-demo",
        "--backend",
        "hf",
        "--model",
        str(tiny_gpt2),
        "--scoring",
        "recoms",
        "--paths",
        str(PATHS),
        "--limit",
        "4",
        "--param",
        f"scoring_options={json.dumps(TINY_OPTS)}",
    )
    preds = list(Prediction.objects.filter(run=Run.objects.get()).order_by("position"))
    assert [p.extra["difficulty"] for p in preds] == [2, 1, None, 0]
    assert all(p.extra["chosen_from"] == "direct" and p.chosen == p.extra["direct"]["chosen"] for p in preds)
    # KBA hints: all generated knowledge (every correct path's new triples), the paper's default
    assert preds[1].extra["kba"]["hints"] == [["bookstore", "sells", "printed works"], ["market", "sells", "food"]]
    assert {k: m[k] for k in ("pass@1", "pass@2", "pass@3", "difficulty")} == pytest.approx(
        {"pass@1": 0.5, "pass@2": 0.75, "pass@3": 0.75, "difficulty": 1.0}
    )
    assert m["accuracy"] == pytest.approx(sum(bool(p.correct) for p in preds) / 4)
    assert m["kba"] == pytest.approx(sum(bool(p.extra["kba"]["correct"]) for p in preds) / 4)


def test_launch_form_takes_samples_and_a_paths_file(researcher, csqa_set, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("runs.tasks.run_execute_task.apply_async", lambda args, queue: None)
    base = {"dataset": "qs:csqa-demo", "backend": "replay", "scoring": "recoms", "seed": 0}
    r = researcher.post(reverse("runs:new"), {**base, "samples": 4, "paths": str(PATHS)})
    run = Run.objects.get()
    assert r.status_code == 302
    assert run.params == {"scoring_options": {"k": 4}, "source": str(PATHS)}
    r = researcher.post(reverse("runs:new"), {**base, "scoring": "loglik", "backend": "random", "samples": 4})
    assert r.status_code == 400
    assert "only for the recoms scoring" in r.content.decode()
