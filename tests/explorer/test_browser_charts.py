"""Charts as drawn by Chromium (issue 14, bug 12): accuracy by relation with many bars shows
every label and every group's n (under its label since #29 item 13), a 0 % bar is visible, and on the compare page the legend sits
clear of the x labels."""

from __future__ import annotations

import pytest
from django.urls import reverse

from .factories import QuestionFactory, QuestionSetFactory, make_run, predict
from .test_browser import page  # noqa: F401  (the logged-in Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RELATIONS = [f"rel{i:02d}" for i in range(18)]


def _runs() -> list:  # type: ignore[type-arg]
    qset = QuestionSetFactory(name="charts-set")
    runs = [make_run(question_set=qset, model=f"model-{k}") for k in range(2)]
    for r_i, rel in enumerate(RELATIONS):
        for j in range(3):
            q = QuestionFactory(question_set=qset, metadata={"relation": rel}, stem=f"{rel} q{j}")
            for run in runs:
                predict(run, q, 1 if r_i == 0 else (0 if j else 1))  # rel00: 0 % correct
    return runs


def _boxes_overlap(a: dict, b: dict) -> bool:  # type: ignore[type-arg]
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_every_relation_label_and_n_is_drawn_and_zero_bars_show(page, live_server):  # type: ignore[no-untyped-def]  # noqa: F811
    run = _runs()[0]
    page.goto(live_server.url + reverse("explorer:run_errors", args=[run.pk]))
    chart = page.locator('#panel-by-relation .chart[data-ready="1"]')
    chart.wait_for()
    ticks = chart.locator(".xtick text").evaluate_all("els => els.map(e => e.textContent)")  # SVG: no innerText
    assert ticks == [f"{r} n=3" for r in RELATIONS]  # none skipped, each with its n (#29 item 13)
    assert chart.locator(".bars .point text").count() == 0  # no n over the error bars
    zero = chart.locator(".bars .point path").nth(0)
    assert zero.evaluate("e => parseFloat(getComputedStyle(e).strokeWidth)") > 0  # the 0 % stub is drawn
    assert zero.bounding_box()["width"] > 0


def test_compare_legend_is_clear_of_the_x_labels(page, live_server):  # type: ignore[no-untyped-def]  # noqa: F811
    runs = _runs()
    page.goto(live_server.url + reverse("explorer:compare") + f"?run={runs[0].pk}&run={runs[1].pk}")
    chart = page.locator('#panel-by-relation .chart[data-ready="1"]')
    chart.wait_for()
    legend = chart.locator(".legend").bounding_box()
    assert legend is not None
    for i in range(len(RELATIONS)):
        tick = chart.locator(".xtick text").nth(i).bounding_box()
        assert tick is not None, RELATIONS[i]
        assert not _boxes_overlap(legend, tick), RELATIONS[i]
    # the x-axis title too
    title = chart.locator(".g-xtitle text").bounding_box()
    assert title is not None
    assert not _boxes_overlap(legend, title)
