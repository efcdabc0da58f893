"""A real browser (Playwright driving Debian's Chromium, headless) on the graph overview's
type-ahead search (issue 14, bug 3): results appear while typing, without pressing Enter, and
htmx reports no target error."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from tests.browser import PASSWORD, signed_in

from .factories import GraphFactory, NodeFactory, TripleFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_overview_search_shows_results_while_typing(browser, live_server):  # type: ignore[no-untyped-def]
    role_groups_sync()
    user_create_with_role("browser", "researcher", PASSWORD)
    g = GraphFactory(name="typeahead")
    sky = NodeFactory(graph=g, text="PersonX goes skydiving")
    TripleFactory(graph=g, head=sky, tail=NodeFactory(graph=g, text="to feel brave"))
    page, watch = signed_in(browser, live_server.url, "browser")

    page.goto(live_server.url + reverse("explorer:graph", args=[g.name]))
    page.locator("input[name=q]").press_sequentially("skydiv", delay=30)  # no Enter
    link = page.locator("#search-results a", has_text="PersonX goes skydiving")
    link.wait_for()
    assert page.url.endswith(reverse("explorer:graph", args=[g.name]))  # still the overview
    assert link.get_attribute("href") == reverse("explorer:node", args=[g.name, sky.pk])
    assert not [e for e in watch.errors if "targetError" in e or "search-results" in e]
