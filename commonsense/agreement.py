"""Inter-annotator agreement over **rater × item** matrices (rows = raters, columns = items; a
category code per cell, NaN = not rated).

Fleiss' kappa comes from ``statsmodels.stats.inter_rater``, Cohen's kappa between two raters
(a model and the human majority) from scikit-learn, and Krippendorff's alpha from the
``krippendorff`` package; this module validates and shapes the input for them. Pairwise percent
agreement (COM2's "per-option IAA", spec B3/§13: the share of agreeing rater pairs) and majority
vote are simple counts done here.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
import numpy.typing as npt
from statsmodels.stats import inter_rater

FloatArray = npt.NDArray[np.float64]
Tie = Literal["none", "low", "high", "random"]


def as_ratings(ratings: npt.ArrayLike, *, name: str = "ratings") -> FloatArray:
    """Validate a rater × item matrix of finite category codes (NaN = missing)."""
    try:
        a = np.asarray(ratings, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numeric category codes (NaN = missing): {exc}") from None
    if a.ndim != 2:
        raise ValueError(f"{name} must be a rater × item matrix, got shape {a.shape}")
    if np.isinf(a).any():
        raise ValueError(f"{name} contains an infinite value")
    return a


@dataclass(frozen=True, slots=True)
class RatingMatrix:
    values: FloatArray  # rater × item, category index or NaN
    raters: list[Hashable]
    items: list[Hashable]
    categories: list[Hashable]


def ratings_matrix(
    triples: Iterable[tuple[Hashable, Hashable, Hashable]], categories: Iterable[Hashable] | None = None
) -> RatingMatrix:
    """Build the matrix from ``(rater, item, label)`` triples; labels become category indices in
    the order of ``categories`` (default: sorted labels seen). A repeated (rater, item) is refused."""
    rows = list(triples)
    cats = list(categories) if categories is not None else sorted({r[2] for r in rows}, key=str)
    code = {c: i for i, c in enumerate(cats)}
    raters = list(dict.fromkeys(r[0] for r in rows))
    items = list(dict.fromkeys(r[1] for r in rows))
    ri, ii = {r: i for i, r in enumerate(raters)}, {t: i for i, t in enumerate(items)}
    m = np.full((len(raters), len(items)), np.nan)
    for rater, item, label in rows:
        if label not in code:
            raise ValueError(f"rater {rater!r}, item {item!r}: unknown label {label!r} (allowed: {cats})")
        if not np.isnan(m[ri[rater], ii[item]]):
            raise ValueError(f"rater {rater!r} rated item {item!r} twice")
        m[ri[rater], ii[item]] = code[label]
    return RatingMatrix(m, raters, items, cats)


def pairwise_agreement(ratings: npt.ArrayLike) -> FloatArray:
    """Per item: share of agreeing pairs among its raters, Σ_j n_j(n_j−1) / (n(n−1)); NaN with < 2."""
    a = as_ratings(ratings)
    n = np.sum(~np.isnan(a), axis=0).astype(float)
    agree = np.zeros(a.shape[1])
    for v in np.unique(a[~np.isnan(a)]):
        k = np.sum(a == v, axis=0).astype(float)
        agree += k * (k - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n >= 2, agree / (n * (n - 1)), np.nan)


@dataclass(frozen=True, slots=True)
class OptionAgreement:
    per_option: FloatArray  # question × option pairwise agreement
    per_question: FloatArray  # mean over the question's options (COM2's per-item IAA, < 0.6 → adjudicate)
    overall: float | None  # mean over all rated (question, option) cells: COM2's "per-option IAA"


def option_agreement(selections: npt.ArrayLike) -> OptionAgreement:
    """``selections[rater, question, option]`` = 1 if the rater ticked the option as plausible,
    0 if not, NaN if the rater did not see the question."""
    s = np.asarray(selections, dtype=float)
    if s.ndim != 3:
        raise ValueError(f"selections must be rater × question × option, got shape {s.shape}")
    if (np.isfinite(s) & (s != 0) & (s != 1)).any():
        raise ValueError("selections must be 0, 1 or NaN")
    r, q, o = s.shape
    per = pairwise_agreement(s.reshape(r, q * o)).reshape(q, o)
    with np.errstate(invalid="ignore"):
        per_q = np.full(q, np.nan)
        rated = ~np.all(np.isnan(per), axis=1)
        per_q[rated] = np.nanmean(per[rated], axis=1)
    overall = float(np.nanmean(per)) if np.isfinite(per).any() else None
    return OptionAgreement(per, per_q, overall)


def _codes(a: FloatArray, n_categories: int | None) -> int:
    seen = a[~np.isnan(a)]
    if seen.size and ((seen != np.round(seen)) | (seen < 0)).any():
        raise ValueError("category codes must be non-negative integers (use ratings_matrix for labels)")
    k = int(seen.max()) + 1 if seen.size else 0
    if n_categories is not None:
        if k > n_categories:
            raise ValueError(f"code {k - 1} outside the {n_categories} categories")
        k = n_categories
    return k


@dataclass(frozen=True, slots=True)
class Kappa:
    kappa: float | None
    n_items: int  # items used
    n_raters_per_item: int
    dropped_items: int


def fleiss_kappa(
    ratings: npt.ArrayLike, *, n_categories: int | None = None, unequal: Literal["raise", "drop"] = "raise"
) -> Kappa:
    """Fleiss' kappa (statsmodels). Raters are exchangeable, so NaN cells are fine as long as every
    item has the same number of ratings; otherwise ``unequal="raise"`` refuses and ``"drop"`` keeps
    only the items with the most common count (reported in ``dropped_items``)."""
    a = as_ratings(ratings)
    k = _codes(a, n_categories)
    counts = np.sum(~np.isnan(a), axis=0)
    rated = counts > 0
    if not rated.any():
        raise ValueError("no item has a rating")
    values, freq = np.unique(counts[rated], return_counts=True)
    n = int(values[np.argmax(freq)]) if unequal == "drop" else int(values[0])
    if values.size > 1 and unequal == "raise":
        raise ValueError(
            f"Fleiss' kappa needs the same number of ratings per item; found {values.tolist()}"
            " (pass unequal='drop' or use krippendorff_alpha)"
        )
    keep = counts == n
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least 2 ratings per item")
    cols = a[:, keep].T  # item × rating, n non-missing values per row
    compact = np.asarray([row[~np.isnan(row)] for row in cols], dtype=int)
    table, _ = inter_rater.aggregate_raters(compact, n_cat=max(k, 2))
    if np.count_nonzero(table.sum(axis=0)) < 2:
        return Kappa(None, int(keep.sum()), n, int(rated.sum() - keep.sum()))  # one category only: undefined
    value = float(inter_rater.fleiss_kappa(table, method="fleiss"))
    return Kappa(value, int(keep.sum()), n, int(rated.sum() - keep.sum()))


def krippendorff_alpha(
    ratings: npt.ArrayLike,
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal",
    n_categories: int | None = None,
) -> float | None:
    """Krippendorff's alpha (``krippendorff`` package); items with < 2 ratings do not count. None
    when undefined (fewer than 2 pairable values, or a single category in the data)."""
    a = as_ratings(ratings)
    if level == "nominal":
        _codes(a, n_categories)
    pairable = np.sum(~np.isnan(a), axis=0) >= 2
    seen = np.unique(a[:, pairable][~np.isnan(a[:, pairable])])
    if a.shape[0] < 2 or not pairable.any() or seen.size < 2:
        return None
    domain = np.arange(n_categories) if (n_categories is not None and level == "nominal") else None
    return float(krippendorff.alpha(reliability_data=a, level_of_measurement=level, value_domain=domain))


@dataclass(frozen=True, slots=True)
class MajorityVote:
    labels: FloatArray  # winning code per item, NaN when unrated (or tied with tie="none")
    support: FloatArray  # share of the item's ratings that chose the winner
    n_ratings: npt.NDArray[np.int64]
    tied: npt.NDArray[np.bool_]  # the top count was shared


def majority_vote(
    ratings: npt.ArrayLike, *, tie: Tie = "none", seed: int = 0, n_categories: int | None = None
) -> MajorityVote:
    """Most frequent code per item. Ties: ``none`` → NaN, ``low``/``high`` → the smallest/largest
    tied code (``high`` on yes=1/no=0 is NWW's "a tie counts as agree"), ``random`` → seeded pick."""
    if tie not in ("none", "low", "high", "random"):
        raise ValueError(f"tie must be none, low, high or random, got {tie!r}")
    a = as_ratings(ratings)
    k = max(_codes(a, n_categories), 1)
    counts = np.stack([np.sum(a == c, axis=0) for c in range(k)], axis=1)  # item × category
    n = counts.sum(axis=1)
    top = counts.max(axis=1)
    is_top = (counts == top[:, None]) & (n[:, None] > 0)
    tied = is_top.sum(axis=1) > 1
    labels = np.full(a.shape[1], np.nan)
    rng = np.random.default_rng(seed)
    for i in np.flatnonzero(n > 0):
        cands = np.flatnonzero(is_top[i])
        if cands.size == 1 or tie == "low":
            labels[i] = cands[0]
        elif tie == "high":
            labels[i] = cands[-1]
        elif tie == "random":
            labels[i] = rng.choice(cands)
    with np.errstate(invalid="ignore", divide="ignore"):
        support = np.where(n > 0, top / n, np.nan)
    return MajorityVote(labels, support, n.astype(np.int64), tied)


def cohen_kappa(a: npt.ArrayLike, b: npt.ArrayLike) -> float | None:
    """Cohen's kappa of two raters' labels on the same cells (scikit-learn); None with no cell, or
    when both gave one and the same label everywhere (chance agreement 1: undefined)."""
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"two label vectors of one length are needed, got shapes {x.shape} and {y.shape}")
    if x.size == 0 or len(set(x.tolist()) | set(y.tolist())) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(x, y))
