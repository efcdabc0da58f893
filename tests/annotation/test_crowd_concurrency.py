"""Concurrency against PostgreSQL: 100 crowd participants arrive through Prolific-style study links
at the same instant (threads on loopback, the live server), ten of the ids twice at once from two
browsers. Each id gets exactly one participant (the twin browser is refused), everybody answers
exactly their budget, no item exceeds its redundancy, and every completion code is unique."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter

import pytest
import requests
from django.db.models import Count

from annotation.models import Item, Participant, Response
from tests.annotation.crowd_helpers import crowd_campaign

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

N_IDS, N_TWINS, N_ITEMS, REDUNDANCY, BUDGET = 90, 10, 60, 5, 3
UID = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def test_100_participants_join_at_once(live_server, statement_set) -> None:  # type: ignore[no-untyped-def]
    c = crowd_campaign("rush", "--redundancy", str(REDUNDANCY), "--budget", str(BUDGET))
    Item.objects.filter(campaign=c, position__gte=N_ITEMS).delete()
    base = f"{live_server.url}/join/rush/"
    ids = [f"pid{i:03d}" for i in range(N_IDS)]
    arrivals = ids + ids[:N_TWINS]  # ten ids come twice at once
    barrier = threading.Barrier(len(arrivals))
    outcomes: Counter[int] = Counter()
    errors: list[str] = []
    codes: dict[str, str] = {}
    lock = threading.Lock()

    def post(s: requests.Session, url: str, page: str, data: dict[str, str]) -> requests.Response:
        token = CSRF.search(page)
        assert token is not None, page[:300]
        return s.post(url, data={**data, "csrfmiddlewaretoken": token.group(1)}, timeout=60, allow_redirects=True)

    def participant(pid: str) -> None:
        s = requests.Session()
        barrier.wait()
        r = s.get(f"{base}?PROLIFIC_PID={pid}&STUDY_ID=S&SESSION_ID={pid}-x", timeout=60, allow_redirects=False)
        with lock:
            outcomes[r.status_code] += 1
        if r.status_code == 409:
            return
        if r.status_code != 200:
            errors.append(f"{pid}: join {r.status_code}")
            return
        r = post(s, base + "consent/", r.text, {"consent": "yes"})  # the link's page: consent and instructions
        for _ in range(BUDGET + 2):
            if r.url.endswith("/done/"):
                break
            m, k = UID.search(r.text), KEY.search(r.text)
            if m is None or k is None:
                if 'data-state="wait"' in r.text:
                    time.sleep(0.2)
                    r = s.get(base + "items/", timeout=60)
                    continue
                errors.append(f"{pid}: neither an item nor done: {r.url} {r.text[:200]}")
                return
            r = post(
                s,
                f"{base}items/{m.group(1)}/submit/",
                r.text,
                {"agree": "yes", "predict": "no", "idempotency_key": k.group(1)},
            )
        code = re.search(r'id="completion-code">(\w+)<', r.text)
        if code is None:
            errors.append(f"{pid}: no completion code at {r.url}")
            return
        with lock:
            codes[pid] = code.group(1)

    threads = [threading.Thread(target=participant, args=(pid,)) for pid in arrivals]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "participants still running after 300 s"
    assert not errors, errors[:5]
    # One participant per id; each twin pair: one browser in, the other refused.
    assert Participant.objects.filter(campaign=c).count() == N_IDS
    assert sorted(Participant.objects.values_list("external_id", flat=True)) == ids
    assert outcomes == {200: N_IDS, 409: N_TWINS}
    # Budgets: every participant answered exactly BUDGET items, and finished with a unique code.
    per_user = Counter(Response.objects.filter(campaign=c).values_list("user_id", flat=True))
    assert set(per_user.values()) == {BUDGET}
    assert len(per_user) == N_IDS
    stored = dict(Participant.objects.values_list("external_id", "completion_code"))
    assert stored == codes
    assert len(set(codes.values())) == N_IDS
    # Redundancy holds, and the least-answered-first draw spread the answers evenly.
    per_item = dict(Response.objects.filter(campaign=c).values_list("item_id").annotate(n=Count("id")))
    assert max(per_item.values()) <= REDUNDANCY
    assert len(per_item) == N_ITEMS
    assert max(per_item.values()) - min(per_item.values()) <= 1
    for item in Item.objects.filter(campaign=c):
        assert item.answer_count == per_item[item.pk] == item.slots_taken
