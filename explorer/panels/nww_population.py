"""Panels of the NWW population analyses (runs.selectors.nww_population): silicon fidelity against the
survey raters with the human split-half baseline (Fig. 4A), feature differences with 50 %/95 %
intervals (Fig. 3C), the Variant II majority (Table C.2) and the (a)/(b) divergence (Table B.2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from commonsense.metrics.nww_population import PAPER_MODELS
from explorer import charts
from explorer.charts import nww_population as nww_population_charts
from explorer.panels.base import Panel, run_label
from explorer.selectors import sources
from explorer.selectors.run_aggregates import for_finished_runs
from runs.models import Run
from runs.selectors.nww_population import population_report

KEYS = ("fidelity", "feature-diff", "variant-ii", "ab-divergence")
HUMANS_PENDING = (
    "No survey answers on this statement set yet: fidelity, the split-half baseline, the humans' feature "
    "differences and the Variant II majority need a survey campaign's ratings (annotation app)."
)
ALPHA = 0.05


def _label(run: Run) -> str:
    return run_label(run)


def population_panels(
    run: Run,
    want: Callable[..., bool],
    others: Sequence[Run] = (),
    reads: sources.SurveyReads | None = None,
    extras: Mapping[int, Mapping[int, Any]] | None = None,
) -> list[Panel]:
    """The four panels of one statement run; ``others`` (runs on the same set) join the fidelity
    table and its Bonferroni factor. ``reads`` (the page's survey reads) and ``extras`` (the runs'
    answers, runs.selectors.runs.statement_extras): when the page read them already."""
    if not want(*KEYS):
        return []
    wants_humans = want("fidelity", "feature-diff", "variant-ii")
    rep = _human_report(run, others, reads, extras) if wants_humans else None
    rep = rep if rep is not None else silicon_report(run, extras)
    names = {r.pk: _label(r) for r in [run, *others]}
    panels = []
    if want("fidelity"):
        panels.append(fidelity_panel(rep, names))
    if want("feature-diff"):
        panels.append(feature_panel({_label(run): rep}))
    if want("variant-ii"):
        panels.append(variant_panel(_label(run), rep))
    if want("ab-divergence"):
        panels.append(divergence_panel([(_label(run), rep)]))
    return panels


def silicon_report(run: Run, extras: Mapping[int, Mapping[int, Any]] | None = None) -> dict[str, Any]:
    """The report without humans: the run's own answers and its set's statements only, so cached
    once the run is finished (the silicon feature differences bootstrap every feature)."""
    return for_finished_runs([run], "nww-population", lambda: population_report(run, None, extras=extras))


def _human_report(
    run: Run,
    others: Sequence[Run] = (),
    reads: sources.SurveyReads | None = None,
    extras: Mapping[int, Mapping[int, Any]] | None = None,
) -> dict[str, Any] | None:
    """The report with the humans of the set's latest survey campaign (None without one): kept
    while the runs are finished, under the state of the survey's answers (``SurveyReads.version``)."""
    reads = reads if reads is not None else sources.SurveyReads(run.statement_set)

    def compute() -> dict[str, Any] | None:
        humans = sources.survey_ratings(run.statement_set, reads)
        return None if humans is None else population_report(run, humans, others, extras=extras)

    return reads.cached("nww-population", compute, [run, *others])


def compare_population_panels(runs: Sequence[Run], want: Callable[..., bool]) -> list[Panel]:
    """Fidelity of every run, feature differences of every run beside the humans', divergence."""
    if not runs or not want(*KEYS):
        return []
    same_set = len({r.statement_set_id for r in runs}) == 1
    first = _human_report(runs[0], runs[1:]) if same_set else None
    first = first if first is not None else silicon_report(runs[0])
    reps = {_label(runs[0]): first} | {_label(r): silicon_report(r) for r in runs[1:]}
    panels = []
    if want("fidelity") and same_set:
        panels.append(fidelity_panel(first, {r.pk: _label(r) for r in runs}))
    if want("feature-diff"):
        panels.append(feature_panel(reps))
    if want("ab-divergence"):
        panels.append(divergence_panel(list(reps.items())))
    return panels


def fidelity_panel(rep: dict[str, Any], names: dict[int, str]) -> Panel:
    rows, bars = [], []
    for f in rep.get("fidelity") or []:
        name = names.get(f["run"], f"#{f['run']}")
        r, p = f["commonsensicality_r"], f["commonsensicality_p_bonferroni"]
        if r is None:  # no (b) answers: the P(yes) / agree-rate correlation
            r, p = f["agree_r"], f["agree_p_bonferroni"]
        bars.append((name, r, p is not None and p < ALPHA))
        rows.append(
            (
                name,
                f["agree_r"],
                f["agree_p_bonferroni"],
                f["commonsensicality_r"],
                f["commonsensicality_p_bonferroni"],
                f["n"],
            )
        )
    sh = rep.get("split_half")
    baseline = None
    if sh:
        lo, hi = sh["commonsensicality_ci95"]
        baseline = (sh["commonsensicality_r"], lo, hi)
        rows.append(("humans: split-half", sh["agree_r"], None, sh["commonsensicality_r"], None, sh["repetitions"]))
    return Panel(
        "fidelity",
        "Silicon fidelity: Pearson r with the survey raters per statement (NWW Fig. 4A)",
        nww_population_charts.fidelity_bars(bars, baseline),
        ["model", "r P(yes) vs agree rate", "p (Bonferroni)", "r m_i silicon vs human", "p (Bonferroni)", "n"],
        rows,
        click="",
        note=(
            f"Humans: {rep['humans']['source']}, {rep['humans']['raters']} raters. Two-sided p-values × "
            f"{rep.get('bonferroni_factor', PAPER_MODELS)} (Bonferroni over the paper's {PAPER_MODELS} models, "
            "or over the runs compared when more); the split-half row is the mean r of 1,000 random halves "
            "of the raters (n = repetitions)."
            if rep.get("humans")
            else HUMANS_PENDING
        ),
    )


def feature_panel(reps: dict[str, dict[str, Any]]) -> Panel:
    rows, pts = [], []
    humans_done = False
    for name, rep in reps.items():
        for feature, d in rep["feature_differences"].items():
            pops = [(name + " (silicon)", d["model"])]
            if "human" in d and not humans_done:
                pops.insert(0, ("humans", d["human"]))
            for pop, e in pops:
                pts.append((pop, feature, e["value"], tuple(e["ci50"]), tuple(e["ci95"])))
                rows.append((pop, feature, e["value"], *e["ci50"], *e["ci95"], e["n_pole1"], e["n_pole0"]))
        humans_done = humans_done or any("human" in d for d in rep["feature_differences"].values())
    return Panel(
        "feature-diff",
        "Feature differences: mean commonsensicality pole 1 − pole 0, 50 % and 95 % intervals (NWW Fig. 3C)",
        nww_population_charts.feature_differences(pts),
        ["population", "feature", "difference", "50% low", "50% high", "95% low", "95% high", "n pole 1", "n pole 0"],
        rows,
        click="",
        note="1,000 bootstrap resamples of statements within each pole. Pole 1: social, everyday, figure of "
        "speech, normative, opinion, reasoning.",
    )


def variant_panel(name: str, rep: dict[str, Any]) -> Panel:
    v = rep.get("variant_two")
    if not v:
        return Panel(
            "variant-ii",
            "Variant II: the model's vote added to the human majority (NWW Table C.2)",
            charts.empty_figure(HUMANS_PENDING),
            ["majority", "consensus", "awareness", "commonsensicality", "n"],
            [],
            click="",
            note=HUMANS_PENDING,
        )
    d = v["default"]
    series = [
        charts.Series("human majority (default)", [d["consensus"], d["awareness"], d["commonsensicality"]]),
        charts.Series("human + model majority (Variant II)", [v["consensus"], v["awareness"], v["commonsensicality"]]),
    ]
    return Panel(
        "variant-ii",
        "Variant II: the model's vote added to the human majority (NWW Table C.2)",
        charts.grouped_bars(["consensus", "awareness", "commonsensicality"], series, axis="score", value="score"),
        ["majority", "consensus", "awareness", "commonsensicality", "n", "majorities flipped"],
        [
            ("human majority (default)", d["consensus"], d["awareness"], d["commonsensicality"], v["n"], 0),
            (
                "human + model (Variant II)",
                v["consensus"],
                v["awareness"],
                v["commonsensicality"],
                v["n"],
                v["majorities_flipped"],
            ),
        ],
        click="",
        note=f"{name}: majorities from the survey raters' answers to (a).",
    )


def divergence_panel(reps: Sequence[tuple[str, dict[str, Any]]]) -> Panel:
    groups = sorted({g for _, rep in reps for g in rep["ab_divergence"]["by_elicitation"]})
    series = []
    for name, rep in reps:
        by = rep["ab_divergence"]["by_elicitation"]
        series.append(
            charts.Series(
                name,
                [by[g]["rate"] if g in by else None for g in groups],
                [by[g]["n"] if g in by else 0 for g in groups],
            )
        )
    rows = []
    for name, rep in reps:
        d = rep["ab_divergence"]
        rows.append((name, "(all statements)", d["rate"], d["n"], None, None))
        rows += [(name, e["statement"], None, None, e["p_yes_a"], e["p_yes_b"]) for e in d["examples"]]
    return Panel(
        "ab-divergence",
        "Answers to (a) and (b) that diverge, by statement source (NWW SI C, Table B.2)",
        charts.grouped_bars(
            groups, series, axis="source", value="divergence rate", empty="No statement answered on both questions."
        ),
        ["run", "statement", "divergence rate", "n", "P(yes) (a)", "P(yes) (b)"],
        rows,
        click="",
        note="Rate: share of statements answered on both questions whose binarised answers differ; "
        "examples: the diverging statements with the widest P(yes) gap.",
    )
