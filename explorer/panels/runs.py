"""The panels of the model-error pages, assembled from the selectors and the figure builders.
Panels only appear when the run's items carry what they need (roles for CoCo, a perturbation for
RICA, a difficulty for ReComSBench); each link opens the items behind a bar in the drawer."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from django.urls import reverse

from commonsense.metrics.consistency import LABELS as COCO_LABELS
from commonsense.metrics.consistency import category as coco_category
from explorer import charts
from explorer.panels import nww_population as nww_population_panels
from explorer.panels.accuracy import accuracy_panel, accuracy_rows, dimension_panels, items_href, panels_wanted
from explorer.panels.base import Panel, run_label
from explorer.panels.coco_errors import error_category_panel
from explorer.panels.generation import generation_panel, judgement_panel
from explorer.panels.recoms import kba_accuracy_panel, redundancy_panel
from explorer.panels.rica import rica_panels
from explorer.panels.statements import feature_panel, nww_scatter_panel
from explorer.panels.transfer import curriculum_panel, transfer_panel
from explorer.selectors import errors as es
from explorer.selectors import nww as ns
from explorer.selectors import sources
from explorer.selectors.difficulty import CoreWindow, core_windows, runs_with_difficulty
from explorer.selectors.errors import CocoSummary
from runs.models import Run


def question_run_panels(run: Run, *, only: str = "", min_n: int = 0) -> list[Panel]:
    runs, want, panels = [run], panels_wanted(only), []
    if run.scoring == "generate-answer":  # no option is chosen: the accuracy panels would say 0
        return generation_panel(runs, want, run_label) + judgement_panel(runs, want, run_label)
    acc = accuracy_rows(runs, want)
    panels += dimension_panels(runs, want, min_n, "relation", "kind", acc=acc)
    if want("position-bias"):
        cells, n_opt = es.position_table(run)
        links = [items_href(run, answer=a, chosen="none" if c == -1 else c) for a, c, _ in cells]
        panels.append(
            Panel(
                "position-bias",
                "Position bias: correct option × chosen option",
                charts.position_bias(n_opt, [(a, c, n, h) for (a, c, n), h in zip(cells, links, strict=True)]),
                ["correct option", "chosen option", "predictions"],
                [(chr(65 + a), "none" if c == -1 else chr(65 + c), n) for a, c, n in cells],
                links=links,
                note="Rows: where the correct answer was; columns: what the model chose. A strong column is a position preference.",
            )
        )
    coco = es.coco_summary(runs).get(run.pk) if want("coco") else None
    if coco and coco["n_app"]:
        panels.append(coco_quadrant_panel(run, coco))
    panels += dimension_panels(runs, want, min_n, "perturbation", acc=acc)
    panels += rica_panels(runs, want, run_label)
    panels += error_category_panel(runs, want, run_label)
    windows = want("difficulty", "kba-accuracy") and run.pk in runs_with_difficulty(runs)
    core = core_windows(runs) if windows else {}  # one read for both panels
    if windows and want("difficulty"):
        panels.append(windows_panel(runs, {run.pk}, core))
    fig4 = kba_accuracy_panel(runs, core, run_label) if windows and want("kba-accuracy") else None
    if fig4 is not None:
        panels.append(fig4)
    krr = redundancy_panel(runs, run_label) if windows and want("redundancy") else None
    if krr is not None:
        panels.append(krr)
    if want("by-agreement"):
        levels = sources.agreement_levels_for_run(run)
        panels.append(
            accuracy_panel(
                "by-agreement",
                "Accuracy by human agreement level",
                runs,
                levels,
                "agreement",
                "agreement level",
                min_n,
            )
            if levels
            else Panel(
                "by-agreement",
                "Accuracy by human agreement level",
                charts.empty_figure(sources.AGREEMENT_PENDING),
                ["agreement level", "n", "accuracy"],
                [],
                note=sources.AGREEMENT_PENDING,
            )
        )
    return panels


def coco_quadrant_panel(run: Run, coco: CocoSummary) -> Panel:
    counts = coco["counts"]
    hrefs = {k: items_href(run, coco=f"{int(k[0])},{int(k[1])}") for k in counts}
    rows = [
        (COCO_LABELS[coco_category(*k)], "yes" if k[0] else "no", "yes" if k[1] else "no", n) for k, n in counts.items()
    ]
    return Panel(
        "coco",
        "CoCo application sets: knows the atomic facts × solves the composed question",
        charts.coco_quadrants(counts, hrefs),
        ["category", "knows all atoms", "solves composed", "sets"],
        rows,
        links=[hrefs[k] for k in counts],
        note=f"REA {_fmt(coco['REA'])} · FAI {_fmt(coco['FAI'])} · APP {_fmt(coco['APP'])} (pooled over "
        f"{coco['n_app']} application sets)",
    )


def _fmt(x: object) -> str:
    return f"{x:.1%}" if isinstance(x, float) else "–"


def windows_panel(
    runs: Sequence[Run], with_difficulty: Collection[int], core: Mapping[int, Sequence[CoreWindow]] | None = None
) -> Panel:
    """The windows by the run metrics' definition (explorer.selectors.difficulty.core_windows, or ``core``
    when the caller read them already); ``with_difficulty``: the ids of the runs with a d(Q)
    (:func:`runs_with_difficulty`)."""
    series: list[tuple[str, list[float], list[float | None], list[str]]] = []
    rows, links = [], []
    if core is None:
        core = core_windows([r for r in runs if r.pk in with_difficulty])
    for run in runs:
        wins = core.get(run.pk, [])
        hrefs = [items_href(run, d_min=w["d_min"], d_max=w["d_max"]) for w in wins]
        acc: list[float | None] = [w["accuracy"] for w in wins]
        series.append((run_label(run), [w["mean_d"] for w in wins], acc, hrefs))
        rows += [
            (run_label(run), w["window"] + 1, w["d_min"], w["d_max"], w["mean_d"], w["n"], w["accuracy"]) for w in wins
        ]
        links += hrefs
    return Panel(
        "difficulty",
        "ReComSBench: accuracy over difficulty windows (seven windows of N/3 at step N/9)",
        charts.line_series(series, x_title="mean knowledge number d(Q) in the window"),
        ["run", "window", "d min", "d max", "mean d", "n", "accuracy"],
        rows,
        links=links,
        note="Easy = first window, Hard = last window (ReComSBench §4.2).",
    )


def compare_panels(runs: Sequence[Run], *, only: str = "", min_n: int = 0) -> list[Panel]:
    qruns = [r for r in runs if not r.is_statement_run]
    sruns = [r for r in runs if r.is_statement_run]
    want, panels = panels_wanted(only), []
    panels += generation_panel(qruns, want, run_label) + judgement_panel(qruns, want, run_label)
    qruns = [r for r in qruns if r.scoring != "generate-answer"]  # no option chosen: no accuracy
    if qruns:
        acc = accuracy_rows(qruns, want)
        panels += dimension_panels(qruns, want, min_n, "relation", "kind", acc=acc)
        coco = es.coco_summary(qruns) if want("coco-mem-com-fai", "coco-mem-app-rea") else {}
        if any(v["n_app"] for v in coco.values()):
            panels += coco_scatter_panels(qruns, coco)
        panels += dimension_panels(qruns, want, min_n, "perturbation", acc=acc)
        panels += rica_panels(qruns, want, run_label)
        panels += transfer_panel(qruns, want) + curriculum_panel(qruns, want)
        with_difficulty = runs_with_difficulty(qruns) if want("difficulty") else set()
        if with_difficulty:
            panels.append(windows_panel(qruns, with_difficulty))
    if sruns:
        sset = sruns[0].statement_set if len({r.statement_set_id for r in sruns}) == 1 else None
        metrics = ns.nww_run_metrics(sruns) if want("nww-ca", "features") else None
        if want("nww-ca"):
            panels.append(nww_scatter_panel(sruns, sset, metrics))
        if want("features"):
            panels.append(feature_panel(sruns, metrics))
        panels += nww_population_panels.compare_population_panels(sruns, want)
    return panels


def coco_scatter_panels(runs: Sequence[Run], coco: dict[int, CocoSummary]) -> list[Panel]:
    def val(run: Run, k: str) -> float | None:
        v = coco[run.pk].get(k) if run.pk in coco else None
        return v if isinstance(v, float) else None

    labels, scores, out = [], [], []
    for run in runs:
        m, c, r, f, a = (val(run, k) for k in ("MEM", "COM", "REA", "FAI", "APP"))
        labels.append(run_label(run))
        scores.append(
            (
                m,
                c,
                r,
                f,
                a,
                m * c if m is not None and c is not None else None,
                m * a if m is not None and a is not None else None,
            )
        )
    rows = [(label, *sc) for label, sc in zip(labels, scores, strict=True)]
    links = [reverse("explorer:run_errors", args=[r.pk]) for r in runs]
    cols = ["run", "MEM", "COM", "REA", "FAI", "APP", "MEM×COM", "MEM×APP"]
    # (panel key, x: product column, y column): Appendix E's two views of the same table
    for key, x_col, y_col in (("coco-mem-com-fai", "MEM×COM", "FAI"), ("coco-mem-app-rea", "MEM×APP", "REA")):
        xi, yi = cols.index(x_col) - 1, cols.index(y_col) - 1  # scores have no run column
        out.append(
            Panel(
                key,
                f"CoCo: {x_col} vs {y_col} (Appendix E)",
                charts.labelled_scatter(
                    [(lb, sc[xi], sc[yi], h) for lb, sc, h in zip(labels, scores, links, strict=True)],
                    x_title=x_col.replace("×", " × "),
                    y_title=y_col,
                ),
                cols,
                rows,
                links=links,
                click="navigate",
                note="As Table 3: MEM and COM pooled (Eqs. 4–5, COM over sets of m = 3 conceptualisations), "
                "REA, FAI and APP by Eqs. 6–8 per query kind, then the unweighted mean over the kinds.",
            )
        )
    return out
