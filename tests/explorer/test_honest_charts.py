"""Honest charts (issue 14): n on every bar, 95% intervals where the data allows, 0 % bars
visible, every group label drawn, legends clear of the x labels, a minimum-n filter on the
breakdowns, replayed runs visible over the stored-answer markers, curve labels inside the plot,
readable CoCo cells."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from explorer import charts
from explorer.charts import nww as nww_charts
from tests.explorer.factories import QuestionFactory, QuestionSetFactory, make_run, predict


def _bars(n_groups: int = 12) -> tuple[list[str], charts.Series]:
    groups = [f"rel{i:02d}" for i in range(n_groups)]
    values = [0.0] + [0.5] * (n_groups - 1)
    return groups, charts.Series(
        "run 1", values, [10 + i for i in range(n_groups)], [], [(0.0, 0.28)] + [(0.3, 0.7)] * (n_groups - 1)
    )


def _tick_names(fig) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.split(" <span", 1)[0] for t in fig.layout.xaxis.ticktext]


def test_every_bar_shows_its_n_and_its_interval() -> None:
    groups, s = _bars()
    fig = charts.grouped_bars(groups, [s], axis="relation")
    (bar,) = fig.data
    assert bar.textposition == "none"  # not over the error bar: under the label (#29 item 13)
    assert list(bar.text) == [f"n={10 + i}" for i in range(12)]  # the hover's
    assert [t.rsplit(">n=", 1)[1].split("<")[0] for t in fig.layout.xaxis.ticktext] == [str(10 + i) for i in range(12)]
    assert bar.error_y.array[1] == pytest.approx(0.2)
    assert bar.error_y.arrayminus[1] == pytest.approx(0.2)
    assert bar.error_y.array[0] == pytest.approx(0.28)
    assert bar.error_y.arrayminus[0] == pytest.approx(0.0)


def test_a_zero_bar_is_drawn_and_every_label_is_shown() -> None:
    groups, s = _bars(30)
    fig = charts.grouped_bars(groups, [s], axis="relation")
    (bar,) = fig.data
    assert bar.y[0] == 0
    assert bar.marker.line.width > 0
    assert fig.layout.xaxis.tickmode == "array"
    assert _tick_names(fig) == groups
    assert fig.layout.xaxis.tickangle == -45
    assert fig.layout.xaxis.automargin


def test_the_legend_is_above_the_plot_not_over_the_x_labels() -> None:
    groups, s = _bars(3)
    fig = charts.grouped_bars(groups, [s, charts.Series("run 2", [0.1, 0.2, 0.3], [5, 5, 5])], axis="kind")
    assert fig.layout.legend.y >= 1
    assert fig.layout.legend.yanchor == "bottom"
    line = charts.line_series([("r", [1.0, 2.0], [0.5, 0.6], [])], x_title="d")
    assert line.layout.legend.y >= 1


def test_nww_divergence_and_feature_bars_keep_n_clear_of_the_labels() -> None:
    """#29 item 13: six long source names were drawn flat and ran into each other, and the n above
    each bar crossed its error bar and its neighbours'. Now the n sits on the label's own line, a
    range when runs differ, and labels that would not fit side by side are turned."""
    from explorer.panels.nww_population import divergence_panel, feature_panel

    sources = ["Concept Net", "aphorism", "campaign email", "category response", "news media", "situation response"]
    by = {g: {"rate": 0.1 * (i + 1), "n": 50 + i} for i, g in enumerate(sources)}
    rep = {"ab_divergence": {"by_elicitation": by, "rate": 0.2, "n": 400, "examples": []}}
    other = {
        "ab_divergence": {
            "by_elicitation": {g: {**v, "n": v["n"] + 5} for g, v in by.items()},
            "rate": 0.2,
            "n": 430,
            "examples": [],
        }
    }
    fig = divergence_panel([("#1 a", rep), ("#2 b", other)]).figure
    assert all(bar.textposition == "none" for bar in fig.data)
    assert fig.layout.xaxis.tickangle == -45
    assert _tick_names(fig) == sorted(sources)
    first = fig.layout.xaxis.ticktext[0]
    assert "<br>" not in first
    assert first.endswith(">n=50–55</span>")  # the two runs' n
    two = charts.grouped_bars(["csqa", "2i"], [charts.Series("r", [0.2, 0.3], [300, 60])], axis="kind")
    assert two.layout.xaxis.tickangle == 0  # short labels stay flat
    diffs = {
        f: {"model": {"value": 0.01, "ci50": [0.0, 0.02], "ci95": [-0.01, 0.03], "n_pole1": 5, "n_pole0": 6}}
        for f in ("behavior", "everyday")
    }
    assert feature_panel({"#1 a": {"feature_differences": diffs}}).figure.layout.yaxis.automargin


def test_replayed_runs_are_drawn_over_stored_answers() -> None:
    same = (0.8, 0.7)
    fig = nww_charts.consensus_awareness(
        [
            ("#3 replay Mixtral", *same, "/r/3", "runs"),
            ("Mixtral", *same, "", "answers stored with the statements"),
            ("GPT-4", 0.75, 0.72, "", "answers stored with the statements"),
        ]
    )
    points = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in points] == ["answers stored with the statements", "#3 replay Mixtral"]  # runs on top
    stored, runs = points
    assert stored.marker.symbol == "diamond-open"
    assert stored.marker.size > runs.marker.size


def test_level_curve_labels_are_inside_the_plot() -> None:
    fig = nww_charts.consensus_awareness([("a", 0.2, 0.3, "", "runs"), ("b", 0.9, 0.95, "", "runs")])
    x0, x1 = fig.layout.xaxis.range
    y0, y1 = fig.layout.yaxis.range
    assert len(fig.layout.annotations) == 3
    for note in fig.layout.annotations:
        assert x0 <= note.x < x1
        assert y0 <= note.y < y1
        assert note.xanchor == "left"


def test_model_line_labels_run_down_into_the_plot() -> None:
    fig = nww_charts.model_in_human_distribution([0.5, 0.6, 0.7], [("a very long model name here", 0.65)])
    (note,) = fig.layout.annotations
    assert note.textangle == -90
    assert note.yanchor == "top"
    assert note.y == 1


def test_coco_cells_are_readable() -> None:
    fig = charts.coco_quadrants({(True, True): 3, (False, False): 1}, {})
    assert fig.data[0].textfont.size >= 14


@pytest.fixture
def breakdown_run(db: None):  # type: ignore[no-untyped-def]
    qset = QuestionSetFactory()
    run = make_run(question_set=qset)
    for i in range(12):
        rel = "xWant" if i < 10 else "oReact"
        q = QuestionFactory(question_set=qset, position=i, metadata={"relation": rel}, structure="1p")
        predict(run, q, chosen=0 if i % 3 else 1)
    return run


def _figure(html: str, key: str) -> dict:  # type: ignore[type-arg]
    m = re.search(rf'<script id="fig-{key}" type="application/json">(.*?)</script>', html, re.S)
    assert m, key
    return json.loads(m.group(1))


@pytest.mark.django_db
def test_min_n_hides_small_groups_on_the_run_and_compare_pages(breakdown_run, researcher: Client) -> None:  # type: ignore[no-untyped-def]
    url = reverse("explorer:run_errors", args=[breakdown_run.pk])
    bars = _figure(researcher.get(url).content.decode(), "by-relation")["data"][0]
    assert bars["x"] == ["oReact", "xWant"]
    assert bars["text"] == ["n=2", "n=10"]
    page = researcher.get(url, {"min_n": "5"}).content.decode()
    bars = _figure(page, "by-relation")["data"][0]
    assert bars["x"] == ["xWant"]
    assert "Groups under 5 items hidden (1 relation group)." in page
    assert 'name="min_n" min="0" value="5"' in page
    csv = researcher.get(url, {"min_n": "5", "csv": "by-relation"}).content.decode()
    assert "oReact" not in csv
    assert "xWant" in csv
    cmp = researcher.get(reverse("explorer:compare"), {"run": breakdown_run.pk, "min_n": "11"}).content.decode()
    assert "No relation group has 11 items or more." in cmp
    assert researcher.get(url, {"min_n": "-3"}).status_code == 200  # ignored, not a 500


@pytest.mark.django_db
def test_feature_bars_carry_the_stored_bootstrap_intervals(researcher: Client) -> None:
    from knowledge.models import StatementSet
    from knowledge.services.imports import statements_import
    from runs.evaluation import run_execute
    from runs.models import RunMetric
    from runs.services import run_create
    from tests.conftest import FIXTURES

    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    run = run_create(statement_set=sset, backend="replay", model="Mixtral-8x22B", scoring="yesno", enqueue=False)
    run_execute(run.pk, heartbeat=False)
    html = researcher.get(reverse("explorer:run_errors", args=[run.pk])).content.decode()
    bars = _figure(html, "features")["data"][0]
    m = RunMetric.objects.get(run=run, name="commonsensicality", scope=f"feature:{bars['x'][0]}")
    assert m.ci_low is not None
    assert bars["text"][0] == f"n={m.n}"
    assert bars["error_y"]["array"][0] == pytest.approx(m.ci_high - m.value)
    assert bars["error_y"]["arrayminus"][0] == pytest.approx(m.value - m.ci_low)
