"""Issue 17 item 5: SIGKILL the idle pool child of a single-slot Celery worker; queued runs must
still be taken. With the prefork pool the replacement child could block on the pool's lock and the
worker took nothing more until a restart. The workers run the solo pool (the worker process runs
the task itself: nothing to jam), with the flags of scripts/run.sh and scripts/prod_check.sh; any
child process the worker has is killed all the same, to prove it keeps working. Both brokers: the
embedded SQLite one (pass 1) and Redis (pass 2)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import psutil
import pytest
from kombu import Connection

from runs.models import Run
from runs.services import run_create
from runs.tasks import EVAL_QUEUE, run_execute_task
from tests.runs.workers import child_env

from .checks import REPLAY
from .processes import Worker, wait_for

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


@pytest.fixture(params=["embedded", pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.postgres])])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "embedded":
        if os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.skip("the embedded-broker variant runs in pass 1 (SQLite)")
        return f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    return os.environ["CELERY_BROKER_URL"]


def test_workers_run_the_solo_pool() -> None:
    root = Path(__file__).resolve().parents[2]
    for script in ("scripts/run.sh", "scripts/prod_check.sh"):
        lines = [ln for ln in (root / script).read_text().splitlines() if " worker " in ln and "celery" in ln.lower()]
        assert lines, (script, lines)
        assert all("--pool=solo" in ln for ln in lines), (script, lines)


def test_killing_an_idle_pool_child_does_not_stall_the_worker(statement_set, broker, procs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    worker = Worker(child_env(broker), tmp_path / "eval.log", "eval", "eval,default,housekeeping")
    procs.append(worker)
    wait_for(worker.ready, 120, lambda: "worker not ready\n" + worker.tail())
    time.sleep(1)  # idle: nothing queued
    children = psutil.Process(worker.proc.pid).children(recursive=True)
    for child in children:  # the idle-child kill (the solo pool has no child)
        child.kill()
    time.sleep(2)
    assert worker.alive
    run = run_create(statement_set=statement_set, params={"chunk_size": 200}, enqueue=False, **REPLAY)
    with Connection(broker) as conn:  # this test's broker (the worker's), not the settings' one
        run_execute_task.apply_async((run.pk,), queue=EVAL_QUEUE, connection=conn)
    wait_for(
        lambda: Run.objects.get(pk=run.pk).is_finished,
        90,
        lambda: f"the worker took no run after its idle child was killed ({len(children)} killed)\n" + worker.tail(),
    )
    run.refresh_from_db()
    assert run.state == Run.State.DONE, run.error
