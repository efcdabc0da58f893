"""#29 item 13: a campaign with no item answered twice draws no per-item agreement histogram with
Plotly's made-up axes: the chart says why it is empty and hides its axes."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_empty_agreement_histogram_says_why_and_draws_no_axes(mcqa_campaign, researcher) -> None:  # type: ignore[no-untyped-def]
    r = researcher.get(reverse("annotation:dashboard", args=[mcqa_campaign.name]))
    assert r.status_code == 200
    fig = r.context["figures"]["agreement"]
    assert fig["data"] == []
    assert fig["layout"]["xaxis"]["visible"] is False
    assert fig["layout"]["yaxis"]["visible"] is False
    notes = [a["text"] for a in fig["layout"]["annotations"]]
    assert notes == ["No item has two answers yet: agreement needs at least two per item."]
    assert "n = 0 items" in fig["layout"]["title"]["text"]


def test_agreement_histogram_with_values_keeps_its_bars() -> None:
    from annotation import charts

    fig = charts.agreement_histogram([0.5, 1.0], 0.6)
    assert len(fig["data"]) == 1
    assert fig["data"][0]["type"] == "histogram"
