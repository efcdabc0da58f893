"""Issue 31 item 5: a blocked annotator still stored an answer on PostgreSQL. Blocking and a
qualification reset left the person's live reservation, and the PostgreSQL submit (one statement
for a live reservation of a regular item) skipped the membership check. Both are closed: block and
reset release the live reservations, and the answer statement itself requires an active
membership (tested by leaving a reservation behind a block made past the services). Runs on both
databases (pass 1 SQLite, pass 2 PostgreSQL)."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from annotation.crowd.services import membership_block, qualification_reset
from annotation.models import Assignment, Item, Membership, Response
from annotation.queue import operations as queue
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
ANSWER = {"plausible": [1], "none_correct": False, "bad_context": False}


def _reserved(world: World) -> tuple[object, Item]:
    user = world.users["annotator"]
    step = queue.next_step(world.plain, user)
    assert step.assignment is not None
    assert step.assignment.item.role == Item.Role.REGULAR
    return user, step.assignment.item


def _stored(world: World, user: object) -> int:
    return Response.objects.filter(campaign=world.plain, user=user).count()


def test_blocking_releases_the_live_reservation(world: World) -> None:
    user, item = _reserved(world)
    taken = Item.objects.get(pk=item.pk).slots_taken
    membership_block(world.plain, user, True)
    assert not Assignment.objects.filter(campaign=world.plain, user=user, state=Assignment.State.RESERVED).exists()
    assert Item.objects.get(pk=item.pk).slots_taken == taken - 1  # the slot is back in the pool
    with pytest.raises(ValidationError, match="ended for you"):
        queue.response_submit(item, user, ANSWER)
    assert _stored(world, user) == 0


def test_a_reservation_left_behind_a_block_is_not_answered(world: World) -> None:
    user, item = _reserved(world)
    # Blocked past the services (a concurrent block, an old row): the reservation stays live.
    Membership.objects.filter(campaign=world.plain, user=user).update(state=Membership.State.BLOCKED)
    with pytest.raises(ValidationError, match="ended for you"):
        queue.response_submit(item, user, ANSWER)
    with pytest.raises(ValidationError, match="ended for you"):
        a = Assignment.objects.get(campaign=world.plain, user=user, item=item)
        queue.response_submit_next(item, user, ANSWER, assignment=a)
    assert _stored(world, user) == 0
    # Through the REST API as well (the annotator's token).
    c = world.client("anonymous")
    r = c.post(
        f"/api/annotation/campaigns/{world.plain.name}/items/{item.uid}/response/",
        json.dumps({"answer": ANSWER}),
        content_type="application/json",
        headers={"Authorization": f"Token {world.tokens['annotator']}"},
    )
    assert r.status_code in (400, 403, 409)
    assert _stored(world, user) == 0


def test_a_qualification_reset_releases_the_live_reservation(world: World) -> None:
    user, item = _reserved(world)
    qualification_reset(world.plain, user, keep_history=False)
    assert not Assignment.objects.filter(campaign=world.plain, user=user, state=Assignment.State.RESERVED).exists()
    with pytest.raises(ValidationError):
        queue.response_submit(item, user, ANSWER)
    assert _stored(world, user) == 0


def test_an_active_person_still_answers(world: World) -> None:
    user, item = _reserved(world)
    done = queue.response_submit(item, user, ANSWER)
    assert done.created
    assert _stored(world, user) == 1


def test_a_person_blocked_by_a_researcher_is_not_told_they_missed_checks(world: World) -> None:
    """Issue 31 item 11: the stop message named missed attention checks for any block."""
    user, _ = _reserved(world)
    membership_block(world.plain, user, True)
    step = queue.next_step(world.plain, user)
    assert step.state == Membership.State.BLOCKED
    assert "attention" not in step.message
    assert "researchers running this campaign" in step.message
    # Blocked by the checks themselves: that is what they are told.
    Membership.objects.filter(campaign=world.plain, user=user).update(
        attention_failed=world.plain.attention_max_failures + 1
    )
    assert "attention checks were missed" in queue.next_step(world.plain, user).message
