"""NWW's regressions (spec §2.7–2.8, SI B–D), with scikit-learn and statsmodels.

- :func:`cv_r2`: out-of-sample R² of a linear regression, mean and SD over K folds (the paper's
  50-fold cross-validation): one model's m_i^m against the humans' m_i^h (Fig. 4B), or all 35
  models at once (Fig. 4C, "the ensemble", R² = .36), with the out-of-fold predictions.
- :func:`errors`: MAE and RMSE of m_i^m − m_i^h (Fig. D.1).
- :func:`size_model`: the mixed-effects model ``commonsensicality ~ log10(size) + (1 | family)``
  (Eq. 19, Fig. 2C; statsmodels' MixedLM by REML, as R's lmer): a 10× larger model scores β more.
- :func:`elo_win`, :func:`elo_correlation`: LMArena's Eq. 20 and Pearson r of M with Elo (Fig. 2D),
  with the Fisher-z 95 % interval.
- :func:`calibration`: model P(yes) per decile of the human agree rate, with each bin's quartiles
  and mean, and the model's Pearson r and RMSE against the rate (Figs. B.2 / B.3's violins).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from .bootstrap import FloatArray, as_float_vector

FOLDS = 50


@dataclass(frozen=True, slots=True)
class CvR2:
    mean: float
    sd: float
    folds: int
    n: int
    predicted: FloatArray  # out-of-fold prediction of every row (NaN for rows left out)


def cv_r2(x: npt.ArrayLike, y: npt.ArrayLike, *, folds: int = FOLDS, seed: int = 0) -> CvR2:
    """Linear regression of ``y`` on ``x`` (one column or a rows × predictors matrix), R² on each
    held-out fold (scikit-learn's ``r2_score``: 1 − SS_res / SS_tot within the fold), over
    ``folds`` shuffled folds (seeded). Rows with a missing value are left out."""
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score
    from sklearn.model_selection import KFold

    xa = np.asarray(x, dtype=float)
    xa = xa.reshape(-1, 1) if xa.ndim == 1 else xa
    ya = as_float_vector(y, "y")
    if xa.shape[0] != ya.size:
        raise ValueError(f"{xa.shape[0]} rows of predictors for {ya.size} outcomes")
    ok = np.isfinite(ya) & np.isfinite(xa).all(axis=1)
    xs, ys = xa[ok], ya[ok]
    if ys.size < 2 * folds:
        raise ValueError(f"{ys.size} complete rows: too few for {folds} folds of at least 2")
    pred = np.full(ys.size, np.nan)
    scores = []
    for train, test in KFold(n_splits=folds, shuffle=True, random_state=seed).split(xs):
        fit = LinearRegression().fit(xs[train], ys[train])
        pred[test] = fit.predict(xs[test])
        scores.append(r2_score(ys[test], pred[test]))
    full = np.full(ya.size, np.nan)
    full[ok] = pred
    return CvR2(float(np.mean(scores)), float(np.std(scores, ddof=1)), folds, int(ys.size), full)


@dataclass(frozen=True, slots=True)
class Errors:
    mae: float
    rmse: float
    n: int


def errors(model: npt.ArrayLike, human: npt.ArrayLike) -> Errors:
    """Fig. D.1: MAE and RMSE of model − human over the statements where both are known."""
    m, h = as_float_vector(model, "model"), as_float_vector(human, "human")
    if m.shape != h.shape:
        raise ValueError(f"model and human differ in length: {m.size} vs {h.size}")
    d = (m - h)[np.isfinite(m) & np.isfinite(h)]
    if not d.size:
        return Errors(float("nan"), float("nan"), 0)
    return Errors(float(np.abs(d).mean()), float(np.sqrt((d * d).mean())), int(d.size))


@dataclass(frozen=True, slots=True)
class SizeModel:
    slope: float  # change in commonsensicality per 10× parameters
    low: float
    high: float
    p_value: float
    n_models: int
    n_families: int


def size_model(score: Sequence[float], size_billions: Sequence[float], family: Sequence[str]) -> SizeModel:
    """Eq. 19: ``score ~ log10(size) + (1 | family)``, a random intercept per family, REML (as R's
    lmer). The interval and p are Wald's (statsmodels); R's ``confint`` profiles the likelihood."""
    import pandas as pd
    import statsmodels.formula.api as smf

    if not len(score) == len(size_billions) == len(family):
        raise ValueError("score, size and family differ in length")
    if any(s <= 0 for s in size_billions):
        raise ValueError("every size must be positive (billions of parameters)")
    d = pd.DataFrame({"score": score, "log_size": np.log10(size_billions), "family": family})
    fit = smf.mixedlm("score ~ log_size", d, groups=d["family"]).fit(reml=True)
    lo, hi = fit.conf_int().loc["log_size"].tolist()
    return SizeModel(
        float(fit.params["log_size"]), float(lo), float(hi), float(fit.pvalues["log_size"]), len(d), d.family.nunique()
    )


def elo_win(r_a: float, r_b: float) -> float:
    """Eq. 20: P(a preferred over b) = 1 / (1 + 10^((R_b − R_a) / 400))."""
    return 1.0 / (1.0 + 10 ** ((r_b - r_a) / 400.0))


@dataclass(frozen=True, slots=True)
class Correlation:
    r: float
    p_value: float
    low: float
    high: float
    n: int


def elo_correlation(score: Sequence[float], elo: Sequence[float | None]) -> Correlation:
    """Fig. 2D: Pearson r of commonsensicality with Elo over the models that have one, two-sided
    p (scipy) and the Fisher-z 95 % interval."""
    pairs = [(s, e) for s, e in zip(score, elo, strict=True) if e is not None]
    if len(pairs) < 4:
        raise ValueError(f"{len(pairs)} models with an Elo rating: too few for an interval")
    x, y = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs], dtype=float)
    res = stats.pearsonr(x, y)
    z, se = math.atanh(float(res.statistic)), 1 / math.sqrt(len(pairs) - 3)
    return Correlation(
        float(res.statistic), float(res.pvalue), math.tanh(z - 1.96 * se), math.tanh(z + 1.96 * se), len(pairs)
    )


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    low: float  # human agree rate, [low, high)
    high: float
    n: int
    q1: float | None
    median: float | None
    q3: float | None
    mean: float | None


@dataclass(frozen=True, slots=True)
class Calibration:
    bins: list[CalibrationBin]
    r: float | None
    rmse: float | None


def calibration(p_yes: npt.ArrayLike, human_rate: npt.ArrayLike, *, bins: int = 10) -> Calibration:
    """Figs. B.2 / B.3: the model's P(yes) in each of ``bins`` equal bins of the human share saying
    yes (the last bin closed at 1), and over all statements r and RMSE of P(yes) against the share."""
    p, h = as_float_vector(p_yes, "p_yes"), as_float_vector(human_rate, "human_rate")
    if p.shape != h.shape:
        raise ValueError(f"p_yes and human_rate differ in length: {p.size} vs {h.size}")
    ok = np.isfinite(p) & np.isfinite(h)
    p, h = p[ok], h[ok]
    idx = np.minimum((h * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        v = p[idx == b]
        q: list[float | None] = [float(x) for x in np.percentile(v, [25, 50, 75])] if v.size else [None] * 3
        mean = float(v.mean()) if v.size else None
        out.append(CalibrationBin(b / bins, (b + 1) / bins, int(v.size), q[0], q[1], q[2], mean))
    r = float(stats.pearsonr(p, h).statistic) if p.size >= 3 and np.ptp(p) > 0 and np.ptp(h) > 0 else None
    rmse = float(np.sqrt(((p - h) ** 2).mean())) if p.size else None
    return Calibration(out, r, rmse)
