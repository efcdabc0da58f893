"""The explorer's one table: the aggregates of finished runs and of surveys, kept in the database
behind the cache (:mod:`explorer.selectors.run_aggregates`)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class StoredAggregate(models.Model):
    """One aggregate a page computed (a run's accuracy by relation, a survey's split-half
    baseline, a population report), pickled, so that a page is served it after the cache lost it
    (a restart, an eviction, another process with its own local-memory cache) and the background
    warm-ups' work reaches every web process.

    ``slot`` names the aggregate without the state of its inputs (the aggregate, its arguments, the
    ids of its runs and survey campaigns): one row per slot, replaced when the inputs change.
    ``scope`` is the digest of the state the value was computed from (each run's state and finish
    time, a survey's answers, the code that computes it); a row is served only while its scope is
    the current one, and a page reads every row of a scope in one statement. ``refs`` lists the
    runs and campaigns the value read, as ``,run12,campaign5,``: deleting one of them deletes the
    rows (explorer.signals). Rows not computed again for ``COCOWEB_STORED_AGGREGATE_DAYS`` are
    deleted by the housekeeping tick (a slot that is never asked for again: a compare page's set of
    runs, a survey's campaigns before a sixth)."""

    slot = models.CharField(max_length=200, unique=True)
    scope = models.CharField(max_length=64, db_index=True)
    refs = models.TextField(default="")
    value = models.BinaryField()  # an HMAC of the pickle, then the pickle (run_aggregates._sign)
    computed_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "stored aggregate"

    def __str__(self) -> str:
        return self.slot
