"""A real browser (Playwright driving Debian's Chromium, headless), issue 14 bug 8: closing a
campaign asks first, and an annotator opening the closed campaign (or answering the item still on
their screen) is told it is closed instead of getting a 404."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from annotation.models import Campaign, Response

from .test_browser import _current_item, _login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop


def test_closing_asks_first_and_annotators_are_told_it_is_closed(browser, live_server, mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    people("researcher", "res")
    base = live_server.url
    ann = _login(browser, base, "ann", viewport={"width": 1000, "height": 800})
    ann.goto(base + reverse("annotation:work", args=["mcqa"]))
    _current_item(ann, None)  # an item on screen while the campaign closes

    res = _login(browser, base, "res", viewport={"width": 1280, "height": 900})
    res.goto(base + reverse("annotation:dashboard", args=["mcqa"]))
    res.click("button[name=status][value=closed]")
    res.wait_for_selector("text=Close campaign MCQA validation?")
    assert Campaign.objects.get(name="mcqa").status == "open"  # nothing happened yet
    res.click("text=Keep it open")
    res.wait_for_url("**/dashboard/")
    assert Campaign.objects.get(name="mcqa").status == "open"
    res.click("button[name=status][value=closed]")
    res.click('[data-action="confirm"]')
    res.wait_for_url("**/dashboard/")
    assert Campaign.objects.get(name="mcqa").status == "closed"

    ann.keyboard.press("2")  # the answer on screen is refused with the reason, in the box
    ann.keyboard.press("Enter")
    ann.wait_for_selector('#item [data-state="closed"]')
    assert "This campaign is closed" in ann.inner_text("#item")
    assert not Response.objects.exists()

    resp = ann.goto(base + reverse("annotation:work", args=["mcqa"]))
    assert resp.status == 410
    assert "This campaign is closed" in ann.inner_text("main")
