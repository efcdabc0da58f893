"""Researchers export their own campaigns' results (issue 14; before, admins only), in the
browser and the API; other researchers are told who may; the annotation models are in the
Django admin, read-only except a campaign's title and instructions."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from accounts.services import api_token_renew
from annotation.models import Campaign, Response
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from knowledge.models import QuestionSet
from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_campaign(csqa_set: QuestionSet, people: Callable[..., Any]) -> Campaign:
    owner, _other = people("researcher", "owner", "other")
    (ann,) = people("annotator", "ann")
    c = campaign_status_set(
        campaign_create(name="own", title="Own", kind="mcqa", question_set=csqa_set, redundancy=1, user=owner), "open"
    )
    step = queue.next_step(c, ann)
    assert step.assignment is not None
    queue.response_submit(step.assignment.item, ann, {"plausible": [0], "none_correct": False, "bad_context": False})
    return c


def test_the_creator_exports_in_the_browser(own_campaign: Campaign) -> None:
    owner = login("owner")
    dash = owner.get(f"/annotation/c/{own_campaign.name}/dashboard/").content.decode()
    assert f'href="/annotation/c/{own_campaign.name}/export.jsonl"' in dash
    r = owner.get(f"/annotation/c/{own_campaign.name}/export.jsonl")
    assert r.status_code == 200
    rows = [json.loads(x) for x in r.content.decode().splitlines()]
    assert len(rows) == 1
    assert rows[0]["n_answers"] == 1


def test_another_researcher_is_told_who_may_export(own_campaign: Campaign) -> None:
    other = login("other")
    dash = other.get(f"/annotation/c/{own_campaign.name}/dashboard/").content.decode()
    assert "export.jsonl" not in dash
    assert "Export: the campaign's creator (owner) or an admin" in dash
    r = other.get(f"/annotation/c/{own_campaign.name}/export.csv")
    assert r.status_code == 403
    assert "Only the researcher who created this campaign, or an admin" in r.content.decode()


def test_api_export_for_the_creator_only(own_campaign: Campaign) -> None:
    from django.test import Client

    users = get_user_model().objects
    owner = Client(HTTP_AUTHORIZATION=f"Token {api_token_renew(users.get(username='owner'))}")
    other = Client(HTTP_AUTHORIZATION=f"Token {api_token_renew(users.get(username='other'))}")
    url = f"/api/annotation/campaigns/{own_campaign.name}/export/?fmt=jsonl"
    assert owner.get(url).status_code == 200
    r = other.get(url)
    assert r.status_code == 403
    assert "only the researcher who created this campaign" in r.json()["detail"]


def test_annotation_models_in_the_django_admin(own_campaign: Campaign, people: Callable[..., Any]) -> None:
    people("admin", "boss")
    boss = login("boss")
    index = boss.get("/admin/").content.decode()
    for name in ("Campaigns", "Items", "Memberships", "Assignments", "Responses", "Adjudications", "Final labels"):
        assert name in index, name
    response = Response.objects.get()
    page = boss.get(f"/admin/annotation/response/{response.pk}/change/").content.decode()
    assert "plausible" in page
    assert 'type="submit"' not in page.split('id="content"')[1].split("</form>")[0]
    assert boss.get("/admin/annotation/response/add/").status_code == 403
    assert boss.post(f"/admin/annotation/response/{response.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Response.objects.filter(pk=response.pk).exists()
    # a campaign's title may change, nothing else
    r = boss.post(
        f"/admin/annotation/campaign/{own_campaign.pk}/change/",
        {"title": "Renamed", "instructions": "Read carefully.", "redundancy": 9},
    )
    assert r.status_code == 302
    own_campaign.refresh_from_db()
    assert own_campaign.title == "Renamed"
    assert own_campaign.redundancy == 1
    assert login("owner").get("/admin/annotation/campaign/").status_code == 302  # researchers are not staff
