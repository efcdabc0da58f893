"""End to end with real Celery workers: ``run_eval --wait`` served by a worker, and a run whose
worker is SIGKILLed mid-run finished by a new worker with no lost or duplicated prediction and the
metrics of an uninterrupted run. Pass 1: SQLite + embedded broker; pass 2: PostgreSQL + Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.selectors.runs import run_metrics_overall
from runs.services import run_create

from .workers import ROOT, Worker, child_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


@pytest.fixture(params=["embedded", pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.postgres])])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "embedded":
        if os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.skip("the embedded-broker variant runs in pass 1 (SQLite)")
        return f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    return os.environ["CELERY_BROKER_URL"]


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for w in started:
        w.stop()


def _wait(pred, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(what)
        time.sleep(0.05)


def test_run_eval_wait_is_served_by_a_worker(statement_set, broker, workers, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = child_env(broker)
    w = Worker(env, tmp_path / "w.log", "waiter")
    workers.append(w)
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "run_eval",
            "--set",
            "statements-demo",
            "--backend",
            "replay",
            "--model",
            "Mixtral-8x22B",
            "--scoring",
            "yesno",
            "--wait",
            "--timeout",
            "180",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr + (tmp_path / "w.log").read_text()[-2000:]
    metrics = json.loads(out.stdout)
    run = Run.objects.get()
    assert run.state == Run.State.DONE
    assert run.worker.endswith(f":{w.proc.pid}")
    population = metrics.pop("nww_population")  # the NWW population analyses of a statement run (issue 13)
    assert metrics == pytest.approx(run_metrics_overall(run))
    assert isinstance(population, dict)
    assert {"consensus", "awareness", "commonsensicality"} <= metrics.keys()
    assert "queued on 'eval'" in out.stderr


def test_killed_worker_run_is_finished_by_a_new_worker(statement_set, broker, workers, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ref = run_create(
        statement_set=statement_set,
        backend="replay",
        model="Mixtral-8x22B",
        scoring="yesno",
        params={"chunk_size": 100},
        enqueue=False,
    )
    run_execute(ref.pk)
    expected = run_metrics_overall(ref)

    env = child_env(broker)
    first = Worker(env, tmp_path / "w1.log", "first")
    workers.append(first)
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "run_eval",
            "--set",
            "statements-demo",
            "--backend",
            "replay",
            "--model",
            "Mixtral-8x22B",
            "--scoring",
            "yesno",
            "--param",
            "chunk_size=20",
            "--param",
            "pace_s=0.15",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    run = Run.objects.exclude(pk=ref.pk).get()
    _wait(lambda: Prediction.objects.filter(run=run).count() >= 200, 120, "the first worker never got going")
    first.kill()
    at_kill = dict(Prediction.objects.filter(run=run).values_list("position", "pk"))
    run.refresh_from_db()
    assert run.state == Run.State.SCORING
    assert 200 <= len(at_kill) < 1000

    second = Worker(env, tmp_path / "w2.log", "second")
    workers.append(second)
    _wait(
        lambda: Run.objects.get(pk=run.pk).is_finished,
        180,
        "the second worker did not finish the run:\n" + (tmp_path / "w2.log").read_text()[-3000:],
    )
    run.refresh_from_db()
    assert run.state == Run.State.DONE, run.error
    assert run.attempts == 2
    assert run.items_done == 1000
    positions = list(Prediction.objects.filter(run=run).values_list("position", flat=True))
    assert sorted(positions) == list(range(1000))  # nothing lost, nothing twice
    kept = dict(Prediction.objects.filter(run=run, position__in=at_kill).values_list("position", "pk"))
    assert kept == at_kill  # items stored before the kill were not redone
    assert run_metrics_overall(run) == expected
