"""End to end with a real Celery worker on the ``default`` queue: a queued build job is picked up
from the broker, built, and equals the CLI build. Pass 1: SQLite + embedded broker; pass 2:
PostgreSQL + Redis."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import current_app
from django.core.management import call_command

from knowledge.models import BuildJob, Graph
from knowledge.services.build_jobs import build_job_create
from knowledge.tasks import BUILD_QUEUE, build_job_run_task
from tests.runs.workers import CELERY, ROOT, Worker, child_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


class DefaultQueueWorker(Worker):
    """``celery worker -Q default`` (the queue of everything but model evaluations)."""

    def __init__(self, env: dict[str, str], log: Path, name: str) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "cocoweb",
                "worker",
                "-Q",
                BUILD_QUEUE,
                "--concurrency=1",
                "--loglevel=INFO",
                "-n",
                f"{name}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.fixture(params=["embedded", pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.postgres])])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "embedded":
        if os.environ.get("DATABASE_URL", "").startswith("postgres"):
            pytest.skip("the embedded-broker variant runs in pass 1 (SQLite)")
        return f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}"
    return os.environ["CELERY_BROKER_URL"]


@pytest.fixture
def worker(broker: str, build_dirs: Path) -> Iterator[DefaultQueueWorker]:
    env = child_env(
        broker, COCOWEB_CACHE_DIR=str(build_dirs / "cache"), COCOWEB_ABSTRACT_DIR=str(build_dirs / "abstract")
    )
    w = DefaultQueueWorker(env, build_dirs / "worker.log", "builds")
    yield w
    w.stop()


def test_queued_job_is_built_by_a_worker(
    demo_graph: Graph, worker: DefaultQueueWorker, broker: str, build_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda *a, **k: None)
    job = build_job_create(
        kind="com2",
        graph=demo_graph,
        name="worker-2i",
        seed=8,
        params={
            "kind": "2i",
            "count": 20,
            "max_degree": 10,
            "relations": None,
            "diverse": False,
            "min_plausibility": None,
            "person_names": True,
        },
    )
    monkeypatch.undo()
    # the message the form's on_commit hook sends, through the test's own broker
    with current_app.connection_for_write(broker) as conn:
        build_job_run_task.apply_async((job.pk,), queue=BUILD_QUEUE, connection=conn)
    t0 = time.monotonic()
    while BuildJob.objects.get(pk=job.pk).state in BuildJob.ACTIVE:
        if time.monotonic() - t0 > 240 or worker.proc.poll() is not None:
            pytest.fail(f"job still {BuildJob.objects.get(pk=job.pk).state}:\n{worker.log.read_text()[-3000:]}")
        time.sleep(0.2)
    job.refresh_from_db()
    assert job.state == "done", (job.error, worker.log.read_text()[-2000:])
    assert job.worker
    assert job.worker != f"{os.uname().nodename}:{os.getpid()}"
    assert "knowledge.build_job_run" in worker.log.read_text()
    call_command("build_questions", graph="demo", kind="2i", count=20, seed=8, name="cli-2i", verbosity=0)
    out_job, out_cli = build_dirs / "job.jsonl", build_dirs / "cli.jsonl"
    call_command("export_questions", "worker-2i", fmt="jsonl", out=str(out_job), verbosity=0)
    call_command("export_questions", "cli-2i", fmt="jsonl", out=str(out_cli), verbosity=0)
    assert out_job.read_text().replace('"worker-2i"', '"X"') == out_cli.read_text().replace('"cli-2i"', '"X"')
