"""A real browser (Playwright driving Debian's Chromium, headless) on the annotation keyboard
(issue 14, bugs 1 and 2): a refused answer shows the server's reason in the box; after U a
keyboard-only annotator can correct every survey answer, and the item that was on screen comes
back to them; Tab starts in the item; Enter on a focused link follows the link."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from annotation.models import Assignment, Response

from .test_browser import _current_item, _login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop


def test_enter_with_nothing_ticked_shows_the_servers_reason_inline(live_server, mcqa_campaign, people, browser):  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    page = _login(browser, live_server.url, "ann", viewport={"width": 1000, "height": 800})
    page.goto(live_server.url + reverse("annotation:work", args=["mcqa"]))
    shown = _current_item(page, None)
    page.keyboard.press("Enter")
    page.wait_for_selector("#item .msg-error")
    assert "tick at least one option" in page.inner_text("#item .msg-error")
    assert page.is_hidden("#item-error")  # the transport-failure "press Enter to try again" stays for real failures
    assert page.get_attribute("form.item-form", "data-item") == shown
    page.keyboard.press("3")  # the box still works after the refusal
    page.keyboard.press("Enter")
    _current_item(page, shown)
    assert [r.answer["plausible"] for r in Response.objects.filter(user__username="ann")] == [[2]]


def test_a_refused_answer_keeps_what_was_ticked(live_server, mcqa_campaign, people, browser):  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    page = _login(browser, live_server.url, "ann", viewport={"width": 1000, "height": 800})
    page.goto(live_server.url + reverse("annotation:work", args=["mcqa"]))
    _current_item(page, None)
    page.check('input[name="plausible"][value="1"]')
    page.check('input[name="none_correct"]')  # a mouse can tick both; the server refuses the pair
    page.click('[data-action="submit"]')
    page.wait_for_selector("#item .msg-error")
    assert "cannot go with a ticked option" in page.inner_text("#item .msg-error")
    assert page.is_checked('input[name="plausible"][value="1"]')


def test_keyboard_only_annotator_corrects_a_survey_answer_after_undo(live_server, survey_campaign, people, browser):  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    page = _login(browser, live_server.url, "ann", viewport={"width": 1000, "height": 800})
    page.goto(live_server.url + reverse("annotation:work", args=["survey"]))
    first = _current_item(page, None)

    page.keyboard.press("Tab")  # Tab starts inside the item box, not in the header links
    assert page.evaluate("!!document.activeElement.closest('form.item-form')")

    page.keyboard.press("y")
    page.keyboard.press("y")
    page.keyboard.press("Enter")
    second = _current_item(page, first)
    page.keyboard.press("u")
    page.wait_for_function("p => document.querySelector('form.item-form').dataset.item === p", arg=first)
    assert page.is_checked('input[name="agree"][value="yes"]')
    assert page.is_checked('input[name="predict"][value="yes"]')
    page.keyboard.press("n")  # all answered: N / Y start again at the first question
    page.keyboard.press("n")
    assert page.is_checked('input[name="agree"][value="no"]')
    assert page.is_checked('input[name="predict"][value="no"]')
    page.keyboard.press("Enter")
    shown = _current_item(page, first)
    assert shown == second  # the item on screen when U was pressed is offered again
    assert Response.objects.get(user__username="ann", item__uid=first).answer == {"agree": 0, "predict": 0}
    assert not Assignment.objects.filter(user__username="ann", item__uid=second, state="expired").exists()

    page.focus("a[href$='/annotation/']")  # Enter on a focused link follows it
    page.keyboard.press("Enter")
    page.wait_for_url("**/annotation/")
    assert Response.objects.filter(user__username="ann").count() == 1


def test_keyboard_only_judging_of_generations(live_server, people, browser, tmp_path):  # type: ignore[no-untyped-def]
    """COM2 Table 4 campaign in a real browser: 1 / 2 / 3 pick Plausible / 1-hop / False, Enter
    submits, U brings the last generation back with its judgement ticked for a correction."""
    import json

    from annotation.services.campaigns import campaign_create, campaign_status_set
    from knowledge.services.builds import question_set_build
    from knowledge.services.imports import graph_import
    from runs.evaluation import run_execute
    from runs.models import Run
    from runs.services import run_create
    from tests.commonsense.tiny_bert import build_tiny_bert
    from tests.conftest import FIXTURES

    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    qset = question_set_build(graph="ckbp", kind="2i", count=3, seed=7, name="com2-gen")
    gens = tmp_path / "gens.jsonl"
    gens.write_text(
        "".join(json.dumps({"id": q.pk, "generation": f"answer {q.position}"}) + "\n" for q in qset.questions.all())
    )
    run = run_create(
        question_set=qset,
        backend="replay",
        scoring="generate-answer",
        params={"source": str(gens), "bertscore_model": str(build_tiny_bert(tmp_path / "bert"))},
        enqueue=False,
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    run = Run.objects.get(pk=run.pk)
    campaign_status_set(campaign_create(name="judge", title="Judge", kind="generation", run=run), "open")
    people("annotator", "ann")
    page = _login(browser, live_server.url, "ann", viewport={"width": 1000, "height": 800})
    page.goto(live_server.url + reverse("annotation:work", args=["judge"]))
    first = _current_item(page, None)
    assert "Generated answer:" in page.inner_text("#item")
    assert "1-hop" in page.inner_text("#item")
    page.keyboard.press("2")
    assert page.is_checked('input[name="judgement"][value="one_hop"]')
    page.keyboard.press("Enter")
    second = _current_item(page, first)
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    _current_item(page, second)
    page.keyboard.press("u")
    page.wait_for_function("p => document.querySelector('form.item-form').dataset.item === p", arg=second)
    assert page.is_checked('input[name="judgement"][value="false"]')
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    _current_item(page, second)
    answers = {r.item.uid: r.answer for r in Response.objects.filter(user__username="ann").select_related("item")}
    assert answers == {first: {"judgement": "one_hop"}, second: {"judgement": "plausible"}}
