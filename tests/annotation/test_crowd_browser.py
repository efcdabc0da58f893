"""A real browser (Playwright driving Debian's Chromium, headless, phone-sized): a participant
arrives by a Prolific-style study link, consents, fills the demographics, fails the qualification,
sees the score, passes on the second attempt, answers the budget by keyboard only (one item
skipped with S), sees the completion code and is sent on to the completion URL; the researcher's
participants page and the participant download then show them."""

from __future__ import annotations

import csv
import io
import os

import pytest

from annotation.models import Item, Membership, Participant, Response
from tests.annotation.crowd_helpers import crowd_campaign
from tests.annotation.test_browser import _current_item, _login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop

BUDGET = 4


def _answer_by_keys(page, agree: bool, predict: bool) -> None:  # type: ignore[no-untyped-def]
    page.keyboard.press("y" if agree else "n")
    page.keyboard.press("y" if predict else "n")
    page.keyboard.press("Enter")


def test_prolific_participant_end_to_end(browser, live_server, statement_set, people) -> None:  # type: ignore[no-untyped-def]
    base = live_server.url
    c = crowd_campaign(
        "pstudy",
        "--qualification",
        "0,18",  # human majority: agree, disagree (a test "agree everywhere" passed would be refused)
        "--pass-mark",
        "1.0",
        "--budget",
        str(BUDGET),
        "--redundancy",
        "3",
        "--demographics",
        "age_band,country",
        "--completion-url",
        f"{base}/accounts/login/?cc={{code}}",
    )
    (res,) = people("researcher", "res")
    c.created_by = res  # the participants' ids, codes and CSV are the creator's (issue 31 item 8)
    c.save(update_fields=["created_by"])
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.set_default_timeout(20_000)
    page.goto(f"{base}/join/pstudy/?PROLIFIC_PID=5f0c1a2b3c&STUDY_ID=ST1&SESSION_ID=SE1")
    # One page: consent, the instructions and the demographics questions.
    assert "Instructions" in page.inner_text(".instructions")
    page.select_option("select[name=age_band]", "25–34")
    page.fill("input[name=country]", "Kenya")
    page.click('[data-action="consent"]')
    page.wait_for_url("**/join/pstudy/items/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # fits a phone screen

    # Qualification, first attempt: every answer wrong on (a).
    shown = None
    for _ in range(2):
        shown = _current_item(page, shown)
        item = Item.objects.get(uid=shown)
        assert item.role == "qualification"
        _answer_by_keys(page, not item.gold["agree"], True)
    page.wait_for_selector(".qualification-result")
    result = page.inner_text(".qualification-result")
    assert "1 more attempt" in result
    assert "%" not in result
    page.click('[data-action="retry"]')
    # Second attempt: right.
    shown = None
    for _ in range(2):
        shown = _current_item(page, shown)
        item = Item.objects.get(uid=shown)
        assert item.role == "qualification"
        _answer_by_keys(page, bool(item.gold["agree"]), True)
    shown = _current_item(page, shown)
    assert "your score is 100 %" in page.inner_text(".qualification-passed")
    user = Participant.objects.get().user
    assert Membership.objects.get(campaign=c, user=user).state == "active"

    # The budget by keyboard: one skip (S), then BUDGET answers.
    skipped = shown
    page.keyboard.press("s")
    answered = {}
    for n in range(BUDGET):
        shown = _current_item(page, shown)
        assert Item.objects.get(uid=shown).role == "regular"
        _answer_by_keys(page, n % 2 == 0, True)
        answered[shown] = int(n % 2 == 0)
    page.wait_for_url("**/join/pstudy/done/")
    code = page.inner_text("#completion-code")
    participant = Participant.objects.get()
    assert code == participant.completion_code
    assert participant.stage == "finished"
    mine = Response.objects.filter(user=user, item__role="regular").select_related("item")
    assert {r.item.uid: r.answer["agree"] for r in mine} == answered
    assert skipped not in answered
    assert participant.demographics == {"age_band": "25–34", "country": "Kenya"}
    # The automatic redirect to the completion URL carries the code.
    page.wait_for_url(f"**/accounts/login/?cc={code}", timeout=20_000)

    dash = _login(browser, base, "res", viewport={"width": 1280, "height": 900})
    dash.goto(f"{base}/annotation/c/pstudy/participants/")
    assert dash.inner_text('[data-stat="finished"]') == "1"
    assert dash.inner_text('[data-stat="qualification"]') == "100 %"
    row = dash.locator("table.people tbody tr", has_text="5f0c1a2b3c")
    assert code in row.inner_text()
    assert "2 attempts" in row.inner_text()
    with dash.expect_download() as dl:
        dash.click("#participants-csv")
    body = open(dl.value.path(), encoding="utf-8").read()
    (rec,) = list(csv.DictReader(io.StringIO(body)))
    assert (rec["participant_id"], rec["completion_code"], rec["items_answered"]) == ("5f0c1a2b3c", code, "4")
    assert rec["country"] == "Kenya"
    assert rec["study_id"] == "ST1"
    assert rec["session_id"] == "SE1"
