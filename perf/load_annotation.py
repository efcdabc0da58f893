"""Load test of the annotation queue: N simulated annotators (default 50) against the app served by
gunicorn with PostgreSQL on 127.0.0.1, for a bounded time. Each annotator loops: "next item"
(GET of the htmx item box, which reserves an item) -> think -> "submit" (POST of the answer; one
in ten posts twice, as a double click). Prints requests/s and p50/p95/p99 latency of both, then
checks the database: no item over its redundancy, no duplicate answer, counters consistent.

    .venv/bin/python perf/load_annotation.py                 # starts its own PostgreSQL + Redis
    DATABASE_URL=postgres://... .venv/bin/python perf/load_annotation.py --annotators 50 --duration 30

``--think-ms`` is the mean pause between seeing an item and submitting it (uniform 0.5x-1.5x);
people take several seconds per item, the default 1000 ms is a hurried crowd. ``--think-ms 0``
measures saturation (closed loop, no pause): latency then is simply annotators / throughput.
Exit status 1 if a database check fails.
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
ITEM = re.compile(r'data-item="(\d+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
CAMPAIGN = "perf-load"


def services_start(tmp: Path) -> dict[str, str]:
    env = {**os.environ, "PG_PORT": "54391", "REDIS_PORT": "63891"}
    out = subprocess.run(["bash", "-c", f'source scripts/services.sh && services_start "{tmp}/svc" >/dev/null && '
                          'echo "$DATABASE_URL $CELERY_BROKER_URL"'], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        sys.exit(f"could not start PostgreSQL/Redis: {out.stderr}{out.stdout}")
    db, broker = out.stdout.split()
    return {"DATABASE_URL": db, "CELERY_BROKER_URL": broker}


def services_stop(tmp: Path) -> None:
    env = {**os.environ, "PG_PORT": "54391", "REDIS_PORT": "63891"}
    subprocess.run(["bash", "-c", f'source scripts/services.sh && SERVICES_DIR="{tmp}/svc" && services_stop'], cwd=ROOT,
                   env=env, timeout=60)


def setup_data(n_items: int, redundancy: int, n_annotators: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from accounts.services import role_groups_sync, user_create_with_role
    from annotation.models import Campaign
    from annotation.services import campaign_create, campaign_status_set
    from knowledge.models import Question, QuestionSet

    call_command("migrate", verbosity=0)
    role_groups_sync()
    Campaign.objects.filter(name=CAMPAIGN).delete()
    QuestionSet.objects.filter(name=CAMPAIGN).delete()
    qs = QuestionSet.objects.create(name=CAMPAIGN, kind=QuestionSet.Kind.MCQA, question_count=n_items)
    Question.objects.bulk_create([Question(question_set=qs, position=i, external_id=f"q{i}", context=f"Context {i}.",
                                           stem=f"Question {i}?", options=[f"option {i}.{k}" for k in range(5)],
                                           answer_index=i % 5) for i in range(n_items)], batch_size=5000)
    c = campaign_create(name=CAMPAIGN, title="Load test", kind="mcqa", question_set=qs, redundancy=redundancy)
    campaign_status_set(c, "open")
    User = get_user_model()
    User.objects.filter(username__startswith="perf-ann-").delete()
    for i in range(n_annotators):
        user_create_with_role(f"perf-ann-{i:03d}", "annotator", "perf-password-123")


def session_for(base: str, username: str) -> requests.Session:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.get(username=username)
    store = SessionStore()
    store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    ap.add_argument("--items", type=int, default=3000)
    ap.add_argument("--redundancy", type=int, default=3)
    ap.add_argument("--think-ms", type=float, default=1000.0)
    ap.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    ap.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread when > 1)")
    ap.add_argument("--port", type=int, default=8791)
    ap.add_argument("--warmup", type=float, default=5.0,
                    help="seconds at the start (all annotators arrive at once, cold workers) reported apart")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="cocoweb-load-"))
    tmp.chmod(0o755)  # PostgreSQL runs as its own user and must reach its data folder
    own_services = not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    env = dict(os.environ)
    if own_services:
        env.update(services_start(tmp))
    env.update({"DJANGO_SETTINGS_MODULE": "cocoweb.settings", "DJANGO_SECRET_KEY": "perf-only-not-secret",
                "DJANGO_DEBUG": "false", "DJANGO_SECURE_SSL_REDIRECT": "false", "DJANGO_SECURE_COOKIES": "false",
                "DJANGO_HSTS_SECONDS": "0", "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_LOG_LEVEL": "WARNING",
                "COCOWEB_VAR_DIR": str(tmp / "var"), "DJANGO_STATIC_ROOT": str(tmp / "static")})
    os.environ.update(env)
    gunicorn = None
    try:
        t0 = time.perf_counter()
        setup_data(args.items, args.redundancy, args.annotators)
        print(f"data: {args.items} items x redundancy {args.redundancy}, {args.annotators} annotators "
              f"({time.perf_counter() - t0:.1f} s)")
        subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT,
                       env=env, check=True, timeout=300)
        cmd = [str(ROOT / ".venv/bin/gunicorn"), "cocoweb.wsgi", "-b", f"127.0.0.1:{args.port}", "-w", str(args.workers),
               "--error-logfile", str(tmp / "gunicorn.log")]
        if args.threads > 1:
            cmd += ["--worker-class", "gthread", "--threads", str(args.threads)]
        gunicorn = subprocess.Popen(cmd, cwd=ROOT, env=env)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        base = f"http://127.0.0.1:{args.port}"
        sessions = [session_for(base, f"perf-ann-{i:03d}") for i in range(args.annotators)]
        lat: dict[str, list[float]] = {"next": [], "submit": [], "warmup": []}
        bad: list[str] = []
        lock = threading.Lock()
        barrier = threading.Barrier(args.annotators + 1)
        deadline, warm_until = [0.0], [0.0]

        def timed(kind: str, fn, *a, **kw):  # type: ignore[no-untyped-def]
            t = time.perf_counter()
            r = fn(*a, timeout=60, **kw)
            dt = (time.perf_counter() - t) * 1000
            with lock:
                lat[kind if t >= warm_until[0] else "warmup"].append(dt)
                if r.status_code != 200:
                    bad.append(f"{kind} {r.status_code}")
            return r

        def annotator(i: int, s: requests.Session) -> None:
            rng = random.Random(i)
            barrier.wait()
            while time.perf_counter() < deadline[0]:
                box = timed("next", s.get, f"{base}/annotation/c/{CAMPAIGN}/item/")
                m = ITEM.search(box.text)
                if m is None:
                    return
                if args.think_ms:
                    time.sleep(args.think_ms / 1000 * rng.uniform(0.5, 1.5))
                data = {"plausible": str(rng.randrange(5)), "idempotency_key": KEY.search(box.text).group(1)}  # type: ignore[union-attr]
                url = f"{base}/annotation/c/{CAMPAIGN}/items/{m.group(1)}/submit/"
                timed("submit", s.post, url, data=data)
                if rng.random() < 0.1:
                    timed("submit", s.post, url, data=data)  # double click: must not store a second answer

        threads = [threading.Thread(target=annotator, args=(i, s), daemon=True) for i, s in enumerate(sessions)]
        for t in threads:
            t.start()
        deadline[0] = time.perf_counter() + args.duration
        warm_until[0] = time.perf_counter() + args.warmup
        start = time.perf_counter()
        barrier.wait()
        for t in threads:
            t.join(timeout=args.duration + 120)
        elapsed = time.perf_counter() - start
        n_req = len(lat["next"]) + len(lat["submit"]) + len(lat["warmup"])
        print(f"load: {args.annotators} annotators, {args.duration:.0f} s, think {args.think_ms:.0f} ms, gunicorn "
              f"{args.workers} workers x {args.threads} threads; {n_req} requests in {elapsed:.1f} s = {n_req / elapsed:.1f} req/s")
        print(f"  first {args.warmup:.0f} s (everyone arrives at once, cold workers): {len(lat['warmup'])} requests, "
              f"p95={pct(lat['warmup'], 95):.1f} ms; after that:")
        for kind in ("next", "submit"):
            v = lat[kind]
            print(f"  {kind:6s} n={len(v):6d}  p50={pct(v, 50):7.1f} ms  p95={pct(v, 95):7.1f} ms  p99={pct(v, 99):7.1f} ms"
                  f"  mean={statistics.fmean(v) if v else float('nan'):7.1f} ms")
        if bad:
            print(f"  non-200 responses: {len(bad)} (first: {bad[:3]})")
        return check(args.redundancy, len(bad))
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)
        if own_services:
            services_stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def check(redundancy: int, n_bad: int) -> int:
    from django.db import connection
    from django.db.models import Count

    from annotation.models import Assignment, Item, Response

    connection.close()
    items = Item.objects.filter(campaign__name=CAMPAIGN)
    per_item = dict(Response.objects.filter(item__in=items).values_list("item_id").annotate(n=Count("id")))
    live = dict(Assignment.objects.filter(item__in=items, state="reserved").values_list("item_id").annotate(n=Count("id")))
    over = [k for k, n in per_item.items() if n > redundancy]
    dup = Response.objects.filter(item__in=items).values("item_id", "user_id").annotate(n=Count("id")).filter(n__gt=1).count()
    inconsistent = sum(1 for i in items.only("pk", "answer_count", "slots_taken")
                       if i.answer_count != per_item.get(i.pk, 0) or i.slots_taken != per_item.get(i.pk, 0) + live.get(i.pk, 0))
    total = sum(per_item.values())
    ok = not over and not dup and not inconsistent and n_bad == 0
    print(f"db: {total} answers on {len(per_item)} items (max {max(per_item.values(), default=0)} per item), "
          f"{len(over)} items over redundancy, {dup} duplicate answers, {inconsistent} inconsistent counters, "
          f"{sum(live.values())} live reservations -> {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
