"""Issue 17 item 9: on the default SQLite set-up, annotators submitting at once (and undoing while
others submit) never get a 503 for an answer that was stored: write transactions start IMMEDIATE,
so a writer waits for the lock instead of failing when it upgrades a read to a write."""

from __future__ import annotations

import re
import threading
from collections import Counter

import pytest
import requests
from django.db import connection
from django.test import Client

from annotation.models import Response
from annotation.services.campaigns import campaign_create, campaign_status_set
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
ITEM = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
N_PEOPLE, ROUNDS = 4, 12


def _session(base: str, username: str) -> requests.Session:
    c = Client()
    assert c.login(username=username, password=PASSWORD)
    s = requests.Session()
    s.cookies.set("sessionid", c.cookies["sessionid"].value)
    s.get(f"{base}/annotation/", timeout=60).raise_for_status()
    s.headers.update({"HX-Request": "true", "X-CSRFToken": s.cookies.get("csrftoken", ""), "Referer": base})
    return s


def test_sqlite_writes_start_immediate() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite set-up only")
    assert connection.settings_dict["OPTIONS"].get("transaction_mode") == "IMMEDIATE"


def test_concurrent_submits_and_undos_never_503_after_storing(live_server, csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite set-up's race (PostgreSQL has row locks: tests/annotation/test_concurrency.py)")
    campaign_status_set(
        campaign_create(name="race", title="race", kind="mcqa", question_set=csqa_set, redundancy=N_PEOPLE), "open"
    )
    names = [f"ann{i}" for i in range(N_PEOPLE)]
    people("annotator", *names)
    base = live_server.url
    sessions = [_session(base, n) for n in names]
    barrier = threading.Barrier(N_PEOPLE)
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    failures: list[str] = []

    def work(i: int, s: requests.Session) -> None:
        barrier.wait()
        for r in range(ROUNDS):
            box = s.get(f"{base}/annotation/c/race/item/", timeout=60)
            m, k = ITEM.search(box.text), KEY.search(box.text)
            if box.status_code != 200 or m is None or k is None:
                with lock:
                    failures.append(f"box {box.status_code}")
                return
            data = {"plausible": str(r % 5), "idempotency_key": k.group(1), "elapsed_ms": "500"}
            resp = s.post(f"{base}/annotation/c/race/items/{m.group(1)}/submit/", data=data, timeout=60)
            with lock:
                statuses[resp.status_code] += 1
            if i % 2 and r % 3 == 2:  # undo racing the others' submits
                u = s.post(f"{base}/annotation/c/race/undo/", timeout=60)
                with lock:
                    statuses[u.status_code] += 1

    threads = [threading.Thread(target=work, args=(i, s)) for i, s in enumerate(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures, failures
    assert statuses[503] == 0, statuses
    assert set(statuses) == {200}, statuses
    undos = (N_PEOPLE // 2) * (ROUNDS // 3)
    assert Response.objects.count() == N_PEOPLE * ROUNDS - undos


def test_a_503_never_claims_the_answer_was_lost() -> None:
    """A 503 can come after the answer was stored (a later query of the same request); the page
    must not tell the person it was lost. The retry carries the idempotency key: stored once."""
    from django.conf import settings

    js = (settings.BASE_DIR / "static" / "annotation" / "annotate.js").read_text()
    line = next(ln for ln in js.splitlines() if "briefly unavailable" in ln)
    assert "did not store" not in line
    assert "may not have been stored" in line
