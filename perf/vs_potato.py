"""cocoweb against Potato, side by side: the same closed-loop client drives both annotation servers
on 127.0.0.1, one after the other for each number of annotators N, and prints annotations/s, the
latency of each step, the server CPU per annotation, integrity checks and the ratios.

    .venv/bin/python perf/vs_potato.py                          # N = 10, 50, 200; 30 s timed per run
    .venv/bin/python perf/vs_potato.py --n 50 --duration 20 --rounds 2

What each side runs, in its production mode:
- cocoweb: gunicorn (``--cocoweb-workers``, default 2 on this 2-core machine, ``--preload``,
  ``--cocoweb-threads`` 4 per worker as the README's production command) on PostgreSQL
  with durable commits (fsync and synchronous_commit on) and Redis as cache and session store, as
  ``perf/load_annotation.py`` starts them. The browser's flow is one request per annotation: the
  htmx submit, whose response carries the next item.
- Potato (``potato-annotation``, pinned below), installed into its own virtualenv under
  ``var/potato-venv`` on first use, started as its docs say for production (gunicorn with its
  ``create_app`` factory; one worker, since its state lives in the worker's memory, with 8 threads),
  participants entering through a Prolific-style link (``url_direct`` login). Its browser's flow is
  three requests per annotation: ``POST /updateinstance`` (save), ``POST /annotate`` with
  ``next_instance`` (advance) and ``GET /`` (the next item's page).

Both get the same pool (``--items`` items, 5 options, at most ``--redundancy`` annotators an item),
large enough that nobody runs out in the timed window, and the same client: asyncio + aiohttp, one
task per annotator with its own cookies, no think time. "Whole run" counts every annotation from
the first request; "steady" only those acknowledged in the ``--duration`` seconds that start when
the ``--warmup`` seconds are over and every annotator has had a first page (so an arrival burst
longer than the warm-up is not counted as steady work). CPU is the server's process tree (gunicorn workers, and for cocoweb PostgreSQL and Redis
too) read from /proc, over the steady window; the client's CPU (this process: the same client for
both, sharing the machine's cores with the server) is printed beside it. Afterwards each side's stored data is checked: items
over their cap, an annotator answering one item twice, acknowledged answers missing.

Skips Potato, saying why, when it cannot be installed (no network to the package index); cocoweb's
figures are then printed alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from perf.load_annotation import (  # noqa: E402
    CAMPAIGN,
    ITEM,
    KEY,
    CpuMeter,
    loadavg,
    pct,
    pg_durable,
    session_for,
    setup_data,
)
from perf.services import PORTS, free_port, production_env, services_start, services_stop  # noqa: E402

POTATO = "potato-annotation==2.12.1"
POTATO_VENV = ROOT / "var" / "potato-venv"
POTATO_ITEM = re.compile(r'name="instance_id" type="hidden" value="([^"]+)"')


@dataclass
class Stats:
    """What the client saw in one run."""

    name: str
    n: int
    lat: dict[str, list[float]] = field(default_factory=dict)  # step -> latencies (ms), steady window only
    done: list[float] = field(default_factory=list)  # completion time (s since start) of each annotation
    acked: list[tuple[str, str]] = field(default_factory=list)  # (annotator, item) the server acknowledged
    errors: list[str] = field(default_factory=list)
    cpu_steady: dict[str, float] = field(default_factory=dict)
    client_cpu: float = 0.0  # CPU seconds of this process (the client) over the same window
    arrived: int = 0  # annotators whose first page came back
    steady_from: float = 0.0  # start of the steady window (s since start): warm-up over and everybody arrived
    elapsed: float = 0.0
    load: str = ""
    integrity: str = ""
    ok: bool = True

    def rate(self, warmup: float, end: float) -> float:
        return sum(1 for t in self.done if warmup <= t < end) / max(1e-9, end - warmup)


class Clock:
    def __init__(self, warmup: float, duration: float) -> None:
        self.start = time.perf_counter()
        self.warm_until = self.start + warmup
        self.deadline = self.warm_until + duration
        self.duration = duration

    def steady_now(self) -> None:
        """The steady window starts now (later than the warm-up when arrivals took longer) and lasts
        ``duration``."""
        self.warm_until = time.perf_counter()
        self.deadline = self.warm_until + self.duration

    def now(self) -> float:
        return time.perf_counter() - self.start


async def timed(stats: Stats, clock: Clock, step: str, coro):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    try:
        r = await coro
        body = await r.text()
    except Exception as exc:  # a dropped connection is a failure; the annotator carries on
        stats.errors.append(f"{step}: {type(exc).__name__}")
        return None, ""
    if t >= clock.warm_until or step == "arrive":
        stats.lat.setdefault(step, []).append((time.perf_counter() - t) * 1000)
    if r.status >= 400:
        stats.errors.append(f"{step} {r.status}")
    return r, body


# --- cocoweb ---------------------------------------------------------------------------------------


async def cocoweb_annotator(i: int, base: str, cookies: dict[str, str], stats: Stats, clock: Clock) -> None:
    import aiohttp

    rng = random.Random(i)
    headers = {"HX-Request": "true", "X-CSRFToken": cookies.get("csrftoken", ""), "Referer": base}
    async with aiohttp.ClientSession(base, cookies=cookies, headers=headers) as s:
        r, box = await timed(stats, clock, "next", s.get(f"/annotation/c/{CAMPAIGN}/item/"))
        stats.arrived += 1
        while time.perf_counter() < clock.deadline:
            m, k = ITEM.search(box), KEY.search(box)
            if m is None or k is None:
                if r is None:  # a failed request: look again
                    await asyncio.sleep(0.5)
                    r, box = await timed(stats, clock, "next", s.get(f"/annotation/c/{CAMPAIGN}/item/"))
                    continue
                return  # nothing left for this annotator
            data = {"plausible": str(rng.randrange(5)), "idempotency_key": k.group(1), "elapsed_ms": "3000"}
            r, box = await timed(
                stats,
                clock,
                "submit (+next)",
                s.post(f"/annotation/c/{CAMPAIGN}/items/{m.group(1)}/submit/", data=data),
            )
            if r is not None and r.status == 200:
                stats.done.append(clock.now())
                stats.acked.append((f"perf-ann-{i:03d}", m.group(1)))


def cocoweb_run(args: argparse.Namespace, n: int, tmp: Path) -> Stats:
    """One run: fresh data, fresh gunicorn, the closed loop, the database checks."""
    from perf.load_annotation import check

    stats = Stats("cocoweb", n)
    setup_data(args.items, args.redundancy, n)
    port = int(free_port())
    cmd = [
        str(ROOT / ".venv/bin/gunicorn"),
        "cocoweb.wsgi",
        "--preload",
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        str(args.cocoweb_workers),
        *(["--threads", str(args.cocoweb_threads)] if args.cocoweb_threads > 1 else []),
        "--backlog",
        "2048",
        "--error-logfile",
        str(tmp / "cocoweb-gunicorn.log"),
    ]
    server = subprocess.Popen(cmd, cwd=ROOT, env=os.environ.copy())
    try:
        wait_port(port)
        base = f"http://127.0.0.1:{port}"
        sessions = [session_for(base, f"perf-ann-{i:03d}") for i in range(n)]
        cookies = [dict(s.cookies.get_dict()) for s in sessions]
        roots = {"gunicorn": server.pid}
        pid_file = Path(os.environ.get("COCOWEB_PG_DATA") or tmp / "svc" / "pg") / "postmaster.pid"
        roots["postgres"] = int(pid_file.read_text().split()[0])
        redis_pid = Path(os.environ.get("COCOWEB_SERVICES_DIR") or tmp / "svc") / "redis.pid"
        if redis_pid.exists():
            roots["redis"] = int(redis_pid.read_text().split()[0])
        drive(stats, args, roots, lambda i, clock: cocoweb_annotator(i, base, cookies[i], stats, clock))
    finally:
        server.terminate()
        server.wait(timeout=60)
    # The database checks of perf/load_annotation.py, plus: every acknowledged answer is stored.
    from django.db import connection

    from annotation.models import Response

    connection.close()
    # pages name items by their opaque uid (annotation.models.item_uid), not the row id
    stored = set(Response.objects.filter(item__campaign__name=CAMPAIGN).values_list("user__username", "item__uid"))
    missing = sum(1 for u, item in set(stats.acked) if (u, item) not in stored)
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = check(args.redundancy, 0)
    stats.integrity = out.getvalue().strip().removeprefix("db: ") + f"; {missing} acknowledged answers missing"
    stats.ok = status == 0 and missing == 0
    return stats


# --- Potato ----------------------------------------------------------------------------------------


def potato_install() -> Path | None:
    """The Potato virtualenv's bin folder, installing it on first use; None (and why) when it can't be."""
    bin_dir = POTATO_VENV / "bin"
    stamp = POTATO_VENV / ".installed"
    if stamp.exists() and stamp.read_text() == POTATO:
        return bin_dir
    print(f"installing {POTATO} and gunicorn into {POTATO_VENV} (once) ...", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(POTATO_VENV)], check=True, timeout=300)
        subprocess.run(
            [str(bin_dir / "pip"), "install", "--quiet", POTATO, "gunicorn"],
            check=True,
            timeout=1800,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        err = getattr(exc, "stderr", b"") or b""
        print(f"Potato skipped: could not install {POTATO} ({err.decode(errors='replace').strip()[-300:] or exc})")
        return None
    stamp.write_text(POTATO)
    return bin_dir


def potato_config(folder: Path, items: int, redundancy: int, port: int) -> Path:
    with (folder / "data.jsonl").open("w") as f:
        for i in range(items):
            options = " | ".join(f"option {i}.{k}" for k in range(5))
            f.write(json.dumps({"id": f"q{i}", "text": f"Context {i}. Question {i}? {options}"}) + "\n")
    config = {
        "annotation_task_name": "perf",
        "task_dir": ".",
        "output_annotation_dir": "out/",
        "data_files": ["data.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "port": port,
        "require_password": False,
        "login": {"type": "url_direct", "url_argument": "PROLIFIC_PID"},
        "max_annotations_per_item": redundancy,
        "max_annotations_per_user": 1_000_000,
        "assignment_strategy": "random",
        "annotation_schemes": [
            {
                "annotation_type": "multiselect",
                "name": "plausible",
                "description": "Which options are plausible answers?",
                "labels": [f"option {k + 1}" for k in range(5)],
            }
        ],
    }
    path = folder / "config.yaml"
    path.write_text(json.dumps(config))  # JSON is YAML
    return path


async def potato_annotator(i: int, base: str, stats: Stats, clock: Clock) -> None:
    import aiohttp

    rng = random.Random(i)
    user = f"worker{i:04d}"
    async with aiohttp.ClientSession(base, cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        r, page = await timed(stats, clock, "arrive", s.get(f"/?PROLIFIC_PID={user}&STUDY_ID=perf&SESSION_ID=s{i}"))
        stats.arrived += 1
        while time.perf_counter() < clock.deadline:
            m = POTATO_ITEM.search(page)
            if m is None:
                if r is None or r.status >= 500:
                    await asyncio.sleep(0.5)
                    r, page = await timed(stats, clock, "next (page)", s.get("/"))
                    continue
                return  # no work left for this annotator
            item = m.group(1)
            label = f"plausible:option {rng.randrange(5) + 1}"
            r, body = await timed(
                stats,
                clock,
                "submit (save)",
                s.post(
                    "/updateinstance",
                    json={"instance_id": item, "annotations": {label: "true"}, "span_annotations": []},
                ),
            )
            saved = r is not None and r.status == 200 and '"success"' in body
            r, _ = await timed(
                stats,
                clock,
                "advance",
                s.post(
                    "/annotate",
                    json={"action": "next_instance", "instance_id": item},
                    headers={"X-Potato-Navigation": "1"},
                ),
            )
            r, page = await timed(stats, clock, "next (page)", s.get("/"))
            if saved:
                stats.done.append(clock.now())
                stats.acked.append((user, item))


def potato_run(args: argparse.Namespace, n: int, bin_dir: Path, tmp: Path) -> Stats:
    stats = Stats("potato", n)
    folder = Path(tempfile.mkdtemp(prefix="potato-", dir=tmp))
    port = int(free_port())
    config = potato_config(folder, args.items, args.redundancy, port)
    cmd = [
        str(bin_dir / "gunicorn"),
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        "1",
        "-k",
        "gthread",
        "--threads",
        "8",
        "--backlog",
        "2048",
        "--error-logfile",
        str(folder / "gunicorn.log"),
        f"potato.flask_server:create_app('{config.name}')",
    ]
    log = (folder / "server.log").open("w")  # Potato logs every arrival at INFO: kept out of the report
    server = subprocess.Popen(cmd, cwd=folder, env={**os.environ, "PYTHONPATH": ""}, stdout=log, stderr=log)
    try:
        wait_port(port, timeout=300)
        base = f"http://127.0.0.1:{port}"
        drive(stats, args, {"gunicorn": server.pid}, lambda i, clock: potato_annotator(i, base, stats, clock))
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
    # Integrity from what Potato persisted: each annotator's state file lists its labelled items.
    per_item: dict[str, int] = {}
    stored: set[tuple[str, str]] = set()
    for state in (folder / "out").glob("*/user_state.json"):
        data = json.loads(state.read_text())
        for item, labels in data.get("instance_id_to_label_to_value", {}).items():
            if labels:
                per_item[item] = per_item.get(item, 0) + 1
                stored.add((data["user_id"], item))
    over = sum(1 for v in per_item.values() if v > args.redundancy)
    missing = sum(1 for pair in set(stats.acked) if pair not in stored)
    stats.integrity = (
        f"{sum(per_item.values())} answers on {len(per_item)} items (max {max(per_item.values(), default=0)} per item); "
        f"{over} items over the cap of {args.redundancy}; {missing} acknowledged answers missing"
    )
    stats.ok = over == 0 and missing == 0
    shutil.rmtree(folder, ignore_errors=True)
    return stats


# --- the shared driver -----------------------------------------------------------------------------


def wait_port(port: int, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"server on port {port} did not start within {timeout:.0f} s")


def drive(stats: Stats, args: argparse.Namespace, roots: dict[str, int], annotator) -> None:  # type: ignore[no-untyped-def]
    """Run ``stats.n`` annotators for warm-up + duration seconds; CPU of ``roots`` over the steady window."""

    async def main() -> None:
        clock = Clock(args.warmup, args.duration)
        snapshots: list[CpuMeter] = []
        client: list[float] = []

        async def steady_mark() -> None:
            # steady: after the warm-up and once every annotator has had a first page (an app whose
            # arrival burst outlasts the warm-up would otherwise count arrivals as steady work)
            await asyncio.sleep(args.warmup)
            while stats.arrived < stats.n:
                await asyncio.sleep(0.05)
            clock.steady_now()
            stats.steady_from = clock.now()
            snapshots.append(CpuMeter(roots))
            client.append(time.process_time())

        marker = asyncio.create_task(steady_mark())
        await asyncio.gather(*(annotator(i, clock) for i in range(stats.n)))
        stats.elapsed = clock.now()
        await marker
        stats.cpu_steady = snapshots[0].used()
        stats.client_cpu = time.process_time() - client[0]

    before = loadavg()
    asyncio.run(main())
    stats.load = f"{before} before, {loadavg()} after"


def summary(s: Stats, args: argparse.Namespace) -> dict[str, float]:
    end = s.steady_from + args.duration
    steady = s.rate(s.steady_from, end)
    whole = len(s.done) / max(1e-9, s.elapsed)
    n_steady = sum(1 for t in s.done if s.steady_from <= t < end)
    cpu = {k: v / n_steady * 1000 if n_steady else float("nan") for k, v in s.cpu_steady.items()}
    client = s.client_cpu / n_steady * 1000 if n_steady else float("nan")
    print(
        f"  {s.name:8s} N={s.n:<4d} steady {steady:7.1f} ann/s (from {s.steady_from:.1f} s), whole run {whole:7.1f} ann/s; "
        f"server CPU per annotation {sum(cpu.values()):5.1f} ms ("
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
        + f"); client CPU per annotation {client:.1f} ms"
    )
    for step, v in s.lat.items():
        print(
            f"      {step:15s} n={len(v):6d} p50={pct(v, 50):7.1f} ms p95={pct(v, 95):7.1f} ms p99={pct(v, 99):7.1f} ms"
        )
    errors = f"{len(s.errors)} failed requests" + (f" (first: {s.errors[:3]})" if s.errors else "")
    print(f"      integrity: {s.integrity} -> {'OK' if s.ok else 'FAILED'}; {errors}")
    print(f"      {s.load}")
    return {"steady": steady, "whole": whole, "cpu": sum(cpu.values())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", default="10,50,200", help="numbers of annotators, comma-separated")
    ap.add_argument("--duration", type=float, default=30.0, help="timed seconds per run, after the warm-up")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds of arrival burst left out of 'steady'")
    ap.add_argument(
        "--items",
        type=int,
        default=6000,
        help="items in the pool (each up to --redundancy answers; cocoweb answers ~9,000 in a 25 s run at N=200)",
    )
    ap.add_argument("--redundancy", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1, help="alternations of the two apps per N")
    ap.add_argument("--cocoweb-workers", type=int, default=2)
    ap.add_argument(
        "--cocoweb-threads",
        type=int,
        default=4,
        help="threads per worker (gthread, as the README says; 1: sync workers)",
    )
    ap.add_argument("--no-potato", action="store_true", help="cocoweb alone")
    args = ap.parse_args()
    ns = [int(x) for x in args.n.split(",")]

    bin_dir = None if args.no_potato else potato_install()
    tmp = Path(tempfile.mkdtemp(prefix="cocoweb-vs-potato-"))
    tmp.chmod(0o755)
    env = services_start(tmp, cache=True)
    pg_durable(tmp)
    env.update(production_env(tmp))
    os.environ.update(env)
    results: list[tuple[int, dict[str, float], dict[str, float] | None]] = []
    try:
        import django

        django.setup()
        subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            check=True,
            timeout=300,
        )
        print(
            f"pool {args.items} items x {args.redundancy}; {args.warmup:g} s warm-up + {args.duration:g} s timed per run; "
            f"cocoweb gunicorn {args.cocoweb_workers} workers x {args.cocoweb_threads} threads (preload), PostgreSQL durable + Redis; "
            f"{'Potato skipped' if bin_dir is None else POTATO + ' gunicorn 1 worker x 8 threads'}; {loadavg()}"
        )
        for n in ns:
            for rnd in range(args.rounds):
                order = ["cocoweb", "potato"] if rnd % 2 == 0 else ["potato", "cocoweb"]
                got: dict[str, dict[str, float]] = {}
                for app in order:
                    if app == "potato" and bin_dir is None:
                        continue
                    s = cocoweb_run(args, n, tmp) if app == "cocoweb" else potato_run(args, n, bin_dir, tmp)  # type: ignore[arg-type]
                    got[app] = summary(s, args)
                results.append((n, got["cocoweb"], got.get("potato")))
    finally:
        services_stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nratios (cocoweb / Potato, steady annotations/s; Potato CPU / cocoweb CPU per annotation):")
    for n, c, p in results:
        if p is None:
            print(f"  N={n:<4d} cocoweb {c['steady']:.1f} ann/s, {c['cpu']:.1f} ms CPU per annotation (no Potato)")
        elif p["steady"] == 0:
            print(
                f"  N={n:<4d} Potato stored no annotation in the steady window (cocoweb {c['steady']:.1f} ann/s): no ratio"
            )
        else:
            print(
                f"  N={n:<4d} {c['steady'] / max(1e-9, p['steady']):5.1f}x Potato steady "
                f"({c['steady']:.1f} vs {p['steady']:.1f} ann/s), whole run {c['whole'] / max(1e-9, p['whole']):.1f}x; "
                f"CPU {p['cpu'] / max(1e-9, c['cpu']):.1f}x less ({c['cpu']:.1f} vs {p['cpu']:.1f} ms)"
            )
    by_n: dict[int, list[float]] = {}
    for n, c, p in results:
        if p and p["steady"] > 0:
            by_n.setdefault(n, []).append(c["steady"] / p["steady"])
    if by_n:
        print("  median ratio per N: " + ", ".join(f"N={n}: {statistics.median(v):.1f}x" for n, v in by_n.items()))
    return 0


if __name__ == "__main__":
    assert PORTS  # the services' ports are chosen when perf.services is imported
    raise SystemExit(main())
