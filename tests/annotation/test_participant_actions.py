"""Issue 29 item 5: the participant table offers only the actions that apply to each person's state
(block whom could still answer, unblock whom is blocked, reset the qualification of whom failed it),
and the action view refuses the others, so a stale page changes nothing it should not."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotation.models import Campaign, Membership, Participant
from annotation.queue import operations as queue
from tests.annotation.crowd_helpers import answer, crowd_campaign, current, gold_answer, to_items

pytestmark = pytest.mark.django_db


def _actions(page: str) -> dict[int, list[str]]:
    """user id -> the action buttons of their row."""
    rows = re.findall(r'<tr data-user="(\d+)">(.*?)</tr>', page, re.S)
    return {int(uid): re.findall(r'data-action="([^"]+)"', body) for uid, body in rows}


def _fail_qualification(b: Client, c: Campaign) -> None:
    for attempt in range(2):
        for _ in range(2):
            _r, item = current(b, c)
            assert item is not None
            answer(b, c, item, 1 - gold_answer(item))
        b.get(f"/join/{c.name}/items/")
        if attempt == 0:
            b.post(f"/join/{c.name}/qualification/retry/")


def test_each_row_offers_only_the_actions_of_its_state(statement_set, people, researcher: Client) -> None:
    c = crowd_campaign("acts", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "3")
    to_items(Client(), c, "qualifying")  # at the qualification
    _fail_qualification(to_items(Client(), c, "failer"), c)  # screened out by the qualification
    to_items(Client(), c, "blocked")
    declined = Client()
    declined.get(f"/join/{c.name}/?PROLIFIC_PID=decliner&STUDY_ID=S1&SESSION_ID=X-d")
    declined.post(f"/join/{c.name}/consent/", {"consent": "no"})
    (ann,) = people("annotator", "lab-ann")
    queue.membership_get(c, ann)
    Membership.objects.filter(campaign=c, user=ann).update(state=Membership.State.ACTIVE)
    by_pid = {p.external_id: p for p in Participant.objects.filter(campaign=c)}
    for p in by_pid.values():
        queue.membership_get(c, p.user)
    assert researcher.post(f"/annotation/c/acts/people/{by_pid['blocked'].user_id}/block/").status_code == 302
    page = researcher.get("/annotation/c/acts/participants/").content.decode()
    acts = _actions(page)
    assert acts[by_pid["qualifying"].user_id] == ["block"]
    assert acts[by_pid["failer"].user_id] == ["reset-qualification"]
    assert acts[by_pid["blocked"].user_id] == ["unblock"]
    assert acts[by_pid["decliner"].user_id] == []  # returned the study: nothing to do
    assert acts[ann.pk] == ["block"]
    assert "disabled" not in page  # no greyed-out buttons that do nothing


def test_an_action_that_does_not_apply_changes_nothing_and_says_why(statement_set, researcher: Client) -> None:
    c = crowd_campaign("acts2", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "3")
    b = to_items(Client(), c, "p1")
    for _ in range(2):  # passes the qualification: active, at the items
        _r, item = current(b, c)
        assert item is not None
        answer(b, c, item, gold_answer(item))
    p = Participant.objects.get(campaign=c, external_id="p1")
    m = Membership.objects.get(campaign=c, user=p.user)
    assert m.state == Membership.State.ACTIVE
    answered = m.qualification_score
    # a reset would throw away a passed qualification's answers and send them back to it
    r = researcher.post(f"/annotation/c/acts2/people/{p.user_id}/reset-qualification/", follow=True)
    m.refresh_from_db()
    assert (m.state, m.qualification_score) == (Membership.State.ACTIVE, answered)
    assert "reset qualification does not apply to someone active" in r.content.decode()
    r = researcher.post(f"/annotation/c/acts2/people/{p.user_id}/unblock/", follow=True)
    assert "unblock does not apply to someone active; applies: block" in r.content.decode()
    researcher.post(f"/annotation/c/acts2/people/{p.user_id}/block/")
    m.refresh_from_db()
    assert m.state == Membership.State.BLOCKED
