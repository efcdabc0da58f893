"""Where a queued run stands (issue 29 item 9): the runs the eval workers take before it and the
runs they are scoring now, for the run page, the run list and the API. Workers take queued runs in
the order they were made (the ``eval`` queue is first in, first out). And which workers hold the
shards of a sharded run (:func:`run_shard_rows`, issue 32)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from cocoweb.leases import stale_cutoff
from runs.models import Run, RunShard


@dataclass(frozen=True)
class QueuePlace:
    """``ahead``: queued runs made before this one; ``running``: the runs workers hold now."""

    ahead: int
    running: tuple[Run, ...]

    @property
    def position(self) -> int:
        """1 = the next run a free worker takes."""
        return self.ahead + 1


def _waiting() -> Q:
    return Q(state=Run.State.QUEUED, cancel_requested=False)


def run_queue_place(run: Run) -> QueuePlace | None:
    """None unless ``run`` is queued."""
    return runs_queue_places([run]).get(run.pk)


def runs_queue_places(runs: Sequence[Run]) -> dict[int, QueuePlace]:
    """The place of every queued run among ``runs``: two queries, whatever their number."""
    queued = [r for r in runs if r.state == Run.State.QUEUED and not r.cancel_requested]
    if not queued:
        return {}
    latest = max(r.created_at for r in queued)
    line = list(
        Run.objects.filter(_waiting(), created_at__lte=latest).order_by("created_at", "id").values_list("id", flat=True)
    )
    order = {pk: i for i, pk in enumerate(line)}
    running = tuple(Run.objects.filter(state__in=Run.ACTIVE).order_by("started_at", "id"))
    return {r.pk: QueuePlace(ahead=order.get(r.pk, 0), running=running) for r in queued}


@dataclass(frozen=True)
class ShardRow:
    """One shard of a sharded run as the run page shows it; ``stale``: held, but its worker has not
    beaten within the stale limit (died: the next claim takes it over)."""

    index: int
    first: int
    last: int
    items: int
    items_done: int
    state: str
    worker: str
    attempts: int
    heartbeat_at: datetime | None
    stale: bool


def run_shard_rows(run: Run) -> list[ShardRow]:
    """The run's shards in order (none when the run is not sharded): one query."""
    cutoff = stale_cutoff(RunShard)
    return [
        ShardRow(
            index=s.index,
            first=s.first,
            last=s.last,
            items=s.items,
            items_done=s.items_done,
            state=s.get_state_display(),
            worker=s.worker,
            attempts=s.attempts,
            heartbeat_at=s.heartbeat_at,
            stale=s.state in RunShard.HELD_STATES and s.heartbeat_at is not None and s.heartbeat_at < cutoff,
        )
        for s in RunShard.objects.filter(run_id=run.pk).order_by("index")
    ]
