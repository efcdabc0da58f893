"""The store of the aggregates of :mod:`explorer.selectors.errors` that depend on a run's
predictions only: each is written once there and decorated with :func:`per_finished_runs` (one
entry per set of runs) or :func:`each_finished_run` (one entry per run, combined for a page over
several runs). The survey's figures (:class:`explorer.selectors.sources.SurveyReads`) are kept the
same way, under the state of the survey's answers as well.

A finished run's predictions never change, so its aggregates are kept under the state of every
run they read (its state and ``finished_at``): a run that is still going, or one that was resumed
or re-run (a new state and finish time, or a new run), is never served an old figure. Runs without
a ``finished_at`` are always computed afresh. Aggregates that also read other data (human labels)
are not kept here unless that data has a state of its own (a survey's answers:
``SurveyReads.version``); one that reads a run's statement set besides its predictions is (a set's
statements do not change once imported).

Two tiers: the cache (Redis in production; a per-process local memory in the demo), then the
database (:class:`explorer.models.StoredAggregate`), so that a page is served what was computed
once - by the run's end (explorer.services), a survey's import, or another process - after the
cache lost it. The entries of one state (``scope``: the runs' states, the survey's answers and the
code that computes them) are read from the database together, in one statement, on the first miss
of the scope; each computed entry is written to both tiers, replacing the row of its former state.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import logging
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from runs.models import Run

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R", Run, Sequence[Run])
TTL = 24 * 3600
MAX_KEY = 200  # memcached refuses keys over 250 characters; Django warns about them on every backend
log = logging.getLogger(__name__)
# the packages whose code computes what is stored, and the pinned third-party releases (numpy,
# scipy, plotly … in requirements.txt): a change to any of them (a deploy) is a new scope, so no
# figure computed by former code is served from the database
CODE_PACKAGES = ("commonsense", "explorer", "runs", "annotation", "knowledge")
CODE_FILES = ("requirements.txt", "requirements-nodeps.txt")


@functools.cache
def code_version() -> str:
    """A digest of the source of :data:`CODE_PACKAGES` (migrations excluded) and of
    :data:`CODE_FILES`, read once per process - at its start (``ExplorerConfig.ready``), so that a
    worker whose files a deploy replaced before it restarted keeps the digest of the code it runs."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    paths = [p for package in CODE_PACKAGES for p in sorted((root / package).rglob("*.py"))]
    for path in [*paths, *(root / f for f in CODE_FILES)]:
        if "migrations" in path.parts or not path.is_file():
            continue
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _arg(value: object) -> str:
    """An argument in a key: a tuple of dimensions as ``relation+kind`` (no spaces or quotes, which
    some cache backends refuse)."""
    return "+".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)


def _extra(signature: inspect.Signature, runs: object, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The arguments after the runs in a key, bound to their names with the defaults filled in: the
    same value asked for positionally, by keyword or by default has one key."""
    bound = signature.bind(runs, *args, **kwargs)
    bound.apply_defaults()
    return ",".join(f"{k}={_arg(v)}" for k, v in list(bound.arguments.items())[1:])


def _short(text: str, prefix: str) -> str:
    """``prefix + text``, or a digest of it when longer than :data:`MAX_KEY` (many runs)."""
    whole = prefix + text
    return whole if len(whole) <= MAX_KEY else f"{prefix}{hashlib.sha256(text.encode()).hexdigest()}"


def _key(slot: str, scope: str) -> str:
    """The cache key of a slot in a scope."""
    return _short(f"{scope}:{slot}", "explorer:aggregate:")


@dataclass(frozen=True)
class Entry:
    """Where one aggregate over one state of its inputs lives: ``slot`` (the aggregate, its
    arguments, its runs and campaigns) and ``scope`` (the state of those inputs) in the database,
    :attr:`key` in the cache; ``refs`` the runs and campaigns whose deletion drops the row."""

    slot: str
    scope: str
    refs: str

    @property
    def key(self) -> str:
        return _key(self.slot, self.scope)

    @property
    def marker(self) -> str:
        """The cache key that says "the database's rows of this scope are in the cache"."""
        return f"explorer:stored-scope:{self.scope}"


def entry(runs: Sequence[Run], name: str, *, state: str = "", campaigns: Sequence[int] = ()) -> Entry | None:
    """The entry of aggregate ``name`` over ``runs`` (and, with ``state``, over the answers of the
    survey ``campaigns`` in that state), or None when one of the runs may still change."""
    if any(not r.is_finished or r.finished_at is None for r in runs):
        return None
    stamp = ",".join(f"{r.pk}.{r.state}.{r.finished_at.timestamp():.6f}" for r in runs)  # type: ignore[union-attr]
    scope = hashlib.sha256(f"{code_version()}|{stamp}|{state}".encode()).hexdigest()
    on = ",".join(str(r.pk) for r in runs) + (f"@survey-{','.join(map(str, campaigns))}" if campaigns else "")
    refs = "".join([*(f",run{r.pk}" for r in runs), *(f",campaign{c}" for c in campaigns)])
    return Entry(slot=_short(f"{name}:{on}", ""), scope=scope, refs=f"{refs}," if refs else "")


def cache_key(runs: Sequence[Run], name: str) -> str | None:
    """The cache key of aggregate ``name`` over ``runs``, or None when one of them may still change."""
    if not runs:
        return None
    found = entry(runs, name)
    return None if found is None else found.key


def _sign(payload: bytes) -> bytes:
    """A row's value: an HMAC of the pickle (keyed by ``SECRET_KEY``) before it, so that only what
    this deployment wrote is ever unpickled (a row written by any other means is not)."""
    return salted_hmac("explorer.stored-aggregate", payload, algorithm="sha256").digest() + payload


def _unpickle(value: bytes | memoryview) -> Any:
    raw = bytes(value)
    mac, payload = raw[:32], raw[32:]
    if not constant_time_compare(mac, salted_hmac("explorer.stored-aggregate", payload, algorithm="sha256").digest()):
        log.warning("a stored aggregate failed its signature check (another SECRET_KEY?); computing it again")
        return None
    try:
        return pickle.loads(payload)
    except Exception:  # a class renamed since: treated as absent (computed and written again)
        log.warning("a stored aggregate could not be read; computing it again", exc_info=True)
        return None


def get_many(entries: Iterable[Entry]) -> dict[str, Any]:
    """{entry key: value} of the entries found: in the cache, else in the database. The database is
    read in one statement: every row of each scope not read into the cache yet (with it, the other
    aggregates of the same runs that the page asks for next), and the rows of scopes read before
    whose cache entry was evicted since."""
    wanted = list({e.key: e for e in entries}.values())
    if not wanted:
        return {}
    hits = cache.get_many([e.key for e in wanted] + list({e.marker for e in wanted}))
    missing = [e for e in wanted if hits.get(e.key) is None]
    if not missing:
        return hits
    from ..models import StoredAggregate

    scopes = {e.scope: e.marker for e in missing if e.marker not in hits}
    slots = {e.slot: e.scope for e in missing if e.marker in hits}
    rows = StoredAggregate.objects.filter(Q(scope__in=list(scopes)) | Q(slot__in=list(slots))).values_list(
        "slot", "scope", "value"
    )
    loaded: dict[str, Any] = {}
    for slot, scope, raw in rows:
        if scope in scopes or slots.get(slot) == scope:  # not a slot's row of another state
            value = _unpickle(raw)
            if value is not None:
                loaded[_key(slot, scope)] = value
    cache.set_many({**loaded, **dict.fromkeys(scopes.values(), True)}, TTL)
    return {e.key: v for e in wanted if (v := loaded.get(e.key, hits.get(e.key))) is not None}


def put_many(values: dict[Entry, Any]) -> None:
    """Keep each value in the cache and in the database, replacing its slot's row of a former state:
    one ``INSERT … ON CONFLICT (slot) DO UPDATE`` (SQLite and PostgreSQL; ``bulk_create`` would add a
    transaction of its own around it, two more statements on SQLite). None is not kept (it reads as
    absent). A write that fails (a locked SQLite database) is logged and the page goes on with the
    value it computed; inside a transaction the write takes a savepoint, so its failure leaves the
    caller's transaction usable."""
    values = {e: v for e, v in values.items() if v is not None}
    if not values:
        return
    from ..models import StoredAggregate

    cache.set_many({e.key: v for e, v in values.items()}, TTL)
    table = connection.ops.quote_name(StoredAggregate._meta.db_table)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    rows = sorted(values.items(), key=lambda kv: kv[0].slot)  # one lock order for every writer
    params: list[Any] = []
    for e, v in rows:
        params += [e.slot, e.scope, e.refs, _sign(pickle.dumps(v, pickle.HIGHEST_PROTOCOL)), now]
    sql = (
        f"INSERT INTO {table} (slot, scope, refs, value, computed_at) VALUES "
        + ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
        + " ON CONFLICT (slot) DO UPDATE SET scope = excluded.scope, refs = excluded.refs, "
        "value = excluded.value, computed_at = excluded.computed_at"
    )
    try:
        with transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext():
            with connection.cursor() as cur:
                cur.execute(sql, params)
    except DatabaseError:
        log.warning("could not store %d aggregate(s); they stay in the cache only", len(rows), exc_info=True)


def prune(older_than: timedelta) -> int:
    """Delete the rows computed longer ago than ``older_than``: those of a former state whose slot is
    never computed again (a compare page's set of runs, a survey's campaigns before a sixth), and any
    other, which the next view computes again. Sent by the housekeeping tick (explorer.tasks)."""
    from ..models import StoredAggregate

    return StoredAggregate.objects.filter(computed_at__lt=timezone.now() - older_than).delete()[0]


def kept(found: Entry | None, compute: Callable[[], T]) -> T:
    """``compute()``, kept under ``found`` (None: computed afresh every time)."""
    if found is None:
        return compute()
    hit = get_many([found]).get(found.key)
    if hit is not None:
        return hit
    value = compute()
    put_many({found: value})
    return value


def for_finished_runs(runs: Sequence[Run], name: str, compute: Callable[[], T]) -> T:
    """``compute()``, kept under ``name`` while every one of ``runs`` is finished: for an
    aggregate that also takes arguments that are no part of its key (rows the page read already)."""
    return kept(entry(runs, name) if runs else None, compute)


def per_finished_runs(
    name: str,
) -> Callable[[Callable[Concatenate[R, P], T]], Callable[Concatenate[R, P], T]]:
    """Keep an aggregate whose first argument is a run or a sequence of runs while every run is
    finished; the other arguments (a dimension, a bucket count) are part of the key."""

    def decorate(compute: Callable[Concatenate[R, P], T]) -> Callable[Concatenate[R, P], T]:
        signature = inspect.signature(compute)

        @functools.wraps(compute)
        def cached(runs: R, /, *args: P.args, **kwargs: P.kwargs) -> T:
            seq = [runs] if isinstance(runs, Run) else list(runs)
            extra = _extra(signature, runs, args, kwargs)
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
    """Keep an aggregate that maps runs to one entry per run id (a run without rows has none) run
    by run: a page over several runs (compare) is served the entries of runs seen or finished
    before, and the aggregate computes the others together, in one call. The other arguments are
    part of the key."""

    def decorate(
        compute: Callable[Concatenate[Sequence[Run], P], dict[int, V]],
    ) -> Callable[Concatenate[Sequence[Run], P], dict[int, V]]:
        signature = inspect.signature(compute)

        @functools.wraps(compute)
        def cached(runs: Sequence[Run], /, *args: P.args, **kwargs: P.kwargs) -> dict[int, V]:
            extra = _extra(signature, runs, args, kwargs)
            # "@run": these entries are ("value", x) / _ABSENT per run, not the {run id: x} maps that
            # for_finished_runs stores under the bare name (a shared cache may hold both kinds)
            label = f"{name}@run-{extra}" if extra else f"{name}@run"
            unique = list({r.pk: r for r in runs}.values())
            entries = {r.pk: entry([r], label) for r in unique}
            hits = get_many(e for e in entries.values() if e is not None)
            out: dict[int, V] = {}
            todo = []
            for r in unique:
                e = entries[r.pk]
                hit = hits.get(e.key) if e is not None else None
                if hit is None:
                    todo.append(r)
                elif hit != _ABSENT:
                    out[r.pk] = hit[1]
            if todo:
                fresh = compute(todo, *args, **kwargs)
                store: dict[Entry, Any] = {}
                for r in todo:
                    if r.pk in fresh:
                        out[r.pk] = fresh[r.pk]
                    e = entries[r.pk]
                    if e is not None:
                        store[e] = ("value", fresh[r.pk]) if r.pk in fresh else _ABSENT
                put_many(store)
            return {r.pk: out[r.pk] for r in unique if r.pk in out}

        return cached

    return decorate
