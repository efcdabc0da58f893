"""The cache of the aggregates of :mod:`explorer.selectors.errors` that depend on a run's
predictions only: each is written once there and decorated with :func:`per_finished_runs`.

A finished run's predictions never change, so its aggregates are kept in the cache under a key
naming every run with its state and ``finished_at``: a run that is still going, or one that was
resumed or re-run (a new state and finish time, or a new run), is never served an old figure.
Runs without a ``finished_at`` are always computed afresh. Aggregates that also read other data
(human labels, survey answers) are not cached here; one that reads a run's statement set besides
its predictions is (a set's statements do not change once imported).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

from django.core.cache import cache

from runs.models import Run

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R", Run, Sequence[Run])
TTL = 24 * 3600


def cache_key(runs: Sequence[Run], name: str) -> str | None:
    """The cache key of aggregate ``name`` over ``runs``, or None when one of them may still change."""
    if not runs or any(not r.is_finished or r.finished_at is None for r in runs):
        return None
    stamp = ",".join(f"{r.pk}.{r.state}.{r.finished_at.timestamp():.6f}" for r in runs)  # type: ignore[union-attr]
    return f"explorer:run-aggregate:{name}:{stamp}"


def for_finished_runs(runs: Sequence[Run], name: str, compute: Callable[[], T]) -> T:
    """``compute()``, cached under ``name`` while every one of ``runs`` is finished: for an
    aggregate that also takes arguments that are no part of its key (rows the page read already)."""
    key = cache_key(runs, name)
    if key is None:
        return compute()
    hit = cache.get(key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    value = compute()
    cache.set(key, value, TTL)
    return value


def per_finished_runs(
    name: str,
) -> Callable[[Callable[Concatenate[R, P], T]], Callable[Concatenate[R, P], T]]:
    """Cache an aggregate whose first argument is a run or a sequence of runs while every run is
    finished; the other arguments (a dimension, a bucket count) are part of the key."""

    def decorate(compute: Callable[Concatenate[R, P], T]) -> Callable[Concatenate[R, P], T]:
        @functools.wraps(compute)
        def cached(runs: R, /, *args: P.args, **kwargs: P.kwargs) -> T:
            seq = [runs] if isinstance(runs, Run) else list(runs)
            extra = ",".join([*(str(a) for a in args), *(f"{k}={v}" for k, v in sorted(kwargs.items()))])
            return for_finished_runs(seq, f"{name}-{extra}" if extra else name, lambda: compute(runs, *args, **kwargs))

        return cached

    return decorate
