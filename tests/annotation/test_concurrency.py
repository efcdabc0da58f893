"""Concurrency against PostgreSQL: 32 simulated annotators answer over HTTP at once (threads on
loopback, the live server, the htmx endpoints a browser uses), some double-clicking submit and
some skipping, on a campaign with adaptive redundancy (3 to 5 answers: random answers split, so
most items want more). Afterwards no item holds more answers than it wants, none more than the
maximum, every item is closed (settled, or exhausted at the maximum) and nobody answered an item
twice."""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter

import pytest
import requests
from django.db import connection
from django.db.models import Count
from django.test import Client

from annotation.models import Assignment, FinalLabel, Item, Response
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.labels import final_labels_refresh
from tests.annotation.conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

N_ANNOTATORS, N_ITEMS, REDUNDANCY, MAX_ANSWERS = 32, 40, 3, 5
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
    c = campaign_create(
        name="race",
        title="race",
        kind="mcqa",
        question_set=csqa_set,
        redundancy=REDUNDANCY,
        max_answers=MAX_ANSWERS,
        require_agreement=False,  # split items must want answers up to the maximum (agreement would close them)
    )
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
    assert len(per_item) == N_ITEMS
    assert REDUNDANCY <= min(per_item.values()) <= max(per_item.values()) <= MAX_ANSWERS
    assert max(per_item.values()) == MAX_ANSWERS  # random answers split: some item went to the maximum
    settled = dict(FinalLabel.objects.filter(item__campaign=c).values_list("item_id", "settlement"))
    for item in Item.objects.filter(campaign=c):
        assert item.answer_count == per_item[item.pk] == item.slots_taken == item.answers_wanted
        assert settled[item.pk] in ("unanimous", "confident") or (
            settled[item.pk] == "exhausted" and item.answer_count == MAX_ANSWERS
        )
    dup = Response.objects.values("item_id", "user_id").annotate(n=Count("id")).filter(n__gt=1)
    assert not dup.exists()
    assert not Assignment.objects.filter(campaign=c, state="reserved").exists()
    n_answers = Response.objects.filter(campaign=c).count()
    assert n_answers == sum(per_item.values())
    assert statuses[200] > n_answers  # the double clicks were answered too
    # every final label the submits stored is the one a fresh computation from the answers gives
    fields = ("item_id", "label", "provenance", "votes", "n_answers", "below_threshold", "settlement", "confidence")
    stored = sorted(FinalLabel.objects.filter(item__campaign=c).values_list(*fields))
    assert len(stored) == N_ITEMS
    final_labels_refresh(c)
    assert stored == sorted(FinalLabel.objects.filter(item__campaign=c).values_list(*fields))


@pytest.mark.parametrize("path", ["response_submit", "response_submit_next"])
def test_concurrent_answers_to_one_item_leave_its_final_label_counting_both(
    csqa_set, people, monkeypatch, path
) -> None:  # type: ignore[no-untyped-def]
    """Two people answer the same item at once. The first computes the item's label from the
    answers it can see, then (planted) waits for the second to finish before storing it. Answer and
    label are one transaction holding the item's row, so the second answer waits for that commit and
    its label counts both; with the label computed after the answer's own commit, the second would
    finish first and the first's stale label (one answer) would overwrite it."""
    from annotation.queue import operations as queue
    from annotation.services import labels

    c = campaign_status_set(
        campaign_create(name="label-race", title="t", kind="mcqa", question_set=csqa_set, redundancy=3), "open"
    )
    u1, u2 = people("annotator", "lr1", "lr2")
    a1, a2 = (queue.next_step(c, u).assignment for u in (u1, u2))
    assert a1 is not None
    assert a2 is not None
    assert a1.item_id == a2.item_id
    first_read, second_done = threading.Event(), threading.Event()
    real = labels.item_judge  # what an MCQA answer's label is computed by (adaptive redundancy)

    def item_judge(campaign, n_options, answers):  # type: ignore[no-untyped-def]
        if threading.current_thread().name == "first" and not first_read.is_set():
            first_read.set()
            second_done.wait(timeout=3)  # returns at once when the second could finish meanwhile
        return real(campaign, n_options, answers)

    monkeypatch.setattr(labels, "item_judge", item_judge)
    errors: list[BaseException] = []

    def answer(a: Assignment, user, pick: int, after: threading.Event | None) -> None:  # type: ignore[no-untyped-def]
        try:
            if after is not None:
                after.wait(timeout=30)
            submit = getattr(queue, path)
            submit(Item.objects.select_related("campaign").get(pk=a.item_id), user, {"plausible": [pick]}, assignment=a)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            if after is not None:
                second_done.set()
            connection.close()

    t1 = threading.Thread(target=answer, args=(a1, u1, 0, None), name="first")
    t2 = threading.Thread(target=answer, args=(a2, u2, 1, first_read), name="second")
    for t in (t1, t2):
        t.start()
    for t in (t1, t2):
        t.join(timeout=60)
    assert not errors, errors
    label = FinalLabel.objects.get(item_id=a1.item_id)
    assert label.n_answers == 2
    assert label.votes["option_ticks"][:2] == [1, 1]
