"""PostgreSQL restarts twice while simulated annotators submit answers over HTTP to gunicorn.

Six annotators (three through the htmx pages a browser uses, three through the REST API with
``Idempotency-Key``) answer survey items against gunicorn (two processes, persistent database
connections: ``CONN_MAX_AGE``) on 127.0.0.1. Meanwhile the pass-2 cluster is stopped in ``fast``
mode and started again, then stopped in ``immediate`` mode (a crash: recovery from the WAL) and
started again; during each outage the test also sends one page and one API request itself. A
client whose request fails retries it with the same idempotency key until it is acknowledged.
Last, with the annotators gone, one more restart that no request sees, then a few requests.

Afterwards: every acknowledged answer is in the database with the answer that was sent; the
database holds nothing that was not acknowledged, and nothing twice (one row per person and item,
the item and person counters equal to the rows); every failed request got a 503 saying the
database is unavailable (never a 500 or a dropped connection); and every request sent after the
server was back succeeded, i.e. gunicorn's processes reconnected by themselves — also after the
quiet restart, where no failed query marked their persistent connections as broken (that case
needs ``CONN_HEALTH_CHECKS``).

Durability: ``scripts/services.sh`` runs PostgreSQL with ``synchronous_commit=off`` (and
``fsync=off``) for speed. A fast shutdown writes every commit before it stops, but an
immediate one loses commits that were acknowledged and not yet written to the WAL. So this test
sets ``synchronous_commit = on`` for its own test database (``ALTER DATABASE``; reset at the end):
a commit is acknowledged only once its WAL is written. ``fsync=off`` stays: the server process
dies, not the machine, and the operating system keeps what was written.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
from django.db import connection
from django.db.models import Count
from django.test import Client

from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from annotation.models import Item, Membership, Response
from annotation.services.campaigns import campaign_create, campaign_status_set

from .processes import Gunicorn, Postgres, wait_for

pytestmark = [
    pytest.mark.production,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(240),
]

PASSWORD = "pw-long-enough-123"
SLUG = "outage"
ITEM = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
ACKS_PER_PHASE = 12
DEADLINE_S = 120  # hard bound on the annotators' work, retries included


@dataclass
class Call:
    who: str
    what: str
    api: bool
    t0: float
    t1: float
    status: int  # 0: no HTTP response at all
    body: str


@dataclass
class Ack:
    user_id: int
    item_id: str  # the opaque uid (the web page and the API alike)
    key: str
    answer: dict[str, int]
    response_id: int | None  # the API says which row holds the answer


@dataclass
class Traffic:
    calls: list[Call] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, who: str, what: str, api: bool, send: Callable[[], requests.Response]) -> requests.Response | None:
        t0 = time.monotonic()
        try:
            r: requests.Response | None = send()
        except requests.RequestException as exc:
            r, status, body = None, 0, repr(exc)
        else:
            status, body = r.status_code, r.text[:400]
        with self.lock:
            self.calls.append(Call(who, what, api, t0, time.monotonic(), status, body))
        return r

    def acked(self) -> int:
        with self.lock:
            return len(self.acks)


def _unavailable_json(body: str) -> bool:
    try:
        return json.loads(body).get("code") == "database_unavailable"
    except ValueError:
        return False


def _unavailable_html(body: str) -> bool:
    return 'data-error="database_unavailable"' in body and "The database is unavailable" in body


class Annotator(threading.Thread):
    """Answers items until told to stop; a failed request is sent again (same idempotency key)."""

    def __init__(self, base: str, user: Any, api: bool, traffic: Traffic, stop: threading.Event, seed: int) -> None:
        super().__init__(daemon=True, name=user.username)
        self.base, self.user, self.api, self.traffic, self.stop_event = base, user, api, traffic, stop
        self.rng = random.Random(seed)
        self.deadline = time.monotonic() + DEADLINE_S
        self.s = requests.Session()
        if api:
            self.s.headers["Authorization"] = f"Token {api_token_renew(user)}"
        else:
            c = Client()
            assert c.login(username=user.username, password=PASSWORD)
            self.s.cookies.set("sessionid", c.cookies["sessionid"].value)
            self.s.get(f"{base}/annotation/", timeout=30).raise_for_status()  # sets csrftoken
            self.s.headers.update(
                {"HX-Request": "true", "X-CSRFToken": self.s.cookies.get("csrftoken", ""), "Referer": base}
            )

    def _until_ok(self, what: str, send: Callable[[], requests.Response]) -> requests.Response | None:
        while time.monotonic() < self.deadline:
            r = self.traffic.call(self.name, what, self.api, send)
            if r is not None and r.status_code < 300:
                return r
            if r is not None and r.status_code != 503:
                self.traffic.problems.append(f"{self.name} {what}: {r.status_code} {r.text[:200]}")
                return None
            time.sleep(0.1)
        self.traffic.problems.append(f"{self.name} {what}: not acknowledged within {DEADLINE_S} s")
        return None

    def run(self) -> None:
        try:
            self._work()
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.traffic.problems.append(f"{self.name} crashed: {exc!r}")

    def _work(self) -> None:
        box = None
        while not self.stop_event.is_set() and time.monotonic() < self.deadline:
            if self.api:
                r = self._until_ok(
                    "next", lambda: self.s.post(f"{self.base}/api/annotation/campaigns/{SLUG}/next/", timeout=30)
                )
                if r is None or r.json().get("state") != "item":
                    return
                item, key = r.json()["item"]["id"], self.rng.getrandbits(64).to_bytes(8, "big").hex()
            else:
                if box is None:
                    r = self._until_ok("item", lambda: self.s.get(f"{self.base}/annotation/c/{SLUG}/item/", timeout=30))
                    if r is None:
                        return
                    box = r.text
                m, k = ITEM.search(box), KEY.search(box)
                if m is None or k is None:
                    return
                item, key = m.group(1), k.group(1)
            answer = {"agree": self.rng.randrange(2), "predict": self.rng.randrange(2)}
            for repeat in range(2 if self.rng.random() < 0.15 else 1):  # sometimes sent twice (double click)
                r = self._submit(item, key, answer)
                if r is None:
                    return
                if repeat == 0:
                    rid = r.json()["response_id"] if self.api else None
                    with self.traffic.lock:
                        self.traffic.acks.append(Ack(self.user.pk, item, key, answer, rid))
                elif self.api and r.status_code != 200:
                    self.traffic.problems.append(f"{self.name}: a repeated submit got {r.status_code}, not 200")
            box = None if self.api else r.text  # the page answers a submit with the next item

    def _submit(self, item: str, key: str, answer: dict[str, int]) -> requests.Response | None:
        if self.api:
            url = f"{self.base}/api/annotation/campaigns/{SLUG}/items/{item}/response/"
            return self._until_ok(
                "submit",
                lambda: self.s.post(url, json={"answer": answer}, headers={"Idempotency-Key": key}, timeout=30),
            )
        url = f"{self.base}/annotation/c/{SLUG}/items/{item}/submit/"
        data = {
            "agree": "yes" if answer["agree"] else "no",
            "predict": "yes" if answer["predict"] else "no",
            "idempotency_key": key,
            "elapsed_ms": "900",
        }
        return self._until_ok("submit", lambda: self.s.post(url, data=data, timeout=30))


def _sync_commit(value: str | None) -> None:
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cur:
        if value is None:
            cur.execute(f'ALTER DATABASE "{name}" RESET synchronous_commit')
        else:
            cur.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = {value}')


def test_postgres_restarts_while_annotators_submit(statement_set, env, procs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pg = Postgres()
    _sync_commit("on")
    try:
        connection.close()  # a new session gets the database's setting
        with connection.cursor() as cur:
            cur.execute("SHOW synchronous_commit")
            assert cur.fetchone()[0] == "on"
        _outages(pg, statement_set, env, procs, tmp_path)
    finally:
        pg.ensure_running()
        connection.close()
        wait_for(_reachable, 60, "PostgreSQL did not come back")
        _sync_commit(None)


def _reachable() -> bool:
    try:
        connection.ensure_connection()
        return True
    except Exception:  # noqa: BLE001
        connection.close()
        return False


def _outages(pg: Postgres, statement_set: Any, env: dict[str, str], procs: list[Any], tmp_path: Any) -> None:
    role_groups_sync()
    campaign = campaign_create(name=SLUG, title="Outage", kind="survey", statement_set=statement_set, redundancy=3)
    campaign_status_set(campaign, "open")
    users = [user_create_with_role(f"ann{i}", "annotator", PASSWORD) for i in range(6)]
    web = Gunicorn(env, tmp_path / "gunicorn.log")
    procs.append(web)
    web.wait_ready()

    traffic, stop = Traffic(), threading.Event()
    annotators = [
        Annotator(web.url, u, api=i % 2 == 1, traffic=traffic, stop=stop, seed=i) for i, u in enumerate(users)
    ]
    probe_api, probe_page = requests.Session(), requests.Session()  # the test's own requests during each outage
    probe_api.headers.update(annotators[1].s.headers)
    probe_page.headers.update(annotators[0].s.headers)
    probe_page.cookies.update(annotators[0].s.cookies)
    for a in annotators:
        a.start()

    back_up: list[tuple[float, float]] = []  # (server back, next outage) windows
    probes: list[Call] = []
    for mode in ("fast", "immediate"):
        target = traffic.acked() + ACKS_PER_PHASE
        wait_for(
            lambda t=target: traffic.acked() >= t or traffic.problems,
            60,
            lambda m=mode: f"annotators stalled before the {m} stop: {traffic.problems[:3]}\n{web.tail()}",
        )
        if back_up:
            back_up[-1] = (back_up[-1][0], time.monotonic())
        failed_before = sum(c.status == 503 for c in traffic.calls)
        pg.stop(mode)
        for api, send in (
            (True, lambda: probe_api.post(f"{web.url}/api/annotation/campaigns/{SLUG}/next/", timeout=30)),
            (False, lambda: probe_page.get(f"{web.url}/annotation/c/{SLUG}/item/", timeout=30)),
        ):
            traffic.call("probe", f"{mode} outage", api, send)
            probes.append(traffic.calls[-1])
        wait_for(
            lambda fb=failed_before: sum(c.status == 503 for c in traffic.calls) >= fb + 3 or traffic.problems,
            10,
            "no annotator request failed during the outage",
        )
        assert not traffic.problems, f"during the {mode} outage: {traffic.problems[:3]}"
        pg.start()
        back_up.append((time.monotonic(), float("inf")))
    target = traffic.acked() + ACKS_PER_PHASE
    wait_for(
        lambda: traffic.acked() >= target or traffic.problems,
        60,
        lambda: f"annotators stalled after the restarts: {traffic.problems[:3]}\n{web.tail()}",
    )
    stop.set()
    for a in annotators:
        a.join(timeout=DEADLINE_S)
    assert not any(a.is_alive() for a in annotators), "an annotator is still running"
    # A restart nobody notices: the web processes hold dead connections that no failed query
    # marked. The first requests afterwards must still succeed (CONN_HEALTH_CHECKS).
    pg.stop("fast")
    pg.start()
    quiet = [
        traffic.call("probe", "after a quiet restart", api, send)
        for _ in range(4)
        for api, send in (
            (True, lambda: probe_api.post(f"{web.url}/api/annotation/campaigns/{SLUG}/next/", timeout=30)),
            (False, lambda: probe_page.get(f"{web.url}/annotation/c/{SLUG}/item/", timeout=30)),
        )
    ]
    assert all(r is not None and r.status_code == 200 for r in quiet), [
        r and (r.status_code, r.text[:200]) for r in quiet
    ]
    connection.close()  # the test's own connection died with the server

    assert not traffic.problems, traffic.problems[:5]
    # Failed requests: a 503 that says what happened, never a 500 or a dropped connection.
    statuses = {c.status for c in traffic.calls}
    assert statuses <= {200, 201, 503}, sorted(statuses)
    failed = [c for c in traffic.calls if c.status == 503]
    assert len(failed) >= 6, [(p.what, p.status, p.body[:100]) for p in probes]
    assert all(p.status == 503 for p in probes), [(p.what, p.status, p.body[:100]) for p in probes]
    for c in failed:
        clear = _unavailable_json(c.body) if c.api else _unavailable_html(c.body)
        assert clear, f"{c.who} {c.what}: unclear error {c.body[:300]}"
    # Once the server was back, every request succeeded at once (those cut by the next outage
    # aside): the web processes reconnected by themselves.
    late = [c for c in failed if any(up <= c.t0 and c.t1 < nxt for up, nxt in back_up)]
    assert not late, [(c.who, c.what, [round(c.t0 - up, 2) for up, _ in back_up], c.body[:100]) for c in late[:5]]

    # Every acknowledged answer is stored, with what was sent; nothing else, nothing twice.
    stored = {(r.user_id, r.item_id): r for r in Response.objects.filter(campaign__name=SLUG)}
    uid_pk = dict(Item.objects.filter(campaign__name=SLUG).values_list("uid", "pk"))  # the ids shown are opaque
    acked = {(a.user_id, uid_pk[a.item_id]): a for a in traffic.acks}
    assert len(acked) == len(traffic.acks), "an item was given to the same person twice"
    assert len(acked) >= 3 * ACKS_PER_PHASE
    missing = sorted(set(acked) - set(stored))
    assert not missing, f"{len(missing)} acknowledged answers are not in the database: {missing[:5]}"
    assert set(stored) == set(acked), "the database holds answers that were never acknowledged"
    for k, a in acked.items():
        r = stored[k]
        assert r.answer == a.answer, (k, r.answer, a.answer)
        assert r.idempotency_key == a.key, (k, r.answer, a.answer)
        assert a.response_id in (None, r.pk)
    per_item = dict(Response.objects.filter(campaign__name=SLUG).values_list("item_id").annotate(n=Count("id")))
    for item_id, answer_count in Item.objects.filter(campaign__name=SLUG, answer_count__gt=0).values_list(
        "pk", "answer_count"
    ):
        assert answer_count == per_item.get(item_id, 0), f"item {item_id}: counter {answer_count} != rows"
    assert set(per_item) <= set(
        Item.objects.filter(campaign__name=SLUG, answer_count__gt=0).values_list("pk", flat=True)
    )
    per_user = dict(Response.objects.filter(campaign__name=SLUG).values_list("user_id").annotate(n=Count("id")))
    for user_id, n in Membership.objects.filter(campaign__name=SLUG).values_list("user_id", "regular_answered"):
        assert n == per_user.get(user_id, 0), f"user {user_id}: regular_answered {n} != rows"
