"""Issue 31 item 2: the qualification and attention keys could be read with forged participant ids.
A failed attempt showed a score per option ticked, so five forged ids revealed the gold; the
attention check was the same item at the same place for everyone; sixty anonymous joins from one
address made sixty participants in 2.3 s. Now: an attempt with attempts left says pass / fail only,
checks sit at each participant's own places, drawn from the pool, the study link admits a limited
number of new participants per address and per study, and one participant per platform session
(Prolific STUDY_ID + SESSION_ID, MTurk hitId + assignmentId)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.test import Client

from annotation.models import Item, Participant
from tests.annotation.crowd_helpers import answer, crowd_campaign, current, gold_answer, join, prolific, to_items
from tests.conftest import GOLD_FILE

pytestmark = pytest.mark.django_db


def _mcqa_study(name: str) -> Any:
    return crowd_campaign(
        name,
        *("--qualification-file", str(GOLD_FILE), "--qualification-size", "6", "--pass-mark", "0.8"),
        *("--attempts", "2", "--budget", "3"),
        set_name="csqa-demo",
        kind="mcqa",
    )


def _box(html: str) -> str:
    """The page with what differs per person or request taken out (tokens, keys, account name)."""
    html = re.sub(r'name="(idempotency_key|csrfmiddlewaretoken)" value="[^"]+"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", html)
    return re.sub(r"crowd-[0-9a-f]{20}", "crowd-USER", html)  # the participant's own account name


def test_five_forged_ids_learn_pass_or_fail_only(csqa_set) -> None:
    """Each forged participant ticks one option on every item (option 1, 2, … 5): per option graded
    with its score shown, the five scores gave the gold of the pool away. Now each failed attempt
    shows the same page: not passed, the pass mark, the attempts left."""
    c = _mcqa_study("forge")
    pages = []
    for k in range(5):
        b = to_items(Client(), c, f"forged-{k}")
        for _ in range(6):
            _r, item = current(b, c)
            assert item is not None
            assert item.role == Item.Role.QUALIFICATION
            b.post(f"/join/{c.name}/items/{item.uid}/submit/", {"plausible": [str(k)]})
        page = b.get(f"/join/{c.name}/items/", follow=True).content.decode()
        assert "Qualification not passed" in page
        assert "1 more attempt" in page
        assert not re.search(r"\d+ ?%|\bscore\b|\d+ of 6 answered|right: \d", page, re.I), page
        pages.append(_box(page))
    assert len(set(pages)) == 1  # the five attempts read the same: nothing about which items were right


def test_checks_sit_at_each_participants_own_places(statement_set) -> None:
    c = crowd_campaign(
        "places",
        *("--attention", "0,1,2,3", "--attention-every", "4", "--attention-max-failures", "9"),
        *("--budget", "9", "--redundancy", "50"),
    )
    places, firsts = set(), set()
    for k in range(10):
        b = to_items(Client(), c, f"p{k}")
        roles: list[str] = []
        while (item := current(b, c)[1]) is not None:
            roles.append(item.role)
            if item.role == Item.Role.ATTENTION and roles.count("attention") == 1:
                firsts.add(item.pk)
            answer(b, c, item, gold_answer(item))
        at = tuple(i for i, r in enumerate(roles) if r == "attention")
        assert len(at) == 2  # (9 - 1) // 4 checks, as the progress bar counts them
        places.add(at)
    assert len(places) > 2
    assert len(firsts) > 1


def test_new_participants_per_address_and_per_study_are_limited(statement_set, settings) -> None:
    cache.clear()
    settings.COCOWEB_JOIN_PER_ADDRESS, settings.COCOWEB_JOIN_PER_STUDY = 10, 25
    c = crowd_campaign("flood", "--budget", "3")
    codes = [join(Client(), c, prolific(f"bot{i}", session=f"s{i}")).status_code for i in range(60)]
    assert codes[:10] == [200] * 10
    assert set(codes[10:]) == {429}
    assert Participant.objects.filter(campaign=c).count() == 10  # was 60 in 2.3 s
    page = join(Client(), c, prolific("bot99", session="s99")).content.decode()
    assert "Too many new participants have joined from your network" in page
    again = join(Client(), c, prolific("bot3", session="s3"))  # a known id is not a new participant
    assert again.status_code != 429
    assert Participant.objects.filter(campaign=c).count() == 10
    # other addresses still join, until the study's own limit
    codes = [
        join(Client(REMOTE_ADDR=f"10.0.0.{i}"), c, prolific(f"far{i}", session=f"f{i}")).status_code for i in range(20)
    ]
    assert codes[:15] == [200] * 15
    assert set(codes[15:]) == {429}
    assert Participant.objects.filter(campaign=c).count() == 25


def test_one_participant_per_platform_session(statement_set) -> None:
    c = crowd_campaign("sessions", "--budget", "3")
    assert join(Client(), c, prolific("alice", study="ST", session="SE1")).status_code == 200
    r = join(Client(), c, prolific("mallory", study="ST", session="SE1"))  # alice's session, another id
    assert r.status_code == 409
    assert "already belongs to another participant id" in r.content.decode()
    assert join(Client(), c, prolific("bob", study="ST", session="SE2")).status_code == 200
    assert join(Client(), c, prolific("carol", study="OTHER", session="SE1")).status_code == 200  # another study
    mturk = "?workerId={w}&assignmentId=A1&hitId=H1"
    assert join(Client(), c, mturk.format(w="W1")).status_code == 200
    assert join(Client(), c, mturk.format(w="W2")).status_code == 409
    assert sorted(Participant.objects.filter(campaign=c).values_list("external_id", flat=True)) == [
        "W1",
        "alice",
        "bob",
        "carol",
    ]
    # the database holds the rule, whatever path writes (both SQLite and PostgreSQL)
    p = Participant.objects.get(external_id="alice")
    with pytest.raises(IntegrityError), transaction.atomic():
        Participant.objects.create(
            campaign=c,
            user=type(p.user).objects.create_user("crowd-x"),
            platform="prolific",
            external_id="eve",
            study_ref="ST",
            session_ref="SE1",
        )
    links_without_a_session = [join(Client(), c, f"?participant=x{i}").status_code for i in range(3)]
    assert links_without_a_session == [200] * 3  # a panel that gives no session: one per id, as before
