"""The evaluation loop: replayed answers, resume without duplicates, cancel, leases."""

from __future__ import annotations

import csv
import math
from datetime import timedelta

import pytest
from django.utils import timezone

from runs.evaluation import run_claim, run_execute
from runs.models import Prediction, Run, RunMetric
from runs.selectors.runs import run_metrics_overall
from runs.services import run_cancel, run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def _expected_nww(model: str) -> tuple[float, float, float]:
    """Consensus / awareness / commonsensicality straight from the CSV columns (NWW Eqs. 9-11)."""
    with open(FIXTURES / "statements_demo.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    c = sum(r[f"{model}_q1"] == r["human_q1"] for r in rows) / len(rows)
    a = sum(r[f"{model}_q2"] == r["human_q1"] for r in rows) / len(rows)
    return c, a, math.sqrt(c * a)


def _run(statement_set, model="Mixtral-8x22B", **params):  # type: ignore[no-untyped-def]
    return run_create(
        statement_set=statement_set, backend="replay", model=model, scoring="yesno", params=params, enqueue=False
    )


@pytest.mark.parametrize("model", ["Mixtral-8x22B", "Flan-T5-Small"])
def test_replay_gives_the_csv_columns_metrics(statement_set, model) -> None:  # type: ignore[no-untyped-def]
    run = _run(statement_set, model, chunk_size=128)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    run.refresh_from_db()
    assert run.items_done == run.items_total == 1000
    assert [p[0] for p in run.phases] == ["queued", "loading", "scoring", "metrics", "done"]
    m = run_metrics_overall(run)
    c, a, cs = _expected_nww(model)
    assert m["consensus"] == pytest.approx(c)
    assert m["awareness"] == pytest.approx(a)
    assert m["commonsensicality"] == pytest.approx(cs)
    overall = RunMetric.objects.get(run=run, name="consensus", scope="overall")
    assert overall.ci_low < overall.value < overall.ci_high
    assert overall.n == 1000
    # by feature: both poles of each of the six features, their n adding up to the whole set
    poles = RunMetric.objects.filter(run=run, name="consensus", scope__startswith="feature:behavior=")
    assert sorted(p.scope for p in poles) == ["feature:behavior=0", "feature:behavior=1"]
    assert sum(p.n for p in poles) == 1000


def test_resume_skips_stored_items_and_never_duplicates(statement_set) -> None:  # type: ignore[no-untyped-def]
    ref = _run(statement_set, chunk_size=100)
    run_execute(ref.pk, heartbeat=False)
    run = _run(statement_set, chunk_size=100)
    token = run_claim(run.pk)
    assert token is not None
    # a first attempt stored 250 items, then its worker died (heartbeat stops)
    full = list(Prediction.objects.filter(run=ref).order_by("position")[:250])
    kept = []
    for p in full:
        p.pk, p.run = None, run
        kept.append(p)
    Prediction.objects.bulk_create(kept)
    Run.objects.filter(pk=run.pk).update(state=Run.State.SCORING, heartbeat_at=timezone.now())
    assert run_execute(run.pk, heartbeat=False) == "skipped"  # the lease is still live: a duplicate task does nothing
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    first_ids = set(Prediction.objects.filter(run=run).values_list("pk", flat=True))
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    run.refresh_from_db()
    assert Prediction.objects.filter(run=run).count() == 1000
    assert set(Prediction.objects.filter(run=run, position__lt=250).values_list("pk", flat=True)) == first_ids
    assert run.attempts == 2
    assert run_metrics_overall(run) == run_metrics_overall(ref)
    assert run_execute(run.pk, heartbeat=False) == "skipped"  # a redelivered task after the end is a no-op


def test_cancel_queued_and_running(statement_set) -> None:  # type: ignore[no-untyped-def]
    queued = _run(statement_set)
    assert run_cancel(queued)
    assert queued.state == Run.State.CANCELLED
    assert run_execute(queued.pk, heartbeat=False) == "skipped"
    assert not queued.predictions.exists()

    run = _run(statement_set, chunk_size=100)
    token = run_claim(run.pk)
    Run.objects.filter(pk=run.pk).update(
        state=Run.State.SCORING, cancel_requested=True, heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    assert token is not None
    assert run_execute(run.pk, heartbeat=False) == Run.State.CANCELLED
    run.refresh_from_db()
    assert run.finished_at is not None
    assert run.predictions.count() == 0


def test_question_run_accuracy_matches_stored_predictions(csqa_set) -> None:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=7, enqueue=False, limit=120)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) == 120
    hits = [p.chosen == p.question.answer_index for p in preds]
    assert run_metrics_overall(run)["accuracy"] == pytest.approx(sum(hits) / 120)
    again = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=7, enqueue=False, limit=120)
    run_execute(again.pk, heartbeat=False)
    assert list(again.predictions.values_list("chosen", flat=True)) == [p.chosen for p in preds]


def test_unknown_replay_model_fails_validation(statement_set) -> None:  # type: ignore[no-untyped-def]
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="no answers of 'GPT-9'"):
        _run(statement_set, "GPT-9")


def test_rica_run_reports_all_perturbations_correct_per_axiom() -> None:
    from collections import defaultdict

    from knowledge.models import QuestionSet
    from knowledge.services.imports import questions_import
    from tests.conftest import shared_file

    questions_import(shared_file("rica/RICA_10k_axiom2set.jsonl"), name="rica10k", fmt="rica-axioms")
    qset = QuestionSet.objects.get(name="rica10k")
    run = run_create(question_set=qset, backend="random", scoring="rica", seed=1, limit=300, enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    by_axiom: dict[str, list[bool]] = defaultdict(list)
    for p in Prediction.objects.filter(run=run).select_related("question"):
        by_axiom[p.question.group].append(p.chosen == p.question.answer_index)
    joint = sum(all(v) for v in by_axiom.values()) / len(by_axiom)
    m = RunMetric.objects.get(run=run, name="all_perturbations_correct", scope="overall")
    assert m.value == pytest.approx(joint)
    assert m.n == len(by_axiom)
    scopes = set(RunMetric.objects.filter(run=run, name="accuracy").values_list("scope", flat=True))
    assert {"overall", "asymmetry=original", "asymmetry=asymmetric_premise", "linguistic=negated"} <= scopes


def test_a_failing_scorer_marks_the_run_failed_with_its_reason(csqa_set, tmp_path, settings) -> None:  # type: ignore[no-untyped-def]
    # A model folder that was there when the run was queued and is gone when the worker loads it.
    settings.COCOWEB_MODELS_DIRS = [tmp_path]
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "config.json").write_text("{}")
    run = run_create(question_set=csqa_set, backend="hf", model="gone", scoring="loglik", enqueue=False)
    (tmp_path / "gone" / "config.json").unlink()
    assert run_execute(run.pk, heartbeat=False) == Run.State.FAILED
    run.refresh_from_db()
    assert "'gone' is not a model this installation can run" in run.error
    assert run.finished_at is not None
    assert [p[0] for p in run.phases] == ["queued", "loading", "failed"]


def test_housekeeping_requeues_only_stale_active_runs(
    statement_set, monkeypatch, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from runs.tasks import runs_requeue_stale_task

    sent = []
    monkeypatch.setattr("runs.tasks.run_execute_task.apply_async", lambda args, queue: sent.append((args, queue)))
    stale, live, queued = (_run(statement_set) for _ in range(3))
    old = timezone.now() - timedelta(hours=1)
    Run.objects.filter(pk=stale.pk).update(state=Run.State.SCORING, heartbeat_at=old)
    Run.objects.filter(pk=live.pk).update(state=Run.State.SCORING, heartbeat_at=timezone.now())
    Run.objects.filter(pk=queued.pk).update(heartbeat_at=old)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs_requeue_stale_task() == [stale.pk]
    assert sent == [((stale.pk,), "eval")]
    sent.clear()  # after a broker restart: queued runs' messages may be gone, so they are sent again
    with django_capture_on_commit_callbacks(execute=True):
        assert runs_requeue_stale_task(resend_queued=True) == [stale.pk, queued.pk]
    assert sent == [((stale.pk,), "eval"), ((queued.pk,), "eval")]


def test_run_eval_reports_bad_input(statement_set) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="no question set or statement set named 'nope'"):
        call_command("run_eval", "--set", "nope", "--backend", "random", "--scoring", "loglik")
    with pytest.raises(CommandError, match="scored with 'yesno'"):
        call_command("run_eval", "--set", "statements-demo", "--backend", "random", "--scoring", "loglik")


def test_model_output_with_nul_characters_is_stored(csqa_set) -> None:  # type: ignore[no-untyped-def]
    """A model may generate NUL; PostgreSQL's text and jsonb columns refuse it, which failed a whole
    run. The prediction is stored with U+FFFD in its place (raw output, extra, error)."""
    from commonsense.scoring.types import ItemResult
    from runs.evaluation import _prediction

    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", enqueue=False)
    q = csqa_set.questions.order_by("position").first()
    res = ItemResult(
        item_id=str(q.pk),
        chosen=0,
        scores=[0.0],
        raw_output="a\x00b",
        extra={"paths": [{"text": "x\x00y", "answer": "\x00"}], "k\x00": 1},
        error="e\x00",
    )
    Prediction.objects.bulk_create([_prediction(run, 0, q, res)])
    p = Prediction.objects.get(run=run)
    assert p.raw_output == "a\ufffdb"
    assert p.error == "e\ufffd"
    assert p.extra == {"paths": [{"text": "x\ufffdy", "answer": "\ufffd"}], "k\ufffd": 1}
