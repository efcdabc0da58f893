"""Attention items cannot be told apart from regular items: not by the participant's page markup,
not by the REST API (opaque ids, the same fields, role "regular"), not by Skip (offered and
accepted on both). What a skipped or failed attention item means is decided on the server: it
counts as a missed check."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Item, Membership
from annotation.participants_models import Participant
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
    assert first is not None and first.role == Item.Role.REGULAR
    regular = _skeleton(r.content.decode(), first)
    answer(b, c, first, 1)
    r, check = current(b, c)
    assert check is not None and check.role == Item.Role.ATTENTION  # one check after every item
    attention = _skeleton(r.content.decode(), check)
    assert attention == regular
    assert 'data-action="skip"' in attention
    assert not re.search(r"attention|gold|check", attention, re.I)
    # Item references are opaque: neither the row id nor the source key appear.
    assert f'data-item="{check.pk}"' not in r.content.decode() and check.key not in attention


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
    api.credentials(HTTP_AUTHORIZATION="Token " + Token.objects.create(user=u).key)
    base = f"/api/annotation/campaigns/{c.name}/"
    first = api.post(base + "next/").json()["item"]
    regular = Item.objects.get(uid=first["id"])
    assert regular.role == Item.Role.REGULAR
    r = api.post(base + f"items/{first['id']}/response/", {"answer": {"agree": 1, "predict": 1}}, format="json")
    assert r.status_code == 201
    second = api.post(base + "next/").json()["item"]
    check = Item.objects.get(uid=second["id"])
    assert check.role == Item.Role.ATTENTION
    assert set(second) == set(first) == {"id", "role", "payload"} and second["role"] == "regular"
    assert not str(second["id"]).isdigit() and second["id"] not in (str(check.pk), check.key)
    r = api.post(base + f"items/{second['id']}/skip/")
    assert r.status_code == 200 and r.json() == {"skipped": True}
    assert Membership.objects.get(campaign=c, user=u).attention_failed == 1
