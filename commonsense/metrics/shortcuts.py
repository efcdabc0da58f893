"""Shortcut baselines as numbers (issue 25): an accuracy with its n, a 95 % Wilson interval, the
chance level, and a flag when it lies more than ``MARGIN`` above chance.

A baseline is scored per item as the *expected* accuracy of a rule that picks uniformly among
the options it cannot tell apart (a rule that keeps two options, the gold among them, scores
0.5 on that item), so no seed enters the figure. The interval is Wilson's on the summed expected
successes (statsmodels), approximate for fractional counts.

Two baselines are fitted, and held out so that they cannot learn the set they score:

* :func:`position_baseline`: each item's gold position is predicted as the most common gold
  position of the *other* items (leave one out);
* :func:`fitted_choice`: a conditional logit over per-option features (an option-only model's
  log-likelihood, its length …), standardised within each item and fitted by k-fold
  cross-validation (Poliak et al. 2018's hypothesis-only classifier, for five options).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

MARGIN = 0.15
LEVEL = 0.95
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Baseline:
    """One shortcut's figure on a set; ``value`` None when no item could be scored."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    chance: float | None
    flagged: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def wilson(successes: float, n: int, level: float = LEVEL) -> tuple[float | None, float | None]:
    if n <= 0:
        return None, None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=1 - level, method="wilson")
    return round(float(low), 4), round(float(high), 4)


def baseline(scores: Sequence[float], chances: Sequence[float], margin: float = MARGIN) -> Baseline:
    """``scores``: each item's expected accuracy under the rule; ``chances``: 1 / its options."""
    n = len(scores)
    if n != len(chances):
        raise ValueError(f"{n} scores but {len(chances)} chance levels")
    if n == 0:
        return Baseline(None, None, None, 0, None, False)
    value = float(np.mean(scores))
    chance = float(np.mean(chances))
    low, high = wilson(float(np.sum(scores)), n)
    return Baseline(round(value, 4), low, high, n, round(chance, 4), value > chance + margin)


def pick_expected(values: Sequence[float], gold: int, *, highest: bool = True) -> float:
    """Expected accuracy of picking the highest (or lowest) value, ties broken uniformly."""
    if not values:
        return 0.0
    arr = np.asarray(values, dtype=np.float64)
    best = arr.max() if highest else arr.min()
    ties = np.flatnonzero(np.isclose(arr, best, rtol=0, atol=1e-12))
    return 1.0 / len(ties) if gold in ties.tolist() else 0.0


def position_baseline(golds: Sequence[int], n_options: Sequence[int], margin: float = MARGIN) -> dict[str, Any]:
    """The gold-position spread: counts per position, and the leave-one-out majority position's
    accuracy (a uniform spread scores about chance, a set whose gold is mostly at one letter far
    above). ``p_uniform``: the chi-square test of a uniform spread (items with the modal
    number of options)."""
    width = max(n_options, default=0)
    counts = np.zeros(width, dtype=np.int64)
    for g in golds:
        counts[g] += 1
    scores: list[float] = []
    for g in golds:
        others = counts.copy()
        others[g] -= 1
        scores.append(pick_expected(others.tolist(), g))
    p_uniform: float | None = None
    if golds:
        from scipy.stats import chisquare

        modal = max(set(n_options), key=list(n_options).count)
        sub = np.bincount([g for g, k in zip(golds, n_options, strict=True) if k == modal], minlength=modal)
        if modal > 1 and sub.sum() > 0:
            p_uniform = round(float(chisquare(sub).pvalue), 4)
    return {
        "counts": counts.tolist(),
        "p_uniform": p_uniform,
        **baseline(scores, [1.0 / k for k in n_options], margin).as_dict(),
    }


def _standardise(x: FloatArray) -> FloatArray:
    """Each feature z-scored across one item's options (constant features become 0)."""
    sd = x.std(axis=0)
    out: FloatArray = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return out


def _fit(items: list[FloatArray], golds: list[int], l2: float) -> FloatArray:
    from scipy.optimize import minimize

    d = items[0].shape[1]

    def loss(w: FloatArray) -> tuple[float, FloatArray]:
        total, grad = l2 * float(w @ w), 2 * l2 * w
        for x, g in zip(items, golds, strict=True):
            s = x @ w
            s = s - s.max()
            p = np.exp(s) / np.exp(s).sum()
            total -= float(s[g] - np.log(np.exp(s).sum()))
            grad = grad - (x[g] - p @ x)
        return total, grad

    got = minimize(loss, np.zeros(d), jac=True, method="L-BFGS-B")
    w: FloatArray = np.asarray(got.x, dtype=np.float64)
    return w


def fitted_choice(
    features: Sequence[FloatArray], golds: Sequence[int], *, folds: int = 5, l2: float = 1.0, seed: int = 0
) -> list[float]:
    """Per item, the expected accuracy of a conditional logit over its options' ``features``
    (one row per option) fitted on the other folds. Deterministic in ``seed``."""
    n = len(features)
    if n != len(golds):
        raise ValueError(f"{n} feature tables but {len(golds)} golds")
    if n < 2:
        return [pick_expected([0.0] * len(f), g) for f, g in zip(features, golds, strict=True)]
    xs = [_standardise(np.asarray(f, dtype=np.float64)) for f in features]
    order = np.random.default_rng(seed).permutation(n)
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[order] = np.arange(n) % min(folds, n)
    out = [0.0] * n
    for k in range(min(folds, n)):
        train = [i for i in range(n) if fold_of[i] != k]
        w = _fit([xs[i] for i in train], [golds[i] for i in train], l2)
        for i in np.flatnonzero(fold_of == k).tolist():
            out[i] = pick_expected((xs[i] @ w).tolist(), golds[i])
    return out
