"""Build jobs recover as runs do (issue 17 item 4): a build whose worker was killed and a queued
build whose message was lost are found by the housekeeping sweep and built; a lost-message build
can be re-queued by hand and never blocks a new build of its name. The tests run the task
functions themselves; the broker is replaced by a list of the job ids it would have been sent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cocoweb.leases import LeaseLost, lease_write
from knowledge.models import BuildJob, Graph, QuestionSet
from knowledge.services.build_execution import build_job_claim
from knowledge.services.build_jobs import build_job_create, build_job_is_stalled, build_job_retry
from knowledge.services.imports import ImportRefused
from knowledge.tasks import build_job_run_task, build_jobs_requeue_stale_task

# Transactional: the task's heartbeat thread writes through its own database connection.
pytestmark = pytest.mark.django_db(transaction=True)

PARAMS = {"kind": "1p", "count": 2, "max_degree": 10}
LONG_AGO = timedelta(hours=1)


@pytest.fixture(autouse=True)
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    out: list[int] = []
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: out.append(args[0]))
    return out


def _job(graph: Graph, name: str) -> BuildJob:
    return build_job_create(kind="com2", graph=graph, name=name, seed=1, params=PARAMS)


def test_build_whose_worker_was_killed_is_resent_by_housekeeping_and_finishes(
    demo_graph: Graph, sent: list[int]
) -> None:
    job = _job(demo_graph, "killed")
    dead = build_job_claim(job.pk, "killed-worker")  # the attempt started, then its worker was SIGKILLed
    assert dead is not None
    # Celery redelivers the message at once (reject_on_worker_lost): the heartbeat is still fresh.
    assert build_job_run_task(job.pk) == f"build job {job.pk}: skipped (running)"
    assert build_jobs_requeue_stale_task() == []  # a live-looking job is left alone
    BuildJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - LONG_AGO)
    assert build_job_is_stalled(job)
    sent.clear()
    assert build_jobs_requeue_stale_task() == [job.pk]
    assert sent == [job.pk]
    build_job_run_task(sent[0])
    job.refresh_from_db()
    assert job.state == BuildJob.State.DONE, job.error
    assert job.attempts == 2, job.error
    assert QuestionSet.objects.filter(name="killed").count() == 1
    with pytest.raises(LeaseLost):  # the dead attempt, should it wake up, writes nothing
        lease_write(BuildJob, job.pk, dead, stage="zombie")


def test_lost_message_queued_build_is_resent_once_per_stale_period_and_builds(
    demo_graph: Graph, sent: list[int]
) -> None:
    job = _job(demo_graph, "lost-message")
    assert sent == [job.pk]
    sent.clear()  # the broker lost it
    assert build_jobs_requeue_stale_task() == []  # just queued: waiting is normal
    BuildJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - LONG_AGO)
    assert build_jobs_requeue_stale_task() == [job.pk]
    assert sent == [job.pk]
    assert build_jobs_requeue_stale_task() == []  # re-sent just now: not again before the stale limit
    build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == BuildJob.State.DONE
    assert job.attempts == 1


def test_housekeeping_after_a_broker_restart_resends_every_queued_build(demo_graph: Graph, sent: list[int]) -> None:
    a, b = _job(demo_graph, "waiting-a"), _job(demo_graph, "waiting-b")
    sent.clear()
    assert build_jobs_requeue_stale_task(resend_queued=True) == [a.pk, b.pk]
    assert sent == [a.pk, b.pk]


def test_lost_message_build_can_be_requeued_by_hand(demo_graph: Graph, researcher: Client, sent: list[int]) -> None:
    job = _job(demo_graph, "requeue-me")
    with pytest.raises(ImportRefused, match="only a failed or stalled job can be re-queued"):
        build_job_retry(job)  # queued a moment ago: not stalled
    BuildJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - LONG_AGO)
    box = researcher.get(reverse("knowledge:build_job_progress", args=[job.pk]), HTTP_HX_REQUEST="true")
    assert "its message was probably lost" in box.content.decode()
    assert "Queue it again" in box.content.decode()
    sent.clear()
    r = researcher.post(reverse("knowledge:build_job_requeue", args=[job.pk]))
    assert r.status_code == 302
    assert sent == [job.pk]
    job.refresh_from_db()
    assert job.state == BuildJob.State.QUEUED
    assert not build_job_is_stalled(job)


def test_lost_message_build_does_not_block_a_new_build_of_its_name(demo_graph: Graph, sent: list[int]) -> None:
    old = _job(demo_graph, "same-name")
    with pytest.raises(ImportRefused, match="is already building a set named 'same-name'"):
        _job(demo_graph, "same-name")  # a live queued job does block its name
    BuildJob.objects.filter(pk=old.pk).update(created_at=timezone.now() - LONG_AGO)
    new = _job(demo_graph, "same-name")
    old.refresh_from_db()
    assert old.state == BuildJob.State.FAILED
    assert "superseded" in old.error
    assert build_job_run_task(old.pk) == f"build job {old.pk}: skipped (failed)"  # its message, if it turns up
    build_job_run_task(new.pk)
    new.refresh_from_db()
    assert new.state == BuildJob.State.DONE


def test_housekeeping_ticker_sends_the_build_sweep_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from runs.tasks import HousekeepingTicker

    calls: list[tuple[str, dict[str, object]]] = []
    for name in (
        "runs.tasks.runs_requeue_stale_task",
        "knowledge.tasks.build_jobs_requeue_stale_task",
        "explorer.tasks.surveys_warm_task",
    ):
        monkeypatch.setattr(f"{name}.apply_async", lambda n=name, **k: calls.append((n, k["kwargs"])))
    HousekeepingTicker._send(resend_queued=True)
    assert [c[0].rsplit(".", 1)[1] for c in calls] == [
        "runs_requeue_stale_task",
        "build_jobs_requeue_stale_task",
        "surveys_warm_task",
    ]
    assert all(kw == {"resend_queued": True} for _, kw in calls[:2])
    assert calls[2][1]["within_seconds"] > 0
