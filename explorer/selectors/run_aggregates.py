"""The cache of the aggregates of :mod:`explorer.selectors.errors` that depend on a run's
predictions only: each is written once there and decorated with :func:`per_finished_runs` (one
entry per set of runs) or :func:`each_finished_run` (one entry per run, combined for a page over
several runs).

A finished run's predictions never change, so its aggregates are kept in the cache under a key
naming every run with its state and ``finished_at``: a run that is still going, or one that was
resumed or re-run (a new state and finish time, or a new run), is never served an old figure.
Runs without a ``finished_at`` are always computed afresh. Aggregates that also read other data
(human labels, survey answers) are not cached here; one that reads a run's statement set besides
its predictions is (a set's statements do not change once imported).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

from django.core.cache import cache

from runs.models import Run

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R", Run, Sequence[Run])
TTL = 24 * 3600
MAX_KEY = 200  # memcached refuses keys over 250 characters; Django warns about them on every backend


def _arg(value: object) -> str:
    """An argument in a key: a tuple of dimensions as ``relation+kind`` (no spaces or quotes, which
    some cache backends refuse)."""
    return "+".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)


def cache_key(runs: Sequence[Run], name: str) -> str | None:
    """The cache key of aggregate ``name`` over ``runs``, or None when one of them may still change."""
    if not runs or any(not r.is_finished or r.finished_at is None for r in runs):
        return None
    stamp = ",".join(f"{r.pk}.{r.state}.{r.finished_at.timestamp():.6f}" for r in runs)  # type: ignore[union-attr]
    key = f"explorer:run-aggregate:{name}:{stamp}"
    if len(key) > MAX_KEY:  # many runs, a survey's version: a digest keeps every cache backend's key short
        key = f"explorer:run-aggregate:{hashlib.sha256(key.encode()).hexdigest()}"
    return key


def for_finished_runs(runs: Sequence[Run], name: str, compute: Callable[[], T]) -> T:
    """``compute()``, cached under ``name`` while every one of ``runs`` is finished: for an
    aggregate that also takes arguments that are no part of its key (rows the page read already)."""
    key = cache_key(runs, name)
    if key is None:
        return compute()
    hit = cache.get(key)
    if hit is not None:
        return hit
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
            extra = ",".join([*(_arg(a) for a in args), *(f"{k}={_arg(v)}" for k, v in sorted(kwargs.items()))])
            return for_finished_runs(seq, f"{name}-{extra}" if extra else name, lambda: compute(runs, *args, **kwargs))

        return cached

    return decorate


V = TypeVar("V")
_ABSENT = ("absent",)  # a finished run the aggregate has no entry for (no rows), cached as such


def each_finished_run(
    name: str,
) -> Callable[
    [Callable[Concatenate[Sequence[Run], P], dict[int, V]]], Callable[Concatenate[Sequence[Run], P], dict[int, V]]
]:
    """Cache an aggregate that maps runs to one entry per run id (a run without rows has none) run
    by run: a page over several runs (compare) is served the entries of runs seen or finished
    before, and the aggregate computes the others together, in one call. The other arguments are
    part of the key."""

    def decorate(
        compute: Callable[Concatenate[Sequence[Run], P], dict[int, V]],
    ) -> Callable[Concatenate[Sequence[Run], P], dict[int, V]]:
        @functools.wraps(compute)
        def cached(runs: Sequence[Run], /, *args: P.args, **kwargs: P.kwargs) -> dict[int, V]:
            extra = ",".join([*(_arg(a) for a in args), *(f"{k}={_arg(v)}" for k, v in sorted(kwargs.items()))])
            # "@run": these entries are ("value", x) / _ABSENT per run, not the {run id: x} maps that
            # for_finished_runs stores under the bare name (a shared cache may hold both kinds)
            label = f"{name}@run-{extra}" if extra else f"{name}@run"
            unique = list({r.pk: r for r in runs}.values())
            keys = {r.pk: cache_key([r], label) for r in unique}
            hits = cache.get_many([k for k in keys.values() if k is not None])
            out: dict[int, V] = {}
            todo = []
            for r in unique:
                hit = hits.get(keys[r.pk]) if keys[r.pk] is not None else None
                if hit is None:
                    todo.append(r)
                elif hit != _ABSENT:
                    out[r.pk] = hit[1]
            if todo:
                fresh = compute(todo, *args, **kwargs)
                store = {}
                for r in todo:
                    if r.pk in fresh:
                        out[r.pk] = fresh[r.pk]
                    key = keys[r.pk]
                    if key is not None:
                        store[key] = ("value", fresh[r.pk]) if r.pk in fresh else _ABSENT
                if store:
                    cache.set_many(store, TTL)
            return {r.pk: out[r.pk] for r in unique if r.pk in out}

        return cached

    return decorate
