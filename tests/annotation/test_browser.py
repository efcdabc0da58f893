"""A real browser (Playwright driving Debian's Chromium, headless, on a phone-sized screen): an
annotator logs in, passes the COM2-style qualification (six items, 85 %), answers ten items with
the keyboard only (one of them undone with U and answered again, one skipped with S), and the
researcher's dashboard then shows those answers and draws its charts."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from annotation.models import Item, Membership, Response
from annotation.services.campaigns import campaign_create, campaign_status_set
from tests.browser import signed_in
from tests.conftest import GOLD_FILE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop


def _pk(uid: str | None) -> int:
    """The row id of the item a page shows by its opaque uid."""
    return Item.objects.values_list("pk", flat=True).get(uid=uid)


def _login(browser, base: str, username: str, **ctx):  # type: ignore[no-untyped-def]
    return signed_in(browser, base, username, ctx or None)[0]


def _current_item(page, previous: str | None) -> str:  # type: ignore[no-untyped-def]
    """Wait until the item box shows a different item than ``previous``; return its id."""
    if previous is None:
        page.wait_for_selector("form.item-form")
    else:
        page.wait_for_function(
            "p => { const f = document.querySelector('form.item-form'); return f && f.dataset.item !== p; }",
            arg=previous,
        )
    return page.get_attribute("form.item-form", "data-item")


def test_annotator_qualifies_answers_ten_by_keyboard_and_dashboard_shows_them(
    browser, live_server, csqa_set, people
) -> None:  # type: ignore[no-untyped-def]

    c = campaign_create(
        name="kbd",
        title="Keyboard campaign",
        kind="mcqa",
        question_set=csqa_set,
        redundancy=3,
        qualification_file=GOLD_FILE,
        qualification_size=6,
        qualification_pass_mark=0.8,
        instructions="Tick every plausible answer.",
    )
    campaign_status_set(c, "open")
    people("annotator", "ann")
    people("researcher", "res")
    base = live_server.url
    page = _login(browser, base, "ann", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(base + reverse("annotation:index"))
    page.click("text=Annotate >> nth=-1")
    page.wait_for_url("**/annotation/c/kbd/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # fits a phone screen

    assert "You pass with at least 5 of 6 answered exactly right" in page.inner_text(".qualification-terms")
    shown = None
    for _ in range(6):  # qualification: tick the gold option(s) with the number keys
        shown = _current_item(page, shown)
        item = Item.objects.get(uid=shown)
        assert item.role == "qualification"
        assert "Qualification" in page.inner_text(".progress")
        assert not page.is_visible('form.undo [data-action="undo"]')  # no Undo inside the test
        for i in item.gold["plausible"] or [-1]:  # [] = none correct: key 0
            page.keyboard.press(str(i + 1))
        page.keyboard.press("Enter")
    shown = _current_item(page, shown)
    assert Membership.objects.get(user__username="ann").state == "active"
    # qualification answers cannot be undone: Undo waits for the first regular answer (#29 item 8)
    assert not page.is_visible('form.undo [data-action="undo"]')
    assert "Answered 0 /" in page.inner_text(".progress")

    skipped = shown
    page.keyboard.press("s")  # skip one
    shown = _current_item(page, shown)
    answered: dict[int, list[int]] = {}
    for n in range(10):
        keys = [1 + n % 5] + ([3] if n % 3 == 0 and n % 5 != 2 else [])
        for k in keys:
            page.keyboard.press(str(k))
        page.keyboard.press("Enter")
        answered[_pk(shown)] = sorted(k - 1 for k in keys)
        if n == 0:
            page.wait_for_selector('form.undo [data-action="undo"]', state="visible")  # now offered
        if n == 4:  # undo the fifth answer and answer it again differently
            page.wait_for_function(
                "p => { const f = document.querySelector('form.item-form'); return f && f.dataset.item !== p; }",
                arg=shown,
            )
            page.keyboard.press("u")
            page.wait_for_function("p => document.querySelector('form.item-form').dataset.item === p", arg=shown)
            page.wait_for_selector(
                f'input[name="plausible"][value="{keys[0] - 1}"]:checked', state="attached"
            )  # restored
            page.keyboard.press(str(keys[0]))  # untick
            page.keyboard.press("0")  # "No answers are correct"
            page.keyboard.press("Enter")
            answered[_pk(shown)] = []
        shown = _current_item(page, shown)
    page.wait_for_function("() => document.querySelector('.progress-label').textContent.includes('Answered 10 /')")

    mine = Response.objects.filter(user__username="ann", item__role="regular")
    assert {r.item_id: r.answer["plausible"] for r in mine} == answered
    assert _pk(skipped) not in answered
    assert all(r.time_ms is not None for r in mine)

    dash = _login(browser, base, "res", viewport={"width": 1280, "height": 900})
    dash.goto(base + reverse("annotation:dashboard", args=["kbd"]))
    dash.wait_for_selector('.chart[data-chart="agreement"][data-ready="1"]')
    rows = dash.locator("#recent tbody tr", has_text="ann")
    assert rows.count() == 16  # 6 qualification + 10 regular answers
    table = dash.inner_text("#recent")
    assert "no answers are correct" in table
    assert "plausible: 1" in table
    assert "qualification" in table


def test_a_submit_during_an_outage_says_so_and_enter_retries_it_once(browser, live_server, csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """The server answers the first submit with a 503 (as cocoweb.middleware does while the
    database restarts): the box keeps the answer and says it was not stored; Enter sends it again
    and it is stored once."""

    c = campaign_create(name="outage", title="Outage campaign", kind="mcqa", question_set=csqa_set, redundancy=3)
    campaign_status_set(c, "open")
    people("annotator", "ann")
    base = live_server.url
    page = _login(browser, base, "ann", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(base + reverse("annotation:work", args=["outage"]))
    shown = _current_item(page, None)
    failed: list[str] = []

    def unavailable(route):  # type: ignore[no-untyped-def]
        if route.request.method == "POST" and not failed:
            failed.append(route.request.url)
            return route.fulfill(status=503, body="database unavailable", headers={"Retry-After": "5"})
        return route.continue_()

    page.route("**/annotation/**", unavailable)
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.wait_for_selector("#item-error:not([hidden])")
    assert "may not have been stored" in page.inner_text("#item-error")
    assert page.get_attribute("form.item-form", "data-item") == shown  # still the same item, answer kept
    assert page.is_checked('input[name="plausible"][value="1"]')
    assert not Response.objects.filter(user__username="ann").exists()
    page.keyboard.press("Enter")  # retry
    _current_item(page, shown)
    assert page.is_hidden("#item-error")
    stored = Response.objects.filter(user__username="ann")
    assert [(r.item_id, r.answer["plausible"]) for r in stored] == [(_pk(shown), [1])]
