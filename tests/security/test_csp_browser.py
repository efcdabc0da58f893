"""Issue 31 item 11 in Chromium: the Content-Security-Policy is in force (a string is not run as
code on our pages) and breaks nothing: a Plotly chart draws, a click on a bar loads the drawer
through htmx, the graph search updates as one types (htmx), Swagger UI starts; no page logs a
policy violation. (Every other browser test runs under the same header.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.explorer.factories import (
    GraphFactory,
    NodeFactory,
    QuestionFactory,
    QuestionSetFactory,
    TripleFactory,
    make_run,
    predict,
)
from tests.explorer.test_browser import page  # noqa: F401  (the logged-in Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _violations(pg: Any) -> list[str]:
    seen: list[str] = []
    pg.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None)
    return seen


def test_charts_htmx_and_swagger_work_under_the_policy(page, live_server):  # type: ignore[no-untyped-def]  # noqa: F811
    violations = _violations(page)
    qset = QuestionSetFactory(name="csp-set")
    questions = [QuestionFactory(question_set=qset, metadata={"relation": "xWant"}, stem=f"q {i}") for i in range(3)]
    run = make_run(question_set=qset)
    for q in questions:
        predict(run, q, 0)

    response = page.goto(live_server.url + reverse("explorer:run_errors", args=[run.pk]))
    assert "script-src 'self'" in response.headers["content-security-policy"]
    # The policy is enforced: an inline script put into the page does not run (the violation it
    # logs is expected, and taken out of the list).
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
        " document.body.appendChild(s); }"
    )
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.injected === undefined")
    assert len(violations) == 1
    assert "inline script" in violations[0]
    violations.clear()
    chart = page.locator('#panel-by-relation .chart[data-ready="1"]')  # Plotly drew it
    chart.wait_for()
    bar = chart.locator(".bars .point path").nth(0).bounding_box()
    page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] / 2)
    page.locator("#drawer .drawer-body").wait_for()  # htmx loaded the drawer

    graph = GraphFactory(name="csp-graph")
    bread = NodeFactory(graph=graph, text="PersonX bakes bread")
    TripleFactory(graph=graph, head=bread, tail=NodeFactory(graph=graph, text="to eat"))
    page.goto(live_server.url + reverse("explorer:graph", args=[graph.name]))
    page.locator("input[name=q]").press_sequentially("bakes", delay=30)
    page.locator("#search-results a", has_text="PersonX bakes bread").wait_for()  # htmx swapped the results

    page.goto(live_server.url + "/api/docs/")
    page.locator(".swagger-ui .info").wait_for()  # Swagger UI started from its script file
    assert violations == []
