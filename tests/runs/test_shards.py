"""Sharded runs in one process (both passes: SQLite, PostgreSQL): a tiny GPT-2 built from a config
scores the demo CommonsenseQA questions through the production loop (``run_execute``); the run is
split into shards, and a second worker is planted as rows its claim would have written. Real
workers on PostgreSQL + Redis: tests/runs/test_shards_workers.py."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from cocoweb.leases import LeaseLost
from runs import shards
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric, RunShard
from runs.selectors.queue import run_shard_rows
from runs.services import run_cancel, run_create

pytestmark = pytest.mark.django_db
N, SIZE = 30, 8  # 4 shards: 8, 8, 8, 6 items


def _run(csqa_set: Any, tiny_gpt2: Path, shard_size: int) -> Run:
    # chunk_size 1: every item is scored alone, as in any other run, so the scores cannot depend on
    # which items shared a batch
    return run_create(
        question_set=csqa_set,
        backend="hf",
        scoring="loglik",
        model=str(tiny_gpt2),
        limit=N,
        params={"chunk_size": 1, "shard_size": shard_size, "backend_options": {"dtype": "float32"}},
        enqueue=False,
    )


def _metrics(run: Run) -> list[tuple[Any, ...]]:
    return sorted(RunMetric.objects.filter(run=run).values_list("name", "scope", "value", "ci_low", "ci_high", "n"))


def _choices(run: Run) -> list[tuple[int, int | None, bool | None]]:
    return list(Prediction.objects.filter(run=run).order_by("position").values_list("position", "chosen", "correct"))


@pytest.fixture
def reference(csqa_set: Any, tiny_gpt2: Path) -> Run:
    """The same run by one worker, not sharded."""
    ref = _run(csqa_set, tiny_gpt2, 0)
    assert (
        run_execute(ref.pk, heartbeat=False, fan_out=lambda n: pytest.fail("an unsharded run calls nobody")) == "done"
    )
    assert not RunShard.objects.filter(run=ref).exists()
    ref.refresh_from_db()
    return ref


def _plant(run: Run, worker: str, *, stale: bool, stored: int = 0, ref: Run | None = None) -> tuple[RunShard, Any]:
    """Another worker claimed the first queued shard (and stored its first ``stored`` items, copied
    from ``ref``); with ``stale`` it has not beaten for an hour since (it died)."""
    claim = shards.shard_claim(run.pk, worker)
    assert claim is not None
    shard, token = claim
    if stored:
        assert ref is not None
        preds = list(Prediction.objects.filter(run=ref, position__gte=shard.first).order_by("position")[:stored])
        for p in preds:
            p.pk, p.run = None, run
        shards.shard_store(shard, token, preds, 1.0)
    if stale:
        RunShard.objects.filter(pk=shard.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    return shard, token


def test_one_worker_scores_every_shard_and_the_result_is_the_unsharded_runs(csqa_set, tiny_gpt2, reference) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    called: list[int] = []
    assert run_execute(run.pk, heartbeat=False, worker="w1:1", fan_out=called.append) == Run.State.DONE
    assert called == [3]  # the task would call three more workers for the other shards
    run.refresh_from_db()
    rows = run_shard_rows(run)
    assert [(r.index, r.first, r.last, r.items, r.items_done) for r in rows] == [
        (0, 0, 7, 8, 8),
        (1, 8, 15, 8, 8),
        (2, 16, 23, 8, 8),
        (3, 24, 29, 6, 6),
    ]
    assert {(r.state, r.worker, r.stale) for r in rows} == {("Done", "w1:1", False)}
    assert run.items_done == run.items_total == N
    assert [p for p, _ in run.phases] == ["queued", "loading", "scoring", "metrics", "done"]
    assert run.scorer_settings == reference.scorer_settings
    assert _choices(run) == _choices(reference)
    assert _metrics(run) == _metrics(reference)
    assert run_execute(run.pk, heartbeat=False) == "skipped"  # a late message for a finished run


def test_a_dead_workers_shard_is_taken_over_and_nothing_is_stored_twice(csqa_set, tiny_gpt2, reference) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    planted: dict[str, Any] = {}

    def dead_worker(n: int) -> None:  # when the run is split, before this worker claims a shard
        planted["shard"], _ = _plant(run, "dead:1", stale=True, stored=3, ref=reference)
        planted["kept"] = dict(Prediction.objects.filter(run=run).values_list("position", "pk"))

    assert run_execute(run.pk, heartbeat=False, worker="live:2", fan_out=dead_worker) == Run.State.DONE
    shard = RunShard.objects.get(pk=planted["shard"].pk)
    assert (shard.state, shard.worker, shard.attempts, shard.items_done) == (RunShard.State.DONE, "live:2", 2, 8)
    assert sorted(planted["kept"]) == [0, 1, 2]
    kept = dict(Prediction.objects.filter(run=run, position__in=planted["kept"]).values_list("position", "pk"))
    assert kept == planted["kept"]  # the dead worker's predictions stay, not scored again
    run.refresh_from_db()
    assert run.items_done == N
    assert [c[0] for c in _choices(run)] == list(range(N))  # every item once
    assert _choices(run) == _choices(reference)
    assert _metrics(run) == _metrics(reference)


def test_a_live_workers_shard_is_left_to_it_and_the_last_shard_computes_the_metrics(
    csqa_set, tiny_gpt2, reference
) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    planted: dict[str, Any] = {}
    run_execute(
        run.pk,
        heartbeat=False,
        worker="w1:1",
        fan_out=lambda n: planted.update(shard=_plant(run, "w2:2", stale=False)[0]),
    )
    run.refresh_from_db()
    assert run.state == Run.State.SCORING  # shard 0 is still held by a live worker
    assert [r.state for r in run_shard_rows(run)] == ["Scoring", "Done", "Done", "Done"]
    assert not RunMetric.objects.filter(run=run).exists()
    assert run_execute(run.pk, heartbeat=False, worker="w3:3") == Run.State.SCORING  # a late message: nothing free
    RunShard.objects.filter(pk=planted["shard"].pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert run_shard_rows(run)[0].stale
    assert run_execute(run.pk, heartbeat=False, worker="w3:3") == Run.State.DONE
    run.refresh_from_db()
    assert [p for p, _ in run.phases].count("metrics") == 1
    assert [(r.worker, r.attempts) for r in run_shard_rows(run)] == [("w3:3", 2), ("w1:1", 1), ("w1:1", 1), ("w1:1", 1)]
    assert _choices(run) == _choices(reference)
    assert _metrics(run) == _metrics(reference)


def test_cancel_stops_every_shard(csqa_set, tiny_gpt2, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    other: dict[str, Any] = {}
    stores: list[int] = []
    real_store = shards.shard_store

    def store_then_cancel(shard, token, preds, rate):  # type: ignore[no-untyped-def]
        out = real_store(shard, token, preds, rate)
        stores.append(len(preds))
        if len(stores) == 2:  # mid-shard, while the other worker holds its own shard
            assert run_cancel(Run.objects.get(pk=run.pk))
        return out

    monkeypatch.setattr(shards, "shard_store", store_then_cancel)
    result = run_execute(
        run.pk,
        heartbeat=False,
        worker="w1:1",
        fan_out=lambda n: other.update(zip(("shard", "token"), _plant(run, "w2:2", stale=False), strict=True)),
    )
    assert result == Run.State.CANCELLED
    run.refresh_from_db()
    assert run.state == Run.State.CANCELLED
    assert run.finished_at is not None
    assert [p for p, _ in run.phases][-1] == "cancelled"
    assert set(RunShard.objects.filter(run=run).values_list("state", "lease")) == {(RunShard.State.CANCELLED, None)}
    assert Prediction.objects.filter(run=run).count() == sum(stores) == 2  # nothing after the cancel
    # the other worker stops at its next write: a chunk, or a heartbeat
    with pytest.raises(LeaseLost):
        real_store(other["shard"], other["token"], [], 1.0)
    with pytest.raises(LeaseLost):
        shards.ShardHeartbeat(other["shard"], other["token"]).beat()
    assert not RunMetric.objects.filter(run=run).exists()
    assert run_execute(run.pk, heartbeat=False) == "skipped"


def test_a_run_within_the_shard_size_is_not_split(csqa_set, tiny_gpt2, settings) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_EVAL_SHARD_SIZE = N  # the setting, when the run does not say
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", limit=N, enqueue=False)
    assert shards.shards_plan(run, shards.shard_size(run)) == []
    settings.COCOWEB_EVAL_SHARD_SIZE = N - 1
    assert [(s.first, s.last, s.items) for s in shards.shards_plan(run, shards.shard_size(run))] == [
        (0, N - 2, N - 1),
        (N - 1, N - 1, 1),
    ]


def test_the_run_page_shows_the_shards_and_their_workers(csqa_set, tiny_gpt2, researcher) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    run_execute(run.pk, heartbeat=False, worker="gpu-box:41", fan_out=lambda n: _plant(run, "dead-box:7", stale=True))
    run.refresh_from_db()
    assert run.state == Run.State.DONE
    page = researcher.get(f"/runs/{run.pk}/").content.decode()
    assert "Shards: 4" in page
    assert page.count("gpu-box:41") == 4
    assert "2 attempts" in page  # the dead worker's shard, taken over
    box = researcher.get(f"/runs/{run.pk}/progress/", HTTP_HX_REQUEST="true").content.decode()
    assert "run-shards" in box


def test_a_run_resumed_after_an_unsharded_attempt_counts_what_it_stored(csqa_set, tiny_gpt2, reference) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE)
    earlier = list(Prediction.objects.filter(run=reference).order_by("position")[:10])
    for p in earlier:  # an attempt before the split stored 10 items, then its worker died
        p.pk, p.run = None, run
    Prediction.objects.bulk_create(earlier)
    kept = dict(Prediction.objects.filter(run=run).values_list("position", "pk"))
    seen: dict[str, Any] = {}

    def at_split(n: int) -> None:
        seen["shards"] = list(RunShard.objects.filter(run=run).order_by("index").values_list("items_done", flat=True))
        seen["run"] = Run.objects.get(pk=run.pk).items_done

    assert run_execute(run.pk, heartbeat=False, fan_out=at_split) == Run.State.DONE
    assert seen == {"shards": [8, 2, 0, 0], "run": 10}  # one progress bar from the start: 10 / 30
    assert dict(Prediction.objects.filter(run=run, position__lt=10).values_list("position", "pk")) == kept
    assert _metrics(run) == _metrics(reference)


def test_a_failure_in_the_metrics_fails_the_run_unless_another_attempt_holds_it(  # type: ignore[no-untyped-def]
    csqa_set, tiny_gpt2, monkeypatch
) -> None:
    """The metrics step's failure goes through the same ``run_failed`` as a scoring failure: the
    one-line error on the run; ``"skipped"`` and the run left alone when its lease went elsewhere."""
    from runs import evaluation

    def broken(run_id, token, run):  # type: ignore[no-untyped-def]
        raise RuntimeError("metrics broke")

    monkeypatch.setattr(evaluation, "_finish", broken)
    run = _run(csqa_set, tiny_gpt2, SIZE)
    assert run_execute(run.pk, heartbeat=False, worker="w1:1") == Run.State.FAILED
    run.refresh_from_db()
    assert run.error == "RuntimeError: metrics broke"
    assert (run.state, run.phases[-1][0]) == (Run.State.FAILED, "failed")
    assert run.finished_at is not None

    def taken_over(run_id, token, run):  # type: ignore[no-untyped-def]
        Run.objects.filter(pk=run_id).update(lease=uuid.uuid4())  # another attempt claimed it meanwhile
        raise RuntimeError("metrics broke")

    monkeypatch.setattr(evaluation, "_finish", taken_over)
    second = _run(csqa_set, tiny_gpt2, SIZE)
    assert run_execute(second.pk, heartbeat=False, worker="w1:1") == "skipped"
    second.refresh_from_db()
    assert (second.state, second.error) == (Run.State.METRICS, "")  # left to the attempt that holds it
    assert evaluation.run_failed(second.pk, uuid.uuid4(), RuntimeError("late")) == "skipped"
