"""Load test of the annotation queue: N simulated annotators (default 50) against the app served by
gunicorn with PostgreSQL (and Redis as the cache and session store, as in production) on
127.0.0.1, for a bounded time. Each annotator loops: "next item" (GET of the htmx item box: on
arrival it reserves an item, later it returns the reservation the previous submit made) -> think ->
"submit" (POST of the answer; its response reserves and shows the next item, as in the browser; one
post in ten is sent twice, as a double click) or, one time in twenty, "skip". Prints requests/s and
p50/p95/p99 latency of each, the arrival burst apart, and the load average of the machine; then
checks the database: no item over its redundancy, no duplicate answer or assignment, no answer to
a skipped item, counters consistent.

    .venv/bin/python perf/load_annotation.py                       # starts its own PostgreSQL + Redis
    .venv/bin/python perf/load_annotation.py --annotators 200 --think 5-30 --duration 180
    DATABASE_URL=postgres://... CACHE_URL=redis://... .venv/bin/python perf/load_annotation.py

``--think MIN-MAX`` is the pause in seconds between seeing an item and answering it, uniform in
that range (people take ~5-30 s per MCQA item; ``--think 1-3`` is a hurried crowd, ``--think 0``
a closed loop that measures saturation: latency then is simply annotators / throughput).
``--profile`` first replays a few annotators in-process with Django's test client and prints the
SQL statements per request type. Exit status 1 if a database check fails.

``--scenario arrival`` runs the crowd-study arrival instead (:mod:`perf.crowd_arrival`): 1,000
participants arriving through a Prolific-style study link within 60 s, each through the link's
one page (consent, instructions, demographics), then up to 50 items with the think time, bounded by
``--duration``; asyncio tasks, not threads; with ``--profile`` it first prints the SQL statements
and in-process CPU of each step:

    .venv/bin/python perf/load_annotation.py --scenario arrival --participants 1000 --arrive-within 60 \
        --budget 50 --think 5-30 --duration 120 --items 2200 --redundancy 23
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from perf.services import PORTS, free_port, production_env, services_start, services_stop  # noqa: E402

ITEM = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
CAMPAIGN = "perf-load"


def pg_durable(tmp: Path) -> None:
    """Restart the PostgreSQL that services_start made (fsync, synchronous_commit and full-page
    writes off, as for tests) with the durable defaults a production server keeps."""
    pgbin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    svc = tmp / "svc"
    cmd = [
        str(pgbin / "pg_ctl"),
        "-D",
        str(svc / "pg"),
        "-l",
        str(svc / "pg.log"),
        "-w",
        "-m",
        "fast",
        "restart",
        "-o",
        f"-h 127.0.0.1 -p {PORTS['PG_PORT']} -k {svc} -c max_connections=300",
    ]
    if os.getuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    subprocess.run(cmd, check=True, timeout=120, stdout=subprocess.DEVNULL)


def setup_data(n_items: int, redundancy: int, n_annotators: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from accounts.services import role_groups_sync
    from annotation.models import Campaign
    from annotation.services.campaigns import campaign_create, campaign_status_set
    from knowledge.models import Question, QuestionSet

    call_command("migrate", verbosity=0)
    role_groups_sync()
    Campaign.objects.filter(name=CAMPAIGN).delete()
    QuestionSet.objects.filter(name=CAMPAIGN).delete()
    qs = QuestionSet.objects.create(name=CAMPAIGN, kind=QuestionSet.Kind.MCQA, question_count=n_items)
    Question.objects.bulk_create(
        [
            Question(
                question_set=qs,
                position=i,
                external_id=f"q{i}",
                context=f"Context {i}.",
                stem=f"Question {i}?",
                options=[f"option {i}.{k}" for k in range(5)],
                answer_index=i % 5,
            )
            for i in range(n_items)
        ],
        batch_size=5000,
    )
    c = campaign_create(name=CAMPAIGN, title="Load test", kind="mcqa", question_set=qs, redundancy=redundancy)
    campaign_status_set(c, "open")
    User = get_user_model()
    User.objects.filter(username__startswith="perf-ann-").delete()
    # Sessions are made directly (session_for), so no password: hashing 200 of them takes minutes.
    users = User.objects.bulk_create(
        [User(username=f"perf-ann-{i:03d}", password=make_password(None)) for i in range(n_annotators)]
    )
    Group.objects.get(name="annotator").user_set.add(*users)


def session_for(base: str, username: str) -> requests.Session:
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model

    user = get_user_model().objects.get(username=username)
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    s = requests.Session()
    s.cookies.set("sessionid", store.session_key)
    s.get(f"{base}/annotation/", timeout=30).raise_for_status()  # csrftoken cookie
    s.headers.update({"HX-Request": "true", "X-CSRFToken": s.cookies.get("csrftoken", ""), "Referer": base})
    return s


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


ACCESS_FORMAT = "%(t)s %(m)s %(U)s %(s)s %(D)s"  # %(D)s: request time in the worker, microseconds


def server_times(log: Path, warmup: float) -> None:
    """Time spent inside gunicorn's workers per request kind (from the access log), after the
    arrival burst: the client's latency minus this is waiting for a free worker (and the network)."""
    from datetime import datetime

    rows = []
    for line in log.read_text().splitlines():
        stamp, _, rest = line.partition("] ")
        method, url, _status, ms = rest.split()
        rows.append((datetime.strptime(stamp.lstrip("["), "%d/%b/%Y:%H:%M:%S %z").timestamp(), url, float(ms) / 1000))
    if not rows:
        return
    first = min(r[0] for r in rows if r[1].endswith("/item/"))
    by: dict[str, list[float]] = {"next": [], "submit": [], "skip": []}
    for t, url, ms in rows:
        kind = "next" if url.endswith("/item/") else url.rstrip("/").rsplit("/", 1)[-1]
        if kind in by and t >= first + warmup + 1:  # whole seconds in the log: one more to be safe
            by[kind].append(ms)
    print("  inside the gunicorn worker (access log, after the arrival burst):")
    for kind, v in by.items():
        print(
            f"  {kind:6s} n={len(v):6d}  p50={pct(v, 50):7.1f} ms  p95={pct(v, 95):7.1f} ms  p99={pct(v, 99):7.1f} ms"
        )


class CpuMeter:
    """CPU seconds (user + system) used by process trees, from /proc: a figure per request that,
    unlike latency, does not depend on what else the shared machine is running."""

    def __init__(self, roots: dict[str, int]) -> None:
        self.roots = roots
        self.start = self._sample()

    @staticmethod
    def _procs() -> dict[int, tuple[int, float]]:
        out = {}
        tick = os.sysconf("SC_CLK_TCK")
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    f = (d / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                out[int(d.name)] = (int(f[1]), (int(f[11]) + int(f[12])) / tick)  # ppid, utime + stime
        return out

    def _sample(self) -> dict[str, dict[int, float]]:
        procs = self._procs()
        trees: dict[str, dict[int, float]] = {}
        for name, root in self.roots.items():
            members, grew = {root}, True
            while grew:
                new = {pid for pid, (ppid, _) in procs.items() if ppid in members} - members
                members |= new
                grew = bool(new)
            trees[name] = {pid: procs[pid][1] for pid in members if pid in procs}
        return trees

    def used(self) -> dict[str, float]:
        end = self._sample()
        return {name: sum(t - self.start[name].get(pid, 0.0) for pid, t in end[name].items()) for name in end}


class BusySampler(threading.Thread):
    """Share of the machine's CPU time in use (everybody's, ours included), sampled every second
    from /proc/stat: to tell a slow stretch caused by the app from one caused by other jobs."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []  # (perf_counter, busy fraction over the last second)
        self.stop = threading.Event()

    @staticmethod
    def _read() -> tuple[int, int]:
        f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = f[3] + f[4]
        return sum(f) - idle, sum(f)

    def run(self) -> None:
        busy0, total0 = self._read()
        while not self.stop.wait(1.0):
            busy, total = self._read()
            self.samples.append((time.perf_counter(), (busy - busy0) / max(1, total - total0)))
            busy0, total0 = busy, total

    def between(self, a: float, b: float) -> float:
        v = [x for t, x in self.samples if a <= t < b]
        return statistics.fmean(v) if v else float("nan")


def own_cpu() -> float:
    """CPU seconds of this process alone (the simulated annotators), children excluded."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def think_range(text: str) -> tuple[float, float]:
    lo, _, hi = text.partition("-")
    a, b = float(lo), float(hi or lo)
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError(f"--think {text!r}: expected MIN-MAX seconds with 0 <= MIN <= MAX")
    return a, b


def loadavg() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def profile(n: int) -> None:
    """SQL statements per request, in-process (Django's test client on the same database)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    counts: dict[str, list[int]] = {"next (reserve)": [], "next (live)": [], "submit": [], "skip": []}
    for u in get_user_model().objects.filter(username__startswith="perf-ann-").order_by("username")[:n]:
        c = Client(HTTP_HX_REQUEST="true")
        c.force_login(u)
        for _round in range(3):
            for kind in ("next (reserve)", "next (live)"):
                with CaptureQueriesContext(connection) as cq:
                    box = c.get(f"/annotation/c/{CAMPAIGN}/item/").content.decode()
                if _round == 0 or kind == "next (live)":
                    counts[kind].append(len(cq))
            item = ITEM.search(box).group(1)  # type: ignore[union-attr]
            kind, url, data = (
                "submit",
                f"/annotation/c/{CAMPAIGN}/items/{item}/submit/",
                {"plausible": "1", "idempotency_key": KEY.search(box).group(1)},
            )  # type: ignore[union-attr]
            if _round == 2:
                kind, url, data = "skip", f"/annotation/c/{CAMPAIGN}/items/{item}/skip/", {}
            with CaptureQueriesContext(connection) as cq:
                assert c.post(url, data).status_code == 200
            counts[kind].append(len(cq))
    print("SQL statements per request (in-process, incl. BEGIN/COMMIT; session, user and role lookups included):")
    for kind, v in counts.items():
        print(f"  {kind:15s} median {statistics.median(v):.0f}  max {max(v)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load (after the warm-up)")
    ap.add_argument("--items", type=int, default=3000)
    ap.add_argument("--redundancy", type=int, default=3)
    ap.add_argument(
        "--think",
        type=think_range,
        default=(5.0, 30.0),
        metavar="MIN-MAX",
        help="seconds per item, uniform (default 5-30)",
    )
    ap.add_argument("--skip-rate", type=float, default=0.05, help="share of items skipped instead of answered")
    ap.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    ap.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread when > 1)")
    ap.add_argument(
        "--keep-alive",
        type=int,
        default=None,
        help="gunicorn --keep-alive seconds (threaded workers; default gunicorn's 2 s: an annotator who thinks longer "
        "finds the connection closed, and a request sent as it closes is reset)",
    )
    ap.add_argument("--no-preload", action="store_true", help="let every worker import the app itself")
    ap.add_argument("--port", type=int, default=0, help="gunicorn port (default: a free one)")
    ap.add_argument(
        "--warmup", type=float, default=5.0, help="seconds at the start (all annotators arrive at once) reported apart"
    )
    ap.add_argument("--profile", action="store_true", help="print SQL statements per request type first")
    ap.add_argument(
        "--durable",
        action="store_true",
        help="PostgreSQL with fsync, synchronous_commit and full_page_writes on (default: off, as in tests)",
    )
    ap.add_argument("--scenario", choices=["queue", "arrival"], default="queue", help="arrival: crowd study links")
    ap.add_argument("--participants", type=int, default=1000, help="arrival: participants arriving")
    ap.add_argument("--arrive-within", type=float, default=60.0, help="arrival: seconds over which they arrive")
    ap.add_argument("--budget", type=int, default=50, help="arrival: items per participant (NWW: 50)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="cocoweb-load-"))
    tmp.chmod(0o755)  # PostgreSQL runs as its own user and must reach its data folder
    own_services = not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    env = dict(os.environ)
    if own_services:
        env.update(services_start(tmp, cache=True))
        if args.durable:
            pg_durable(tmp)
    elif args.durable:
        sys.exit("--durable restarts the PostgreSQL this script starts; unset DATABASE_URL")
    env.update(production_env(tmp))
    if args.scenario == "arrival":
        from perf.crowd_arrival import crowd_env

        env.update(crowd_env(args.participants))
    os.environ.update(env)
    gunicorn = None
    args.port = args.port or int(free_port())
    try:
        t0 = time.perf_counter()
        if args.scenario == "arrival":
            from perf.crowd_arrival import setup_crowd

            setup_crowd(args.items, args.redundancy, args.budget)
            args.annotators = 0
        else:
            setup_data(args.items, args.redundancy, args.annotators)
        from django.conf import settings

        print(
            f"data: {args.items} items x redundancy {args.redundancy}, {args.annotators} annotators "
            f"({time.perf_counter() - t0:.1f} s); sessions: {settings.SESSION_ENGINE.rsplit('.', 1)[1]}, "
            f"cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[1]}, "
            f"CONN_MAX_AGE={settings.DATABASES['default'].get('CONN_MAX_AGE')}, PostgreSQL "
            f"{'durable (fsync on)' if args.durable else 'fsync/synchronous_commit off' if own_services else 'as given'}"
            + (
                f"; join limits {settings.COCOWEB_JOIN_PER_STUDY} new participants per study and "
                f"{settings.COCOWEB_JOIN_PER_ADDRESS} per address an hour, proxy hops {settings.COCOWEB_PROXY_HOPS}"
                if args.scenario == "arrival"
                else ""
            )
        )
        subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
        if args.profile and args.scenario == "arrival":
            from perf.crowd_arrival import profile_arrival

            profile_arrival(20)
            setup_crowd(args.items, args.redundancy, args.budget)  # a fresh campaign for the load
        elif args.profile:
            profile(5)
            setup_data(args.items, args.redundancy, args.annotators)  # a fresh campaign for the load
        cmd = [
            str(ROOT / ".venv/bin/gunicorn"),
            "cocoweb.wsgi",
            "-b",
            f"127.0.0.1:{args.port}",
            "-w",
            str(args.workers),
            "--error-logfile",
            str(tmp / "gunicorn.log"),
            "--backlog",
            "2048",
            "--access-logfile",
            str(tmp / "access.log"),
            "--access-logformat",
            ACCESS_FORMAT,
        ]
        if not args.no_preload:
            cmd.append("--preload")
        if args.threads > 1:
            cmd += ["--worker-class", "gthread", "--threads", str(args.threads)]
        if args.keep_alive is not None:
            cmd += ["--keep-alive", str(args.keep_alive)]
        gunicorn = subprocess.Popen(cmd, cwd=ROOT, env=env)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        base = f"http://127.0.0.1:{args.port}"
        roots = {"gunicorn": gunicorn.pid}
        pid_file = Path(os.environ.get("COCOWEB_PG_DATA") or tmp / "svc" / "pg") / "postmaster.pid"
        if pid_file.exists():
            roots["postgres"] = int(pid_file.read_text().split()[0])
        redis_pid = tmp / "svc" / "redis.pid"
        if args.scenario == "arrival":
            from perf.crowd_arrival import run_arrival

            if redis_pid.exists():
                roots["redis"] = int(redis_pid.read_text().split()[0])
            return run_arrival(args, base, loadavg, roots)
        sessions = [session_for(base, f"perf-ann-{i:03d}") for i in range(args.annotators)]
        status = run_load(args, base, sessions, roots)
        server_times(tmp / "access.log", args.warmup)
        return status
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            try:
                gunicorn.wait(timeout=30)
            except subprocess.TimeoutExpired:  # still draining a backlog: its services must stop all the same
                gunicorn.kill()
                gunicorn.wait(timeout=30)
        if own_services:
            services_stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def run_load(args: argparse.Namespace, base: str, sessions: list[requests.Session], cpu_roots: dict[str, int]) -> int:
    lat: dict[str, list[float]] = {"next": [], "submit": [], "skip": [], "arrival": []}
    bad: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(sessions) + 1)
    clock = {"warm_until": 0.0, "deadline": 0.0, "start": 0.0}
    timeline: list[tuple[float, float]] = []  # (seconds since start, latency ms) of every request
    lo, hi = args.think

    def timed(kind: str, fn, *a, **kw):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            r = fn(*a, timeout=120, **kw)
        except requests.ConnectionError as exc:  # counted as a failure; the annotator carries on
            with lock:
                bad.append(f"{kind} connection error: {str(exc)[:80]}")
            return None
        dt = (time.perf_counter() - t) * 1000
        with lock:
            lat[kind if t >= clock["warm_until"] else "arrival"].append(dt)
            timeline.append((t - clock["start"], dt))
            if r.status_code != 200:
                bad.append(f"{kind} {r.status_code}")
        return r

    def annotator(i: int, s: requests.Session) -> None:
        rng = random.Random(i)
        barrier.wait()
        while time.perf_counter() < clock["deadline"]:
            box = timed("next", s.get, f"{base}/annotation/c/{CAMPAIGN}/item/")
            if box is None:
                time.sleep(1.0)
                continue
            m = ITEM.search(box.text)
            if m is None:
                return
            time.sleep(rng.uniform(lo, hi))
            if time.perf_counter() >= clock["deadline"]:
                return
            if rng.random() < args.skip_rate:
                timed("skip", s.post, f"{base}/annotation/c/{CAMPAIGN}/items/{m.group(1)}/skip/")
                continue
            data = {
                "plausible": str(rng.randrange(5)),
                "idempotency_key": KEY.search(box.text).group(1),  # type: ignore[union-attr]
                "elapsed_ms": str(int(rng.uniform(lo, hi) * 1000)),
            }
            url = f"{base}/annotation/c/{CAMPAIGN}/items/{m.group(1)}/submit/"
            if timed("submit", s.post, url, data=data) is None:
                time.sleep(0.5)
                timed("submit", s.post, url, data=data)  # a retry, as a browser would: same idempotency key
            if rng.random() < 0.1:
                timed("submit", s.post, url, data=data)  # double click: must not store a second answer

    before = loadavg()
    meter, client0 = CpuMeter(cpu_roots), own_cpu()
    busy = BusySampler()
    busy.start()
    threads = [threading.Thread(target=annotator, args=(i, s), daemon=True) for i, s in enumerate(sessions)]
    for t in threads:
        t.start()
    start = clock["start"] = time.perf_counter()
    clock["warm_until"] = start + args.warmup
    clock["deadline"] = start + args.warmup + args.duration
    steady_meter: list[tuple[CpuMeter, float, int]] = []
    snap = threading.Timer(
        args.warmup, lambda: steady_meter.append((CpuMeter(cpu_roots), own_cpu(), sum(len(v) for v in lat.values())))
    )
    snap.start()
    barrier.wait()
    for t in threads:
        t.join(timeout=args.warmup + args.duration + 300)
    elapsed = time.perf_counter() - start
    cpu = {**meter.used(), "simulated annotators": own_cpu() - client0}
    steady = {k: v for k, v in lat.items() if k != "arrival"}
    n_steady = sum(len(v) for v in steady.values())
    n_req = n_steady + len(lat["arrival"])
    think = f"{lo:g}-{hi:g} s" if hi else "none (closed loop)"
    print(
        f"load: {len(sessions)} annotators, think {think}, gunicorn {args.workers} workers x {args.threads} threads"
        f"{'' if args.no_preload else ' (preload)'}; {n_req} requests in {elapsed:.1f} s"
    )
    print(f"  {loadavg()} at the end ({before} before)")
    a = lat["arrival"]
    print(
        f"  arrival (first {args.warmup:g} s, all annotators at once): {len(a)} requests, p50={pct(a, 50):.1f} ms "
        f"p95={pct(a, 95):.1f} ms max={max(a, default=float('nan')):.1f} ms"
    )
    print(f"  steady state ({args.duration:g} s): {n_steady / args.duration:.1f} req/s")
    for kind, v in steady.items():
        print(
            f"  {kind:6s} n={len(v):6d}  p50={pct(v, 50):7.1f} ms  p95={pct(v, 95):7.1f} ms  p99={pct(v, 99):7.1f} ms"
            f"  mean={statistics.fmean(v) if v else float('nan'):7.1f} ms"
        )
    step = max(5.0, (args.warmup + args.duration) / 12)
    windows = []
    for k in range(int((args.warmup + args.duration) // step) + 1):
        v = [dt for t, dt in timeline if k * step <= t < (k + 1) * step]
        if v:
            cpu_busy = busy.between(start + k * step, start + (k + 1) * step)
            windows.append(f"{k * step:.0f}s:{len(v)}/{pct(v, 50):.0f}/{pct(v, 95):.0f}/{cpu_busy:.0%}")
    busy.stop.set()
    print("  over time (window start: requests / p50 / p95 ms, all kinds / machine CPU busy, everybody's):")
    print("    " + " ".join(windows))
    print(
        "  CPU per request (whole run, arrival included): "
        + ", ".join(f"{name} {sec / n_req * 1000:.1f} ms" for name, sec in cpu.items())
        + f" (of {n_req} requests)"
    )
    if steady_meter:
        m2, c2, n2 = steady_meter[0]
        cpu2 = {**m2.used(), "simulated annotators": own_cpu() - c2}
        n_after = n_req - n2
        print(
            "  CPU per request after the arrival burst: "
            + ", ".join(f"{name} {sec / n_after * 1000:.1f} ms" for name, sec in cpu2.items())
            + f" (of {n_after} requests)"
        )
    if bad:
        print(f"  non-200 responses: {len(bad)} (first: {bad[:3]})")
    return check(args.redundancy, len(bad))


def check(redundancy: int, n_bad: int) -> int:
    from django.db import connection
    from django.db.models import Count

    from annotation.models import Assignment, Item, Response

    connection.close()
    items = Item.objects.filter(campaign__name=CAMPAIGN)
    responses = Response.objects.filter(item__in=items)
    per_item = dict(responses.values_list("item_id").annotate(n=Count("id")))
    live = dict(
        Assignment.objects.filter(item__in=items, state="reserved").values_list("item_id").annotate(n=Count("id"))
    )
    over = [k for k, n in per_item.items() if n > redundancy]
    dup = responses.values("item_id", "user_id").annotate(n=Count("id")).filter(n__gt=1).count()
    shown_twice = (
        Assignment.objects.filter(item__in=items)
        .values("item_id", "user_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    skipped = Assignment.objects.filter(item__in=items, state="skipped")
    answered_skipped = responses.filter(assignment__in=skipped).count()
    unanswered = Assignment.objects.filter(item__in=items, state="answered", response__isnull=True).count()
    inconsistent = sum(
        1
        for i in items.only("pk", "answer_count", "slots_taken")
        if i.answer_count != per_item.get(i.pk, 0) or i.slots_taken != per_item.get(i.pk, 0) + live.get(i.pk, 0)
    )
    total = sum(per_item.values())
    problems = len(over) + dup + shown_twice + answered_skipped + unanswered + inconsistent + n_bad
    print(
        f"db: {total} answers on {len(per_item)} items (max {max(per_item.values(), default=0)} per item), "
        f"{skipped.count()} skips, {sum(live.values())} live reservations; {len(over)} items over redundancy, "
        f"{dup} duplicate answers, {shown_twice} items shown twice to one person, {answered_skipped} answers to "
        f"skipped items, {unanswered} answered assignments without a response, {inconsistent} inconsistent counters "
        f"-> {'OK' if not problems else 'FAILED'}"
    )
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
