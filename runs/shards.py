"""Sharded runs: a run's items split into shards (:class:`~runs.models.RunShard`) that any number of
eval workers, on any number of machines sharing the database and the broker, claim under the shared
lease (:mod:`cocoweb.leases`). The loop that scores a shard is :func:`runs.evaluation.shards_execute`.

* **Plan.** A run with more items than its shard size (the run's ``shard_size`` parameter, else
  ``COCOWEB_EVAL_SHARD_SIZE``; 0 = never) gets shards of consecutive positions when its first worker
  has loaded the model (:func:`run_shards_create`, one transaction with the run's move to
  ``scoring``); the run's own lease is then released: nobody holds the run, each worker holds a shard.
* **Claim.** ``SELECT … FOR UPDATE SKIP LOCKED`` picks the first queued shard (or one whose worker
  stopped beating) that no other claim has locked, and the lease's conditional UPDATE takes it
  (:func:`shard_claim`). SQLite has no row locks: there the UPDATE alone decides (one worker).
* **Store.** A chunk's predictions, the shard's count and the run's counters are written in one
  transaction that starts with the shard's lease-guarded write (:func:`shard_store`): a prediction is
  stored once, by the shard's holder; the run's counters move by increments under its row lock, so
  concurrent workers add up to one progress bar.
* **Liveness.** A shard's heartbeat also refreshes the run's (:class:`ShardHeartbeat`): while any
  worker beats, the run is alive; a shard whose worker died is taken by the next claim, and a run
  nobody beats goes stale and housekeeping re-sends it (``runs/tasks.py``).
* **Stop.** Cancelling (or a failure) ends the run and every unfinished shard at once, clearing the
  shards' leases (:func:`run_shards_stop`), so each worker's next write raises ``LeaseLost``.
"""

from __future__ import annotations

import uuid
from bisect import bisect_left, bisect_right
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import ExpressionWrapper, F, FloatField, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import NullIf
from django.utils import timezone

from cocoweb.leases import Heartbeat, LeaseLost, lease_claim, lease_write, stale_cutoff, stale_q

from .models import Prediction, Run, RunShard
from .scorers import item_positions

MAX_RECENT_ERRORS = 20


def shard_size(run: Run) -> int:
    """Items per shard for ``run``: its ``shard_size`` parameter, else the setting; 0 = not sharded."""
    asked = run.params.get("shard_size")
    return int(asked if asked is not None else settings.COCOWEB_EVAL_SHARD_SIZE)


def shards_plan(run: Run, size: int) -> list[RunShard]:
    """The shards of ``run`` (unsaved), ``size`` consecutive items each in set order; none when the
    run has at most ``size`` items (or ``size`` is 0)."""
    if size <= 0:
        return []
    positions = item_positions(run)
    if len(positions) <= size:
        return []
    return [
        RunShard(run=run, index=i, first=part[0], last=part[-1], items=len(part))
        for i, part in enumerate(positions[k : k + size] for k in range(0, len(positions), size))
    ]


def run_sharded(run_id: int) -> bool:
    return RunShard.objects.filter(run_id=run_id).exists()


def run_shards_create(run: Run, token: uuid.UUID, shards: list[RunShard], **fields: Any) -> None:
    """Store ``shards`` and move the run (held by ``token``) to ``scoring`` with ``fields``, releasing
    its lease: from now on workers hold shards, not the run."""
    now = timezone.now()
    with transaction.atomic():
        lease_write(Run, run.pk, token)  # write first (SQLite), and only while this attempt holds the run
        stored = sorted(Prediction.objects.filter(run_id=run.pk).values_list("position", flat=True))
        for s in shards:  # a run resumed after an unsharded attempt: what that attempt stored counts
            s.items_done = bisect_right(stored, s.last) - bisect_left(stored, s.first)
        RunShard.objects.bulk_create(shards, ignore_conflicts=True)
        fresh = Run.objects.get(pk=run.pk)
        Run.objects.filter(pk=run.pk).update(
            state=Run.State.SCORING,
            phases=[*fresh.phases, [Run.State.SCORING, now.isoformat()]],
            lease=None,
            heartbeat_at=now,
            items_done=len(stored),
            **fields,
        )


def shard_claim(run_id: int, worker: str) -> tuple[RunShard, uuid.UUID] | None:
    """Take the first shard of the run that is queued, or held by a worker that stopped beating and
    not being claimed by anybody else; None when there is none."""
    claimable = Q(state=RunShard.State.QUEUED)
    for _ in range(5):  # a lost race on a row (PostgreSQL without SKIP LOCKED's luck): look again
        with transaction.atomic():
            pk = (
                RunShard.objects.select_for_update(skip_locked=True)
                .filter(Q(run_id=run_id) & (claimable | stale_q(RunShard, stale_cutoff(RunShard))))
                .order_by("index")
                .values_list("pk", flat=True)
                .first()
            )
            if pk is None:
                return None
            token = lease_claim(
                RunShard, pk, claimable, worker, state=RunShard.State.SCORING, started_at=timezone.now()
            )
        if token is not None:
            return RunShard.objects.get(pk=pk), token
    return None


def shard_stored(shard: RunShard) -> set[int]:
    """Positions of the shard's items already stored (by any earlier attempt)."""
    return set(
        Prediction.objects.filter(run_id=shard.run_id, position__gte=shard.first, position__lte=shard.last).values_list(
            "position", flat=True
        )
    )


def shard_store(shard: RunShard, token: uuid.UUID, preds: list[Prediction], items_per_s: float) -> None:
    """One transaction of three statements: the shard's lease-guarded count and pace, the chunk's
    predictions, the run's counters and pace. Its first write locks the shard's row and is the
    guard: only the shard's holder stores its items, and the items it scores were not stored when it
    claimed the shard (an earlier holder's last transaction committed before the claim's UPDATE
    could take the row), so the chunk adds exactly ``len(preds)`` (the run's counters are counted
    again from the predictions when the last shard is done)."""
    n = len(preds)
    errs = [f"#{p.position}: {p.error}" for p in preds if p.error]
    with transaction.atomic():
        lease_write(RunShard, shard.pk, token, items_done=F("items_done") + n, items_per_s=round(items_per_s, 3))
        Prediction.objects.bulk_create(preds, ignore_conflicts=True)
        live = Q(state=RunShard.State.SCORING, heartbeat_at__gte=stale_cutoff(RunShard))  # dead workers' aside
        pace = Subquery(
            RunShard.objects.filter(live, run_id=OuterRef("pk"))
            .values("run_id")
            .annotate(s=Sum("items_per_s"))
            .values("s")[:1],
            output_field=FloatField(),
        )
        left = ExpressionWrapper(F("items_total") - F("items_done") - n, output_field=FloatField())
        Run.objects.filter(pk=shard.run_id).update(  # increments under the run's row lock (SET sees the old row)
            items_done=F("items_done") + n,
            items_failed=F("items_failed") + len(errs),
            heartbeat_at=timezone.now(),
            items_per_s=pace,
            eta_s=left / NullIf(pace, Value(0.0)),
        )
        if errs:
            run = Run.objects.get(pk=shard.run_id)
            run.recent_errors = (run.recent_errors + errs)[-MAX_RECENT_ERRORS:]
            run.save(update_fields=["recent_errors"])


def shard_finish(shard: RunShard, token: uuid.UUID) -> None:
    """The shard is done (every item stored), or :class:`LeaseLost` when this attempt no longer holds it."""
    n = RunShard.objects.filter(pk=shard.pk, lease=token, state=RunShard.State.SCORING).update(
        state=RunShard.State.DONE, finished_at=timezone.now(), heartbeat_at=timezone.now(), items_per_s=None
    )
    if not n:
        raise LeaseLost(f"{shard}: lease lost (another attempt holds it, or the run stopped)")


def shards_unfinished(run_id: int) -> bool:
    return RunShard.objects.filter(run_id=run_id, state__in=RunShard.UNFINISHED).exists()


def run_shards_stop(run_id: int, state: str, error: str = "") -> bool:
    """End a sharded run that is scoring as ``state`` (cancelled or failed) and every unfinished
    shard with it, their leases cleared so that each holder stops at its next write. False when the
    run was no longer scoring (finished, or already stopped by another worker)."""
    now = timezone.now()
    with transaction.atomic():
        # the shards' rows first, then the run's: the order of a chunk's store (shard, then run), so
        # that a cancel and a store wait for each other rather than deadlock
        list(RunShard.objects.select_for_update().filter(run_id=run_id).order_by("index").values_list("pk"))
        fields: dict[str, Any] = {"state": state, "finished_at": now, "eta_s": None, "items_per_s": None}
        if error:
            fields["error"] = error
        if not Run.objects.filter(pk=run_id, state=Run.State.SCORING).update(**fields):
            return False
        run = Run.objects.get(pk=run_id)
        run.phases = [*run.phases, [state, now.isoformat()]]
        run.save(update_fields=["phases"])
        shard_state = RunShard.State.CANCELLED if state == Run.State.CANCELLED else RunShard.State.FAILED
        RunShard.objects.filter(run_id=run_id, state__in=RunShard.UNFINISHED).update(
            state=shard_state, lease=None, finished_at=now, items_per_s=None
        )
    return True


def run_counts_exact(run_id: int) -> None:
    """The run's counters from its stored predictions (once, when its last shard is done)."""
    preds = Prediction.objects.filter(run_id=run_id)
    Run.objects.filter(pk=run_id).update(items_done=preds.count(), items_failed=preds.exclude(error="").count())


class ShardHeartbeat(Heartbeat):
    """The shard's heartbeat, which also keeps its run's ``heartbeat_at`` fresh while it scores (the
    run counts as abandoned, and is re-sent by housekeeping, only when no worker beats any shard)."""

    def __init__(self, shard: RunShard, token: uuid.UUID) -> None:
        super().__init__(RunShard, shard.pk, token)
        self.run_id = shard.run_id

    def beat(self) -> None:
        super().beat()
        Run.objects.filter(pk=self.run_id, state=Run.State.SCORING).update(heartbeat_at=timezone.now())
