"""CoCo error categories of a generative run (§6.4, Fig. 4): the share of each category among its
wrong or unanswered predictions (rule, or a reviewer's choice), with the review page linked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.urls import reverse

from commonsense.metrics.coco_tables import CATEGORIES, SUBTASK_CATEGORIES
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
        ),
        *_by_subtask(gen, label),
    ]


def _by_subtask(gen: Sequence[Run], label: Callable[[Run], str]) -> list[Panel]:
    """The errors of each subtask (REA, FAI, APP) by category, as the paper's Fig. 4 splits them."""
    rows = [(m.run, m.scope, m.value, m.n) for m in metric_values(gen, ["subtask_error_share"])]
    if not rows:
        return []
    names = {r.pk: label(r) for r in gen}
    table = []
    for rid, scope, value, n in rows:
        subtask, _, category = scope.partition(":")
        table.append((names[rid], subtask, category, n, value))
    groups = [f"{s}: {c}" for s, cats in SUBTASK_CATEGORIES.items() for c in cats]
    series = []
    for run in gen:
        mine = {f"{t[1]}: {t[2]}": t[4] for t in table if t[0] == names[run.pk]}
        series.append(charts.Series(label(run), [mine.get(g) for g in groups]))
    return [
        Panel(
            "error-categories-subtask",
            "CoCo errors by subtask (§6.4, Fig. 4): REA, FAI (No / Partial Knowledge), APP",
            charts.grouped_bars(groups, series, axis="subtask: category", value="share of the subtask's errors"),
            ["run", "subtask", "category", "sets", "share of the subtask's errors"],
            table,
            click="",
            note="REA: composed question wrong; APP: wrong although every atomic question was right; FAI: composed "
            "question right but not every atomic one (No Knowledge: none right; Partial Knowledge: some). "
            "Evaluation Failure and Metric Limit need a reviewer.",
        )
    ]
