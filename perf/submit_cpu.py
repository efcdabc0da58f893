"""CPU of one htmx submit inside the Django process, without gunicorn and without a network client:
the hot path of issue 16 item 2 measured on its own, so that a change to it can be judged in a
minute instead of a load run. Starts its own PostgreSQL (durable commits, as in production) and
Redis (cache and session store), makes the pool of ``perf/load_annotation.py``, signs in
``--annotators`` people (sessions made as ``perf/load_annotation.py`` makes them) and then calls
Django's WSGI handler directly, round robin over the annotators: each call is the browser's htmx
submit (``POST …/items/<uid>/submit/`` with ``HX-Request``), whose response carries the next item.

Prints the Django process's CPU per submit (``time.process_time``), PostgreSQL's and Redis's CPU per
submit over the same blocks (their process trees, from /proc: one client at a time, so steadier
than a load run's share) and the SQL statements per submit; ``--profile`` adds a cProfile listing of the same
calls (cProfile slows Python code several times over: read its shares, not its times).

    .venv/bin/python perf/submit_cpu.py                      # 2,000 submits after 300 warm-up ones
    .venv/bin/python perf/submit_cpu.py --submits 500 --profile 40
    .venv/bin/python perf/submit_cpu.py --crowd --annotators 50       # a crowd participant's answer
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from perf.crowd_arrival import SLUG  # noqa: E402
from perf.load_annotation import CAMPAIGN, ITEM, KEY, CpuMeter, loadavg, pg_durable, setup_data  # noqa: E402
from perf.services import production_env, services_start, services_stop  # noqa: E402

CSRF = re.compile(r"csrftoken=([^;]+)")


def environ(method: str, path: str, cookies: dict[str, str], body: bytes = b"") -> dict[str, object]:
    """What gunicorn hands Django for one request of the browser's htmx flow."""
    env: dict[str, object] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_HX_REQUEST": "true",
        "HTTP_REFERER": "http://127.0.0.1:8000/",
        "HTTP_COOKIE": "; ".join(f"{k}={v}" for k, v in cookies.items()),
        "HTTP_X_CSRFTOKEN": cookies.get("csrftoken", ""),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    if body:
        env["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
        env["CONTENT_LENGTH"] = str(len(body))
    return env


def call(app, env: dict[str, object]) -> tuple[str, list[tuple[str, str]], str]:  # type: ignore[no-untyped-def]
    got: dict[str, object] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info=None):  # type: ignore[no-untyped-def]
        got["status"], got["headers"] = status, headers

    result = app(env, start_response)
    try:
        body = b"".join(result).decode()
    finally:
        if hasattr(result, "close"):
            result.close()
    return str(got["status"]), got["headers"], body  # type: ignore[return-value]


def pg_kinds(root: int) -> dict[int, tuple[str, float]]:
    """Each PostgreSQL process under ``root``: its kind (the backends serving the app, the WAL
    writer, autovacuum, the checkpointer, ...), by the title it shows, and its CPU seconds so far."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[str, float]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            title = (d / "cmdline").read_text().replace("\0", " ").strip()
        except OSError:
            continue
        if int(d.name) != root and int(f[1]) != root:
            continue
        kind = title.removeprefix("postgres: ").split(" ")[0] if title.startswith("postgres: ") else "postmaster"
        if kind == "autovacuum":
            kind = " ".join(title.split()[1:3])
        elif kind not in ("checkpointer", "background", "walwriter", "logical", "postmaster"):
            kind = "backends"  # "postgres: <user> <db> <address> <state>"
        out[int(d.name)] = (kind, (int(f[11]) + int(f[12])) / tick)
    return out


def pg_kinds_used(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds per kind between two :func:`pg_kinds` readings (a process gone by the second is left out)."""
    used: dict[str, float] = {}
    for pid, (kind, cpu) in after.items():
        used[kind] = used.get(kind, 0.0) + cpu - (before[pid][1] if pid in before else 0.0)  # new: all of it
    return used


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--items", type=int, default=3000)
    ap.add_argument("--submits", type=int, default=2000, help="timed submits")
    ap.add_argument("--warmup", type=int, default=300, help="submits before timing")
    ap.add_argument("--profile", type=int, default=0, metavar="ROWS", help="then a cProfile listing of this many rows")
    ap.add_argument(
        "--crowd",
        action="store_true",
        help="crowd participants' submits instead (perf/crowd_arrival.py's survey; --annotators participants)",
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="cocoweb-submit-cpu-"))
    tmp.chmod(0o755)
    env = services_start(tmp, cache=True)
    pg_durable(tmp)
    env.update(production_env(tmp))
    os.environ.update(env)
    roots = {
        "postgres": int(
            (Path(os.environ.get("COCOWEB_PG_DATA") or tmp / "svc" / "pg") / "postmaster.pid").read_text().split()[0]
        ),
        "redis": int(
            (Path(os.environ.get("COCOWEB_SERVICES_DIR") or tmp / "svc") / "redis.pid").read_text().split()[0]
        ),
    }
    try:
        return run(args, roots)
    finally:
        from django.db import connections

        connections.close_all()
        services_stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def crowd_people(app, n: int) -> list[list]:  # type: ignore[no-untyped-def]
    """``n`` participants through the study link of ``perf/crowd_arrival.py``'s campaign (link,
    consent, first item): their cookies and the item box each holds."""
    import subprocess

    # The study link's page is a full page: its static files' manifest first.
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, check=True)
    people = []
    link = f"/join/{SLUG}/"
    for i in range(n):
        cookies: dict[str, str] = {}
        # each participant from an address of their own (the join limits count new participants per address)
        addr = {"REMOTE_ADDR": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}", "HTTP_HX_REQUEST": ""}

        def take(headers: list[tuple[str, str]], cookies: dict[str, str] = cookies) -> None:
            for name, value in headers:
                if name == "Set-Cookie":
                    k, _, v = value.split(";", 1)[0].strip().partition("=")
                    cookies[k] = v

        status, headers, _ = call(
            app,
            environ("GET", link, cookies)
            | addr
            | {"QUERY_STRING": f"PROLIFIC_PID=cpu{i:021d}&STUDY_ID=perf&SESSION_ID=c{i}"},
        )
        assert status.startswith("200"), status
        take(headers)
        body = urlencode({"consent": "yes", "age_band": "25–34", "country": "Nowhere"}).encode()
        status, headers, _ = call(app, environ("POST", link + "consent/", cookies, body) | addr)
        assert status.startswith("302"), status
        take(headers)
        status, headers, box = call(app, environ("GET", link + "items/", cookies))
        assert status.startswith("200"), status
        take(headers)
        people.append([cookies, box])
    return people


def run(args: argparse.Namespace, roots: dict[str, int]) -> int:
    if args.crowd:
        from perf.crowd_arrival import setup_crowd

        setup_crowd(args.items, 23, 10**6)  # no budget in reach: every timed call is an answer and a next item
    else:
        setup_data(args.items, 3, args.annotators)
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection, reset_queries

    import cocoweb.urls  # noqa: F401  (imported once, as the preloaded gunicorn master does)

    app = WSGIHandler()
    people = crowd_people(app, args.annotators) if args.crowd else []
    for u in (
        get_user_model()
        .objects.filter(username__startswith="perf-ann-")
        .order_by("username")[: 0 if args.crowd else None]
    ):
        store = import_module(settings.SESSION_ENGINE).SessionStore()
        store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(u.pk), settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = u.get_session_auth_hash()
        store.create()
        cookies = {"sessionid": str(store.session_key)}
        status, headers, box = call(app, environ("GET", f"/annotation/c/{CAMPAIGN}/item/", cookies))
        assert status.startswith("200"), status
        for name, value in headers:  # the box's form carries a CSRF token: the cookie comes with it
            if name == "Set-Cookie" and (m := CSRF.search(value)):
                cookies["csrftoken"] = m.group(1)
        people.append([cookies, box])

    def submit(i: int) -> None:
        cookies, box = people[i % len(people)]
        item, key = ITEM.search(box), KEY.search(box)
        assert item is not None, box[:500]
        assert key is not None, box[:500]
        if args.crowd:
            answer = {"agree": "yes" if i % 2 else "no", "predict": "no"}
            url = f"/join/{SLUG}/items/{item.group(1)}/submit/"
        else:
            answer, url = {"plausible": str(i % 5)}, f"/annotation/c/{CAMPAIGN}/items/{item.group(1)}/submit/"
        body = urlencode({**answer, "idempotency_key": key.group(1), "elapsed_ms": "3000"}).encode()
        status, _, nxt = call(app, environ("POST", url, cookies, body))
        assert status.startswith("200"), (status, nxt[:500])
        people[i % len(people)][1] = nxt

    for i in range(args.warmup):
        submit(i)
    settings.DEBUG = True  # count statements over a short stretch only (the query log costs CPU)
    counted = 0
    for i in range(args.warmup, args.warmup + 50):
        submit(i)
        counted += len(connection.queries)  # each request starts a new log
        if i == args.warmup and args.profile:
            for q in connection.queries:
                print("   ", q["sql"][:110].replace("\n", " "))
    statements = counted / 50
    settings.DEBUG = False
    reset_queries()
    import cProfile
    import pstats

    # Python function calls per submit: a count of the work done that, unlike CPU time, does not
    # change with the machine's load (the same 50 submits' worth, a stretch later)
    counter = cProfile.Profile()
    counter.enable()
    for i in range(args.warmup + 50, args.warmup + 100):
        submit(i)
    counter.disable()
    calls = pstats.Stats(counter).total_calls / 50  # type: ignore[attr-defined]  # set by its __init__
    start = args.warmup + 100
    cpu: list[float] = []
    services: dict[str, list[float]] = {name: [] for name in roots}
    kinds0 = pg_kinds(roots["postgres"])
    for rep in range(5):
        n = args.submits // 5
        meter = CpuMeter(roots)
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(start, start + n):
            submit(i)
        cpu.append((time.process_time() - c0) / n * 1000)
        wall = (time.perf_counter() - w0) / n * 1000
        for name, used in meter.used().items():
            services[name].append(used / n * 1000)
        start += n
        print(
            f"  block {rep + 1}: {n} submits, {cpu[-1]:.2f} ms CPU per submit ({wall:.2f} ms wall); "
            + ", ".join(f"{name} {v[-1]:.2f} ms" for name, v in services.items()),
            flush=True,
        )
    print(
        f"{'crowd' if args.crowd else 'htmx'} submit in-process (PostgreSQL durable + Redis): median {statistics.median(cpu):.2f} ms CPU per submit "
        f"(blocks {min(cpu):.2f}-{max(cpu):.2f}); "
        + ", ".join(f"{name} median {statistics.median(v):.2f} ms" for name, v in services.items())
        + f"; {statements:.1f} SQL statements and {calls:.0f} Python function calls per submit; {loadavg()}"
    )
    kinds = pg_kinds_used(kinds0, pg_kinds(roots["postgres"]))
    done = 5 * (args.submits // 5)
    print(
        "  PostgreSQL by process: "
        + ", ".join(f"{k} {v / done * 1000:.2f} ms" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
    )
    if args.profile:
        prof = cProfile.Profile(time.process_time)  # CPU time: waits for PostgreSQL and Redis are not counted
        prof.enable()
        for i in range(start, start + 500):
            submit(i)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.profile)
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(args.profile)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
