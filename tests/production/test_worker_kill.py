"""SIGKILL the evaluation worker of the production topology mid-run; a new one finishes the run.

Extends ``tests/runs/test_worker.py`` (one worker on every queue) to the topology of
``make prod-check``: an ``eval`` worker and a separate ``default,housekeeping`` worker on Redis and
PostgreSQL. The killed worker's message stays unacknowledged in Redis (redelivered only after the
one-hour visibility timeout); the surviving housekeeping worker sees the run's heartbeat go stale
and re-enqueues it, and the new eval worker resumes it from the stored predictions.
"""

from __future__ import annotations

import pytest

from runs.models import Prediction, Run

from .checks import assert_survived, launch, reference_run
from .processes import Worker, wait_for

pytestmark = [
    pytest.mark.production,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(240),
]


def test_sigkilled_eval_worker_run_finishes_on_a_new_worker(statement_set, env, procs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ref = reference_run(statement_set)
    house = Worker(env, tmp_path / "house.log", "house", "default,housekeeping")
    first = Worker(env, tmp_path / "eval1.log", "eval1", "eval")
    procs += [house, first]
    wait_for(lambda: house.ready() and first.ready(), 120, lambda: "workers not ready\n" + first.tail() + house.tail())

    run = launch(statement_set)
    wait_for(
        lambda: Prediction.objects.filter(run=run).count() >= 200,
        120,
        lambda: "the eval worker never got going\n" + first.tail(),
    )
    first.kill()
    at_kill = dict(Prediction.objects.filter(run=run).values_list("position", "pk"))
    run.refresh_from_db()
    assert run.state == Run.State.SCORING, (run.state, len(at_kill))
    assert 200 <= len(at_kill) < ref.items_total, (run.state, len(at_kill))

    second = Worker(env, tmp_path / "eval2.log", "eval2", "eval")
    procs.append(second)
    wait_for(
        lambda: Run.objects.get(pk=run.pk).is_finished,
        180,
        lambda: "the run was not finished after the kill\n" + second.tail() + house.tail(),
    )
    assert_survived(run, ref)
    run.refresh_from_db()
    assert run.attempts == 2, run.attempts  # the killed attempt and the one that finished
    assert house.alive
    kept = dict(Prediction.objects.filter(run=run, position__in=at_kill).values_list("position", "pk"))
    assert kept == at_kill  # what was stored before the kill was neither redone nor rewritten
    assert "re-enqueued run(s) " + str(run.pk) in house.log.read_text()  # the housekeeping worker did it
