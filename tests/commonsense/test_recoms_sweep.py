"""ReComSBench Fig. 7 sweep by hand: with embeddings whose cosines are known, coverage and
redundancy switch at the threshold, and U / p are scipy's on the hand-made groups."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scipy import stats

from commonsense.metrics.recoms_sweep import PathRecord, threshold_sweep

VEC = {"p r q": (1.0, 0.0), "p r q2": (0.8, 0.6), "z z z": (0.0, 1.0)}  # cos(q, q2) = 0.8, cos(q, z) = 0


def embed(texts: Sequence[str]) -> np.ndarray:
    return np.asarray([VEC[t] for t in texts])


def test_sweep_by_hand() -> None:
    prior = [("p", "r", "q")]
    paths = [PathRecord([("p", "r", "q2")], prior, True)] * 2 + [PathRecord([("z", "z", "z")], prior, False)] * 2
    paths.append(PathRecord([("z", "z", "z")], [], False))  # no K_prior: left out
    low, high = threshold_sweep(paths, [0.7, 0.9], embed)
    # t = 0.7: q2 covers q (KCR 1, redundancy 0) on correct paths; z covers nothing (KCR 0, redundancy 1)
    assert (low.kcr_correct, low.kcr_incorrect, low.n_correct, low.n_incorrect) == (1.0, 0.0, 2, 2)
    want = stats.mannwhitneyu([1.0, 1.0], [0.0, 0.0], alternative="two-sided")
    assert (low.kcr_u, low.kcr_p) == pytest.approx((want.statistic, want.pvalue))
    assert low.krr_u == pytest.approx(stats.mannwhitneyu([0.0, 0.0], [1.0, 1.0]).statistic)
    # t = 0.9: nothing covers: both groups alike, U = 2 and p = 1
    assert (high.kcr_correct, high.kcr_incorrect) == (0.0, 0.0)
    assert high.kcr_u == 2.0
    assert high.kcr_p == pytest.approx(1.0)
    with pytest.raises(ValueError, match="outside"):
        threshold_sweep(paths, [1.5], embed)
