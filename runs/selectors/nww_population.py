"""NWW population analyses of a statement run, computed on demand (commonsense.metrics.nww_population):
(a)/(b) divergence with examples, the silicon population's feature differences and, given human
ratings (a survey campaign's rater × statement matrices, passed in by the caller: the annotation
app sits above this one), silicon fidelity with Bonferroni, the human split-half baseline, the
humans' feature differences, the Variant II majority, and the regressions of
commonsense.metrics.nww_regress: m_i^m against m_i^h (Fig. 4B's 50-fold CV R², when at least 100
statements have both), MAE / RMSE (Fig. D.1) and P(yes) per decile of the human agree rate for
(a) and (b) (Figs. B.2 / B.3).

A statement's P(yes) is its prediction's ``extra["q1"]["p_yes"]`` (``extra["q2"]`` for question
(b)), else the binary ``chosen`` (see :func:`runs.selectors.nww_population.record_p_yes`); missing = NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from commonsense.metrics import nww
from commonsense.metrics import nww_population as P
from commonsense.metrics import nww_regress as R
from commonsense.metrics.bootstrap import FloatArray
from runs.models import Run
from runs.selectors.runs import statement_extras, statement_rows
from runs.signals import human_ratings_wanted

N_EXAMPLES = 10
# the seed of the humans' own resampling (the split-half baseline, the humans' feature differences):
# a survey's figures are the same beside every run; the model's own bootstraps take the run's seed
HUMAN_SEED = 0


def record_p_yes(rec: Any) -> float | None:
    """P(yes) of one NWW question's record (``p_yes``, else the binary ``chosen``), None if absent."""
    if not isinstance(rec, dict):
        return None
    v = rec.get("p_yes", rec.get("chosen"))
    return None if v is None else float(v)


@dataclass(frozen=True)
class HumanRatings:
    """Rater × statement matrices (1 yes / 0 no / NaN unrated) over ``statement_ids``."""

    statement_ids: Sequence[int]
    agree: FloatArray
    predict: FloatArray
    source: str


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def run_answers(
    run: Run, statement_ids: Sequence[int], extras: Mapping[int, Any] | None = None
) -> tuple[FloatArray, FloatArray]:
    """P(yes) to (a) and (b) per statement of ``statement_ids`` (NaN where the run has none).
    ``extras``: the run's {statement id: prediction extra} when read already."""
    pos = {sid: i for i, sid in enumerate(statement_ids)}
    pa, pb = np.full(len(pos), np.nan), np.full(len(pos), np.nan)
    rows = (extras if extras is not None else statement_extras([run])[run.pk]).items()
    for sid, extra in rows:
        i = pos.get(sid)
        if i is None or not isinstance(extra, dict):
            continue
        a, b = record_p_yes(extra.get("q1")), record_p_yes(extra.get("q2"))
        pa[i] = np.nan if a is None else a
        pb[i] = np.nan if b is None else b
    return pa, pb


def _fd(d: P.FeatureDifference) -> dict[str, Any]:
    return {"value": _num(d.value), "ci50": list(d.ci50), "ci95": list(d.ci95), "n_pole1": d.n1, "n_pole0": d.n0}


def human_columns(humans: HumanRatings, statement_ids: Sequence[int]) -> tuple[FloatArray, FloatArray]:
    """The human matrices with one column per statement of ``statement_ids`` (NaN if not surveyed)."""
    col = {sid: j for j, sid in enumerate(humans.statement_ids)}
    n_r = humans.agree.shape[0]
    a, b = np.full((n_r, len(statement_ids)), np.nan), np.full((n_r, len(statement_ids)), np.nan)
    for i, sid in enumerate(statement_ids):
        j = col.get(sid)
        if j is not None:
            a[:, i], b[:, i] = humans.agree[:, j], humans.predict[:, j]
    return a, b


def population_report(
    run: Run,
    humans: HumanRatings | None = None,
    others: Sequence[Run] = (),
    *,
    n_boot: int = 1000,
    n_split: int = 1000,
    extras: Mapping[int, Mapping[int, Any]] | None = None,
) -> dict[str, Any]:
    """Everything as plain JSON. ``others``: the other statement runs on the same set, compared in
    the fidelity table (the Bonferroni factor is the paper's 35 models, or the number of runs with a
    defined r when larger: ``P.bonferroni_factor``). ``extras``:
    {run id: {statement id: prediction extra}} of runs read already (runs.selectors.runs.statement_extras);
    a run not in it is read here."""
    extras = extras or {}
    stmts = statement_rows(run.statement_set_id)
    ids = [s[0] for s in stmts]
    pa, pb = run_answers(run, ids, extras.get(run.pk))
    seed = int(run.seed or 0)
    div = P.ab_divergence(pa, pb)
    order = sorted(div.diverging.tolist(), key=lambda i: -abs(pa[i] - pb[i]))[:N_EXAMPLES]
    by_source: dict[str, list[int]] = {}
    for i, s in enumerate(stmts):
        if not (math.isnan(pa[i]) or math.isnan(pb[i])):
            by_source.setdefault(s[3] or "(none)", []).append(i)
    diverging = set(div.diverging.tolist())
    silicon = nww.silicon_population(pa, pb)
    features = sorted({k for s in stmts for k in (s[2] or {})})
    poles = {f: np.array([float((s[2] or {}).get(f, np.nan)) for s in stmts]) for f in features}
    out: dict[str, Any] = {
        "statements": len(ids),
        "ab_divergence": {
            "rate": div.rate,
            "n": div.n,
            "diverging": len(diverging),
            "by_elicitation": {
                k: {"rate": sum(i in diverging for i in v) / len(v), "n": len(v)} for k, v in sorted(by_source.items())
            },
            "examples": [
                {"statement_id": ids[i], "statement": stmts[i][1], "p_yes_a": float(pa[i]), "p_yes_b": float(pb[i])}
                for i in order
            ],
        },
        "silicon": {
            k: _num(float(np.nanmean(getattr(silicon, k)))) if np.isfinite(getattr(silicon, k)).any() else None
            for k in ("consensus", "awareness", "commonsensicality")
        },
        "feature_differences": {
            f: {"model": _fd(P.feature_difference(silicon.commonsensicality, poles[f], n_boot=n_boot, seed=seed))}
            for f in features
        },
    }
    if humans is None or not humans.agree.size:
        out["humans"] = None
        return out
    ha, hb = human_columns(humans, ids)
    hs = nww.statement_scores(ha, hb)
    out["humans"] = {
        "source": humans.source,
        "raters": int(ha.shape[0]),
        "statements": int(np.isfinite(hs.agree_rate).sum()),
    }
    for f in features:
        out["feature_differences"][f]["human"] = _fd(
            P.feature_difference(hs.commonsensicality, poles[f], n_boot=n_boot, seed=HUMAN_SEED)
        )
    models = [(run, pa, pb)] + [(o, *run_answers(o, ids, extras.get(o.pk))) for o in others if o.pk != run.pk]
    table = P.fidelity_table([(str(r.pk), a, b) for r, a, b in models], hs.agree_rate, hs.predict_rate)
    out["fidelity"] = [
        {
            "run": int(row.name),
            "agree_r": row.agree_r,
            "agree_p": row.agree_p,
            "agree_p_bonferroni": row.agree_p_bonferroni,
            "commonsensicality_r": row.m_r,
            "commonsensicality_p": row.m_p,
            "commonsensicality_p_bonferroni": row.m_p_bonferroni,
            "n": row.n,
        }
        for row in table
    ]
    out["bonferroni_factor"] = P.bonferroni_factor(sum(row.agree_r is not None for row in table))
    sh = P.split_half(ha, hb, n_rep=n_split, seed=HUMAN_SEED)
    out["split_half"] = {
        "commonsensicality_r": sh.commonsensicality_r,
        "commonsensicality_ci95": list(sh.commonsensicality_ci95),
        "agree_r": sh.agree_r,
        "agree_ci95": list(sh.agree_ci95),
        "repetitions": sh.n_rep,
    }
    seen = np.isfinite(ha)
    k, n = np.where(seen, ha, 0.0).sum(axis=0), seen.sum(axis=0).astype(float)
    default = nww.respondent_scores(pa, pb, hs.majority, n_boot=0)
    v2 = P.variant_two(pa, pb, k, n)
    out["variant_two"] = {
        "consensus": v2.consensus,
        "awareness": v2.awareness,
        "commonsensicality": v2.commonsensicality,
        "n": v2.n,
        "majorities_flipped": v2.flipped,
        "default": {
            "consensus": default.consensus.value,
            "awareness": default.awareness.value,
            "commonsensicality": default.commonsensicality.value,
        },
    }
    out |= _regressions(nww.silicon_population(pa, pb).commonsensicality, hs, pa, pb)
    return out


def _regressions(model_m: FloatArray, hs: nww.StatementScores, pa: FloatArray, pb: FloatArray) -> dict[str, Any]:
    human_m = hs.commonsensicality
    err = R.errors(model_m, human_m)
    both = int((np.isfinite(model_m) & np.isfinite(human_m)).sum())
    cv = R.cv_r2(model_m, human_m, folds=R.FOLDS, seed=HUMAN_SEED) if both >= 2 * R.FOLDS else None

    def cal(p: FloatArray, rate: FloatArray) -> dict[str, Any]:
        c = R.calibration(p, rate)
        bins = [
            {"low": b.low, "high": b.high, "n": b.n, "q1": b.q1, "median": b.median, "q3": b.q3, "mean": b.mean}
            for b in c.bins
        ]
        return {"r": c.r, "rmse": c.rmse, "bins": bins}

    return {
        "errors": {"mae": _num(err.mae), "rmse": _num(err.rmse), "n": err.n},
        "cv_r2": None if cv is None else {"mean": cv.mean, "sd": cv.sd, "folds": cv.folds, "n": cv.n},
        "calibration": {"q1": cal(pa, hs.agree_rate), "q2": cal(pb, hs.predict_rate)},
    }


def human_ratings(statement_set: Any) -> HumanRatings | None:
    """The set's human ratings from the app above runs that keeps them (annotation's survey
    campaigns, answering :data:`runs.signals.human_ratings_wanted`), or None."""
    for _, got in human_ratings_wanted.send(sender=type(statement_set), statement_set=statement_set):
        if got is not None:
            return cast(HumanRatings, got)
    return None
