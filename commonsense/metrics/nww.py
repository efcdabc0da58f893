"""Commonsensicality (Nguyen, Watts & Whiting; spec §2.4–2.7).

Two yes/no questions per statement: (a) "Do you agree?" and (b) "Do you think most people would
agree?". Rating matrices are **rater × statement** (rows = raters, columns = statements), 1 = yes,
0 = no, NaN = not rated. Scores are fractions in [0, 1] (the paper prints them ×100).

- Statement level (Eqs. 3–8, and Eqs. 22–25 for a model's silicon population): with ``d_a`` the
  share agreeing and ``d_b`` the share saying most people agree, majority = ``d_a >= 0.5`` (a tie
  counts as "agree"), consensus ``c = 2·|d_a − 0.5|``, awareness ``a`` = share whose (b) answer
  equals the majority (= ``d_b`` if the majority agrees, else ``1 − d_b``), ``m = √(c·a)``.
- Rater level (Eqs. 9–11): consensus ``C`` = share of the rater's statements where their (a) answer
  equals the majority, awareness ``A`` = the same for their (b) answer, ``M = √(C·A)``. The default
  (``leave_one_out=False``) is the paper's Eqs. 9–11 exactly: the majority includes the rater's own
  vote (SI A, no leave-one-out). ``leave_one_out=True`` is a named variant that scores each rater
  against the *other* raters, as a model is never part of the majority it is scored against.
- A model as one respondent (Eqs. 14–18): its answers (binary, or P(yes) binarised at 0.5) scored
  against the human majority like a rater.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import LEVEL, N_BOOT, Estimate, FloatArray, as_float_vector, estimate, mean_ci


def _binary_matrix(x: npt.ArrayLike, name: str) -> FloatArray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a rater × statement matrix, got shape {a.shape}")
    bad = np.isfinite(a) & (a != 0.0) & (a != 1.0)
    if bad.any() or np.isinf(a).any():
        r, c = np.argwhere(bad | np.isinf(a))[0]
        raise ValueError(f"{name}[{r}, {c}] = {a[r, c]!r}: ratings must be 0, 1 or NaN")
    return a


def _pair(agree: npt.ArrayLike, predict: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    a, b = _binary_matrix(agree, "agree"), _binary_matrix(predict, "predict")
    if a.shape != b.shape:
        raise ValueError(f"agree and predict differ in shape: {a.shape} vs {b.shape}")
    return a, b


@dataclass(frozen=True, slots=True)
class StatementScores:
    """Per statement (parallel arrays, NaN where undefined)."""

    agree_rate: FloatArray  # d_a
    predict_rate: FloatArray  # d_b
    majority: FloatArray  # 1 agree / 0 disagree
    consensus: FloatArray
    awareness: FloatArray
    commonsensicality: FloatArray

    def summary(self, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> dict[str, Estimate]:
        """Means over statements with bootstrap intervals."""
        return {
            k: mean_ci(getattr(self, k), n_boot=n_boot, seed=seed, level=level)
            for k in ("consensus", "awareness", "commonsensicality")
        }


def scores_from_rates(agree_rate: npt.ArrayLike, predict_rate: npt.ArrayLike) -> StatementScores:
    """Statement scores from the shares answering yes to (a) and (b) (Eqs. 6–8 / 22–25)."""
    da, db = as_float_vector(agree_rate, "agree_rate"), as_float_vector(predict_rate, "predict_rate")
    if da.shape != db.shape:
        raise ValueError(f"agree_rate and predict_rate differ in length: {da.size} vs {db.size}")
    for name, v in (("agree_rate", da), ("predict_rate", db)):
        if ((v < 0) | (v > 1)).any():
            raise ValueError(f"{name} must lie in [0, 1]")
    with np.errstate(invalid="ignore"):
        majority = np.where(np.isnan(da), np.nan, (da >= 0.5).astype(float))
        consensus = 2.0 * np.abs(da - 0.5)
        awareness = np.where(majority == 1.0, db, 1.0 - db)
        awareness = np.where(np.isnan(majority), np.nan, awareness)
        m = np.sqrt(consensus * awareness)
    return StatementScores(da, db, majority, consensus, awareness, m)


def statement_scores(agree: npt.ArrayLike, predict: npt.ArrayLike) -> StatementScores:
    """Human statement scores from rater × statement matrices (Eqs. 3–8)."""
    a, b = _pair(agree, predict)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = np.nansum(a, axis=0) / np.sum(~np.isnan(a), axis=0)
        db = np.nansum(b, axis=0) / np.sum(~np.isnan(b), axis=0)
    return scores_from_rates(da, db)


def silicon_population(p_yes_agree: npt.ArrayLike, p_yes_predict: npt.ArrayLike) -> StatementScores:
    """A model's P(yes) to (a) and (b) read as its silicon population's shares (Eqs. 22–25); the
    awareness is against the model's own (silicon) majority, as in the paper."""
    return scores_from_rates(p_yes_agree, p_yes_predict)


def human_majority(agree: npt.ArrayLike) -> FloatArray:
    """Eq. 4: 1 where at least half the raters agree (ties → 1), NaN for unrated statements."""
    return statement_scores(agree, agree).majority


def _loo_majority(a: FloatArray, leave_one_out: bool) -> FloatArray:
    """Majority per (rater, statement), optionally without that rater's own (a) vote."""
    total = np.nansum(a, axis=0)[None, :]
    count = np.sum(~np.isnan(a), axis=0)[None, :].astype(float)
    if leave_one_out:
        own = ~np.isnan(a)
        total = total - np.where(own, a, 0.0)
        count = count - own
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = total / count
        maj = (rate >= 0.5).astype(float)
    return np.where(count > 0, maj, np.nan) * np.ones_like(a)


@dataclass(frozen=True, slots=True)
class RaterScores:
    """Per rater (parallel arrays; NaN where the rater has no scorable statement)."""

    consensus: FloatArray
    awareness: FloatArray
    commonsensicality: FloatArray
    n_statements: npt.NDArray[np.int64]


def _hit_share(answers: FloatArray, majority: FloatArray) -> tuple[FloatArray, FloatArray]:
    ok = ~np.isnan(answers) & ~np.isnan(majority)
    hits = np.where(ok, answers == majority, False).sum(axis=1).astype(float)
    n = ok.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits / n, n


def rater_scores(agree: npt.ArrayLike, predict: npt.ArrayLike, *, leave_one_out: bool = False) -> RaterScores:
    """C_j, A_j, M_j for every rater (Eqs. 9–11; see the module note on ``leave_one_out``)."""
    a, b = _pair(agree, predict)
    maj = _loo_majority(a, leave_one_out)
    c, n_c = _hit_share(a, maj)
    aw, _ = _hit_share(b, maj)
    return RaterScores(c, aw, np.sqrt(c * aw), n_c.astype(np.int64))


def binarise(answers: npt.ArrayLike, threshold: float = 0.5) -> FloatArray:
    """Eqs. 14–15: P(yes) ≥ threshold → 1, else 0; NaN stays missing. Binary input is unchanged."""
    x = as_float_vector(answers, "answers")
    if ((x < 0) | (x > 1)).any():
        raise ValueError("answers must be probabilities or 0/1 (NaN for missing)")
    return np.where(np.isnan(x), np.nan, (x >= threshold).astype(float))


@dataclass(frozen=True, slots=True)
class RespondentScores:
    consensus: Estimate
    awareness: Estimate
    commonsensicality: Estimate


def _hits(answer: FloatArray, majority: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Eqs. 16–17: a hit where the answer equals the majority; every statement with a human
    majority counts in the denominator n_s, so a statement the model did not answer is a miss."""
    rated = ~np.isnan(majority)
    hit = rated & ~np.isnan(answer) & (answer == majority)
    return hit.astype(float), rated.astype(float)


def respondent_scores(
    answer_agree: npt.ArrayLike,
    answer_predict: npt.ArrayLike,
    majority: npt.ArrayLike,
    *,
    threshold: float = 0.5,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> RespondentScores:
    """One respondent (a model) against the human majority per statement (Eqs. 16–18). The
    denominator is n_s, every statement with a human majority (statements without one are not
    part of the corpus); a statement the model left unanswered counts as a miss, as Eq. 16's
    indicator is 0 there. The interval resamples statements (paired across the three scores)."""
    qa, qb = binarise(answer_agree, threshold), binarise(answer_predict, threshold)
    maj = as_float_vector(majority, "majority")
    if not qa.size == qb.size == maj.size:
        raise ValueError(f"lengths differ: agree {qa.size}, predict {qb.size}, majority {maj.size}")
    hc, oc = _hits(qa, maj)
    ha, oa = _hits(qb, maj)
    with np.errstate(invalid="ignore", divide="ignore"):
        c, aw = hc.sum() / oc.sum(), ha.sum() / oa.sum()
    n = maj.size

    def boot(idx: npt.NDArray[np.int64]) -> tuple[FloatArray, FloatArray]:
        return hc[idx].sum(axis=1) / oc[idx].sum(axis=1), ha[idx].sum(axis=1) / oa[idx].sum(axis=1)

    def stat_c(idx: npt.NDArray[np.int64]) -> FloatArray:
        return boot(idx)[0]

    def stat_a(idx: npt.NDArray[np.int64]) -> FloatArray:
        return boot(idx)[1]

    def stat_m(idx: npt.NDArray[np.int64]) -> FloatArray:
        bc, ba = boot(idx)
        return np.sqrt(bc * ba)

    ec = estimate(float(c), stat_c, n, n_boot=n_boot, seed=seed, level=level)
    ea = estimate(float(aw), stat_a, n, n_boot=n_boot, seed=seed, level=level)
    em = estimate(float(np.sqrt(c * aw)), stat_m, n, n_boot=n_boot, seed=seed, level=level)
    return RespondentScores(
        Estimate(ec.value, ec.low, ec.high, int(oc.sum())),
        Estimate(ea.value, ea.low, ea.high, int(oa.sum())),
        Estimate(em.value, em.low, em.high, int(np.minimum(oc, oa).sum())),
    )
