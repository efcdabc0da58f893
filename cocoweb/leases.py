"""One lease for every job a Celery worker holds: a model run (``runs.Run``) and a question-set
build (``knowledge.BuildJob``).

* **Claim.** One conditional UPDATE takes the row for an attempt: the row must be claimable (its
  model says when: queued, not cancelled, …) or held with a heartbeat older than the model's stale
  limit (its worker died). The claim writes a fresh lease token, the worker's name, the time, and
  counts the attempt.
* **Guard.** Every later write of the attempt is conditioned on the token
  (:func:`lease_guarded`); an attempt whose token was replaced raises :class:`LeaseLost` and stops.
* **Heartbeat.** A thread (:class:`Heartbeat`) refreshes ``heartbeat_at`` while the attempt lives,
  also during long steps without callbacks, and records (``lost``) when its write found another
  attempt's token.
* **Sweep.** :func:`lease_stale` lists the held rows whose heartbeat went stale; housekeeping
  re-sends their tasks (``runs/tasks.py``, ``knowledge/tasks.py``), and the next claim takes over.

The stale limit and the heartbeat interval are settings (``cocoweb/settings.py``), named by the
model's ``STALE_SETTING`` and ``HEARTBEAT_SETTING``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ClassVar

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

log = logging.getLogger(__name__)


class LeasedJob(models.Model):
    """The lease fields of a job row. A concrete model sets the states in which a worker holds the
    row (``HELD_STATES``) and the names of its stale and heartbeat settings."""

    lease = models.UUIDField(null=True, blank=True, help_text="token of the worker attempt holding the job")
    worker = models.CharField(max_length=255, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    HELD_STATES: ClassVar[tuple[str, ...]] = ()
    STALE_SETTING: ClassVar[str] = ""
    HEARTBEAT_SETTING: ClassVar[str] = ""

    class Meta:
        abstract = True


class LeaseLost(RuntimeError):
    """Another attempt holds the job now: this attempt must stop without writing."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def stale_seconds(model: type[LeasedJob]) -> float:
    """How long a held job may go without a heartbeat before it counts as abandoned."""
    return float(getattr(settings, model.STALE_SETTING))


def heartbeat_seconds(model: type[LeasedJob]) -> float:
    return float(getattr(settings, model.HEARTBEAT_SETTING))


def stale_cutoff(model: type[LeasedJob]) -> datetime:
    return timezone.now() - timedelta(seconds=stale_seconds(model))


def stale_q(model: type[LeasedJob], cutoff: datetime | None = None) -> Q:
    """Held, and no heartbeat since ``cutoff`` (default: the stale limit ago)."""
    return Q(state__in=model.HELD_STATES, heartbeat_at__lt=cutoff or stale_cutoff(model))


def lease_stale(model: type[LeasedJob]) -> QuerySet[Any]:
    """Held rows whose worker stopped beating (died): to be taken over by another attempt."""
    return model._default_manager.filter(stale_q(model))


def lease_requeue(ids: Sequence[int], task: Any, *, queue: str, what: str) -> list[int]:
    """Send ``task`` once more for each job id once the transaction commits (the housekeeping
    sweep's requeue of stale or lost jobs, runs' and builds' alike). A duplicate message is harmless:
    the job's claim skips it. ``what`` names the jobs in the log line ("run(s)", "build job(s)")."""
    out = list(ids)
    for pk in out:
        transaction.on_commit(partial(task.apply_async, (pk,), queue=queue))
    if out:
        log.warning("re-enqueued %s %s", what, ", ".join(map(str, out)))
    return out


def lease_claim(model: type[LeasedJob], pk: int, claimable: Q, worker: str = "", **fields: Any) -> uuid.UUID | None:
    """Take row ``pk`` for a new attempt when it matches ``claimable`` or is held by a dead worker;
    ``fields`` are written in the same UPDATE. Returns the attempt's token, or None when the row is
    finished or held by a live worker."""
    now = timezone.now()
    token = uuid.uuid4()
    takeover = stale_q(model, now - timedelta(seconds=stale_seconds(model)))
    n = model._default_manager.filter(Q(pk=pk) & (claimable | takeover)).update(
        lease=token, heartbeat_at=now, worker=worker or worker_name(), attempts=F("attempts") + 1, **fields
    )
    return token if n else None


def lease_guarded(model: type[LeasedJob], pk: int, token: uuid.UUID) -> QuerySet[Any]:
    """The row, as long as this attempt holds it (an UPDATE through it matches nothing otherwise)."""
    return model._default_manager.filter(pk=pk, lease=token)


def lease_write(model: type[LeasedJob], pk: int, token: uuid.UUID, **fields: Any) -> None:
    """Write ``fields`` and a heartbeat, or raise :class:`LeaseLost`."""
    if not lease_guarded(model, pk, token).update(heartbeat_at=timezone.now(), **fields):
        raise LeaseLost(f"{model._meta.verbose_name} {pk}: lease lost (another attempt holds it)")


class Heartbeat(threading.Thread):
    """Refreshes the lease's heartbeat every ``heartbeat_seconds`` while the attempt runs (even
    during a long model load or a step without callbacks). ``lost`` turns true when a beat finds
    another attempt's token; the thread then stops and the attempt stops at its next check."""

    def __init__(self, model: type[LeasedJob], pk: int, token: uuid.UUID) -> None:
        super().__init__(daemon=True, name=f"{model._meta.model_name}-{pk}-heartbeat")
        self.model, self.pk, self.token = model, pk, token
        self.stop_event = threading.Event()
        self.lost = False

    def run(self) -> None:
        try:
            while not self.stop_event.wait(heartbeat_seconds(self.model)):
                try:
                    self.beat()
                except LeaseLost:
                    self.lost = True
                    log.warning("%s %s: heartbeat found another attempt's lease", self.model.__name__, self.pk)
                    return
                except Exception:  # a locked SQLite file: try again at the next beat
                    log.warning("%s %s: heartbeat write failed", self.model.__name__, self.pk, exc_info=True)
        finally:
            connection.close()

    def beat(self) -> None:
        """One beat: the lease-guarded heartbeat write (a subclass may refresh more, e.g. a run shard's run)."""
        lease_write(self.model, self.pk, self.token)

    def stop(self) -> None:
        self.stop_event.set()
        self.join(timeout=5)
