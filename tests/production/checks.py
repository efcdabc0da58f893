"""Invariants of a run that survived a fault, compared with an uninterrupted run of the same set."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create

REPLAY = {"backend": "replay", "model": "Mixtral-8x22B", "scoring": "yesno"}


def reference_run(statement_set: Any) -> Run:
    """The same set scored in one go, in this process, with nothing interrupted."""
    ref = run_create(statement_set=statement_set, params={"chunk_size": 100}, enqueue=False, **REPLAY)
    assert run_execute(ref.pk) == Run.State.DONE
    ref.refresh_from_db()
    return ref


def launch(statement_set: Any, chunk_size: int = 20, pace_s: float = 0.1) -> Run:
    """A run sent through the real broker to the eval queue (paced so that a fault lands mid-run)."""
    return run_create(statement_set=statement_set, params={"chunk_size": chunk_size, "pace_s": pace_s}, **REPLAY)


def _metrics(run: Run) -> dict[tuple[str, str], tuple[Any, ...]]:
    return {(m.name, m.scope): (m.value, m.ci_low, m.ci_high, m.n, m.data) for m in RunMetric.objects.filter(run=run)}


def assert_survived(run: Run, ref: Run) -> None:
    """Finished; every item stored exactly once (count check and the database's own unique
    constraint); the same choices and the same metric table (every metric, scope and CI) as ``ref``."""
    run.refresh_from_db()
    assert run.state == Run.State.DONE, f"run {run.pk} ended {run.state}: {run.error}"
    total = ref.items_total
    preds = Prediction.objects.filter(run=run)
    assert total > 0
    assert run.items_total == total
    assert run.items_done == total
    assert preds.count() == total, "a prediction was lost or stored twice"
    positions = sorted(preds.values_list("position", flat=True))
    assert positions == list(range(total)), "positions missing or repeated"
    assert preds.values("statement_id").distinct().count() == total
    mine = dict(preds.values_list("position", "chosen"))
    theirs = dict(Prediction.objects.filter(run=ref).values_list("position", "chosen"))
    assert mine == theirs, "choices differ from the uninterrupted run"
    assert _metrics(run) == _metrics(ref), "metrics differ from the uninterrupted run"
    assert _metrics(run), "no metrics were computed"
    # The database itself refuses a second prediction for an item of this run.
    twin = preds.order_by("position").first()
    assert twin is not None
    twin.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        twin.save(force_insert=True)
