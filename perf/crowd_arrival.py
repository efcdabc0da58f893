"""The crowd arrival scenario of ``perf/load_annotation.py --scenario arrival``: N participants
(default 1,000) arrive through a Prolific-style study link spread uniformly over ``--arrive-within``
seconds (default 60); each opens the link (whose page holds consent, instructions and the
demographics questions), agrees, then answers up to ``--budget`` items (default 50, NWW) with ``--think`` seconds per item, until
the run's bounded duration ends; one who reaches the budget fetches the completion page. Prints
p50/p95/p99 per step and checks the database: no participant twice, no item over redundancy,
every completion code unique (and the one the participant saw)."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import time
from typing import Any

SLUG = "perf-crowd"
UID = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
CODE = re.compile(r'id="completion-code">(\w+)<')
STEPS = ("join", "consent", "first_item", "submit", "done")


def participant_address(i: int) -> str:
    """The address participant ``i`` comes from, as the reverse proxy in front of gunicorn reports
    it (``X-Forwarded-For``, ``COCOWEB_PROXY_HOPS=1``): people join from addresses of their own, and
    the study link's join limits count new participants per address (20 an hour by default)."""
    return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"


def crowd_env(participants: int) -> dict[str, str]:
    """The settings the scenario's server runs with: one trusted proxy hop (the addresses above),
    and a study join limit that lets ``participants`` in within the hour (the default, 1,000 new
    participants an hour per study, is what a researcher raises for a larger study)."""
    return {"COCOWEB_PROXY_HOPS": "1", "COCOWEB_JOIN_PER_STUDY": str(max(1000, participants))}


def setup_crowd(n_items: int, redundancy: int, budget: int) -> None:
    """A survey campaign over ``n_items`` synthetic statements, opened to a crowd with the
    production services (as ``campaign_create --study-link`` does)."""
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.crowd.services import crowd_study_enable
    from annotation.models import Campaign
    from annotation.services.campaigns import campaign_create, campaign_status_set
    from knowledge.models import Statement, StatementSet

    call_command("migrate", verbosity=0)
    Campaign.objects.filter(name=SLUG).delete()
    StatementSet.objects.filter(name=SLUG).delete()
    sset = StatementSet.objects.create(name=SLUG, source="perf", statement_count=n_items)
    Statement.objects.bulk_create(
        [
            Statement(statement_set=sset, position=i, external_id=f"s{i}", text=f"Statement number {i} is true.")
            for i in range(n_items)
        ],
        batch_size=5000,
    )
    c = campaign_create(
        name=SLUG,
        title="Crowd arrival",
        kind="survey",
        statement_set=sset,
        redundancy=redundancy,
        max_items_per_annotator=budget,
    )
    campaign_status_set(c, "open")
    crowd_study_enable(c, demographics=["age_band", "country"], completion_url="https://example.org/done?cc={code}")


def profile_arrival(n: int) -> None:
    """SQL statements and in-process time per step of the arrival path (Django's test client on the
    same database, cache and session store as the server), for ``n`` participants."""
    import statistics

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    counts: dict[str, list[int]] = {}
    times: dict[str, list[float]] = {}
    link = f"/join/{SLUG}/"

    def step(name: str, fn: Any, *a: Any, **kw: Any) -> Any:
        with CaptureQueriesContext(connection) as cq:
            t = time.process_time()
            r = fn(*a, **kw)
            dt = (time.process_time() - t) * 1000
        counts.setdefault(name, []).append(len(cq))
        times.setdefault(name, []).append(dt)
        assert r.status_code in (200, 204, 302), (name, r.status_code)
        return r

    c = Client()  # one client: its handler loads the middleware once, as a server process does
    c.get("/accounts/login/")
    for i in range(n):
        c.cookies.clear()  # a new browser
        c.defaults.pop("HTTP_HX_REQUEST", None)
        r = step(
            "join",
            c.get,
            f"{link}?PROLIFIC_PID=prof{i:021d}&STUDY_ID=perf&SESSION_ID=p{i}",
            HTTP_X_FORWARDED_FOR=participant_address(i),
        )
        for name, path in (("consent_page", "consent/"), ("instructions_page", "instructions/")):
            if r.status_code == 302 and r["Location"].endswith(path):
                r = step(name, c.get, link + path)
        post = {"consent": "yes", "age_band": "25–34", "country": "Nowhere"}
        r = step("consent", c.post, link + "consent/", post)
        if r["Location"].endswith("/instructions/"):
            r = step("instructions", c.post, link + "instructions/")
        if r["Location"].endswith("/about-you/"):
            step("demographics_page", c.get, link + "about-you/")
            step("demographics", c.post, link + "about-you/", {"age_band": "25–34", "country": "Nowhere"})
        r = step("first_item", c.get, link + "items/")
        for _ in range(3):
            m, k = UID.search(r.content.decode()), KEY.search(r.content.decode())
            data = {"agree": "yes", "predict": "no", "idempotency_key": k.group(1), "elapsed_ms": "9000"}
            r = step("submit", c.post, f"{link}items/{m.group(1)}/submit/", data, HTTP_HX_REQUEST="true")
    print(f"arrival path, in-process ({n} participants, 3 submits each): SQL statements and CPU ms per request")
    for name, v in counts.items():
        t = times[name]
        print(
            f"  {name:18s} SQL median {statistics.median(v):3.0f} (max {max(v):3d})  CPU median {statistics.median(t):5.1f} ms"
        )
    print(f"  requests per arrival before the first submit: {sum(1 for k in counts if k != 'submit')}")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def run_arrival(args: argparse.Namespace, base: str, loadavg: Any, cpu_roots: dict[str, int] | None = None) -> int:
    """The arrivals as asyncio tasks on one event loop (aiohttp, one cookie jar per participant):
    a thousand OS threads would spend the 2 cores the server needs on switching between them."""
    seen_codes, n_bad = asyncio.run(_arrival(args, base, loadavg, cpu_roots or {}))
    return check_crowd(args.redundancy, args.budget, seen_codes, n_bad)


async def _arrival(
    args: argparse.Namespace, base: str, loadavg: Any, cpu_roots: dict[str, int]
) -> tuple[dict[str, str], int]:
    import aiohttp

    from perf.load_annotation import CpuMeter, own_cpu

    lat: dict[str, list[float]] = {s: [] for s in STEPS}
    bad: list[str] = []
    seen_codes: dict[str, str] = {}
    lo, hi = args.think
    link = f"/join/{SLUG}/"
    timeout = aiohttp.ClientTimeout(total=120)
    connector = aiohttp.TCPConnector(limit=0)  # one connection per participant, as browsers have

    async def timed(step: str, s: Any, method: str, url: str, **kw: Any) -> tuple[Any, str] | None:
        t = time.perf_counter()
        try:
            async with s.request(method, url, allow_redirects=False, **kw) as r:
                text = await r.text()
        except (TimeoutError, aiohttp.ClientError) as exc:
            bad.append(f"{step}: {exc.__class__.__name__}")
            return None
        lat[step].append((time.perf_counter() - t) * 1000)
        if r.status not in (200, 204, 302):
            bad.append(f"{step}: {r.status}")
            return None
        return r, text

    async def participant(i: int, at: float, deadline: float) -> None:
        rng = random.Random(i)
        pid = f"{rng.getrandbits(96):024x}"  # Prolific ids are 24 hex digits
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
        async with aiohttp.ClientSession(
            base,
            cookie_jar=jar,
            connector=connector,
            connector_owner=False,
            timeout=timeout,
            headers={"X-Forwarded-For": participant_address(i)},
        ) as s:
            got = await timed("join", s, "GET", f"{link}?PROLIFIC_PID={pid}&STUDY_ID=perf&SESSION_ID=s{i}")
            if got is None:
                return
            csrf = {c.key: c.value for c in jar}.get("csrftoken", "")
            s.headers.update({"X-CSRFToken": csrf, "Referer": base})
            # The link's page holds consent, instructions and the demographics questions: one answer.
            data = {"consent": "yes", "age_band": rng.choice(["18–24", "25–34", "35–44"]), "country": "Nowhere"}
            if await timed("consent", s, "POST", link + "consent/", data=data) is None:
                return
            got = await timed("first_item", s, "GET", link + "items/")
            s.headers["HX-Request"] = "true"
            while got is not None and time.perf_counter() < deadline:
                r, text = got
                if r.status == 204 and r.headers.get("HX-Redirect", "").endswith("/done/"):
                    done = await timed("done", s, "GET", link + "done/")
                    m = CODE.search(done[1]) if done is not None else None
                    if m is not None:
                        seen_codes[pid] = m.group(1)
                    return
                m, k = UID.search(text), KEY.search(text)
                if m is None or k is None:
                    return  # waiting for slots, or the study ended for them
                await asyncio.sleep(rng.uniform(lo, hi) if hi else 0.0)
                if time.perf_counter() >= deadline:
                    return
                answer = {"agree": rng.choice(["yes", "no"]), "predict": rng.choice(["yes", "no"])}
                got = await timed(
                    "submit",
                    s,
                    "POST",
                    f"{link}items/{m.group(1)}/submit/",
                    data={**answer, "idempotency_key": k.group(1), "elapsed_ms": "9000"},
                )

    async with aiohttp.ClientSession(base, timeout=timeout) as warm:
        for _ in range(4 * args.workers):  # wake every gunicorn worker (first requests import templates)
            async with warm.get("/accounts/login/") as r:
                await r.read()
    start = time.perf_counter() + 2.0
    deadline = start + args.arrive_within + args.duration
    rng = random.Random(0)
    arrivals = sorted(start + rng.uniform(0, args.arrive_within) for _ in range(args.participants))
    before = loadavg()
    meter, client0 = CpuMeter(cpu_roots), own_cpu()
    peak = [0.0]

    async def watch() -> None:
        while True:
            peak[0] = max(peak[0], os.getloadavg()[0])
            await asyncio.sleep(5)

    watcher = asyncio.create_task(watch())
    tasks = [asyncio.create_task(participant(i, at, deadline)) for i, at in enumerate(arrivals)]
    _done, pending = await asyncio.wait(tasks, timeout=max(0.01, deadline + 180 - time.perf_counter()))
    for t in pending:  # participants still waiting on a request 180 s after the end: unfinished
        t.cancel()
    watcher.cancel()
    await connector.close()
    elapsed = time.perf_counter() - start
    used, client_cpu = meter.used(), own_cpu() - client0
    n_req = sum(len(v) for v in lat.values())
    think = f"{lo:g}-{hi:g} s" if hi else "none"
    print(
        f"arrival: {args.participants} participants within {args.arrive_within:g} s, budget {args.budget}, think "
        f"{think}, bounded at {args.arrive_within + args.duration:g} s; gunicorn {args.workers} workers x "
        f"{args.threads} threads; {n_req} requests in {elapsed:.1f} s ({n_req / elapsed:.1f} req/s)"
    )
    print(f"  {loadavg()} at the end ({before} before; 1-min peak seen {peak[0]:.2f})")
    if used and n_req:
        server = sum(used.values())
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in used.items())
        print(
            f"  server CPU {server:.1f} s ({parts}) = {server / n_req * 1000:.1f} ms per request "
            f"(capacity of 2 cores at that cost: {2 * n_req / server:.0f} req/s); client CPU {client_cpu:.1f} s "
            f"({client_cpu / n_req * 1000:.1f} ms per request)"
        )
    worst = 0.0
    for step in STEPS:
        v = lat[step]
        worst = max(worst, pct(v, 95) if v else 0.0)
        print(
            f"  {step:18s} n={len(v):6d}  p50={pct(v, 50):7.1f} ms  p95={pct(v, 95):7.1f} ms  p99={pct(v, 99):7.1f} ms"
        )
    print(f"  worst step p95: {worst:.1f} ms (target < 150 ms at 10,000 participants in 10 minutes, issue 32 item 4)")
    if bad:
        print(f"  failed requests: {len(bad)} (first: {bad[:5]})")
    if pending:
        print(f"  {len(pending)} participants still waiting on a request 180 s after the end")
    return seen_codes, len(bad)


def check_crowd(redundancy: int, budget: int, seen_codes: dict[str, str], n_bad: int) -> int:
    from django.db import connection
    from django.db.models import Count

    from annotation.models import Item, Participant, Response

    connection.close()
    parts = Participant.objects.filter(campaign__name=SLUG)
    twice = parts.values("platform", "external_id").annotate(n=Count("id")).filter(n__gt=1).count()
    per_item = dict(
        Response.objects.filter(campaign__name=SLUG, item__role="regular")
        .values_list("item_id")
        .annotate(n=Count("id"))
    )
    over = sum(1 for n in per_item.values() if n > redundancy)
    per_user = Response.objects.filter(campaign__name=SLUG).values("user_id").annotate(n=Count("id"))
    over_budget = sum(1 for r in per_user if r["n"] > budget)
    codes = list(parts.exclude(completion_code=None).values_list("external_id", "completion_code"))
    dup_codes = len(codes) - len({c for _, c in codes})
    mismatched = sum(1 for pid, c in codes if pid in seen_codes and seen_codes[pid] != c)
    counters = sum(
        1
        for i in Item.objects.filter(campaign__name=SLUG, role="regular").only("pk", "answer_count")
        if i.answer_count != per_item.get(i.pk, 0)
    )
    problems = twice + over + over_budget + dup_codes + mismatched + counters + n_bad
    by_stage = dict(parts.values_list("stage").annotate(n=Count("id")).order_by())
    print(
        f"db: {parts.count()} participants {by_stage}; {sum(per_item.values())} answers on {len(per_item)} items "
        f"(max {max(per_item.values(), default=0)} per item); {twice} ids twice, {over} items over redundancy, "
        f"{over_budget} participants over budget, {len(codes)} completion codes ({dup_codes} duplicates, "
        f"{mismatched} not the one shown), {counters} inconsistent counters -> {'OK' if not problems else 'FAILED'}"
    )
    return 0 if not problems else 1
