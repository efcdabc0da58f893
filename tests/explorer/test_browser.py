"""A real browser (Playwright driving Debian's Chromium, headless): open a run's error view,
click the bar of one relation, and the drawer lists exactly that relation's items; node text with
a <script> tag shows as text and never runs."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from tests.browser import signed_in

from .factories import GraphFactory, NodeFactory, QuestionFactory, QuestionSetFactory, TripleFactory, make_run, predict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop

PASSWORD = "pw-long-enough-123"


@pytest.fixture
def page(browser, live_server):  # type: ignore[no-untyped-def]
    role_groups_sync()
    user_create_with_role("browser", "researcher", PASSWORD)
    pg, _ = signed_in(browser, live_server.url, "browser")  # 1280x900, 20 s timeout
    yield pg


def test_clicking_a_bar_lists_its_items_in_the_drawer(page, live_server):  # type: ignore[no-untyped-def]
    qset = QuestionSetFactory(name="browser-set")
    attr = [
        QuestionFactory(question_set=qset, metadata={"relation": "xAttr"}, stem=f"attr question {i}") for i in range(3)
    ]
    want = [
        QuestionFactory(question_set=qset, metadata={"relation": "xWant"}, stem=f"want question {i}") for i in range(2)
    ]
    run = make_run(question_set=qset)
    for q, chosen in zip(attr + want, (0, 1, 1, 0, 0), strict=True):
        predict(run, q, chosen)

    page.goto(live_server.url + reverse("explorer:run_errors", args=[run.pk]))
    chart = page.locator('#panel-by-relation .chart[data-ready="1"]')
    chart.wait_for()
    bars = chart.locator(".bars .point path")
    assert bars.count() == 2  # groups sorted: xAttr, xWant
    box = bars.nth(0).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    drawer = page.locator("#drawer .drawer-body")
    drawer.wait_for()
    assert drawer.get_attribute("data-total") == "3"
    shown = sorted(int(x) for x in drawer.locator(".item").evaluate_all("els => els.map(e => e.dataset.item)"))
    assert shown == sorted(q.pk for q in attr)
    assert "relation xAttr" in drawer.inner_text()
    # Escape closes the drawer
    page.keyboard.press("Escape")
    assert page.locator("#drawer .drawer-body").count() == 0


def test_script_in_node_text_is_inert_in_the_browser(page, live_server):  # type: ignore[no-untyped-def]
    g = GraphFactory(name="evil-browser")
    bad = NodeFactory(graph=g, text='<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">')
    TripleFactory(graph=g, head=bad, tail=NodeFactory(graph=g, text="<b>tail</b>"))
    page.goto(live_server.url + reverse("explorer:node", args=[g.name, bad.pk]))
    page.locator('#panel-neighbourhood .chart[data-ready="1"]').wait_for()
    assert page.evaluate("window.__pwned") is None
    assert "<script>window.__pwned = 1</script>" in page.locator("h1.node-text").inner_text()
    assert page.locator("h1.node-text script").count() == 0
