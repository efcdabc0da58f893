"""The evaluation loop of one run, called by the Celery task (or by ``run_eval --inline``).

* **Lease** (:mod:`cocoweb.leases`). A worker claims a run with one conditional UPDATE: the run
  must be queued, or active with a heartbeat older than ``COCOWEB_RUN_STALE_SECONDS`` (its worker
  died). The claim writes a fresh lease token; a heartbeat thread refreshes ``heartbeat_at`` while
  the attempt lives, and every write of the loop is conditioned on the token, so an attempt that
  lost its lease stops.
* **Resume.** Items already stored for the run are skipped; each chunk's predictions are written
  in one transaction together with the progress counters (``bulk_create`` ignoring conflicts on
  the unique (run, item) constraint, so even a duplicated attempt cannot store an item twice).
* **Cancel** is a flag on the row, read between chunks.
* **Shards** (:mod:`runs.shards`). A run with more items than its shard size is split, once its
  first worker has loaded the model, into shards that any number of workers claim
  (:func:`shards_execute`); the worker that finishes the last shard computes the metrics, once.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cocoweb.leases import Heartbeat, LeaseLost, lease_claim, lease_write, worker_name
from commonsense.scoring.types import ItemResult, Scorer
from runs import shards
from runs.item_facets import kba_correct, question_facets
from runs.models import Prediction, Run, RunShard
from runs.reports.run_metrics import run_metrics_compute
from runs.scorers import item_count, items_for_run, question_item, scorer_for_run, statement_item
from runs.signals import run_finished

log = logging.getLogger(__name__)
MAX_RECENT_ERRORS = shards.MAX_RECENT_ERRORS
SHARDED = "sharded"
FanOut = Callable[[int], None]  # sends n more messages for the run (the Celery task's, runs/tasks.py)


def run_claim(run_id: int, worker: str = "") -> uuid.UUID | None:
    """Take the run for this attempt, or return None when it is finished or held by a live worker."""
    return lease_claim(Run, run_id, Q(state=Run.State.QUEUED, cancel_requested=False), worker)


def _lock(run_id: int, token: uuid.UUID) -> Run:
    """Inside a transaction: write first (the lease-guarded heartbeat), then read. On SQLite a
    transaction that reads before it writes fails at once ("database is locked") when another
    connection wrote in between; one that starts with a write waits for the lock instead."""
    lease_write(Run, run_id, token)
    return Run.objects.get(pk=run_id)


def _set_state(run_id: int, token: uuid.UUID, state: str, **fields: Any) -> None:
    with transaction.atomic():
        run = _lock(run_id, token)
        run.phases = [*run.phases, [state, timezone.now().isoformat()]]
        run.state = state
        for k, v in fields.items():
            setattr(run, k, v)
        run.save(update_fields=["phases", "state", *fields])


def chunk_size_next(seconds_per_item: float | None, *, target_s: float, most: int) -> int:
    """How many items the next chunk scores so that progress is written about every ``target_s``
    seconds: a slow model (the demo's SmolLM2 on a busy CPU: ~15 s an item) stores and shows each
    item, a fast one grows to ``most`` (the run's chunk_size). Before any timing: one item."""
    if seconds_per_item is None:
        return 1
    if seconds_per_item <= 0:
        return most
    return max(1, min(most, int(target_s / seconds_per_item)))


def _chunks(seq: list[Any], most: int, target_s: float, timing: dict[str, float] | None = None) -> Iterator[list[Any]]:
    """``seq`` in chunks sized by :func:`chunk_size_next` from the time the previous chunk took
    between two yields (scoring and storing it). ``timing`` carries the last time per item from one
    sequence to the next (a worker's shards: the next shard starts at full size)."""
    i = 0
    per_item = timing.get("per_item") if timing is not None else None
    while i < len(seq):
        size = chunk_size_next(per_item, target_s=target_s, most=most)
        started = time.monotonic()
        yield seq[i : i + size]
        per_item = (time.monotonic() - started) / size
        if timing is not None:
            timing["per_item"] = per_item
        i += size


def _no_nul(value: Any) -> Any:
    """``value`` with every NUL character replaced (U+FFFD): model output may contain it, and
    PostgreSQL's text and jsonb columns refuse it (a run failed with "unsupported Unicode escape
    sequence" on a tiny model's random generation)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {_no_nul(k): _no_nul(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nul(v) for v in value]
    return value


def _prediction(run: Run, position: int, row: Any, res: ItemResult) -> Prediction:
    p = Prediction(
        run=run,
        position=position,
        chosen=res.chosen,
        chosen_norm=res.chosen_norm,
        scores=list(res.scores),
        norm_scores=None if res.norm_scores is None else list(res.norm_scores),
        extra=_no_nul(dict(res.extra)),
        raw_output=_no_nul(res.raw_output or ""),
        latency_s=float(res.latency_s or 0.0),
        prompt_tokens=res.prompt_tokens or 0,
        completion_tokens=res.completion_tokens or 0,
        error=_no_nul(res.error or ""),
    )
    if run.is_statement_run:
        p.statement = row
        if row.human_majority is not None and res.chosen is not None:
            p.correct = res.chosen == row.human_majority  # options ("no", "yes"): 1 = agree
    else:
        p.question = row
        if row.answer_index is not None:
            p.correct = res.chosen == row.answer_index
        for field, value in question_facets(row, p.extra).items():
            setattr(p, field, value)
        p.kba_correct = kba_correct(p.extra)
    return p


def _store_chunk(run: Run, token: uuid.UUID, preds: list[Prediction], started: float, done_before: int) -> Run:
    """One transaction: the chunk's predictions and the progress counters."""
    with transaction.atomic():
        fresh = _lock(run.pk, token)
        Prediction.objects.bulk_create(preds, ignore_conflicts=True)
        done = Prediction.objects.filter(run_id=run.pk).count()
        fresh.items_done = done
        errs = [f"#{p.position}: {p.error}" for p in preds if p.error]
        if errs:
            fresh.items_failed = Prediction.objects.filter(run_id=run.pk).exclude(error="").count()
            fresh.recent_errors = (fresh.recent_errors + errs)[-MAX_RECENT_ERRORS:]
        elapsed = max(time.monotonic() - started, 1e-6)
        rate = (done - done_before) / elapsed
        fresh.items_per_s = round(rate, 3)
        fresh.eta_s = round((fresh.items_total - done) / rate, 1) if rate > 0 else None
        fresh.save(update_fields=["items_done", "items_failed", "recent_errors", "items_per_s", "eta_s"])
    return fresh


def run_chunk_size(run: Run, scorer_settings: dict[str, Any]) -> int:
    """Items scored (and stored) together: the run's ``chunk_size``, else the setting, raised to the
    requests an endpoint takes at once (``concurrency`` in the scorer's settings) so that a chunk
    keeps them all busy."""
    asked = run.params.get("chunk_size")
    if asked:
        return int(asked)
    return max(int(settings.COCOWEB_RUN_CHUNK_SIZE), int(scorer_settings.get("concurrency") or 1))


def _cancelled(run_id: int) -> bool:
    return bool(Run.objects.filter(pk=run_id).values_list("cancel_requested", flat=True).first())


def run_execute(run_id: int, *, worker: str = "", heartbeat: bool = True, fan_out: FanOut | None = None) -> str:
    """Run (or resume) ``run_id`` to its end. Returns the final state, or ``"skipped"`` when the
    run is finished or held by a live worker (a duplicate or redelivered task). A sharded run's
    worker returns the run's state when other workers still hold shards.

    ``heartbeat=False`` beats only between chunks, from this thread (for callers inside an open
    transaction, e.g. tests, where a second connection could not see or write the row).
    ``fan_out(n)`` is called once when the run has been split into n + 1 shards, to call n more
    workers (the task sends n more messages; inline, nobody else is called)."""
    if shards.run_sharded(run_id):
        return shards_execute(run_id, worker=worker, heartbeat=heartbeat)
    token = run_claim(run_id, worker)
    if token is None:
        return "skipped"
    beat = Heartbeat(Run, run_id, token)
    if heartbeat:
        beat.start()
    loaded: list[Scorer] = []
    try:
        state = _execute(run_id, token, beat, loaded)
    except LeaseLost:
        log.warning("run %s: another worker took over; this attempt stops", run_id)
        return "skipped"
    except Exception as exc:
        log.exception("run %s failed", run_id)  # the traceback goes to the log
        return run_failed(run_id, token, exc)
    finally:
        if heartbeat:
            beat.stop()
    if state != SHARDED:
        return state
    n = RunShard.objects.filter(run_id=run_id).count()
    if fan_out is not None and n > 1:
        try:
            fan_out(n - 1)
        except Exception:  # the broker is unreachable: this worker goes on alone (housekeeping re-sends)
            log.warning("run %s: could not call more workers for its shards", run_id, exc_info=True)
    return shards_execute(run_id, worker=worker, heartbeat=heartbeat, scorer=loaded[0])


def _error_text(exc: BaseException) -> str:
    """Researchers see the one line; the traceback (server paths, code) only in development."""
    detail = f"\n\n{traceback.format_exc(limit=8)}" if settings.DEBUG else ""
    return f"{type(exc).__name__}: {exc}{detail}"


def run_failed(run_id: int, token: uuid.UUID, exc: BaseException) -> str:
    """The run failed under this attempt's lease: store ``exc`` for its page and return the state;
    ``"skipped"`` when the lease went to another attempt meanwhile (the run is left to it)."""
    try:
        _set_state(run_id, token, Run.State.FAILED, error=_error_text(exc), finished_at=timezone.now(), eta_s=None)
    except LeaseLost:
        return "skipped"
    return Run.State.FAILED


def _execute(run_id: int, token: uuid.UUID, beat: Heartbeat, loaded: list[Scorer]) -> str:
    run = Run.objects.select_related("question_set", "statement_set").get(pk=run_id)
    if run.cancel_requested:
        _set_state(run_id, token, Run.State.CANCELLED, finished_at=timezone.now(), eta_s=None)
        return Run.State.CANCELLED
    _set_state(
        run_id, token, Run.State.LOADING, started_at=run.started_at or timezone.now(), items_total=item_count(run)
    )
    run.refresh_from_db()
    scorer = scorer_for_run(run)
    plan = shards.shards_plan(run, shards.shard_size(run))
    if plan:
        loaded.append(scorer)
        shards.run_shards_create(run, token, plan, scorer_settings=scorer.describe())
        return SHARDED
    _set_state(run_id, token, Run.State.SCORING, scorer_settings=scorer.describe())
    run.refresh_from_db()

    stored = set(Prediction.objects.filter(run_id=run_id).values_list("position", flat=True))
    pending = [(pos, row) for pos, row in items_for_run(run) if pos not in stored]
    chunk_size = run_chunk_size(run, scorer.describe())
    pace = float(run.params.get("pace_s") or 0.0)
    target_s = float(settings.COCOWEB_RUN_PROGRESS_SECONDS)
    started, done_before = time.monotonic(), len(stored)
    for chunk in _chunks(pending, chunk_size, target_s):
        if _cancelled(run_id):
            _set_state(run_id, token, Run.State.CANCELLED, finished_at=timezone.now(), eta_s=None)
            return Run.State.CANCELLED
        if beat.lost:
            raise LeaseLost(f"run {run_id}: lease lost")
        run = _store_chunk(run, token, _score_chunk(scorer, run, chunk), started, done_before)
        if pace:
            time.sleep(pace)
    return _finish(run_id, token, run)


def _score_chunk(scorer: Scorer, run: Run, chunk: list[tuple[int, Any]]) -> list[Prediction]:
    """The chunk's items scored, as predictions to store (an item the scorer left out: its error)."""
    to_item = statement_item if run.is_statement_run else question_item
    results = scorer.score_batch([to_item(row) for _, row in chunk])
    by_id = {r.item_id: r for r in results}
    preds = []
    for pos, row in chunk:
        res = by_id.get(str(row.pk)) or ItemResult(item_id=str(row.pk), chosen=None, error="scorer returned no result")
        preds.append(_prediction(run, pos, row, res))
    return preds


def _finish(run_id: int, token: uuid.UUID, run: Run) -> str:
    """Metrics (once), then done, then the apps above are told."""
    _set_state(run_id, token, Run.State.METRICS, eta_s=0.0)
    run_metrics_compute(run)
    _set_state(run_id, token, Run.State.DONE, finished_at=timezone.now(), eta_s=None)
    for receiver, result in run_finished.send_robust(sender=Run, run_id=run_id):
        if isinstance(result, Exception):
            log.error("run %s: %r after the run ended failed: %r", run_id, receiver, result)
    return Run.State.DONE


def shards_execute(run_id: int, *, worker: str = "", heartbeat: bool = True, scorer: Scorer | None = None) -> str:
    """One worker's share of a sharded run: claim shards one after another (queued ones, then those
    whose worker died) and score each, loading the model at the first claim (``scorer``: the one the
    run's first worker loaded already); the worker that leaves no shard unfinished computes the
    metrics. Returns the run's state as this worker leaves it, or ``"skipped"``."""
    worker = worker or worker_name()
    run = Run.objects.select_related("question_set", "statement_set").get(pk=run_id)
    if run.state not in (Run.State.SCORING, Run.State.METRICS):
        return "skipped"
    timing: dict[str, float] = {}  # the chunk sizing's pace, carried from shard to shard
    while run.state == Run.State.SCORING:
        if _cancelled(run_id):
            return Run.State.CANCELLED if shards.run_shards_stop(run_id, Run.State.CANCELLED) else "skipped"
        claim = shards.shard_claim(run_id, worker)
        if claim is None:
            break
        shard, token = claim
        beat = shards.ShardHeartbeat(shard, token)
        if heartbeat:
            beat.start()
        try:
            scorer = scorer or scorer_for_run(run)
            if _shard_score(run, shard, token, beat, scorer, timing) == Run.State.CANCELLED:
                return Run.State.CANCELLED
        except LeaseLost:
            log.warning("%s: the lease went to another attempt (or the run stopped)", shard)
        except Exception as exc:
            log.exception("%s failed", shard)
            error = f"{_error_text(exc)}\n(shard {shard.index}, worker {worker})"
            return Run.State.FAILED if shards.run_shards_stop(run_id, Run.State.FAILED, error=error) else "skipped"
        finally:
            if heartbeat:
                beat.stop()
        run.refresh_from_db()
    if shards.shards_unfinished(run_id):
        return Run.objects.values_list("state", flat=True).get(pk=run_id)
    return _shards_metrics(run_id, worker, heartbeat)


def _shards_metrics(run_id: int, worker: str, heartbeat: bool) -> str:
    """Every shard is done: one worker computes the metrics. The claim moves the run to "metrics"
    in its UPDATE (or takes over a run whose metrics worker died)."""
    token = lease_claim(
        Run, run_id, Q(state=Run.State.SCORING, cancel_requested=False), worker, state=Run.State.METRICS
    )
    if token is None:
        return "skipped"
    shards.run_counts_exact(run_id)
    run_beat = Heartbeat(Run, run_id, token)
    if heartbeat:
        run_beat.start()
    try:
        return _finish(run_id, token, Run.objects.select_related("question_set", "statement_set").get(pk=run_id))
    except LeaseLost:
        return "skipped"
    except Exception as exc:
        log.exception("run %s: metrics failed", run_id)
        return run_failed(run_id, token, exc)
    finally:
        if heartbeat:
            run_beat.stop()


def _shard_score(
    run: Run, shard: RunShard, token: uuid.UUID, beat: Heartbeat, scorer: Scorer, timing: dict[str, float]
) -> str:
    """Score the shard's items not stored yet, chunk by chunk; then the shard is done."""
    stored = shards.shard_stored(shard)
    pending = [(pos, row) for pos, row in items_for_run(run, shard.first, shard.last) if pos not in stored]
    chunk_size = run_chunk_size(run, scorer.describe())
    pace = float(run.params.get("pace_s") or 0.0)
    started, done = time.monotonic(), 0
    for chunk in _chunks(pending, chunk_size, float(settings.COCOWEB_RUN_PROGRESS_SECONDS), timing):
        if _cancelled(run.pk):
            shards.run_shards_stop(run.pk, Run.State.CANCELLED)
            return Run.State.CANCELLED
        if beat.lost:
            raise LeaseLost(f"{shard}: lease lost")
        preds = _score_chunk(scorer, run, chunk)
        done += len(preds)
        shards.shard_store(shard, token, preds, done / max(time.monotonic() - started, 1e-6))
        if pace:
            time.sleep(pace)
    shards.shard_finish(shard, token)
    return RunShard.State.DONE
