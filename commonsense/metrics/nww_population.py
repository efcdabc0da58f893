"""NWW population analyses beyond the one-respondent scores (spec §2.6–2.8).

- :func:`ab_divergence`: share of statements where the model's binarised answers to (a) "do you
  agree" and (b) "do most people agree" differ (SI C, ~10 % across models; Table B.2 lists the
  statements with the most diverging models).
- :func:`variant_two`: C, A, M against the majority with the model's own (a) vote added
  (SI C.5, Eq. 21, Table C.2).
- :func:`feature_difference`: mean statement commonsensicality of pole 1 minus pole 0 of one
  dichotomy, with 50 % and 95 % percentile-bootstrap intervals (Fig. 3C, 1,000 resamples).
- :func:`split_half`: the human split-half baseline: random halves of the raters, m_i (and the
  agree rate) per half, Pearson r between the halves; mean r and the 95 % interval over repetitions.
- :func:`fidelity_table`: Pearson r of each model's silicon population with the humans per
  statement (P(yes) vs agree rate, and m_i^m vs m_i^h) with Bonferroni-corrected p-values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse, stats

from .bootstrap import FloatArray, IntArray, as_float_vector
from .nww import _pair, binarise, scores_from_rates


@dataclass(frozen=True, slots=True)
class Divergence:
    rate: float | None  # share of statements answered on both questions whose answers differ
    n: int  # statements answered on both questions
    diverging: IntArray  # positions of the diverging statements


def ab_divergence(p_agree: npt.ArrayLike, p_predict: npt.ArrayLike, *, threshold: float = 0.5) -> Divergence:
    """α = 1[P(yes | a) ≥ t] and β = 1[P(yes | b) ≥ t] differ (spec §2.6)."""
    a, b = binarise(p_agree, threshold), binarise(p_predict, threshold)
    if a.shape != b.shape:
        raise ValueError(f"p_agree and p_predict differ in length: {a.size} vs {b.size}")
    ok = ~np.isnan(a) & ~np.isnan(b)
    diff = ok & (a != b)
    n = int(ok.sum())
    return Divergence(float(diff.sum()) / n if n else None, n, np.flatnonzero(diff).astype(np.int64))


def divergence_counts(answers: Mapping[str, tuple[npt.ArrayLike, npt.ArrayLike]], n_statements: int) -> IntArray:
    """Per statement, how many models' (a) and (b) answers diverge (Table B.2's count)."""
    out = np.zeros(n_statements, dtype=np.int64)
    for name, (pa, pb) in answers.items():
        d = ab_divergence(pa, pb)
        if np.asarray(pa).size != n_statements:
            raise ValueError(f"{name}: {np.asarray(pa).size} answers for {n_statements} statements")
        out[d.diverging] += 1
    return out


@dataclass(frozen=True, slots=True)
class VariantTwo:
    consensus: float | None
    awareness: float | None
    commonsensicality: float | None
    n: int  # statements with at least one human rating (n_s)
    flipped: int  # statements whose majority the model's vote changed


def variant_two(
    answer_agree: npt.ArrayLike,
    answer_predict: npt.ArrayLike,
    agree_yes: npt.ArrayLike,
    n_raters: npt.ArrayLike,
    *,
    threshold: float = 0.5,
) -> VariantTwo:
    """Eq. 21: majority^{h+m}_i = 1[(α_i + Σ_j A_ij) / (|Ω_i| + 1) ≥ 0.5], then Eqs. 16–18 against
    it (denominator n_s; an unanswered statement is a miss and keeps the human-only majority)."""
    qa, qb = binarise(answer_agree, threshold), binarise(answer_predict, threshold)
    k, n = as_float_vector(agree_yes, "agree_yes"), as_float_vector(n_raters, "n_raters")
    if not qa.size == qb.size == k.size == n.size:
        raise ValueError(f"lengths differ: agree {qa.size}, predict {qb.size}, counts {k.size}/{n.size}")
    if ((k < 0) | (k > n)).any():
        raise ValueError("agree_yes must lie between 0 and n_raters")
    rated = n > 0
    vote = np.where(np.isnan(qa), 0.0, qa)
    voters = n + (~np.isnan(qa)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        human = (k / n >= 0.5).astype(float)
        joint = ((k + vote) / voters >= 0.5).astype(float)
    ns = int(rated.sum())
    if not ns:
        return VariantTwo(None, None, None, 0, 0)
    c = float((rated & (qa == joint)).sum()) / ns
    a = float((rated & (qb == joint)).sum()) / ns
    flipped = int((rated & (human != joint)).sum())
    return VariantTwo(c, a, float(np.sqrt(c * a)), ns, flipped)


@dataclass(frozen=True, slots=True)
class FeatureDifference:
    value: float | None  # mean m_i over pole 1 minus over pole 0
    ci50: tuple[float | None, float | None]
    ci95: tuple[float | None, float | None]
    n1: int
    n0: int


def _percentiles(reps: FloatArray, level: float) -> tuple[float | None, float | None]:
    finite = reps[np.isfinite(reps)]
    if finite.size == 0:
        return None, None
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(finite, [tail, 100.0 - tail])
    return float(lo), float(hi)


def feature_difference(
    m: npt.ArrayLike, poles: npt.ArrayLike, *, n_boot: int = 1000, seed: int = 0
) -> FeatureDifference:
    """mean(m | pole = 1) − mean(m | pole = 0) over statements with a finite m and a pole (0/1;
    NaN = unlabelled). The bootstrap resamples statements within each pole (sizes kept)."""
    x, p = as_float_vector(m, "m"), as_float_vector(poles, "poles")
    if x.shape != p.shape:
        raise ValueError(f"m and poles differ in length: {x.size} vs {p.size}")
    ok = np.isfinite(x) & np.isfinite(p)
    if (ok & (p != 0) & (p != 1)).any():
        raise ValueError("poles must be 0, 1 or NaN")
    g1, g0 = x[ok & (p == 1)], x[ok & (p == 0)]
    if not g1.size or not g0.size:
        return FeatureDifference(None, (None, None), (None, None), int(g1.size), int(g0.size))
    value = float(g1.mean() - g0.mean())
    rng = np.random.default_rng(seed)
    s1, s0 = np.empty(n_boot), np.empty(n_boot)
    # The draws alternate by blocks of _FD_BLOCK replicates: the block's pole-1 indices, then its
    # pole-0 indices. Each block is drawn in slices of rows that fit in a core's cache and summed
    # at once (about 2.5 times faster than drawing the whole block); the generator's stream is one
    # stream whatever the slicing, so the draws and every sum are the same.
    for start in range(0, n_boot, _FD_BLOCK):
        stop = min(start + _FD_BLOCK, n_boot)
        _resampled_sums(rng, g1, s1, start, stop)
        _resampled_sums(rng, g0, s0, start, stop)
    reps = s1 / g1.size - s0 / g0.size  # each replicate's mean, as ndarray.mean divides its sum
    return FeatureDifference(value, _percentiles(reps, 0.5), _percentiles(reps, 0.95), int(g1.size), int(g0.size))


_FD_BLOCK = 200  # replicates per block of draws (part of the seeded stream's order)
_FD_SLICE_CELLS = 32_768  # indices drawn at a time: 256 KiB, in a core's L2 cache


def _resampled_sums(rng: np.random.Generator, g: FloatArray, out: FloatArray, start: int, stop: int) -> None:
    """``out[start:stop]``: sums of ``stop - start`` resamples of ``g`` with replacement, drawn
    as ``g[rng.integers(0, g.size, size=(stop - start, g.size))].sum(axis=1)`` draws them."""
    step = max(1, _FD_SLICE_CELLS // g.size)
    for lo in range(start, stop, step):
        hi = min(lo + step, stop)
        out[lo:hi] = g.take(rng.integers(0, g.size, size=(hi - lo, g.size))).sum(axis=1)


def _rowwise_r(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson r of each row pair over the columns where both are finite."""
    ok = np.isfinite(x) & np.isfinite(y)
    n = ok.sum(axis=1)
    xz, yz = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = xz.sum(axis=1) / n, yz.sum(axis=1) / n
        xc, yc = np.where(ok, x - mx[:, None], 0.0), np.where(ok, y - my[:, None], 0.0)
        r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    return np.where(n >= 3, r, np.nan)


@dataclass(frozen=True, slots=True)
class SplitHalf:
    commonsensicality_r: float | None  # mean r of m_i between the halves
    commonsensicality_ci95: tuple[float | None, float | None]
    agree_r: float | None  # mean r of the agree rate d_i between the halves
    agree_ci95: tuple[float | None, float | None]
    n_rep: int
    n_raters: int


def _half_scores(ka: FloatArray, na: FloatArray, kb: FloatArray, nb: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(agree rate, m_i) per repetition and statement from one half's counts: (a) yes answers and
    (a) answers, (b) yes answers and (b) answers (reps × statements)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        da = ka / na
        db = kb / nb
        maj = da >= 0.5
        aw = np.where(maj, db, 1.0 - db)
        m = np.sqrt(2.0 * np.abs(da - 0.5) * aw)
    return da, m


def split_half(agree: npt.ArrayLike, predict: npt.ArrayLike, *, n_rep: int = 1000, seed: int = 0) -> SplitHalf:
    """The raters (rows) are shuffled and cut in two halves ``n_rep`` times; statements rated in
    both halves are correlated. The interval is the 2.5–97.5 percentiles of the repetitions."""
    a, b = _pair(agree, predict)
    n_raters = a.shape[0]
    if n_raters < 2 or n_rep < 1:
        return SplitHalf(None, (None, None), None, (None, None), 0, n_raters)
    # raters × statements (a) yes, (a) answered, (b) yes, (b) answered: sparse, as a survey's raters
    # each rate a few of the statements. A half's counts are sums of 0/1 terms, exact in any order of
    # summation: the same numbers as the dense products; the other half's are the totals minus them
    counts = [
        sparse.csr_array(x)
        for x in (np.nan_to_num(a), (~np.isnan(a)).astype(float), np.nan_to_num(b), (~np.isnan(b)).astype(float))
    ]
    totals = [np.asarray(x.sum(axis=0)).ravel() for x in counts]
    rng = np.random.default_rng(seed)
    r_m, r_a = [], []
    for start in range(0, n_rep, 100):
        reps = min(100, n_rep - start)
        order = np.argsort(rng.random((reps, n_raters)), axis=1)
        first = np.zeros((reps, n_raters))
        np.put_along_axis(first, order[:, : n_raters // 2], 1.0, axis=1)
        half = [np.ascontiguousarray(first @ x) for x in counts]  # C order, as the dense product's
        da1, m1 = _half_scores(*half)
        da2, m2 = _half_scores(*(t[None, :] - h for t, h in zip(totals, half, strict=True)))
        r_m.append(_rowwise_r(m1, m2))
        r_a.append(_rowwise_r(da1, da2))
    rm, ra = np.concatenate(r_m), np.concatenate(r_a)

    def mean(x: FloatArray) -> float | None:
        f = x[np.isfinite(x)]
        return float(f.mean()) if f.size else None

    return SplitHalf(mean(rm), _percentiles(rm, 0.95), mean(ra), _percentiles(ra, 0.95), n_rep, n_raters)


@dataclass(frozen=True, slots=True)
class FidelityRow:
    name: str
    agree_r: float | None  # r(model P(yes | a), human agree rate)
    agree_p: float | None
    agree_p_bonferroni: float | None
    m_r: float | None  # r(m_i silicon, m_i human), when both (b) rates are known
    m_p: float | None
    m_p_bonferroni: float | None
    n: int


def _r(x: FloatArray, y: FloatArray) -> tuple[float | None, float | None, int]:
    ok = np.isfinite(x) & np.isfinite(y)
    n = int(ok.sum())
    if n < 3 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return None, None, n
    res = stats.pearsonr(x[ok], y[ok])
    return float(res.statistic), float(res.pvalue), n


# NWW Fig. 4A: "significance stars are Bonferroni-corrected" over the paper's comparison, its 35 models.
PAPER_MODELS = 35


def bonferroni(p: float | None, k: int) -> float | None:
    return None if p is None else min(1.0, p * k)


def bonferroni_factor(n_models: int, n_tests: int = PAPER_MODELS) -> int:
    """The factor a two-sided p is multiplied by: the paper's 35 models, or the number of models in
    this comparison when it is larger (a correction over fewer tests than were made would be too
    lenient)."""
    return max(n_tests, n_models)


def fidelity_table(
    models: Sequence[tuple[str, npt.ArrayLike, npt.ArrayLike | None]],
    human_agree_rate: npt.ArrayLike,
    human_predict_rate: npt.ArrayLike | None = None,
    *,
    n_tests: int = PAPER_MODELS,
) -> list[FidelityRow]:
    """One row per (name, P(yes | a), P(yes | b) or None), statements aligned with the human
    rates. Two-sided p-values are multiplied by :func:`bonferroni_factor` (the paper's 35 models,
    or more when more models with a defined r are compared), capped at 1."""
    ha = as_float_vector(human_agree_rate, "human_agree_rate")
    hm = None
    if human_predict_rate is not None:
        hm = scores_from_rates(ha, as_float_vector(human_predict_rate, "human_predict_rate")).commonsensicality
    raw = []
    for name, pa, pb in models:
        xa = as_float_vector(pa, f"{name} P(yes | a)")
        if xa.shape != ha.shape:
            raise ValueError(f"{name}: {xa.size} answers for {ha.size} statements")
        ra, pa_, n = _r(xa, ha)
        rm = pm = None
        if pb is not None and hm is not None:
            xm = scores_from_rates(xa, as_float_vector(pb, f"{name} P(yes | b)")).commonsensicality
            rm, pm, _ = _r(xm, hm)
        raw.append((name, ra, pa_, rm, pm, n))
    ka = bonferroni_factor(sum(1 for r in raw if r[1] is not None), n_tests)
    km = bonferroni_factor(sum(1 for r in raw if r[3] is not None), n_tests)
    return [
        FidelityRow(name, ra, pa_, bonferroni(pa_, ka), rm, pm, bonferroni(pm, km), n)
        for name, ra, pa_, rm, pm, n in raw
    ]
