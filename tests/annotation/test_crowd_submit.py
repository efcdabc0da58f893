"""A crowd participant's htmx submit (the item box's answer, whose response shows the next item)
takes the annotators' one-transaction path (issue 32 item 4): on PostgreSQL the answer, the item's
final label and the next reservation commit once; the budget, the completion code and every label
come out as on the general path."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import FinalLabel, Item, Membership, Participant, Response
from annotation.services.labels import final_labels_refresh
from tests.annotation.crowd_helpers import UID, crowd_campaign, to_items

pytestmark = pytest.mark.django_db

KEY = re.compile(r'name="idempotency_key" value="(\w+)"')


def _submit(c: Client, slug: str, box: str, agree: str) -> object:
    m, k = UID.search(box), KEY.search(box)
    assert m is not None, box[:300]
    assert k is not None, box[:300]
    return c.post(
        f"/join/{slug}/items/{m.group(1)}/submit/",
        {"agree": agree, "predict": "no", "idempotency_key": k.group(1)},
        HTTP_HX_REQUEST="true",
    )


def test_htmx_submit_commits_answer_label_and_next_item_once(statement_set) -> None:  # type: ignore[no-untyped-def]
    c = crowd_campaign("one", "--budget", "5", "--redundancy", "3")
    browser = to_items(Client(), c, "p1")
    box = browser.get(f"/join/{c.name}/items/", HTTP_HX_REQUEST="true").content.decode()
    box = _submit(browser, c.name, box, "yes").content.decode()  # warm the per-process caches
    with CaptureQueriesContext(connection) as cq:
        r = _submit(browser, c.name, box, "no")
    assert r.status_code == 200  # type: ignore[attr-defined]
    assert UID.search(r.content.decode())  # type: ignore[attr-defined]
    sql = [q["sql"] for q in cq.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    if connection.vendor == "postgresql":
        # participant + campaign + study, assignment + item, then BEGIN, the answer with the item's
        # answers read for its label (one statement since issue 32 item 5), the label with the next
        # reservation, COMMIT: one commit for the answer and the next item (the general path commits
        # the answer, then reserves in a second transaction).
        assert len(sql) <= 6, [q[:90] for q in sql]
        writes = [q for q in sql if q.lstrip().upper().startswith(("INSERT", "UPDATE", "WITH", "DELETE"))]
        assert len(writes) == 2, [q[:90] for q in writes]
    assert Response.objects.filter(campaign=c).count() == 2
    if connection.vendor == "postgresql":  # the participant's lookup is prepared once per connection, too
        with connection.cursor() as cur:
            cur.execute("SELECT statement FROM pg_prepared_statements")
            prepared = [row[0] for row in cur.fetchall()]
        assert any("FROM annotation_participant p" in p for p in prepared), prepared


def test_htmx_submits_to_the_budget_end_with_the_code_and_fresh_labels(statement_set) -> None:  # type: ignore[no-untyped-def]
    c = crowd_campaign("budget", "--budget", "4", "--redundancy", "2")
    codes = []
    for pid in ("a", "b", "c"):
        browser = to_items(Client(), c, pid)
        box = browser.get(f"/join/{c.name}/items/", HTTP_HX_REQUEST="true").content.decode()
        for i in range(4):
            r = _submit(browser, c.name, box, "yes" if i % 2 else "no")
            box = r.content.decode()  # type: ignore[attr-defined]
        assert r.status_code == 204
        assert r["HX-Redirect"] == f"/join/{c.name}/done/"
        done = browser.get(f"/join/{c.name}/done/").content.decode()
        code = re.search(r'id="completion-code">(\w+)<', done)
        assert code is not None
        codes.append(code.group(1))
    assert len(set(codes)) == 3
    assert set(Participant.objects.filter(campaign=c).values_list("stage", flat=True)) == {"finished"}
    assert sorted(Membership.objects.filter(campaign=c).values_list("regular_answered", flat=True)) == [4, 4, 4]
    per_item = {i.pk: i for i in Item.objects.filter(campaign=c, role="regular", answer_count__gt=0)}
    assert sum(i.answer_count for i in per_item.values()) == 12
    assert max(i.answer_count for i in per_item.values()) <= 2
    assert all(i.answer_count == i.slots_taken for i in per_item.values())
    stored = {fl.item_id: (fl.label, fl.n_answers, fl.votes) for fl in FinalLabel.objects.filter(item__campaign=c)}
    assert set(stored) == set(per_item)
    final_labels_refresh(c)  # a fresh computation of every label
    fresh = {fl.item_id: (fl.label, fl.n_answers, fl.votes) for fl in FinalLabel.objects.filter(item__campaign=c)}
    assert stored == fresh
