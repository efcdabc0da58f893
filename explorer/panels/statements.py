"""The panels of a statement run (NWW): consensus against awareness over the runs on the same set,
the feature differences, the run's percentile among the human raters, and the population analyses
(:mod:`explorer.panels.nww_population`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse

from explorer import charts
from explorer.charts import nww as nww_charts
from explorer.panels import nww_population as nww_population_panels
from explorer.panels.accuracy import items_hrefs, panels_wanted
from explorer.panels.base import Panel, run_label
from explorer.selectors import nww as ns
from explorer.selectors import sources
from knowledge.models import StatementSet
from runs.models import Run
from runs.selectors.runs import LazyStatementExtras, runs_on_statement_set

STORED = "answers stored with the statements"
ANSWER_PANELS = ("human-percentile", *nww_population_panels.KEYS)  # read every statement's (a)/(b) answers


def statement_run_panels(run: Run, *, only: str = "") -> list[Panel]:
    want, panels = panels_wanted(only), []
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
    stored = []
    if sset is not None:
        stored = [(m, c, a, "", STORED) for m, c, a in ns.nww_stored_model_scores(sset)]
    points += stored
    rows = [(name, c, a, ns.commonsensicality(c, a), group) for name, c, a, _, group in points]
    drawn = [r for r in runs if scores[r.pk].get("consensus") is not None and scores[r.pk].get("awareness") is not None]
    with_stored = sset is not None and any(c is not None and a is not None for _, c, a, _, _ in stored)
    return Panel(
        "nww-ca",
        "Consensus vs awareness, with commonsensicality level curves (NWW Fig. 2B)",
        nww_charts.consensus_awareness(points),
        ["model", "consensus", "awareness", "commonsensicality", "source"],
        rows,
        links=[p[3] for p in points],
        click="navigate",
        warning=different_items_warning(
            drawn, ns.statement_items(drawn), ns.statements_with_majority(sset) if with_stored and sset else None
        ),
    )


def different_items_warning(runs: Sequence[Run], items: Mapping[int, ns.StatementItems], stored: int | None) -> str:
    """A sentence when the runs' consensus and awareness are over different statements (another
    set, or another subset: a run limited to its first items), or over other statements than the
    answers stored with the set (``stored``: how many statements with a human majority it has);
    empty when every point is over the same statements."""
    groups: dict[tuple[int, str], list[Run]] = {}
    for r in runs:
        it = items.get(r.pk)
        if it is not None:
            groups.setdefault((it.statement_set, it.digest), []).append(r)
    sizes = {k: items[rs[0].pk].n for k, rs in groups.items()}
    if len(groups) <= 1 and (stored is None or all(n == stored for n in sizes.values())):
        return ""
    parts = [
        f"{', '.join(run_label(r) for r in rs)}: {sizes[k]:,} statement{'' if sizes[k] == 1 else 's'} of {rs[0].set_name}"
        for k, rs in groups.items()
    ]
    if stored is not None:
        parts.append(f"{STORED}: the set's {stored:,} statements with a human majority")
    return (
        "These points are over different statements (" + "; ".join(parts) + "): compare them with care, "
        "a run on other or fewer statements is not the same test."
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
