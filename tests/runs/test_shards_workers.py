"""Two real Celery eval workers share one sharded run (pass 2: PostgreSQL + Redis, as on several
machines): every prediction once, the metrics of a one-worker run; a worker SIGKILLed mid-shard
loses nothing (the other takes its shard over when its lease goes stale); cancelling stops both.
The model is a tiny GPT-2 built from a config, loaded by the workers from the operator's folder."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from runs.models import Prediction, Run, RunMetric, RunShard
from runs.services import run_cancel, run_create

from .workers import Worker, child_env

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(400),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
]
N, SIZE = 36, 6  # six shards


@pytest.fixture
def workers(tmp_path: Path, tiny_gpt2: Path) -> Iterator[list[Worker]]:
    env = child_env(os.environ.get("CELERY_BROKER_URL", ""), COCOWEB_MODELS_DIRS=str(tiny_gpt2.parent))
    started = [Worker(env, tmp_path / f"eval{i}.log", f"eval{i}") for i in (1, 2)]
    try:
        for w in started:
            w.wait_ready()
        yield started
    finally:
        for w in started:
            w.stop()


def _wait(pred: Callable[[], Any], timeout: float, what: str) -> None:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(what)
        time.sleep(0.1)


def _run(csqa_set: Any, tiny_gpt2: Path, shard_size: int, pace_s: float = 0.0) -> Run:
    # chunk_size 1: each item scored alone, so that scores cannot depend on which items shared a batch
    return run_create(
        question_set=csqa_set,
        backend="hf",
        scoring="loglik",
        model=str(tiny_gpt2),
        limit=N,
        params={"chunk_size": 1, "shard_size": shard_size, "pace_s": pace_s, "backend_options": {"dtype": "float32"}},
    )


def _finished(run: Run, workers: list[Worker], timeout: float = 240) -> Run:
    logs = "".join(w.log.read_text()[-2000:] for w in workers)
    _wait(lambda: Run.objects.get(pk=run.pk).is_finished, timeout, f"run {run.pk} did not finish:\n{logs}")
    run.refresh_from_db()
    return run


def _choices(run: Run) -> list[tuple[int, int | None, bool | None]]:
    return list(Prediction.objects.filter(run=run).order_by("position").values_list("position", "chosen", "correct"))


def _metrics(run: Run) -> list[tuple[Any, ...]]:
    return sorted(RunMetric.objects.filter(run=run).values_list("name", "scope", "value", "ci_low", "ci_high", "n"))


def _pid(worker_name: str) -> int:
    return int(worker_name.rsplit(":", 1)[1])


def _both_hold_shards(run: Run) -> bool:
    held = RunShard.objects.filter(run=run, state=RunShard.State.SCORING, items_done__gte=1)
    return len(set(held.values_list("worker", flat=True))) == 2


def test_two_workers_share_one_run_with_the_one_worker_result(csqa_set, tiny_gpt2, workers) -> None:  # type: ignore[no-untyped-def]
    ref = _finished(_run(csqa_set, tiny_gpt2, 0), workers)
    assert ref.state == Run.State.DONE, ref.error
    run = _finished(_run(csqa_set, tiny_gpt2, SIZE, pace_s=0.25), workers)
    assert run.state == Run.State.DONE, run.error
    shards = list(RunShard.objects.filter(run=run).order_by("index"))
    assert len(shards) == N // SIZE
    assert {s.state for s in shards} == {RunShard.State.DONE}
    assert {_pid(s.worker) for s in shards} == {w.proc.pid for w in workers}  # both workers scored shards
    assert [c[0] for c in _choices(run)] == list(range(N))  # every prediction once
    assert run.items_done == N
    assert [p for p, _ in run.phases].count("metrics") == 1
    assert _choices(run) == _choices(ref)
    assert _metrics(run) == _metrics(ref)


def test_a_worker_killed_mid_shard_loses_nothing(csqa_set, tiny_gpt2, workers) -> None:  # type: ignore[no-untyped-def]
    ref = _finished(_run(csqa_set, tiny_gpt2, 0), workers)
    run = _run(csqa_set, tiny_gpt2, SIZE, pace_s=0.4)
    _wait(lambda: _both_hold_shards(run), 180, "the two workers never held a shard each")
    victim = workers[0]
    victim.kill()
    shard = RunShard.objects.get(run=run, state=RunShard.State.SCORING, worker__endswith=f":{victim.proc.pid}")
    at_kill = dict(Prediction.objects.filter(run=run).values_list("position", "pk"))
    assert 0 < shard.items_done < SIZE
    run = _finished(run, workers[1:])
    assert run.state == Run.State.DONE, run.error
    shard.refresh_from_db()
    assert shard.state == RunShard.State.DONE
    assert _pid(shard.worker) == workers[1].proc.pid  # taken over by the survivor
    assert shard.attempts == 2
    assert [c[0] for c in _choices(run)] == list(range(N))  # nothing lost, nothing twice
    kept = dict(Prediction.objects.filter(run=run, position__in=at_kill).values_list("position", "pk"))
    assert kept == at_kill  # what the dead worker stored was not scored again
    assert _choices(run) == _choices(ref)
    assert _metrics(run) == _metrics(ref)


def test_cancel_stops_every_shard_on_every_worker(csqa_set, tiny_gpt2, workers) -> None:  # type: ignore[no-untyped-def]
    run = _run(csqa_set, tiny_gpt2, SIZE, pace_s=0.4)
    _wait(lambda: _both_hold_shards(run), 180, "the two workers never held a shard each")
    assert run_cancel(run)
    run.refresh_from_db()
    assert run.state == Run.State.CANCELLED
    after_cancel = Prediction.objects.filter(run=run).count()
    assert after_cancel < N
    time.sleep(2.0)  # each worker would have stored several more items by now
    assert Prediction.objects.filter(run=run).count() == after_cancel
    assert set(RunShard.objects.filter(run=run).exclude(state=RunShard.State.DONE).values_list("state", "lease")) == {
        (RunShard.State.CANCELLED, None)
    }
    assert not RunMetric.objects.filter(run=run).exists()
    # both workers are free again: the next run is served to its end
    nxt = _finished(_run(csqa_set, tiny_gpt2, SIZE), workers)
    assert nxt.state == Run.State.DONE, nxt.error
    assert Prediction.objects.filter(run=run).count() == after_cancel
