"""Restart Redis (no persistence: every message is lost) while a run is scoring and a second run
waits in the queue, with the workers of the production topology still running.

What has to hold: the worker keeps scoring the running run through the outage (Celery does not
cancel running tasks on connection loss: settings) and reconnects; neither worker dies (kombu 5.7
kills a worker that holds an unacknowledged message while it polls, which the housekeeping
countdown chain used to do); the queued run, whose only message died with Redis, is re-sent by
the housekeeping worker when it reconnects (runs/tasks.py HousekeepingTicker). Both runs then
match an uninterrupted run exactly.
"""

from __future__ import annotations

import json

import pytest

from runs.models import Prediction, Run

from .checks import assert_survived, launch, reference_run
from .processes import Redis, Worker, wait_for

pytestmark = [
    pytest.mark.production,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(240),
]


def _queued_run_ids(redis: Redis) -> list[int]:
    """Run ids of the run_execute messages waiting in the eval queue (kombu keeps a Redis list per
    queue; there may be duplicates: the housekeeping worker re-sends queued runs when it connects)."""
    ids = []
    for raw in redis.client().lrange("eval", 0, -1):
        headers = json.loads(raw)["headers"]
        if headers["task"] == "runs.run_execute":
            ids.append(int(headers["argsrepr"].strip("(),")))
    return ids


def test_redis_restart_mid_run_loses_no_run_and_no_prediction(statement_set, env, procs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    redis = Redis()
    ref = reference_run(statement_set)
    house = Worker(env, tmp_path / "house.log", "house", "default,housekeeping")
    ev = Worker(env, tmp_path / "eval.log", "eval", "eval")
    procs += [house, ev]
    wait_for(lambda: house.ready() and ev.ready(), 120, lambda: "workers not ready\n" + ev.tail() + house.tail())

    running = launch(statement_set, pace_s=0.15)
    waiting = launch(statement_set, pace_s=0.0)
    wait_for(
        lambda: Prediction.objects.filter(run=running).count() >= 200,
        120,
        lambda: "the eval worker never got going\n" + ev.tail(),
    )
    waiting.refresh_from_db()
    assert waiting.state == Run.State.QUEUED
    assert waiting.pk in _queued_run_ids(redis), "the waiting run's message should be in Redis, not in the worker"
    before = dict(Prediction.objects.filter(run=running).values_list("position", "pk"))

    redis.restart()  # an empty server: that message is gone (with the old housekeeping the run stayed queued)
    running.refresh_from_db()
    assert running.state == Run.State.SCORING, "the restart came too late"
    assert len(before) < ref.items_total, "the restart came too late"

    wait_for(
        lambda: Run.objects.filter(pk__in=[running.pk, waiting.pk], state__in=Run.TERMINAL).count() == 2,
        180,
        lambda: "a run did not finish after the Redis restart\n" + ev.tail() + house.tail(),
    )
    assert ev.alive, "a worker died with the broker connection\n" + ev.tail() + house.tail()
    assert house.alive, "a worker died with the broker connection\n" + ev.tail() + house.tail()
    assert_survived(running, ref)
    assert_survived(waiting, ref)
    running.refresh_from_db()
    assert running.attempts == 1  # scored through the outage by the same attempt, nothing redone
    kept = dict(Prediction.objects.filter(run=running, position__in=before).values_list("position", "pk"))
    assert kept == before
    assert f"re-enqueued run(s) {waiting.pk}" in house.log.read_text()


def test_a_worker_with_a_free_slot_survives_a_redis_restart(statement_set, env, procs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An eval worker with two pool slots runs one run, so it holds that run's unacknowledged
    message while it polls for more: the case in which kombu 5.7 kills the worker when Redis goes
    away (worked around in cocoweb/celery.py). It must survive, finish the run, and take new work
    from the restarted Redis."""
    redis = Redis()
    ref = reference_run(statement_set)
    ev = Worker(env, tmp_path / "eval.log", "eval2slots", "eval", concurrency=2)
    procs.append(ev)
    wait_for(ev.ready, 120, lambda: "worker not ready\n" + ev.tail())
    first = launch(statement_set, pace_s=0.15)
    wait_for(
        lambda: Prediction.objects.filter(run=first).count() >= 200,
        120,
        lambda: "the eval worker never got going\n" + ev.tail(),
    )

    redis.restart()
    wait_for(lambda: Run.objects.get(pk=first.pk).is_finished, 180, lambda: "the run did not finish\n" + ev.tail())
    assert ev.alive, "the worker died with the broker connection\n" + ev.tail()
    after = launch(statement_set, pace_s=0.0)  # sent to the new, empty Redis
    wait_for(
        lambda: Run.objects.get(pk=after.pk).is_finished,
        120,
        lambda: "the worker took no work after the restart\n" + ev.tail(),
    )
    assert ev.alive
    assert_survived(first, ref)
    assert_survived(after, ref)
    first.refresh_from_db()
    assert first.attempts == 1
