"""CoCo error categories of a generative run (§6.4, Fig. 4): the share of each category among its
wrong or unanswered predictions (rule, or a reviewer's choice), with the review page linked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.urls import reverse

from commonsense.metrics.coco_tables import CATEGORIES
from explorer import charts
from explorer.panels.base import Panel
from runs.models import Run
from runs.selectors.runs import metric_values


def error_category_panel(runs: Sequence[Run], want: Callable[..., bool], label: Callable[[Run], str]) -> list[Panel]:
    gen = [r for r in runs if r.scoring in ("generate", "cot", "knowcot")]
    if not gen or not want("error-categories"):
        return []
    rows = [(m.run, m.scope, m.value, m.n) for m in metric_values(gen, ["error_share"])]
    if not rows:
        return []
    series, table = [], []
    for run in gen:
        mine = {s.removeprefix("category="): (v, n) for rid, s, v, n in rows if rid == run.pk}
        series.append(
            charts.Series(
                label(run),
                [mine.get(c, (None, 0))[0] for c in CATEGORIES],
                [mine.get(c, (None, 0))[1] for c in CATEGORIES],
            )
        )
        table += [(label(run), c, mine.get(c, (None, 0))[1], mine.get(c, (None, 0))[0]) for c in CATEGORIES]
    review = reverse("runs:error_review", args=[gen[0].pk])
    return [
        Panel(
            "error-categories",
            "CoCo error categories of wrong or unanswered predictions (§6.4, Fig. 4)",
            charts.grouped_bars(list(CATEGORIES), series, axis="category", value="share of errors"),
            ["run", "category", "predictions", "share of errors"],
            table,
            click="",
            note=f"No Answer, Hallucination and Reasoning Error by rule; Metric Limit only by a reviewer: {review}",
        )
    ]
