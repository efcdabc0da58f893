"""Page weight (issue 29 item 16): Plotly is fetched only by a page that draws a chart, as the
partial bundle (under 1 MB); its charts still draw; a page without a chart loads no Plotly."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from tests.browser import PASSWORD, signed_in

from .factories import QuestionFactory, QuestionSetFactory, make_run, predict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_plotly_only_where_a_chart_is_drawn(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    role_groups_sync()
    user_create_with_role("weigh", "researcher", PASSWORD)
    qset = QuestionSetFactory(name="weight-set")
    qs = [QuestionFactory(question_set=qset, metadata={"relation": r}) for r in ("xAttr", "xWant", "xAttr")]
    run = make_run(question_set=qset)
    for q, chosen in zip(qs, (0, 1, 0), strict=True):
        predict(run, q, chosen)
    page, watch = signed_in(browser, live_server.url, "weigh")

    page.goto(live_server.url + reverse("explorer:questions"))
    page.wait_for_load_state("networkidle")
    assert page.locator("[data-chart]").count() == 0
    assert watch.urls("plotly") == []  # no chart, no Plotly
    assert watch.errors == []

    watch.clear()
    page.goto(live_server.url + reverse("explorer:run_errors", args=[run.pk]))
    page.locator('#panel-by-relation .chart[data-ready="1"]').wait_for()
    page.wait_for_load_state("networkidle")
    charts = page.locator("[data-chart]").count()
    assert charts > 1
    page.wait_for_function("n => document.querySelectorAll('[data-ready=\"1\"]').length === n", arg=charts)
    (plotly,) = watch.urls("plotly")  # fetched once for every chart of the page
    assert "plotly-cocoweb.min" in plotly
    sizes = {url: size for url, _, size in watch.responses}
    assert sizes[plotly] < 1_000_000  # was the 4.8 MB full bundle, on every explorer page
    rest = sum(sizes.values()) - sizes[plotly]
    assert rest < 150_000, rest  # the page, htmx, css, charts.js (uncompressed: the test server does not gzip)
    assert watch.errors == []
