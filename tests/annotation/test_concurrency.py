"""Concurrency against PostgreSQL: 32 simulated annotators answer over HTTP at once (threads on
loopback, the live server, the htmx endpoints a browser uses), some double-clicking submit and
some skipping. Afterwards no item holds more answers than its redundancy and nobody answered
an item twice."""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter

import pytest
import requests
from django.db.models import Count
from django.test import Client

from annotation.models import Assignment, Item, Response
from annotation.services import campaign_create, campaign_status_set
from tests.annotation.conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

N_ANNOTATORS, N_ITEMS, REDUNDANCY = 32, 40, 3
ITEM = re.compile(r'data-item="([^"]+)"')
KEY = re.compile(r'name="idempotency_key" value="(\w+)"')


def _session(base: str, username: str) -> requests.Session:
    c = Client()
    assert c.login(username=username, password=PASSWORD)
    s = requests.Session()
    s.cookies.set("sessionid", c.cookies["sessionid"].value)
    s.get(f"{base}/annotation/", timeout=30).raise_for_status()  # sets csrftoken
    s.headers.update({"HX-Request": "true", "X-CSRFToken": s.cookies.get("csrftoken", ""), "Referer": base})
    return s


def test_32_annotators_over_http_never_exceed_redundancy(live_server, csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    c = campaign_create(name="race", title="race", kind="mcqa", question_set=csqa_set, redundancy=REDUNDANCY)
    Item.objects.filter(campaign=c, position__gte=N_ITEMS).delete()
    campaign_status_set(c, "open")
    names = [f"ann{i:02d}" for i in range(N_ANNOTATORS)]
    people("annotator", *names)
    base = live_server.url
    sessions = [_session(base, n) for n in names]
    barrier = threading.Barrier(N_ANNOTATORS)
    errors: list[str] = []
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def post(s: requests.Session, url: str, data: dict[str, str]) -> None:
        r = s.post(url, data=data, timeout=60)
        with lock:
            statuses[r.status_code] += 1
        if r.status_code != 200:
            errors.append(f"{url}: {r.status_code} {r.text[:200]}")

    def annotate(i: int, s: requests.Session) -> None:
        rng = random.Random(i)
        barrier.wait()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            box = s.get(f"{base}/annotation/c/race/item/", timeout=60)
            if box.status_code != 200:
                errors.append(f"item box: {box.status_code}")
                return
            m = ITEM.search(box.text)
            if m is None and 'data-state="wait"' in box.text:  # others hold the last slots: look again
                time.sleep(0.2)
                continue
            if m is None:
                if 'data-state="done"' not in box.text:
                    errors.append("neither an item nor done: " + box.text[:200])
                return
            item, key = m.group(1), KEY.search(box.text).group(1)  # type: ignore[union-attr]
            if rng.random() < 0.1:
                post(s, f"{base}/annotation/c/race/items/{item}/skip/", {})
                continue
            data = {"plausible": str(rng.randrange(5)), "idempotency_key": key, "elapsed_ms": "800"}
            url = f"{base}/annotation/c/race/items/{item}/submit/"
            if rng.random() < 0.25:  # double click: the same form posted twice at once
                twins = [threading.Thread(target=post, args=(s, url, data)) for _ in range(2)]
                for t in twins:
                    t.start()
                for t in twins:
                    t.join()
            else:
                post(s, url, data)

    threads = [threading.Thread(target=annotate, args=(i, s)) for i, s in enumerate(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "annotators still running after 300 s"
    assert not errors, errors[:5]
    per_item = dict(Response.objects.filter(campaign=c).values_list("item_id").annotate(n=Count("id")))
    assert len(per_item) == N_ITEMS and max(per_item.values()) == REDUNDANCY == min(per_item.values())
    for item in Item.objects.filter(campaign=c):
        assert item.answer_count == per_item[item.pk] == item.slots_taken
    dup = Response.objects.values("item_id", "user_id").annotate(n=Count("id")).filter(n__gt=1)
    assert not dup.exists()
    assert not Assignment.objects.filter(campaign=c, state="reserved").exists()
    assert Response.objects.filter(campaign=c).count() == N_ITEMS * REDUNDANCY
    assert statuses[200] > N_ITEMS * REDUNDANCY  # the double clicks were answered too
