"""Evaluation runs under load: a 10,000-question CoCo-shaped set scored by the seeded ``random``
backend (cheap and deterministic per item, so the figures measure the platform — reading items,
storing predictions in chunks, progress, lease heartbeats, metrics — not a model) through real
Celery workers on the ``eval`` queue, with Redis as the broker and PostgreSQL as the database,
all on 127.0.0.1.

An unsharded run is held by one worker at a time (a lease with a heartbeat, see
``runs/evaluation.py``); a run split into shards (``--shard-size``, ``runs/shards.py``) is shared by
every worker. The script measures, each on a fresh run of the same set with the same seed:

1. ``reference``: one worker, one run.
2. ``sharded 1``: one worker, one run split into shards (what sharding costs a lone worker).
3. ``two runs``: two workers, two runs enqueued together.
4. ``duplicate``: two workers, one run whose task is delivered twice (a redelivery or a double
   enqueue): one worker scores it, the other finds the lease held and skips.
5. ``sharded 2``: two workers, one run split into shards.

``--pace S`` makes every chunk wait S seconds after scoring (the run parameter ``pace_s``), standing
in for a model endpoint's latency: a worker waiting on a remote server leaves the cores free, which
is where a second worker pays on this 2-core machine (the random backend alone is CPU-bound here).

and prints wall time (enqueue -> done), the scoring rate from the run's own phase times, and the
metrics time. Then checks the database: every run ``done`` with exactly one prediction per item
(10,000 distinct questions, positions 0..N-1, no duplicate), and every run's predictions and
metrics (value, CI, n of each metric and scope) equal to the reference run's.

    .venv/bin/python perf/load_eval.py                      # starts its own PostgreSQL + Redis
    .venv/bin/python perf/load_eval.py --items 10000 --chunk-size 32 --shard-size 1000
    .venv/bin/python perf/load_eval.py --items 2000 --pace 0.2      # an endpoint's latency per chunk

Exit status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from perf.services import services_start, services_stop  # noqa: E402
from perf.synth_sets import coco_shaped_set  # noqa: E402

SET_NAME = "perf-eval"


def build_set(n: int) -> None:
    """CoCo-shaped questions (memorization, conceptualization sets, atomic + reasoning sets), so the
    metrics phase computes accuracy by structure and relation and the CoCo scores as a real set would."""
    import django

    django.setup()
    from django.core.management import call_command

    from knowledge.models import QuestionSet

    call_command("migrate", verbosity=0)
    QuestionSet.objects.filter(name=SET_NAME).delete()
    coco_shaped_set(SET_NAME, n)


class Workers:
    """Celery workers on the eval queue, started as ``make prod-check`` starts them (prefork pool,
    concurrency 1: one process scores, its parent talks to the broker)."""

    def __init__(self, env: dict[str, str], logdir: Path) -> None:
        self.env, self.logdir, self.procs = env, logdir, []  # type: ignore[var-annotated]

    def start(self, name: str) -> None:
        log = self.logdir / f"{name}.log"
        p = subprocess.Popen(
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "cocoweb",
                "worker",
                "-Q",
                "eval",
                "-n",
                f"{name}@%h",
                "--concurrency",
                "1",
                "-l",
                "INFO",
                "--logfile",
                str(log),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        self.procs.append(p)
        for _ in range(600):
            if log.exists() and " ready." in log.read_text(errors="replace"):
                return
            if p.poll() is not None:
                sys.exit(f"worker {name} exited ({p.returncode}); log: {log}")
            time.sleep(0.1)
        sys.exit(f"worker {name} not ready after 60 s; log: {log}")

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        self.procs = []


def wait_done(run_ids: list[int], timeout: float) -> dict[int, float]:
    """Poll until every run is finished; returns the wall time of each since the call."""
    from runs.models import Run

    t0, done = time.perf_counter(), {}
    while len(done) < len(run_ids):
        if time.perf_counter() - t0 > timeout:
            sys.exit(f"runs {sorted(set(run_ids) - set(done))} not finished after {timeout:.0f} s")
        for pk, state in Run.objects.filter(pk__in=run_ids).values_list("pk", "state"):
            if pk not in done and state in Run.TERMINAL:
                done[pk] = time.perf_counter() - t0
        time.sleep(0.1)
    return done


def phase_seconds(run: object) -> tuple[float, float]:
    """(scoring, metrics) seconds from the run's own phase timestamps."""
    from datetime import datetime

    at = {state: datetime.fromisoformat(t) for state, t in run.phases}  # type: ignore[attr-defined]
    return (at["metrics"] - at["scoring"]).total_seconds(), (at["done"] - at["metrics"]).total_seconds()


def scenario(label: str, n_runs: int, deliveries: int, chunk_size: int, timeout: float, **params: float) -> list[int]:
    from django.db import transaction

    from runs.models import Run
    from runs.services import run_create
    from runs.tasks import EVAL_QUEUE, run_execute_task

    with transaction.atomic():
        runs = [
            run_create(
                set_name=SET_NAME,
                backend="random",
                scoring="loglik",
                seed=7,
                params={"chunk_size": chunk_size, **params},
                enqueue=False,
            )
            for _ in range(n_runs)
        ]
    t0 = time.perf_counter()
    for run in runs:
        for _ in range(deliveries):
            run_execute_task.apply_async((run.pk,), queue=EVAL_QUEUE)
    enqueued = time.perf_counter() - t0
    walls = {pk: enqueued + s for pk, s in wait_done([r.pk for r in runs], timeout).items()}
    total = time.perf_counter() - t0
    items = 0
    for r in runs:
        r.refresh_from_db()
        items += r.items_done
        scoring, metrics = phase_seconds(r) if r.state == Run.State.DONE else (float("nan"), float("nan"))
        shard_workers = sorted(set(r.shards.values_list("worker", flat=True)))
        held = (
            f"{r.shards.count()} shards, workers {', '.join(shard_workers)}" if shard_workers else f"worker {r.worker}"
        )
        print(
            f"  {label:10s} run {r.pk}: {r.state}, {r.items_done} items, wall {walls[r.pk]:.1f} s, scoring "
            f"{scoring:.1f} s = {r.items_done / scoring:.0f} items/s, metrics {metrics:.1f} s, {held}, "
            f"attempts {r.attempts}"
        )
        if r.error:
            print("    error: " + r.error.strip().splitlines()[0])
    print(
        f"  {label:10s} all: {items} items in {total:.1f} s = {items / total:.0f} items/s (wall, enqueue -> last done)"
    )
    return [r.pk for r in runs]


def check(reference: int, others: list[int], n_items: int) -> int:
    from django.db.models import Count

    from runs.models import Prediction, Run, RunMetric

    def metrics(pk: int) -> dict[tuple[str, str], tuple[object, ...]]:
        return {(m.name, m.scope): (m.value, m.ci_low, m.ci_high, m.n) for m in RunMetric.objects.filter(run_id=pk)}

    ref_metrics = metrics(reference)
    ref_chosen = list(
        Prediction.objects.filter(run_id=reference).order_by("position").values_list("position", "chosen")
    )
    problems = 0
    for pk in [reference, *others]:
        run = Run.objects.get(pk=pk)
        preds = Prediction.objects.filter(run_id=pk)
        n = preds.count()
        distinct = preds.values("question_id").distinct().count()
        dup = preds.values("question_id").annotate(c=Count("id")).filter(c__gt=1).count()
        positions = set(preds.values_list("position", flat=True))
        same = pk == reference or (
            metrics(pk) == ref_metrics
            and list(preds.order_by("position").values_list("position", "chosen")) == ref_chosen
        )
        ok = (
            run.state == Run.State.DONE
            and n == distinct == n_items
            and not dup
            and positions == set(range(n_items))
            and run.items_done == n_items
            and same
        )
        problems += not ok
        print(
            f"db: run {pk}: {run.state}, {n} predictions, {distinct} distinct questions, {dup} duplicates, "
            f"positions {'complete' if positions == set(range(n_items)) else 'INCOMPLETE'}, "
            f"{len(metrics(pk))} metrics{'' if pk == reference else (' = reference' if same else ' DIFFER from reference')}"
            f" -> {'OK' if ok else 'FAILED'}"
        )
    return 1 if problems else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--chunk-size", type=int, default=32, help="predictions stored per transaction (run params)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per scenario")
    ap.add_argument("--shard-size", type=int, default=1000, help="items per shard of the sharded scenarios")
    ap.add_argument("--pace", type=float, default=0.0, help="seconds each chunk waits (an endpoint's latency)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="cocoweb-load-eval-"))
    tmp.chmod(0o755)  # PostgreSQL runs as its own user and must reach its data folder
    own_services = not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    env = dict(os.environ)
    if own_services:
        env.update(services_start(tmp))
    if not env.get("CELERY_BROKER_URL", "").startswith("redis://"):
        sys.exit("set CELERY_BROKER_URL=redis://… (or leave DATABASE_URL unset: the script starts its own servers)")
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "cocoweb.settings",
            "DJANGO_SECRET_KEY": "perf-only-not-secret",
            "DJANGO_DEBUG": "false",
            "DJANGO_LOG_LEVEL": "WARNING",
            "COCOWEB_VAR_DIR": str(tmp / "var"),
        }
    )
    os.environ.update(env)
    workers = Workers(env, tmp)
    try:
        t = time.perf_counter()
        build_set(args.items)
        from knowledge.models import QuestionSet

        n_items = QuestionSet.objects.get(name=SET_NAME).questions.count()
        print(
            f"set: {n_items} CoCo-shaped questions ({time.perf_counter() - t:.1f} s); backend random (seed 7), "
            f"chunk size {args.chunk_size}, shard size {args.shard_size}, pace {args.pace} s/chunk; {loadavg()}"
        )
        pace = {"pace_s": args.pace} if args.pace else {}
        sharded = {"shard_size": args.shard_size, **pace}
        from runs.tasks import EVAL_QUEUE, run_execute_task

        run_execute_task.apply_async((0,), queue=EVAL_QUEUE)  # opens the broker connection (no run 0: skipped)
        workers.start("eval1")
        print(f"1 worker ({loadavg()}):")
        reference = scenario("reference", 1, 1, args.chunk_size, args.timeout, **pace)[0]
        one_sharded = scenario("sharded 1", 1, 1, args.chunk_size, args.timeout, **sharded)
        workers.start("eval2")
        print(f"2 workers ({loadavg()}):")
        two = scenario("two runs", 2, 1, args.chunk_size, args.timeout, **pace)
        dup = scenario("duplicate", 1, 2, args.chunk_size, args.timeout, **pace)
        two_sharded = scenario("sharded 2", 1, 1, args.chunk_size, args.timeout, **sharded)
        print(f"  {loadavg()} at the end")
        return check(reference, one_sharded + two + dup + two_sharded, n_items)
    finally:
        workers.stop()
        if own_services:
            services_stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def loadavg() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    raise SystemExit(main())
