"""Researcher pages read as words (issue 14, bugs 6 and 12): no raw Python dict on the dashboard
or the adjudication pages, adjudication check boxes numbered like the answers, NWW numbers only
with enough raters (else how many there are and how many are needed), a full CSV header for an
empty export."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.queue import operations as queue
from annotation.services.campaign_exports import columns_for
from annotation.services.labels import final_labels_refresh
from tests.annotation.conftest import login
from tests.annotation.test_views import _three_answers

pytestmark = pytest.mark.django_db

RAW_DICT = ("{&#x27;", "{'", "&#x27;: ")


def _no_dicts(html: str) -> None:
    body = html.split("<main>", 1)[1]
    for needle in RAW_DICT:
        assert needle not in body, needle


def test_dashboard_and_adjudication_pages_show_words_not_dicts(mcqa_campaign, people, researcher) -> None:  # type: ignore[no-untyped-def]
    item = _three_answers(mcqa_campaign, people, [{"plausible": [0]}, {"plausible": [1, 2]}, {"plausible": [3]}])
    final_labels_refresh(mcqa_campaign)
    dash = researcher.get(reverse("annotation:dashboard", args=[mcqa_campaign.name])).content.decode()
    _no_dicts(dash)
    queue_page = researcher.get(reverse("annotation:adjudication", args=[mcqa_campaign.name])).content.decode()
    _no_dicts(queue_page)
    assert "ticked: 1: 1/3, 2: 1/3, 3: 1/3, 4: 1/3, 5: 0/3" in queue_page
    page = researcher.get(reverse("annotation:adjudicate", args=[mcqa_campaign.name, item.pk])).content.decode()
    _no_dicts(page)
    # the check boxes carry the numbers the answers use ("plausible: 2, 3")
    assert "plausible: 2, 3" in page
    for i, option in enumerate(item.payload["options"]):
        assert f'value="{i}"> <span class="option-key">{i + 1}.</span> {option}' in page


def test_one_survey_rater_gets_no_fake_consensus(survey_campaign, people, researcher) -> None:  # type: ignore[no-untyped-def]
    (u,) = people("annotator", "solo")
    for _ in range(3):
        item = queue.next_step(survey_campaign, u).assignment.item
        queue.response_submit(item, u, {"agree": 1, "predict": 1})
    page = researcher.get(reverse("annotation:dashboard", args=[survey_campaign.name])).content.decode()
    assert "1.000 – 1.000" not in page
    assert "annotator_M" not in page
    assert "need answers from at least 2 raters" in page
    assert "so far 1 rater\nanswered (3 answers on 3 statements)" in page
    # a second rater: the numbers appear, with their n
    (v,) = people("annotator", "duo")
    item = queue.next_step(survey_campaign, v).assignment.item
    queue.response_submit(item, v, {"agree": 0, "predict": 1})
    page = researcher.get(reverse("annotation:dashboard", args=[survey_campaign.name])).content.decode()
    assert "annotator_M" in page
    assert 'id="nww-short"' not in page


def test_an_empty_export_has_the_full_header(mcqa_campaign, survey_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("admin", "boss")
    boss = login("boss")
    for campaign in (mcqa_campaign, survey_campaign):
        body = boss.get(reverse("annotation:export", args=[campaign.name, "csv"])).content.decode()
        header = next(csv.reader(io.StringIO(body)))
        assert header == columns_for(campaign.kind)
        assert len(header) > 10
    assert "com2" in columns_for("mcqa")
    assert "nww" in columns_for("survey")


def test_a_filled_export_keeps_the_same_header(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    _three_answers(mcqa_campaign, people, [{"plausible": [0]}, {"plausible": [0]}, {"plausible": [0]}])
    final_labels_refresh(mcqa_campaign)
    people("admin", "boss")
    body = login("boss").get(reverse("annotation:export", args=[mcqa_campaign.name, "csv"])).content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == columns_for("mcqa")
    assert len(rows) == 2


def test_dashboard_histograms_state_their_n() -> None:
    from annotation import charts

    fig = charts.agreement_histogram([0.5, 1.0, None, float("nan")], 0.6)
    assert fig["layout"]["title"]["text"] == "Per-item agreement (n = 2 items; 2 with a single answer left out)"
    assert charts.answers_per_item([1, 2, 3], 3)["layout"]["title"]["text"] == "Answers per item (n = 3 items)"
    m = charts.commonsensicality_histogram([0.2, None], "Statements m")
    assert m["layout"]["title"]["text"].endswith("(n = 1)")
