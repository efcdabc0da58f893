"""Consensus vs awareness (NWW Fig. 2B, #29 item 13): each run is its own colour and legend entry,
and the page says so when the points are over different statements (another set, or a run limited
to its first items) instead of comparing them silently."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from explorer.charts import nww as nww_charts
from runs.models import Run, RunMetric
from tests.explorer.factories import StatementFactory, StatementSetFactory, make_run, predict_statement

WARNING = "These points are over different statements"


def test_each_run_has_its_own_colour_and_legend_entry() -> None:
    fig = nww_charts.consensus_awareness(
        [
            ("#1 Mixtral yesno", 0.8, 0.7, "/r/1", "runs"),
            ("#2 Flan yesno", 0.6, 0.65, "/r/2", "runs"),
            ("#3 SmolLM2 yesno", 0.55, 0.5, "/r/3", "runs"),
            ("GPT-4", 0.75, 0.72, "", "answers stored with the statements"),
        ]
    )
    points = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in points] == [
        "answers stored with the statements",
        "#1 Mixtral yesno",
        "#2 Flan yesno",
        "#3 SmolLM2 yesno",
    ]
    runs = points[1:]
    assert len({t.marker.color for t in runs}) == 3
    assert points[0].marker.color not in {t.marker.color for t in runs}
    assert [list(t.customdata) for t in runs] == [["/r/1"], ["/r/2"], ["/r/3"]]
    assert fig.layout.legend.y >= 1


def _statement_run(sset, statements, label: str) -> Run:  # type: ignore[no-untyped-def]
    run = make_run(statement_set=sset, scoring="yesno", name=label)
    for st in statements:
        predict_statement(run, st, 0.8, 0.7)
    for name, value in (("consensus", 0.7), ("awareness", 0.6), ("commonsensicality", 0.65)):
        RunMetric.objects.create(run=run, name=name, scope="overall", value=value, n=len(statements))
    return run


def _panel(html: str) -> str:
    m = re.search(r'<figure class="panel" id="panel-nww-ca">(.*?)</figure>', html, re.S)
    assert m
    return m.group(1)


@pytest.mark.django_db
def test_the_page_warns_when_runs_cover_different_statements(researcher: Client) -> None:
    sset = StatementSetFactory(name="nww-items")
    statements = [
        StatementFactory(statement_set=sset, position=i, text=f"s{i}", human_majority=i % 2) for i in range(10)
    ]
    full = _statement_run(sset, statements, "full")
    same = _statement_run(sset, statements, "same")
    url = reverse("explorer:run_errors", args=[full.pk])
    assert WARNING not in _panel(researcher.get(url).content.decode())  # same statements: nothing to say
    first = _statement_run(sset, statements[:4], "first four")
    panel = _panel(researcher.get(url).content.decode())
    assert WARNING in panel
    assert f"#{full.pk} full yesno, #{same.pk} same yesno: 10 statements of nww-items" in panel
    assert f"#{first.pk} first four yesno: 4 statements of nww-items" in panel
    # the compare page, over two statement sets
    other = StatementSetFactory(name="nww-other")
    elsewhere = _statement_run(other, [StatementFactory(statement_set=other, position=0, human_majority=1)], "there")
    cmp = researcher.get(reverse("explorer:compare"), {"run": [full.pk, elsewhere.pk]}).content.decode()
    panel = _panel(cmp)
    assert WARNING in panel
    assert f"#{elsewhere.pk} there yesno: 1 statement of nww-other" in panel


@pytest.mark.django_db
def test_the_kept_statement_items_equal_a_fresh_reading_and_follow_a_new_finish() -> None:
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone

    from explorer.selectors import nww as ns

    sset = StatementSetFactory(name="nww-kept")
    statements = [StatementFactory(statement_set=sset, position=i, human_majority=1) for i in range(5)]
    runs = [_statement_run(sset, statements[: 5 - k], f"r{k}") for k in range(2)]
    Run.objects.filter(pk__in=[r.pk for r in runs]).update(finished_at=timezone.now())
    runs = list(Run.objects.filter(pk__in=[r.pk for r in runs]).order_by("pk"))
    cache.clear()
    fresh = ns.statement_items.__wrapped__(runs)  # type: ignore[attr-defined]
    assert [fresh[r.pk].n for r in runs] == [5, 4]
    assert ns.statement_items(runs) == fresh
    assert ns.statement_items(runs) == fresh  # from the cache
    predict_statement(runs[1], statements[4], 0.9)  # resumed: a fifth statement, then finished again
    Run.objects.filter(pk=runs[1].pk).update(finished_at=timezone.now() + timedelta(seconds=1))
    runs[1].refresh_from_db()
    again = ns.statement_items(runs)
    assert again[runs[1].pk].n == 5
    assert again[runs[1].pk].digest == again[runs[0].pk].digest
