"""A real browser (Playwright driving Debian's Chromium, headless) on the graph overview's
type-ahead search (issue 14, bug 3): results appear while typing, without pressing Enter, and
htmx reports no target error."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role

from .factories import GraphFactory, NodeFactory, TripleFactory
from .test_browser import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop


def test_overview_search_shows_results_while_typing(browser, live_server):  # type: ignore[no-untyped-def]
    role_groups_sync()
    user_create_with_role("browser", "researcher", PASSWORD)
    g = GraphFactory(name="typeahead")
    sky = NodeFactory(graph=g, text="PersonX goes skydiving")
    TripleFactory(graph=g, head=sky, tail=NodeFactory(graph=g, text="to feel brave"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "browser")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")

    page.goto(live_server.url + reverse("explorer:graph", args=[g.name]))
    page.locator("input[name=q]").press_sequentially("skydiv", delay=30)  # no Enter
    link = page.locator("#search-results a", has_text="PersonX goes skydiving")
    link.wait_for()
    assert page.url.endswith(reverse("explorer:graph", args=[g.name]))  # still the overview
    assert link.get_attribute("href") == reverse("explorer:node", args=[g.name, sky.pk])
    assert not [e for e in errors if "targetError" in e or "search-results" in e]
