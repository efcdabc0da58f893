"""Agreement: the wrappers equal the reference libraries on the same matrices (missing values
included), a Fleiss example worked by hand, pairwise agreement by brute force, majority vote."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from statsmodels.stats import inter_rater

from commonsense.agreement import (
    fleiss_kappa,
    krippendorff_alpha,
    majority_vote,
    option_agreement,
    pairwise_agreement,
    ratings_matrix,
)

nan = np.nan


def test_fleiss_hand_computed() -> None:
    # 4 items, 3 raters, 2 categories. Counts per item (cat0, cat1): (3,0) (0,3) (2,1) (1,2).
    # P_i = [1, 1, 1/3, 1/3] -> P̄ = 2/3; p = (6/12, 6/12) -> P̄e = 1/2; κ = (2/3 − 1/2)/(1/2) = 1/3.
    r = np.array([[0, 1, 0, 1], [0, 1, 0, 1], [0, 1, 1, 0]], dtype=float)
    k = fleiss_kappa(r)
    assert k.kappa == pytest.approx(1 / 3)
    assert (k.n_items, k.n_raters_per_item, k.dropped_items) == (4, 3, 0)


def test_fleiss_equals_statsmodels_with_missing_cells() -> None:
    rng = np.random.default_rng(0)
    # 12 raters, 40 items, exactly 3 ratings per item (different raters per item), 4 categories.
    m = np.full((12, 40), nan)
    compact = rng.integers(0, 4, size=(40, 3))
    for i in range(40):
        m[rng.choice(12, 3, replace=False), i] = compact[i]
    ref = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(compact, n_cat=4)[0])
    assert fleiss_kappa(m).kappa == pytest.approx(ref)


def test_fleiss_unequal_counts() -> None:
    m = np.array([[0, 1, 0, 1], [0, 1, 1, nan], [0, 1, 1, nan]], dtype=float)
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa(m)
    k = fleiss_kappa(m, unequal="drop")
    assert (k.n_items, k.dropped_items) == (3, 1)
    ref = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(m[:, :3].T.astype(int), n_cat=2)[0])
    assert k.kappa == pytest.approx(ref)
    assert fleiss_kappa(np.zeros((3, 4))).kappa is None  # one category only: undefined


def test_krippendorff_equals_library_and_wikipedia_example() -> None:
    # The krippendorff package's documented example (nominal alpha 0.691358), NaN = missing.
    data = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    assert krippendorff_alpha(data) == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff_alpha(data, level="interval") == pytest.approx(0.810845, abs=1e-6)
    rng = np.random.default_rng(1)
    m = rng.integers(0, 3, size=(6, 50)).astype(float)
    m[rng.random(m.shape) < 0.4] = nan
    want = krippendorff.alpha(reliability_data=m, level_of_measurement="nominal")
    assert krippendorff_alpha(m) == pytest.approx(want)
    assert krippendorff_alpha([[1, nan], [nan, 0]]) is None  # nothing pairable


def _brute_pairwise(col: np.ndarray) -> float:
    vals = col[~np.isnan(col)]
    pairs = list(itertools.combinations(vals, 2))
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else nan


def test_pairwise_agreement_matches_brute_force() -> None:
    rng = np.random.default_rng(2)
    m = rng.integers(0, 3, size=(5, 30)).astype(float)
    m[rng.random(m.shape) < 0.3] = nan
    got = pairwise_agreement(m)
    want = np.array([_brute_pairwise(m[:, i]) for i in range(30)])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert got[~np.isnan(got)] == pytest.approx(want[~np.isnan(want)])


def test_option_agreement_com2_style() -> None:
    # 3 raters, 2 questions × 3 options; rater 2 did not see question 1.
    sel = np.array(
        [
            [[1, 0, 0], [0, 1, 1]],
            [[1, 0, 1], [0, 1, 0]],
            [[1, 1, 0], [nan, nan, nan]],
        ]
    )
    oa = option_agreement(sel)
    assert oa.per_option[0].tolist() == pytest.approx([1.0, 1 / 3, 1 / 3])
    assert oa.per_option[1].tolist() == pytest.approx([1.0, 1.0, 0.0])
    assert oa.per_question.tolist() == pytest.approx([5 / 9, 2 / 3])
    assert oa.overall == pytest.approx(np.mean([1, 1 / 3, 1 / 3, 1, 1, 0]))
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        option_agreement(sel * 2)


def test_majority_vote_tie_policies() -> None:
    m = np.array([[1, 0, 2, nan], [1, 1, 0, nan], [0, nan, 2, nan], [nan, nan, 0, nan]], dtype=float)
    # item0: 1,1,0 -> 1; item1: 0,1 tie; item2: 2,0,2,0 tie(0,2); item3: unrated
    none = majority_vote(m)
    assert none.labels[0] == 1
    assert np.isnan(none.labels[1])
    assert np.isnan(none.labels[3])
    assert none.tied.tolist() == [False, True, True, False]
    assert none.support[0] == pytest.approx(2 / 3)
    assert none.n_ratings.tolist() == [3, 2, 4, 0]
    assert majority_vote(m, tie="high").labels[:3].tolist() == [1, 1, 2]  # NWW: a tie counts as agree
    assert majority_vote(m, tie="low").labels[:3].tolist() == [1, 0, 0]
    r1, r2 = majority_vote(m, tie="random", seed=5), majority_vote(m, tie="random", seed=5)
    assert np.array_equal(r1.labels, r2.labels, equal_nan=True)
    assert r1.labels[2] in (0, 2)


def test_ratings_matrix_from_labels_and_validation() -> None:
    rm = ratings_matrix([("ann", "q1", "yes"), ("bob", "q1", "no"), ("bob", "q2", "yes")])
    assert rm.categories == ["no", "yes"]
    assert rm.raters == ["ann", "bob"]
    assert rm.items == ["q1", "q2"]
    assert np.array_equal(rm.values, np.array([[1, nan], [0, 1]]), equal_nan=True)
    with pytest.raises(ValueError, match="twice"):
        ratings_matrix([("ann", "q1", "yes"), ("ann", "q1", "no")])
    with pytest.raises(ValueError, match="unknown label"):
        ratings_matrix([("ann", "q1", "maybe")], categories=["yes", "no"])
    with pytest.raises(ValueError, match="rater × item"):
        fleiss_kappa([1, 0, 1])
    with pytest.raises(ValueError, match="non-negative integers"):
        fleiss_kappa([[0.5, 1], [1, 1]])
