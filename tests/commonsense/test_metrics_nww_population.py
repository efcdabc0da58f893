"""NWW population analyses: hand-computed small cases (divergence, variant II, feature
differences, split-half, fidelity with Bonferroni)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from commonsense.metrics.nww_population import (
    PAPER_MODELS,
    ab_divergence,
    bonferroni_factor,
    divergence_counts,
    feature_difference,
    fidelity_table,
    split_half,
    variant_two,
)

nan = float("nan")


def test_ab_divergence_by_hand() -> None:
    # α = 1,0,1,-,1 and β = 1,1,0,0,1: 4 statements answered on both, s1 and s2 diverge
    d = ab_divergence([0.9, 0.2, 0.6, nan, 0.5], [0.8, 0.7, 0.4, 0.3, 0.5])
    assert d.rate == pytest.approx(0.5)
    assert d.n == 4
    assert d.diverging.tolist() == [1, 2]
    counts = divergence_counts({"m1": ([1, 0, 1], [1, 1, 0]), "m2": ([1, 1, 1], [0, 1, 1])}, 3)
    assert counts.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="differ in length"):
        ab_divergence([1, 0], [1])


def test_variant_two_adds_the_model_vote_to_the_majority() -> None:
    # s0: 1 of 2 humans agree (human majority 1, a tie); the model says no -> (1+0)/3 < .5 -> 0
    # s1: 2 of 4, model no -> 2/5 -> 0; s2: 3 of 4, model yes -> 4/5 -> 1; s3: no human rating
    v = variant_two([0, 0, 1, 1], [1, 0, 0, 1], [1, 2, 3, 0], [2, 4, 4, 0])
    assert v.n == 3
    assert v.flipped == 2
    assert v.consensus == pytest.approx(1.0)  # α = 0, 0, 1 against 0, 0, 1
    assert v.awareness == pytest.approx(1 / 3)  # β = 1, 0, 0 against 0, 0, 1
    assert v.commonsensicality == pytest.approx(np.sqrt(1 / 3))
    # an unanswered statement is a miss and keeps the human-only majority
    w = variant_two([nan, 1], [nan, 1], [1, 3], [2, 4])
    assert w.consensus == pytest.approx(0.5)
    assert w.flipped == 0
    with pytest.raises(ValueError, match="between 0 and n_raters"):
        variant_two([1], [1], [3], [2])


def test_feature_difference_with_50_and_95_intervals() -> None:
    m = [0.8, 0.6, 0.3, 0.1, nan, 0.9]
    poles = [1, 1, 0, 0, 1, nan]  # s4 has no m, s5 no pole
    f = feature_difference(m, poles, n_boot=1000, seed=1)
    assert f.value == pytest.approx(0.7 - 0.2)
    assert (f.n1, f.n0) == (2, 2)
    lo95, hi95 = f.ci95
    lo50, hi50 = f.ci50
    assert lo95 is not None
    assert hi95 is not None
    assert lo50 is not None
    assert hi50 is not None
    assert 0.3 - 1e-9 <= lo95 <= lo50 <= f.value <= hi50 <= hi95 <= 0.7 + 1e-9
    assert feature_difference(m, poles, n_boot=1000, seed=1) == f  # seeded
    flat = feature_difference([0.5, 0.5, 0.2], [1, 1, 0], n_boot=50)
    assert flat.value == pytest.approx(0.3)
    assert flat.ci95 == pytest.approx((0.3, 0.3))
    assert feature_difference([0.5, 0.4], [1, 1]).value is None
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        feature_difference([0.5], [2])


def test_split_half_of_two_raters_is_their_correlation() -> None:
    agree = np.array([[1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 1, 1]], dtype=float)
    predict = np.array([[1, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 0]], dtype=float)
    s = split_half(agree, predict, n_rep=20, seed=0)
    # each half is one rater: d_i is their answer, m_i = sqrt(1 · 1[B = own answer])
    assert s.agree_r == pytest.approx(stats.pearsonr(agree[0], agree[1]).statistic)
    m0 = (agree[0] == predict[0]).astype(float)
    m1 = (agree[1] == predict[1]).astype(float)
    assert s.commonsensicality_r == pytest.approx(stats.pearsonr(m0, m1).statistic)
    assert s.n_rep == 20
    assert s.n_raters == 2


def test_split_half_of_identical_raters_is_one_and_missing_cells_are_skipped() -> None:
    row_a, row_b = [1, 0, 1, 1, 0], [1, 0, 0, 1, 1]
    agree = np.array([row_a] * 6, dtype=float)
    predict = np.array([row_b] * 6, dtype=float)
    agree[0, 0] = predict[0, 0] = nan
    s = split_half(agree, predict, n_rep=50, seed=3)
    assert s.agree_r == pytest.approx(1.0)
    assert s.commonsensicality_r == pytest.approx(1.0)
    assert s.commonsensicality_ci95 == pytest.approx((1.0, 1.0))


def test_fidelity_table_bonferroni_over_the_papers_35_models() -> None:
    """NWW Fig. 4A: p × 35 (the paper's comparison), whatever the number of runs compared here;
    more models than 35 with a defined r raise the factor; ``n_tests`` names another comparison."""
    human_a = [0.9, 0.8, 0.2, 0.5, 0.1, 0.7]
    human_b = [0.8, 0.9, 0.3, 0.5, 0.2, 0.6]
    good = [0.95, 0.7, 0.1, 0.6, 0.2, 0.8]
    noisy = [0.4, 0.9, 0.5, 0.2, 0.3, 0.6]
    flat = [0.5] * 6  # no variance: r undefined
    rows = fidelity_table([("good", good, good), ("noisy", noisy, None), ("flat", flat, flat)], human_a, human_b)
    by = {r.name: r for r in rows}
    res = stats.pearsonr(good, human_a)
    assert by["good"].agree_r == pytest.approx(res.statistic)
    assert PAPER_MODELS == 35
    assert by["good"].agree_p_bonferroni == pytest.approx(min(1.0, 35 * res.pvalue))
    two = fidelity_table([("good", good, good), ("noisy", noisy, None)], human_a, human_b, n_tests=1)
    assert two[0].agree_p_bonferroni == pytest.approx(2 * res.pvalue)  # the models with an r, when more
    many = fidelity_table([(f"m{i}", good, None) for i in range(40)], human_a)
    assert many[0].agree_p_bonferroni == pytest.approx(min(1.0, 40 * res.pvalue))
    assert bonferroni_factor(3) == 35
    assert bonferroni_factor(40) == 40
    assert by["noisy"].m_r is None
    assert by["flat"].agree_r is None
    assert by["flat"].agree_p_bonferroni is None
    hm = np.sqrt(
        2 * np.abs(np.array(human_a) - 0.5) * np.where(np.array(human_a) >= 0.5, human_b, 1 - np.array(human_b))
    )
    gm = np.sqrt(2 * np.abs(np.array(good) - 0.5) * np.where(np.array(good) >= 0.5, good, 1 - np.array(good)))
    mres = stats.pearsonr(gm, hm)
    assert by["good"].m_r == pytest.approx(mres.statistic)
    assert by["good"].m_p_bonferroni == pytest.approx(min(1.0, 35 * mres.pvalue))
    with pytest.raises(ValueError, match="answers for 6 statements"):
        fidelity_table([("short", [0.1], None)], human_a)


def test_divergence_across_the_35_models_is_the_papers_ten_percent() -> None:
    """NWW SI C: (a) and (b) diverge in about 10 % of (model, statement) cases (9.95 % over the
    full corpus, spec §2.6); the 3,026-statement slice gives 10.09 %."""
    from commonsense.io.statements import read_statements_csv
    from tests.conftest import shared_file

    recs = list(read_statements_csv(shared_file("commonsense_statements/statements_human_and_model_binary.csv")))
    models = sorted({m for r in recs for m in r.model_answers})
    answers = {
        m: (
            [r.model_answers.get(m, {}).get("q1", nan) for r in recs],
            [r.model_answers.get(m, {}).get("q2", nan) for r in recs],
        )
        for m in models
    }
    counts = divergence_counts(answers, len(recs))
    assert len(models) == 35
    assert counts.sum() / (35 * len(recs)) == pytest.approx(0.0995, abs=0.003)
    assert max(counts) <= 19  # Table B.2's top statement diverges for 19 of 35 models


def _split_half_dense(agree: np.ndarray, predict: np.ndarray, n_rep: int, seed: int) -> tuple[float, float]:
    """The split half as first written: dense raters × statements products (the reference)."""
    sa, sb = (~np.isnan(agree)).astype(float), (~np.isnan(predict)).astype(float)
    a0, b0 = np.nan_to_num(agree), np.nan_to_num(predict)
    rng = np.random.default_rng(seed)

    def half(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore", divide="ignore"):
            da, db = (mask @ a0) / (mask @ sa), (mask @ b0) / (mask @ sb)
            return da, np.sqrt(2.0 * np.abs(da - 0.5) * np.where(da >= 0.5, db, 1.0 - db))

    def rowwise_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        ok = np.isfinite(x) & np.isfinite(y)
        n = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx, my = np.where(ok, x, 0.0).sum(axis=1) / n, np.where(ok, y, 0.0).sum(axis=1) / n
            xc, yc = np.where(ok, x - mx[:, None], 0.0), np.where(ok, y - my[:, None], 0.0)
            r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
        return np.where(n >= 3, r, np.nan)

    r_m, r_a = [], []
    for start in range(0, n_rep, 100):
        reps = min(100, n_rep - start)
        order = np.argsort(rng.random((reps, agree.shape[0])), axis=1)
        first = np.zeros((reps, agree.shape[0]))
        np.put_along_axis(first, order[:, : agree.shape[0] // 2], 1.0, axis=1)
        da1, m1 = half(first)
        da2, m2 = half(1.0 - first)
        r_m.append(rowwise_r(m1, m2))
        r_a.append(rowwise_r(da1, da2))
    rm, ra = np.concatenate(r_m), np.concatenate(r_a)
    return float(rm[np.isfinite(rm)].mean()), float(ra[np.isfinite(ra)].mean())


def test_split_half_on_a_sparse_survey_is_the_dense_computation_to_the_last_bit() -> None:
    # NWW's design: every rater answers a few of many statements. The products run on sparse
    # matrices; they sum 0/1 terms, so every figure must equal the dense computation exactly
    rng = np.random.default_rng(5)
    agree, predict = np.full((60, 300), nan), np.full((60, 300), nan)
    for r in range(60):
        cols = rng.choice(300, size=25, replace=False)
        agree[r, cols], predict[r, cols] = rng.integers(0, 2, 25), rng.integers(0, 2, 25)
    s = split_half(agree, predict, n_rep=250, seed=11)
    m_r, a_r = _split_half_dense(agree, predict, 250, 11)
    assert s.commonsensicality_r == m_r
    assert s.agree_r == a_r


def _former_feature_difference(m: np.ndarray, poles: np.ndarray, *, n_boot: int, seed: int) -> tuple:
    """feature_difference as it was before its draws were sliced to fit in a core's cache (8c1d38c)."""
    ok = np.isfinite(m) & np.isfinite(poles)
    g1, g0 = m[ok & (poles == 1)], m[ok & (poles == 0)]
    value = float(g1.mean() - g0.mean())
    rng = np.random.default_rng(seed)
    reps = np.empty(n_boot)
    for start in range(0, n_boot, 200):
        b = min(200, n_boot - start)
        r1 = g1[rng.integers(0, g1.size, size=(b, g1.size))].mean(axis=1)
        r0 = g0[rng.integers(0, g0.size, size=(b, g0.size))].mean(axis=1)
        reps[start : start + b] = r1 - r0
    finite = reps[np.isfinite(reps)]
    tails = [(1.0 - level) / 2.0 * 100.0 for level in (0.5, 0.95)]
    ci = [tuple(float(v) for v in np.percentile(finite, [t, 100.0 - t])) for t in tails]
    return value, ci[0], ci[1], int(g1.size), int(g0.size)


@pytest.mark.parametrize(
    ("n", "n_boot", "seed"),
    [
        (4000, 1000, 0),  # the perf set: 4,000 statements, the page's 1,000 resamples
        (3001, 1000, 7),  # odd pole sizes
        (517, 999, 3),  # a last block shorter than 200
        (40, 1201, 11),  # many replicates per slice
        (70_000, 3, 5),  # a pole wider than one slice of draws: one replicate per slice
    ],
)
def test_feature_difference_draws_as_the_former_implementation(n: int, n_boot: int, seed: int) -> None:
    """Golden: the same figures, to the bit, as the unsliced draws, on a silicon population's m_i
    (runs.selectors.nww_population's path: P(yes) to (a) and (b) → silicon_population → feature_difference)."""
    from commonsense.metrics.nww import silicon_population

    rng = np.random.default_rng(seed + 100)
    pa, pb = rng.random(n), rng.random(n)
    pa[rng.random(n) < 0.05] = nan  # unanswered statements: m_i is NaN
    m = silicon_population(pa, pb).commonsensicality
    poles = rng.integers(0, 2, n).astype(float)
    poles[rng.random(n) < 0.1] = nan  # unlabelled statements
    f = feature_difference(m, poles, n_boot=n_boot, seed=seed)
    assert (f.value, f.ci50, f.ci95, f.n1, f.n0) == _former_feature_difference(m, poles, n_boot=n_boot, seed=seed)
