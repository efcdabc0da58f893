"""RICA panels beside the per-perturbation accuracy: per run the probe accuracy, the Joint score
(every perturbation of an axiom right), the positivity bias (RICA Fig. 5a) with the gold share; and
names vs novel entities (Fig. 5b): a run on a set built by ``build_rica`` against a run on its
source set, accuracy over the axioms both answered."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from commonsense.metrics.rica_bias import shared_axiom_accuracy
from explorer import charts
from explorer.panels.base import Panel
from explorer.selectors import errors as es
from runs.models import Run
from runs.selectors.runs import metric_values

NAMES = ("accuracy", "all_perturbations_correct", "positivity_bias", "gold_positive_share")


def _metrics(runs: Sequence[Run]) -> dict[int, dict[str, float | None]]:
    out: dict[int, dict[str, float | None]] = {r.pk: {} for r in runs}
    for m in metric_values(runs, NAMES, scope="overall"):
        out[m.run][m.name] = m.value
    return out


def _entities(run: Run) -> str:
    qs = run.question_set
    return "novel" if qs is not None and (qs.params or {}).get("entities") == "novel" else "as imported"


def rica_panels(runs: Sequence[Run], want: Callable[..., bool], label: Callable[[Run], str]) -> list[Panel]:
    if not want("rica-summary", "rica-names-novel"):
        return []
    m = _metrics(runs)
    rica = [r for r in runs if m[r.pk].get("all_perturbations_correct") is not None]
    panels: list[Panel] = []
    if not rica:
        return panels
    if want("rica-summary"):
        groups = ["accuracy", "joint (all perturbations)", "positivity bias", "gold positive share"]
        series = [charts.Series(label(r), [m[r.pk].get(k) for k in NAMES]) for r in rica]
        rows: list[Any] = [(label(r), r.set_name, _entities(r), *(m[r.pk].get(k) for k in NAMES)) for r in rica]
        panels.append(
            Panel(
                "rica-summary",
                "RICA: accuracy, Joint score and positivity bias per run (Fig. 5a)",
                charts.grouped_bars(groups, series, axis="measure", value="share"),
                ["run", "set", "entities", "accuracy", "joint", "positivity bias", "gold positive share"],
                rows,
                click="",
                note="Joint: share of axioms with every perturbation right. Positivity: share of chosen "
                "comparatives that are the positive word (more, better, easier, higher, larger, faster); "
                "chance and an unbiased model sit at the gold share.",
            )
        )
    pairs = []
    by_set = {r.set_name: r for r in rica}
    for r in rica:
        src = (r.question_set.params or {}).get("source_set") if r.question_set is not None else None
        if src and src in by_set:
            pairs.append((by_set[src], r))
    if pairs and want("rica-names-novel"):
        rows = []
        for names, novel in pairs:
            a, b, n = shared_axiom_accuracy(es.rica_axiom_counts(names), es.rica_axiom_counts(novel))
            rows.append((f"{label(names)} vs {label(novel)}", n, a, b))
        series = [
            charts.Series("entities as imported", [r[2] for r in rows]),
            charts.Series("novel entities", [r[3] for r in rows]),
        ]
        panels.append(
            Panel(
                "rica-names-novel",
                "RICA: entities as imported vs novel entities on the same axioms (Fig. 5b)",
                charts.grouped_bars([r[0] for r in rows], series, axis="runs compared"),
                ["runs", "shared axioms", "accuracy (as imported)", "accuracy (novel)"],
                rows,
                click="",
            )
        )
    return panels
