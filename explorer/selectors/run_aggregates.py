"""The aggregates of :mod:`explorer.selectors.errors` that depend on a run's predictions only,
cached per finished run.

A finished run's predictions never change, so its aggregates are kept in the cache under a key
naming every run with its state and ``finished_at``: a run that is still going, or one that was
resumed or re-run (a new state and finish time, or a new run), is never served an old figure.
Runs without a ``finished_at`` are always computed afresh. Aggregates that also read other data
(human labels) are not cached here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.core.cache import cache

from runs.models import Run

from . import errors as es

T = TypeVar("T")
TTL = 24 * 3600


def cache_key(runs: Sequence[Run], name: str) -> str | None:
    """The cache key of aggregate ``name`` over ``runs``, or None when one of them may still change."""
    if not runs or any(not r.is_finished or r.finished_at is None for r in runs):
        return None
    stamp = ",".join(f"{r.pk}.{r.state}.{r.finished_at.timestamp():.6f}" for r in runs)  # type: ignore[union-attr]
    return f"explorer:run-aggregate:{name}:{stamp}"


def _cached(runs: Sequence[Run], name: str, compute: Callable[[], T]) -> T:
    key = cache_key(runs, name)
    if key is None:
        return compute()
    hit = cache.get(key)
    if hit is not None:
        return hit
    value = compute()
    cache.set(key, value, TTL)
    return value


def accuracy_by(runs: Sequence[Run], dimension: str) -> list[dict[str, Any]]:
    return _cached(runs, f"accuracy-{dimension}", lambda: es.accuracy_by(runs, dimension))


def position_counts(run: Run) -> list[tuple[int, int, int]]:
    return _cached([run], "positions", lambda: es.position_counts(run))


def max_options(run: Run) -> int:
    return _cached([run], "options", lambda: es.max_options(run))


def coco_summary(runs: Sequence[Run]) -> dict[int, dict[str, Any]]:
    return _cached(runs, "coco", lambda: es.coco_summary(runs))


def difficulty_buckets(runs: Sequence[Run]) -> dict[int, list[dict[str, Any]]]:
    return _cached(runs, "difficulty", lambda: es.difficulty_buckets(runs))
