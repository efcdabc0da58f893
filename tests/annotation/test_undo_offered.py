"""Undo is offered only when there is an answer to undo, and an Undo with nothing to undo leaves the
item on screen as it is (#29 item 8; Skip and its key hint on qualification items were already
gone on main: tests/annotation/test_views.py)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.queue import operations as queue
from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db
UNDO_HIDDEN = re.compile(r'<form class="undo"[^>]*\shidden[\s>]')


def test_undo_hidden_before_a_first_answer_and_shown_after(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    c = login("ann")
    work = reverse("annotation:work", args=[mcqa_campaign.name])
    page = c.get(work).content.decode()
    assert '<form class="undo"' in page
    assert UNDO_HIDDEN.search(page), "Undo offered before any answer"
    item = queue.next_step(mcqa_campaign, get_user_model().objects.get(username="ann")).assignment.item
    c.post(reverse("annotation:submit", args=[mcqa_campaign.name, item.uid]), {"plausible": ["1"]})
    page = c.get(work).content.decode()
    assert not UNDO_HIDDEN.search(page)
    assert 'data-answered="1"' in page  # annotate.js reads it after swaps


def test_undo_with_nothing_to_undo_swaps_nothing(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    c = login("ann")
    r = c.post(reverse("annotation:undo", args=[mcqa_campaign.name]), HTTP_HX_REQUEST="true")
    assert r.status_code == 204  # htmx keeps what is filled in on screen
    assert r.content == b""
    plain = c.post(reverse("annotation:undo", args=[mcqa_campaign.name]), follow=True)
    assert "There is no answer to undo." in plain.content.decode()
