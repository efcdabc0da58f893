"""Issue 31 item 8: the creator-only export rule leaked. Any researcher downloaded another's
``participants.csv`` (platform ids, completion codes, demographics) and got a campaign's labels and
votes through its verified set's exports (and the REST API's question list, whose metadata carries
them), and its answers through a set's Hugging Face publication. All of these follow the campaign
exports' rule now: the researcher who created the campaign, and admins."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import user_create_with_role
from annotation.crowd.services import participant_finish
from annotation.services.campaigns import campaign_status_set
from annotation.services.verified import verified_set_create
from tests.security.conftest import PASSWORD, World

pytestmark = pytest.mark.django_db
PID = "sec-prolific-pid"


def _other_researcher() -> Client:
    user_create_with_role("sec-researcher-b", "researcher", PASSWORD)
    c = Client()
    assert c.login(username="sec-researcher-b", password=PASSWORD)
    return c


def test_participants_csv_and_ids_follow_the_export_rule(world: World) -> None:
    participant_finish(world.participant)
    world.participant.refresh_from_db()
    code = world.participant.completion_code
    url = f"/annotation/c/{world.survey.name}/participants.csv"
    page_url = f"/annotation/c/{world.survey.name}/participants/"
    other = _other_researcher()
    assert other.get(url).status_code == 403
    page = other.get(page_url).content.decode()
    assert PID not in page
    assert code not in page
    assert "participants-csv" not in page
    for role in ("researcher", "admin"):  # the creator, an admin
        c = world.client(role)
        body = c.get(url).content.decode()
        assert PID in body, role
        assert code in body, role
        page = c.get(page_url).content.decode()
        assert PID in page, role
        assert code in page, role


def _plain_verified(world: World) -> str:
    """The name of the verified set of the world's plain campaign, closed. The rule is the subject
    here, not settlement: the world's one answered item is kept unsettled, and its answer does not
    tick the built answer."""
    campaign = campaign_status_set(world.plain, "closed")
    v = verified_set_create(
        campaign,
        name="plain-verified",
        user=world.users["researcher"],
        include_unsettled=True,
        require_built_answer=False,
    )
    return v.question_set.name


def test_a_verified_sets_exports_follow_its_campaigns_rule(world: World) -> None:
    name = _plain_verified(world)
    other = _other_researcher()
    for fmt in ("jsonl", "csv", "lm-eval", "hf"):
        r = other.get(f"/knowledge/question-sets/{name}/export.{fmt}")
        assert r.status_code == 403, fmt
        assert "verified set of campaign" in r.content.decode(), fmt
        assert world.client("researcher").get(f"/knowledge/question-sets/{name}/export.{fmt}").status_code == 200
    api = f"/api/knowledge/question-sets/{name}/questions/"
    assert other.get(api).status_code == 403
    assert world.client("admin").get(api).status_code == 200
    assert "votes" in str(world.client("researcher").get(api).json())  # what the rule guards
    # A set without people's answers exports for everybody; its publication (their answers) does not.
    assert other.get(f"/knowledge/question-sets/{world.qset.name}/export.jsonl").status_code == 200
    assert other.get(f"/knowledge/question-sets/{world.qset.name}/export.hf").status_code == 403
    assert world.client("researcher").get(f"/knowledge/question-sets/{world.qset.name}/export.hf").status_code == 200


def test_the_set_page_links_only_the_downloads_the_rule_allows(world: World) -> None:
    """The set page offered every download to every researcher; the refused ones answered 403."""
    name = _plain_verified(world)
    other = _other_researcher()
    page = other.get(f"/knowledge/question-sets/{name}/").content.decode()
    for fmt in ("jsonl", "csv", "lm-eval", "hf"):
        assert f"/knowledge/question-sets/{name}/export.{fmt}" not in page, fmt
    assert "Not for you:" in page
    assert "verified set of campaign" in page
    mine = world.client("researcher").get(f"/knowledge/question-sets/{name}/").content.decode()
    for fmt in ("jsonl", "csv", "lm-eval", "hf"):
        assert f"/knowledge/question-sets/{name}/export.{fmt}" in mine, fmt
    assert "Not for you:" not in mine
    # A set without people's answers: the three plain downloads for everybody, its publication not.
    page = other.get(f"/knowledge/question-sets/{world.qset.name}/").content.decode()
    assert f"/knowledge/question-sets/{world.qset.name}/export.jsonl" in page
    assert f"/knowledge/question-sets/{world.qset.name}/export.hf" not in page
    assert "the publication of" in page
