"""Comparing a model with the human raters (NWW SI C.4 and SI D).

- :func:`respondent_percentile`: for each human rater j, the model's commonsensicality recomputed on
  j's statements only (C.4: every statement of Φ_j with a human majority counts, a statement the
  model left unanswered is a miss, as in Eq. 16), compared with M_j (Eqs. 9–11, own vote included
  by default); "model wins" = share of raters with M_model − M_j > 0.
- :func:`silicon_fidelity`: Pearson r between the model's P(yes) and the human agree rate per
  statement and, when (b) rates are given, between the silicon and human statement
  commonsensicality m_i (the paper's "fidelity"), with bootstrap intervals over statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from .bootstrap import LEVEL, N_BOOT, FloatArray, IntArray, as_float_vector, interval, replicate
from .nww import _pair, binarise, human_majority, rater_scores, scores_from_rates


@dataclass(frozen=True, slots=True)
class Percentile:
    wins: float  # share of raters the model beats (the paper's "model wins")
    ties: float
    n_raters: int
    model_per_rater: FloatArray  # the model's M on each rater's statements (NaN if undefined)
    human: FloatArray  # each rater's M_j


def respondent_percentile(
    answer_agree: npt.ArrayLike,
    answer_predict: npt.ArrayLike,
    agree: npt.ArrayLike,
    predict: npt.ArrayLike,
    *,
    leave_one_out: bool = False,
    threshold: float = 0.5,
) -> Percentile:
    """The model's standing among the raters of a rater × statement matrix. The model is scored
    against the full human majority on each rater's statements (unanswered = miss); each rater
    against the majority with their own vote (the default, the paper's C.4 exactly) or, with
    ``leave_one_out=True``, without it."""
    (p,) = respondent_percentiles(
        [(answer_agree, answer_predict)], agree, predict, leave_one_out=leave_one_out, threshold=threshold
    )
    return p


def respondent_percentiles(
    answers: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    agree: npt.ArrayLike,
    predict: npt.ArrayLike,
    *,
    leave_one_out: bool = False,
    threshold: float = 0.5,
) -> list[Percentile]:
    """:func:`respondent_percentile` of several models (their (a), (b) answers) among the same
    raters: the raters' majority and scores, which do not depend on the model, computed once."""
    a, b = _pair(agree, predict)
    maj = human_majority(a)
    seen_a, seen_b = (~np.isnan(a)).astype(float), (~np.isnan(b)).astype(float)
    human = rater_scores(a, b, leave_one_out=leave_one_out).commonsensicality
    out = []
    for answer_agree, answer_predict in answers:
        qa, qb = binarise(answer_agree, threshold), binarise(answer_predict, threshold)
        if not qa.size == qb.size == a.shape[1]:
            raise ValueError(f"model answers cover {qa.size}/{qb.size} statements, the matrix {a.shape[1]}")
        rated = (~np.isnan(maj)).astype(float)  # Eq. 16: n_s counts every statement with a majority
        hit_c = np.where(~np.isnan(qa) & (rated > 0), qa == maj, False).astype(float)
        hit_a = np.where(~np.isnan(qb) & (rated > 0), qb == maj, False).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mc = (seen_a @ hit_c) / (seen_a @ rated)
            ma = (seen_b @ hit_a) / (seen_b @ rated)
            model = np.sqrt(mc * ma)
        both = np.isfinite(model) & np.isfinite(human)
        n = int(both.sum())
        diff = model[both] - human[both]
        wins = float((diff > 0).mean()) if n else float("nan")
        ties = float((diff == 0).mean()) if n else float("nan")
        out.append(Percentile(wins, ties, n, model, human))
    return out


@dataclass(frozen=True, slots=True)
class Correlation:
    r: float | None
    p_value: float | None
    low: float | None
    high: float | None
    n: int


def _rowwise_r(x: FloatArray, y: FloatArray) -> FloatArray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1)))


def pearson(
    x: npt.ArrayLike, y: npt.ArrayLike, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL
) -> Correlation:
    """Pearson r (scipy) over pairs where both are present, with a percentile-bootstrap interval."""
    xa, ya = as_float_vector(x, "x"), as_float_vector(y, "y")
    if xa.shape != ya.shape:
        raise ValueError(f"x and y differ in length: {xa.size} vs {ya.size}")
    ok = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[ok], ya[ok]
    n = int(xa.size)
    if n < 3 or np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return Correlation(None, None, None, None, n)
    res = stats.pearsonr(xa, ya)

    def stat(idx: IntArray) -> FloatArray:
        return _rowwise_r(xa[idx], ya[idx])

    lo, hi = interval(replicate(stat, n, n_boot=n_boot, seed=seed), level)
    return Correlation(float(res.statistic), float(res.pvalue), lo, hi, n)


@dataclass(frozen=True, slots=True)
class Fidelity:
    agree: Correlation  # r(model P(yes) to (a), human share agreeing)
    commonsensicality: Correlation | None  # r(m_i silicon, m_i human), when (b) rates are given


def silicon_fidelity(
    model_p_yes_agree: npt.ArrayLike,
    human_agree_rate: npt.ArrayLike,
    model_p_yes_predict: npt.ArrayLike | None = None,
    human_predict_rate: npt.ArrayLike | None = None,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> Fidelity:
    """The model as a silicon population compared with the humans, statement by statement."""
    agree = pearson(model_p_yes_agree, human_agree_rate, n_boot=n_boot, seed=seed, level=level)
    if model_p_yes_predict is None or human_predict_rate is None:
        return Fidelity(agree, None)
    silicon = scores_from_rates(model_p_yes_agree, model_p_yes_predict)
    human = scores_from_rates(human_agree_rate, human_predict_rate)
    m = pearson(silicon.commonsensicality, human.commonsensicality, n_boot=n_boot, seed=seed, level=level)
    return Fidelity(agree, m)
