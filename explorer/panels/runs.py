"""The panels of the model-error pages, assembled from the selectors and the figure builders.
Panels only appear when the run's items carry what they need (roles for CoCo, a perturbation for
RICA, a difficulty for ReComSBench); each link opens the items behind a bar in the drawer."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import quote_plus, urlencode

from django.urls import get_script_prefix, reverse

from commonsense.metrics.consistency import LABELS as COCO_LABELS
from commonsense.metrics.consistency import category as coco_category
from explorer import charts
from explorer.charts import nww as nww_charts
from explorer.panels import nww_population as nww_population_panels
from explorer.panels.base import Panel, run_label
from explorer.panels.coco_errors import error_category_panel
from explorer.panels.generation import generation_panel, judgement_panel
from explorer.panels.recoms import kba_accuracy_panel, redundancy_panel
from explorer.panels.rica import rica_panels
from explorer.selectors import errors as es
from explorer.selectors import nww as ns
from explorer.selectors import sources
from explorer.selectors.errors import CocoSummary, CoreWindow
from explorer.selectors.rows import GroupAccuracy
from knowledge.models import StatementSet
from runs.models import Run
from runs.selectors.runs import LazyStatementExtras, runs_on_statement_set


def items_href(run: Run, **params: object) -> str:
    return _items_base(run.pk, get_script_prefix()) + "?" + urlencode({k: v for k, v in params.items() if v != ""})


def items_hrefs(run: Run, key: str, values: Sequence[object]) -> list[str]:
    """``items_href(run, key=v)`` for many values (a statement run links each of 4,000 points)."""
    base = _items_base(run.pk, get_script_prefix()) + "?" + quote_plus(key) + "="
    return [base + quote_plus(str(v)) for v in values]


@lru_cache(maxsize=1024)
def _items_base(run_id: int, script_prefix: str) -> str:
    """The drawer URL of a run, resolved once (a statement run links each of thousands of points)."""
    return reverse("explorer:run_items", args=[run_id])


def series_for(runs: Sequence[Run], rows: Sequence[GroupAccuracy], param: str) -> tuple[list[str], list[charts.Series]]:
    """Turn [{run, group, n, ok}] into the shared group axis and one Series per run, each bar
    with its 95% Wilson interval."""
    groups = sorted({str(r["group"]) for r in rows})
    series = []
    for run in runs:
        mine = {str(r["group"]): r for r in rows if r["run"] == run.pk}
        series.append(
            charts.Series(
                run_label(run),
                [(mine[g]["ok"] / mine[g]["n"]) if g in mine and mine[g]["n"] else None for g in groups],
                [int(mine[g]["n"]) if g in mine else 0 for g in groups],
                [items_href(run, **{param: g}) for g in groups],
                [_wilson(mine[g]) if g in mine else None for g in groups],
            )
        )
    return groups, series


def _wilson(row: GroupAccuracy) -> tuple[float, float] | None:
    from runs.selectors.samples import wilson

    low, high = wilson(int(row["ok"]), int(row["n"]))
    return None if low is None or high is None else (low, high)


def min_n_filter(rows: Sequence[GroupAccuracy], min_n: int) -> tuple[list[GroupAccuracy], int]:
    """The breakdown rows with at least ``min_n`` items, and how many groups fell out entirely."""
    if min_n <= 1:
        return list(rows), 0
    kept = [r for r in rows if int(r["n"]) >= min_n]
    hidden = {str(r["group"]) for r in rows} - {str(r["group"]) for r in kept}
    return kept, len(hidden)


def accuracy_panel(
    key: str,
    title: str,
    runs: Sequence[Run],
    rows: Sequence[GroupAccuracy],
    param: str,
    axis: str,
    min_n: int = 0,
) -> Panel:
    kept, hidden = min_n_filter(rows, min_n)
    groups, series = series_for(runs, kept, param)
    table = [
        (run_label(run), g, int(r["n"]), int(r["ok"]), r["ok"] / r["n"] if r["n"] else None)
        for run in runs
        for g in groups
        for r in kept
        if r["run"] == run.pk and str(r["group"]) == g
    ]
    links = [
        items_href(run, **{param: g})
        for run in runs
        for g in groups
        for r in kept
        if r["run"] == run.pk and str(r["group"]) == g
    ]
    note = "Bars: accuracy with its 95% Wilson interval; n = items in the group."
    if min_n > 1:
        note += f" Groups under {min_n} items hidden" + (
            f" ({hidden} {axis} group{'s' if hidden != 1 else ''})." if hidden else "."
        )
    empty = f"No {axis} group has {min_n} items or more." if min_n > 1 else "No predictions to group."
    return Panel(
        key,
        title,
        charts.grouped_bars(groups, series, axis=axis, empty=empty),
        ["run", axis, "n", "correct", "accuracy"],
        table,
        links=links,
        note=note,
    )


# dimension -> (panel key, title, shown without any group): the accuracy breakdowns of es.DIMENSIONS
DIMENSION_PANELS = {
    "relation": ("by-relation", "Accuracy by relation", True),
    "kind": ("by-kind", "Accuracy by query kind", True),
    "perturbation": ("rica", "RICA: accuracy by perturbation", False),  # only on a RICA set
}


def dimension_panels(
    runs: Sequence[Run],
    want: Callable[..., bool],
    min_n: int,
    *dimensions: str,
    acc: Mapping[str, Sequence[GroupAccuracy]] | None = None,
) -> list[Panel]:
    """The accuracy-by-group panels of ``dimensions`` that are wanted (``acc``: rows read already by
    :func:`accuracy_rows`; else one query each, cached)."""
    out = []
    for dim in dimensions:
        key, title, keep_empty = DIMENSION_PANELS[dim]
        if not want(key):
            continue
        rows = acc[dim] if acc is not None and dim in acc else es.accuracy_by(runs, dim)
        if rows or keep_empty:
            out.append(accuracy_panel(key, title, runs, rows, dim, dim, min_n))
    return out


def accuracy_rows(runs: Sequence[Run], want: Callable[..., bool]) -> dict[str, list[GroupAccuracy]]:
    """The wanted dimensions' accuracy rows in one statement (:func:`es.accuracy_by_dims`)."""
    dims = tuple(d for d, (key, _, _) in DIMENSION_PANELS.items() if want(key))
    return es.accuracy_by_dims(runs, dims) if dims else {}


def _wanted(only: str) -> Callable[..., bool]:
    """``only``: the one panel a CSV download asks for ("" = all): the others are not computed."""
    return lambda *keys: not only or only in keys


def question_run_panels(run: Run, *, only: str = "", min_n: int = 0) -> list[Panel]:
    runs, want, panels = [run], _wanted(only), []
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
    windows = want("difficulty", "kba-accuracy") and run.pk in es.runs_with_difficulty(runs)
    core = es.core_windows(runs) if windows else {}  # one read for both panels
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
    """The windows by the run metrics' definition (explorer.selectors.errors.core_windows, or ``core``
    when the caller read them already); ``with_difficulty``: the ids of the runs with a d(Q)
    (:func:`es.runs_with_difficulty`)."""
    series: list[tuple[str, list[float], list[float | None], list[str]]] = []
    rows, links = [], []
    if core is None:
        core = es.core_windows([r for r in runs if r.pk in with_difficulty])
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


ANSWER_PANELS = ("human-percentile", *nww_population_panels.KEYS)  # read every statement's (a)/(b) answers


def statement_run_panels(run: Run, *, only: str = "") -> list[Panel]:
    want, panels = _wanted(only), []
    # the runs on this set (the run among them) and their stored NWW metrics, each read once for all panels
    on_set = runs_on_same_set(run) if want("nww-ca", *ANSWER_PANELS) else [run]
    metrics = ns.nww_run_metrics(on_set) if want("nww-ca", "features", "human-distribution") else None
    reads = sources.SurveyReads(run.statement_set)  # the survey campaigns and answers, read once for all panels
    # the predictions' answers, of every run on the set, where a survey may compare them with its humans;
    # without a survey the panels read this run's answers themselves (cached once the run is finished)
    extras = LazyStatementExtras(on_set) if want(*ANSWER_PANELS) and reads.campaigns else None
    if want("nww-ca"):
        panels.append(nww_scatter_panel(on_set, run.statement_set, metrics))
    if want("silicon"):
        pts = ns.silicon_points(run)
        rates = sources.statement_agree_rates(run.statement_set)
        rate_axis = "human agree rate" if rates else "human majority (0/1)"
        if rates:
            pts = [(s, p, rates[s]) for s, p, _ in pts if s in rates]  # type: ignore[misc]  # a rate, not 0/1
        rows = [(s, p, h) for s, p, h in pts]
        links = items_hrefs(run, "statement", [s for s, _, _ in pts])
        panels.append(
            Panel(
                "silicon",
                "Silicon P(yes) vs human judgement per statement (NWW Fig. 3)",
                nww_charts.silicon_vs_human(
                    [(p, h, href) for (_, p, h), href in zip(pts, links, strict=True)], human_axis=rate_axis
                ),
                ["statement", "model P(yes)", rate_axis],
                rows,
                links=links,
                note=sources.HUMAN_RATES_NOTE,
            )
        )
    if want("features"):
        panels.append(feature_panel([run], metrics))
    if want("human-percentile"):
        panels.append(human_percentile_panel(run, on_set, reads, extras))
    if want("human-distribution"):
        human = sources.human_commonsensicality(run.statement_set, reads)
        pending = "" if human else sources.human_scores_pending(run.statement_set, reads)
        score = metrics.scores.get(run.pk, {}).get("commonsensicality") if metrics is not None else None
        panels.append(
            Panel(
                "human-distribution",
                "The model among human raters (commonsensicality M)",
                nww_charts.model_in_human_distribution(human, [(run_label(run), score)] if score is not None else [])
                if human
                else charts.empty_figure(pending),
                ["rater", "M"],
                [(i + 1, m) for i, m in enumerate(human)],
                click="",
                note="" if human else pending,
            )
        )
    if want(*nww_population_panels.KEYS):
        others = [r for r in on_set if r.pk != run.pk][:19]
        panels += nww_population_panels.population_panels(run, want, others, reads, extras)
    return panels


def runs_on_same_set(run: Run, limit: int = 20) -> list[Run]:
    """The first ``limit`` runs (by id) on ``run``'s statement set, with ``run`` appended when it is
    not among them. Without ``run``, the first ``limit - 1`` of them are the first ``limit - 1``
    others, whether ``run`` is among the first ``limit`` or not."""
    runs = runs_on_statement_set(run.statement_set_id, limit=limit)
    if run not in runs:
        runs.append(run)
    return runs


def human_percentile_panel(
    run: Run,
    runs: Sequence[Run] | None = None,
    reads: sources.SurveyReads | None = None,
    extras: Mapping[int, Mapping[int, Any]] | None = None,
) -> Panel:
    """Fig. 2E for every yes/no run on this statement set against the latest survey campaign's
    humans, with the per-statement human rates d^a, d^b behind the fidelity columns (Fig. 3/4A).
    ``runs`` (:func:`runs_on_same_set` of ``run``), ``reads`` (its set's survey reads) and
    ``extras`` (runs.selectors.runs.statement_extras of runs): when the caller read them already."""
    from explorer.selectors.human_compare import Standing, latest_survey, model_standings, standings_figure

    reads = reads if reads is not None else sources.SurveyReads(run.statement_set)
    runs = list(runs) if runs is not None else runs_on_same_set(run)

    def compute() -> tuple[str, int, list[tuple[Any, ...]]] | None:
        sm = latest_survey(run.statement_set, reads)
        if sm is None:
            return None
        standings = model_standings(runs, sm, extras=extras)
        numbers = [(s.above, s.ties, s.n_humans, s.r_agree, s.r_m) for s in standings]  # cached without the runs
        return sm.campaign.name, len(sm.rater_ids), numbers

    # finished runs against the same survey answers: the same standings (the percentiles and the
    # fidelity bootstraps cost more than the rest of the page)
    found = reads.cached("nww-standings", compute, runs)
    columns = ["run", "rated above % of humans", "ties %", "humans compared", "r(P(yes), d^a)", "r(m silicon, m human)"]
    if found is None:
        return Panel(
            "human-percentile",
            "The model among the campaign's humans (NWW Fig. 2E)",
            charts.empty_figure(sources.HUMAN_SCORES_PENDING),
            columns,
            [],
            click="",
            note=sources.HUMAN_SCORES_PENDING,
        )
    campaign_name, n_raters, numbers = found
    standings = [Standing(r, *row) for r, row in zip(runs, numbers, strict=True)]
    labels = [run_label(r) for r in runs]
    rows = [
        (
            lab,
            None if s.above is None else round(s.above * 100, 1),
            None if s.ties is None else round(s.ties * 100, 1),
            s.n_humans,
            s.r_agree,
            s.r_m,
        )
        for lab, s in zip(labels, standings, strict=True)
    ]
    mine = standings[runs.index(run)]
    return Panel(
        "human-percentile",
        "The model among the campaign's humans (NWW Fig. 2E)",
        standings_figure(labels, standings),
        columns,
        rows,
        click="",
        note=f"{mine.sentence(run_label(run))} Each human's M (NWW Eqs. 9–11) against the model's M on that "
        f"human's statements; humans from campaign {campaign_name} ({n_raters} raters).",
    )


def nww_scatter_panel(runs: Sequence[Run], sset: StatementSet | None, metrics: ns.NwwMetrics | None = None) -> Panel:
    """``metrics``: :func:`ns.nww_run_metrics` of these runs (or more) when the caller read them already."""
    scores = (metrics or ns.nww_run_metrics(runs)).scores
    points = [
        (
            run_label(r),
            scores[r.pk].get("consensus"),
            scores[r.pk].get("awareness"),
            reverse("explorer:run_errors", args=[r.pk]),
            "runs",
        )
        for r in runs
    ]
    if sset is not None:
        points += [(m, c, a, "", "answers stored with the statements") for m, c, a in ns.nww_stored_model_scores(sset)]
    rows = [(name, c, a, ns.commonsensicality(c, a), group) for name, c, a, _, group in points]
    return Panel(
        "nww-ca",
        "Consensus vs awareness, with commonsensicality level curves (NWW Fig. 2B)",
        nww_charts.consensus_awareness(points),
        ["model", "consensus", "awareness", "commonsensicality", "source"],
        rows,
        links=[p[3] for p in points],
        click="navigate",
    )


def feature_panel(runs: Sequence[Run], metrics: ns.NwwMetrics | None = None) -> Panel:
    """``metrics``: :func:`ns.nww_run_metrics` of these runs (or more) when the caller read them already."""
    read = (metrics or ns.nww_run_metrics(runs)).for_runs(runs)
    rows, intervals = read.features, read.intervals
    groups = sorted({f"{f}={pole}" for _, f, pole, _, _ in rows})
    series = []
    for run in runs:
        mine = {f"{f}={pole}": (v, n) for rid, f, pole, v, n in rows if rid == run.pk}
        series.append(
            charts.Series(
                run_label(run),
                [mine.get(g, (None, 0))[0] for g in groups],
                [mine.get(g, (None, 0))[1] for g in groups],
                [],
                [intervals.get((run.pk, g)) for g in groups],
            )
        )
    return Panel(
        "features",
        "Commonsensicality by statement feature (pole 1 / pole 0)",
        charts.grouped_bars(
            groups, series, axis="feature", value="commonsensicality", empty="No feature scores stored for these runs."
        ),
        ["run", "feature", "pole", "commonsensicality", "n"],
        [(run_label(next(r for r in runs if r.pk == rid)), f, pole, v, n) for rid, f, pole, v, n in rows],
        click="",
    )


def compare_panels(runs: Sequence[Run], *, only: str = "", min_n: int = 0) -> list[Panel]:
    qruns = [r for r in runs if not r.is_statement_run]
    sruns = [r for r in runs if r.is_statement_run]
    want, panels = _wanted(only), []
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
        with_difficulty = es.runs_with_difficulty(qruns) if want("difficulty") else set()
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
