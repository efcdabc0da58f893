"""Attention items cannot be told apart from regular items: not by the participant's page markup,
not by the REST API (opaque ids, the same fields, role "regular"), not by Skip (offered and
accepted on both). What a skipped or failed attention item means is decided on the server: it
counts as a missed check."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape
from rest_framework.test import APIClient

from accounts.services import api_token_renew
from annotation.models import Assignment, Item, Membership, Participant
from tests.annotation.conftest import login
from tests.annotation.crowd_helpers import answer, crowd_campaign, current, to_items

pytestmark = pytest.mark.django_db


def _skeleton(html: str, item: Item) -> str:
    """The item box with what legitimately differs per item taken out: its uid, the statement's
    text, the fresh idempotency key and CSRF token, the progress count."""
    start = html.index('<div class="item-box"')
    box = html[start : html.index("</form>", start)]
    box = box.replace(item.uid, "UID").replace(escape(item.payload["text"]), "TEXT")
    box = re.sub(r'name="(idempotency_key|csrfmiddlewaretoken)" value="[^"]+"', r'name="\1" value="X"', box)
    return re.sub(r"<progress[^>]*></progress>\s*<span[^>]*>[^<]*</span>", "PROGRESS", box)


def test_attention_item_markup_equals_a_regular_items(statement_set) -> None:
    c = crowd_campaign("att", "--attention", "0", "--attention-every", "1", "--budget", "3", "--redundancy", "3")
    b = to_items(Client(), c, "a1")
    r, first = current(b, c)
    assert first is not None
    assert first.role == Item.Role.REGULAR
    regular = _skeleton(r.content.decode(), first)
    answer(b, c, first, 1)
    r, check = current(b, c)
    assert check is not None
    assert check.role == Item.Role.ATTENTION
    attention = _skeleton(r.content.decode(), check)
    assert attention == regular
    assert 'data-action="skip"' in attention
    assert not re.search(r"attention|gold|check", attention, re.I)
    # Item references are opaque: neither the row id nor the source key appear.
    assert f'data-item="{check.pk}"' not in r.content.decode()
    assert check.key not in attention
    # The progress bar moves on every answer, the check's too (a bar that stood still would tell).
    answer(b, c, check, 1)
    r3, third = current(b, c)
    done = [int(DONE.search(x.content.decode()).group(2)) for x in (r, r3)]
    assert third is not None
    assert done == [1, 2]


def test_skipping_an_attention_item_counts_as_a_missed_check(statement_set) -> None:
    c = crowd_campaign("skip", "--attention", "0", "--attention-every", "1", "--attention-max-failures", "0")
    b = to_items(Client(), c, "s1")
    _r, first = current(b, c)
    answer(b, c, first, 1)
    _r, check = current(b, c)
    assert check.role == Item.Role.ATTENTION
    r = b.post(f"/join/skip/items/{check.uid}/skip/")
    assert r.status_code == 302  # accepted like any skip
    m = Membership.objects.get(campaign=c, user__crowd_participant__external_id="s1")
    assert (m.attention_failed, m.state) == (1, Membership.State.BLOCKED)
    r = b.get("/join/skip/items/", follow=True)
    assert "This study has ended for you" in r.content.decode()
    assert Participant.objects.get(external_id="s1").stage == "screened_out"


def test_api_gives_attention_items_opaque_ids_and_lets_them_be_skipped(statement_set, people) -> None:
    c = crowd_campaign("api", "--attention", "0", "--attention-every", "1", "--attention-max-failures", "5")
    (u,) = people("annotator", "bot")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token " + api_token_renew(u))
    base = f"/api/annotation/campaigns/{c.name}/"
    first = api.post(base + "next/").json()["item"]
    regular = Item.objects.get(uid=first["id"])
    assert regular.role == Item.Role.REGULAR
    r = api.post(base + f"items/{first['id']}/response/", {"answer": {"agree": 1, "predict": 1}}, format="json")
    assert r.status_code == 201
    second = api.post(base + "next/").json()["item"]
    check = Item.objects.get(uid=second["id"])
    assert check.role == Item.Role.ATTENTION
    assert set(second) == set(first) == {"id", "role", "payload"}
    assert second["role"] == "regular"
    assert not str(second["id"]).isdigit()
    assert second["id"] not in (str(check.pk), check.key)
    r = api.post(base + f"items/{second['id']}/skip/")
    assert r.status_code == 200
    assert r.json() == {"skipped": True}
    assert Membership.objects.get(campaign=c, user=u).attention_failed == 1


# The named-account work page (/annotation/c/<name>/): a lab's own annotators get the same checks.
FORM = re.compile(r'<form class="card item-form"[^>]*data-item="([^"]+)"[^>]*action="([^"]+)"')
SKIP = re.compile(r'data-action="skip"[^>]*formaction="([^"]+)"')
DONE = re.compile(r'<progress max="(\d+)" value="(\d+)">')


def _named_page(web: Client, c: Any) -> tuple[str, Item, str, str, tuple[int, int]]:
    """The work page, the item it shows (by the annotator's live reservation), the submit and skip
    URLs the page gives, and the progress bar's (done, total)."""
    html = web.get(f"/annotation/c/{c.name}/").content.decode()
    ref, action = FORM.search(html).groups()
    item = Assignment.objects.get(campaign=c, user__username="ann", state="reserved").item
    total, done = DONE.search(html).groups()
    return html, item, action, SKIP.search(html).group(1), (int(done), int(total))


def test_named_account_page_cannot_tell_attention_items_apart(statement_set, people) -> None:
    """Row ids are ordered (gold items are created before the regular ones): the page must not
    carry them, and the progress bar, Skip and Undo must treat a check like any other item."""
    c = crowd_campaign(
        "named", "--attention", "0,1", "--attention-every", "1", "--budget", "3", "--attention-max-failures", "5"
    )
    people("annotator", "ann")
    web = login("ann")
    html, first, action, skip_url, (done0, total) = _named_page(web, c)
    assert first.role == Item.Role.REGULAR
    regular_pks = Item.objects.filter(campaign=c, role=Item.Role.REGULAR).values_list("pk", flat=True)
    assert Item.objects.filter(campaign=c, role=Item.Role.ATTENTION).first().pk < min(regular_pks)  # the tell
    regular = _skeleton(html, first)
    data = {"agree": "yes", "predict": "yes"}
    assert web.post(action, data).status_code == 302
    html, check, action, skip_url, (done1, total1) = _named_page(web, c)
    assert check.role == Item.Role.ATTENTION
    assert total1 == total
    assert done1 == done0 + 1
    attention = _skeleton(html, check)
    assert attention == regular  # no row id, no key, no other difference in the item box
    assert f'data-item="{check.uid}"' in html
    assert set(re.findall(r"/items/([^/]+)/", html)) == {check.uid}
    assert not re.search(r"attention|gold|check", attention, re.I)
    # Answering the check moves the progress bar like any answer; Undo gives it back like any answer.
    assert web.post(action, data).status_code == 302
    done2 = _named_page(web, c)[4][0]
    assert done2 == done1 + 1
    r = web.post(f"/annotation/c/{c.name}/undo/", follow=True)
    body = r.content.decode()
    assert "msg-error" not in body
    assert "msg-warning" not in body
    assert "undone" not in body
    html, back, action, skip_url, (done3, _t) = _named_page(web, c)
    assert back == check
    assert done3 == done1
    # Skip: offered and accepted on the check as on a regular item, and neither moves the bar.
    assert web.post(skip_url).status_code == 302
    html, nxt, action, skip_url, (done4, _t) = _named_page(web, c)
    assert nxt.role == Item.Role.REGULAR
    assert done4 == done3
    assert web.post(skip_url).status_code == 302
    assert _named_page(web, c)[4][0] == done4
    m = Membership.objects.get(campaign=c, user__username="ann")
    assert (m.attention_passed, m.attention_failed) == (
        0,
        1,
    )  # the undone answer no longer counts; the server still counts the skipped check as missed
