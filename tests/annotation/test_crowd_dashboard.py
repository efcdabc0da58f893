"""The researcher follows a crowd study: live numbers (started, finished, returned, screened out,
median time per item, attention and qualification pass rates, items short of redundancy), the
participant and named-account tables with block / unblock / reset-qualification, the participant
CSV (command and download), and the study-link settings form."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from annotation.models import Campaign, CrowdStudy, Membership, Participant
from annotation.queue import operations as queue
from tests.annotation.conftest import login
from tests.annotation.crowd_helpers import answer, crowd_campaign, current, gold_answer, join, prolific, to_items

pytestmark = pytest.mark.django_db


def _stat(page: str, name: str) -> str:
    m = re.search(rf'data-stat="{name}">([^<]*)<', page)
    assert m is not None, name
    return m.group(1).strip()


def _run_study(statement_set, people):  # type: ignore[no-untyped-def]
    c = crowd_campaign(
        "dash",
        "--qualification",
        "0,18",  # human majority: agree, disagree (a test "agree everywhere" passed would be refused)
        "--pass-mark",
        "1.0",
        "--attention",
        "2",
        "--attention-every",
        "2",
        "--attention-max-failures",
        "3",
        "--budget",
        "3",
        "--redundancy",
        "2",
        "--demographics",
        "country",
    )
    # One participant finishes (passes the qualification, answers 3 items and one check).
    done = to_items(Client(), c, "=HYPERLINK(1)", {"country": "Peru"})
    for _ in range(2):
        _r, item = current(done, c)
        answer(done, c, item, gold_answer(item))
    for _ in range(5):
        _r, item = current(done, c)
        if item is None:
            break
        answer(done, c, item, gold_answer(item) if item.role != "regular" else 1, elapsed_ms="4000")
    # One declines consent, one fails the qualification twice, one is still at the items.
    decl = Client()
    join(decl, c, prolific("decliner"))
    decl.post("/join/dash/consent/", {"consent": "no"})
    failer = to_items(Client(), c, "failer")
    for attempt in range(2):
        for _ in range(2):
            _r, item = current(failer, c)
            answer(failer, c, item, 1 - gold_answer(item))
        failer.get("/join/dash/items/")
        if attempt == 0:
            failer.post("/join/dash/qualification/retry/")
    to_items(Client(), c, "newcomer")
    # A named account takes part too.
    (ann,) = people("annotator", "lab-ann")
    step = queue.next_step(c, ann)
    queue.response_submit(step.assignment.item, ann, {"agree": 1, "predict": 1})
    return c, ann


def _created_by_res(c: Campaign) -> None:
    """The signed-in researcher created the campaign: platform ids, completion codes and the CSV are
    the campaign's creator's (and admins'), as its exports are (issue 31 item 8)."""
    Campaign.objects.filter(pk=c.pk).update(created_by=get_user_model().objects.get(username="res"))


def test_live_numbers_tables_and_actions(statement_set, people, researcher: Client) -> None:
    c, ann = _run_study(statement_set, people)
    _created_by_res(c)
    page = researcher.get("/annotation/c/dash/participants/").content.decode()
    assert _stat(page, "started") == "4"
    assert _stat(page, "finished") == "1"
    assert _stat(page, "returned") == "1"
    assert _stat(page, "screened_out") == "1"
    assert _stat(page, "attention") == "100 %"
    assert _stat(page, "qualification") == "50 %"
    assert _stat(page, "median_item_seconds") == "4.0 s"
    assert _stat(page, "items_short") == "997"  # 1,000 statements − 3 gold items; none has 2 answers yet
    finished = Participant.objects.get(stage="finished")
    assert finished.completion_code in page
    assert "=HYPERLINK(1)" in page
    assert "lab-ann" in page
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}" in page
    live = researcher.get("/annotation/c/dash/participants/live/", HTTP_HX_REQUEST="true").content.decode()
    assert _stat(live, "finished") == "1"
    assert "<html" not in live
    # Block the newcomer: screened out, their items page ends the study; unblock: back at the items.
    newcomer = Participant.objects.get(external_id="newcomer")
    queue.membership_get(c, newcomer.user)
    r = researcher.post(f"/annotation/c/dash/people/{newcomer.user_id}/block/")
    assert r.status_code == 302
    newcomer.refresh_from_db()
    assert newcomer.stage == "screened_out"
    assert Membership.objects.get(campaign=c, user=newcomer.user).state == "blocked"
    researcher.post(f"/annotation/c/dash/people/{newcomer.user_id}/unblock/")
    newcomer.refresh_from_db()
    assert newcomer.stage == "items"
    # Reset the failed participant's qualification: a fresh set of attempts.
    failer = Participant.objects.get(external_id="failer")
    assert failer.stage == "screened_out"
    assert failer.qualification_scores == [0.0]
    researcher.post(f"/annotation/c/dash/people/{failer.user_id}/reset-qualification/")
    failer.refresh_from_db()
    m = Membership.objects.get(campaign=c, user=failer.user)
    assert (failer.stage, failer.qualification_scores, m.state) == ("items", [], "qualifying")
    # Named accounts have the same actions.
    researcher.post(f"/annotation/c/dash/people/{ann.pk}/block/")
    assert Membership.objects.get(campaign=c, user=ann).state == "blocked"
    assert researcher.post(f"/annotation/c/dash/people/{ann.pk}/explode/").status_code == 302
    # Participants and annotators cannot see this page.
    assert login("lab-ann").get("/annotation/c/dash/participants/").status_code == 403


def test_participant_export_command_and_download(statement_set, people, researcher: Client, tmp_path) -> None:
    c, _ann = _run_study(statement_set, people)
    _created_by_res(c)
    out = tmp_path / "p.csv"
    call_command("export_participants", "dash", "--out", str(out))
    body = out.read_bytes().decode()
    assert researcher.get("/annotation/c/dash/participants.csv").content.decode() == body
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 4  # crowd participants only, not the named account
    by_id = {r["participant_id"]: r for r in rows}
    done = by_id["'=HYPERLINK(1)"]  # a formula-looking id is neutralised for spreadsheets
    p = Participant.objects.get(stage="finished")
    assert done["completion_code"] == p.completion_code
    assert done["platform"] == "prolific"
    assert done["items_answered"] == "3"
    assert done["attention_passed"] == "1"
    assert done["country"] == "Peru"
    assert done["qualification_score"] == "1.0"
    assert done["finished"]
    assert done["started"]
    assert by_id["decliner"]["stage"] == "returned"
    assert by_id["decliner"]["completion_code"] == ""
    assert by_id["failer"]["qualification_attempts"] == "2"
    assert set(rows[0]) >= {"participant_id", "platform", "started", "finished", "items_answered", "completion_code"}
    assert "gender" not in rows[0]
    assert "age_band" not in rows[0]
    with pytest.raises(Exception, match="no campaign named 'nope'"):
        call_command("export_participants", "nope", "--out", str(out))


def test_study_settings_form_opens_a_campaign_to_the_crowd(statement_set, researcher: Client) -> None:
    call_command("campaign_create", "--set", "statements-demo", "--type", "survey", "--name", "lab")
    assert Client().get("/join/lab/?participant=x").status_code == 404
    r = researcher.post(
        "/annotation/c/lab/study/",
        {
            "consent_text": "Consent text.",
            "qualification_attempts": 3,
            "completion_url": "https://example.org/done?code={code}",
            "return_url": "",
            "demographics": ["gender", "education"],
            "examples_text": "A ball is round. | agree: yes | a fact",
        },
    )
    assert r.status_code == 302
    study = CrowdStudy.objects.get(campaign__name="lab")
    assert study.demographics == ["gender", "education"]
    assert study.qualification_attempts == 3
    assert study.examples == [{"text": "A ball is round.", "answer": "agree: yes", "why": "a fact"}]
    assert Client().get("/join/lab/?participant=x").status_code == 200
    b = Client()
    assert "A ball is round." in join(b, study.campaign, "?participant=y").content.decode()  # on the consent page
