"""Issue 31 items 3 and 9: crowd study links.

Item 3: five idle minutes after a participant's last request, their PROLIFIC_PID alone (no study or
session id) handed their session to any browser: an unfinished one could be answered for, a
finished one showed its completion code; and the 409 told anyone whether an id was active. A take-
over now needs the session reference stored at the join (Prolific SESSION_ID, MTurk assignmentId);
a finished participant is never handed to a new browser (so the code stays with the browser that
holds the claim); every refusal is the same page.

Item 9: a study link opened by a signed-in lab user signed them out and in as the participant the
link names (log-in CSRF). Someone with a role is asked first, with a POST button."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.utils import timezone

from annotation.crowd.services import SESSION_HOLD, participant_finish
from annotation.crowd.views.participant import CLAIM
from annotation.models import Participant
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
PID, STUDY, SESSION = "pid-takeover", "study-1", "session-1"
TOKEN = re.compile(r'(?<="X-CSRFToken": ")[^"]+|(?<=name="csrfmiddlewaretoken" value=")[^"]+')


def _link(world: World, **query: str) -> str:
    return f"/join/{world.survey.name}/?" + urlencode(query)


def _full(world: World) -> str:
    return _link(world, PROLIFIC_PID=PID, STUDY_ID=STUDY, SESSION_ID=SESSION)


def _joined(world: World) -> tuple[Client, Participant]:
    holder = Client()
    assert holder.get(_full(world)).status_code == 200  # the consent page
    p = Participant.objects.get(external_id=PID)
    assert p.session_ref == SESSION
    return holder, p


def _idle(p: Participant) -> None:
    Participant.objects.filter(pk=p.pk).update(last_seen_at=timezone.now() - SESSION_HOLD - timedelta(seconds=5))


def _signed_in_as(c: Client, p: Participant) -> bool:
    return c.session.get(SESSION_KEY) == str(p.user_id) and c.session.get(CLAIM) == p.claim


def test_the_platform_id_alone_takes_over_nobody(world: World) -> None:
    holder, p = _joined(world)
    _idle(p)
    for query in (
        {"PROLIFIC_PID": PID},
        {"PROLIFIC_PID": PID, "STUDY_ID": STUDY},
        {"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": "a-guess"},
    ):
        intruder = Client()
        r = intruder.get(_link(world, **query))
        assert r.status_code == 409, query
        p.refresh_from_db()
        assert not _signed_in_as(intruder, p)
    assert holder.get(f"/join/{world.survey.name}/consent/").status_code == 200  # still the holder's


def test_the_stored_session_reference_takes_over_after_the_hold(world: World) -> None:
    holder, p = _joined(world)
    assert Client().get(_full(world)).status_code == 409  # the holder is active: nobody takes over
    _idle(p)
    again = Client()  # the same person, the study opened again from Prolific (a crashed browser)
    assert again.get(_full(world)).status_code in (200, 302)
    p.refresh_from_db()
    assert _signed_in_as(again, p)
    assert holder.get(f"/join/{world.survey.name}/consent/").status_code == 409  # the old browser lost it


def test_a_finished_participant_is_never_handed_to_a_new_browser(world: World) -> None:
    holder, p = _joined(world)
    p = participant_finish(p)
    _idle(p)
    intruder = Client()
    r = intruder.get(_full(world))  # even with the right session reference
    assert r.status_code == 409
    assert p.completion_code not in r.content.decode()
    assert p.completion_code not in intruder.get(f"/join/{world.survey.name}/done/").content.decode()
    done = holder.get(f"/join/{world.survey.name}/done/").content.decode()
    assert p.completion_code in done  # the browser that holds the claim


def test_every_refusal_is_the_same_page(world: World) -> None:
    _, p = _joined(world)
    active = Client().get(_link(world, PROLIFIC_PID=PID))  # active, no reference
    _idle(p)
    idle = Client().get(_link(world, PROLIFIC_PID=PID))  # idle, no reference
    wrong = Client().get(_link(world, PROLIFIC_PID=PID, SESSION_ID="x"))  # idle, wrong reference
    participant_finish(p)
    finished = Client().get(_full(world))  # finished, right reference
    # The same status and page, each browser's own CSRF token aside.
    pages = {(r.status_code, TOKEN.sub("", r.content.decode())) for r in (active, idle, wrong, finished)}
    assert len(pages) == 1, pages


def test_a_lab_user_is_asked_before_the_link_signs_them_out(world: World) -> None:
    for role in ("annotator", "researcher", "admin"):
        c = world.client(role, enforce_csrf_checks=True)
        user = world.users[role]
        r = c.get(_link(world, PROLIFIC_PID=f"lab-{role}"))
        body = r.content.decode()
        assert r.status_code == 200, role
        assert 'method="post"' in body, role
        assert user.username in body, role
        assert c.session.get(SESSION_KEY) == str(user.pk)  # still signed in as themselves
        assert not Participant.objects.filter(external_id=f"lab-{role}").exists()  # nothing made
        token = c.cookies["csrftoken"].value
        assert c.post(_link(world, PROLIFIC_PID=f"lab-{role}")).status_code == 403  # the button needs CSRF
        r = c.post(_link(world, PROLIFIC_PID=f"lab-{role}"), {"csrfmiddlewaretoken": token})
        p = Participant.objects.get(external_id=f"lab-{role}")
        assert r.status_code in (200, 302), role
        assert _signed_in_as(c, p), role  # they chose to


def test_a_participant_or_a_visitor_goes_straight_in(world: World) -> None:
    r = Client().get(_link(world, PROLIFIC_PID="fresh-visitor"))
    assert r.status_code == 200
    assert Participant.objects.filter(external_id="fresh-visitor").exists()
