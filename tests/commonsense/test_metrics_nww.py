"""NWW commonsensicality: the paper's worked examples (spec §2.9), hand-computed rater scores with
and without leave-one-out, missing values, and the model-vs-human comparisons."""

from __future__ import annotations

import math

import numpy as np
import pytest

from commonsense.metrics import (
    human_majority,
    rater_scores,
    respondent_percentile,
    respondent_percentiles,
    respondent_scores,
    scores_from_rates,
    silicon_fidelity,
    silicon_population,
    statement_scores,
)


def _column(n: int, yes: int) -> list[float]:
    return [1.0] * yes + [0.0] * (n - yes)


def test_worked_example_experience_statement_humans() -> None:
    # "Experience is imperative to run a country": 22 raters, 19 agree, 21 predict agreement.
    agree = np.array(_column(22, 19))[:, None]
    predict = np.array(_column(22, 21))[:, None]
    s = statement_scores(agree, predict)
    assert s.majority[0] == 1
    assert s.consensus[0] == pytest.approx(2 * abs(19 / 22 - 0.5))
    assert round(float(s.consensus[0]), 3) == 0.727
    assert round(float(s.awareness[0]), 3) == 0.955
    assert round(float(s.commonsensicality[0]), 3) == 0.833


def test_worked_example_gpt35_silicon_population() -> None:
    # The same statement for GPT-3.5's silicon sample: d^a = 0.95, d^b = 0.40 -> c .9, a .4, m .6.
    s = silicon_population([0.95], [0.40])
    assert s.majority[0] == 1
    assert s.consensus[0] == pytest.approx(0.90)
    assert s.awareness[0] == pytest.approx(0.40)
    assert s.commonsensicality[0] == pytest.approx(0.60)


def test_awareness_uses_the_majority_side_when_the_majority_disagrees() -> None:
    # 30% agree -> majority "disagree"; 20% say most people agree -> 80% predicted the majority.
    s = scores_from_rates([0.3, 0.5, 0.89], [0.2, 0.0, 1.0])
    assert s.majority.tolist() == [0.0, 1.0, 1.0]  # tie (0.5) counts as agree (Eq. 4)
    assert s.awareness[0] == pytest.approx(0.8)
    assert s.consensus[0] == pytest.approx(0.4)
    assert s.commonsensicality[1] == 0.0  # consensus 0 at a tie
    assert s.commonsensicality[2] == pytest.approx(math.sqrt(0.78), abs=1e-9)  # spec example 4: ~0.883


def test_statement_scores_skip_missing_cells() -> None:
    agree = np.array([[1, 1], [1, np.nan], [0, 0], [np.nan, 0]], dtype=float)
    predict = np.array([[1, 0], [1, np.nan], [1, 1], [np.nan, 0]], dtype=float)
    s = statement_scores(agree, predict)
    assert s.agree_rate[0] == pytest.approx(2 / 3)
    assert s.agree_rate[1] == pytest.approx(1 / 3)
    assert s.majority.tolist() == [1.0, 0.0]
    assert s.awareness[0] == pytest.approx(1.0)  # all three predicted agreement, majority agrees
    assert s.awareness[1] == pytest.approx(2 / 3)  # two of three predicted "no", majority disagrees


# Four raters, three statements; hand-computed below.
AGREE = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, np.nan]], dtype=float)
PREDICT = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]], dtype=float)


def test_rater_scores_paper_definition_includes_own_vote() -> None:
    # Full majorities: s0 3/4 -> 1, s1 3/4 -> 1, s2 1/3 -> 0.
    r = rater_scores(AGREE, PREDICT, leave_one_out=False)
    assert r.consensus.tolist() == pytest.approx([1.0, 2 / 3, 2 / 3, 1 / 2])
    assert r.awareness.tolist() == pytest.approx([1.0, 2 / 3, 2 / 3, 1 / 3])
    assert r.commonsensicality[3] == pytest.approx(math.sqrt(1 / 2 * 1 / 3))
    assert r.n_statements.tolist() == [3, 3, 3, 2]


def test_rater_scores_leave_one_out_uses_the_other_raters() -> None:
    # Rater 3 on s0: others 3/3 agree -> 1 (own 0 is a miss); s1: others 2/3 -> 1 (hit); s2 (no (a)
    # answer, so nothing to leave out): 1/3 -> 0, their (b)=1 is a miss.
    # Rater 1 on s1: others 2/3 -> 1, own 0 miss; s2: others 1/2 = tie -> 1, own 0 miss.
    r = rater_scores(AGREE, PREDICT, leave_one_out=True)
    assert r.consensus[3] == pytest.approx(1 / 2)
    assert r.awareness[3] == pytest.approx(1 / 3)  # s0 b=1 hit, s1 b=0 miss, s2 b=1 miss
    assert r.consensus[1] == pytest.approx(1 / 3)
    assert r.awareness[1] == pytest.approx(1.0)  # b = 1,1,1 vs LOO majorities 1 (2/3), 1 (3/3), 1 (tie 1/2)
    assert not np.allclose(r.consensus, rater_scores(AGREE, PREDICT, leave_one_out=False).consensus)


def test_rating_matrices_are_validated() -> None:
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        statement_scores([[1, 2]], [[1, 0]])
    with pytest.raises(ValueError, match="differ in shape"):
        rater_scores([[1, 0]], [[1, 0, 1]])


def test_respondent_scores_against_the_majority_with_missing_answers() -> None:
    majority = [1, 1, 0, 0, 1]
    # Eqs. 16-17 divide by n_s = 5 (every statement with a human majority): no answer = a miss.
    model_a = [0.9, 0.2, 0.1, np.nan, 0.7]  # binarised 1,0,0,-,1 -> hits s0,s2,s4: 3 of 5
    model_b = [1, 1, 1, 0, np.nan]  # 1,1,1,0,- -> hits s0,s1,s3: 3 of 5
    r = respondent_scores(model_a, model_b, majority, n_boot=200, seed=3)
    assert r.consensus.value == pytest.approx(0.6)
    assert r.consensus.n == 5
    assert r.awareness.value == pytest.approx(0.6)
    assert r.awareness.n == 5
    assert r.commonsensicality.value == pytest.approx(0.6)
    assert r.consensus.low is not None
    assert r.consensus.high is not None
    assert r.consensus.low <= 0.6 <= r.consensus.high
    # a statement without a human majority is outside n_s
    r2 = respondent_scores([*model_a, 1.0], [*model_b, 1.0], [*majority, np.nan], n_boot=0)
    assert r2.consensus.value == pytest.approx(0.6)
    assert r2.consensus.n == 5
    again = respondent_scores(model_a, model_b, majority, n_boot=200, seed=3)
    assert again == r  # seeded


def test_model_percentile_among_raters() -> None:
    majority = human_majority(AGREE)
    assert majority.tolist() == [1.0, 1.0, 0.0]
    # A model answering exactly the majority on (a) and (b) has M = 1 on everyone's statements.
    p = respondent_percentile(majority, majority, AGREE, PREDICT, leave_one_out=False)
    assert p.model_per_rater.tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])
    assert p.wins == pytest.approx(3 / 4)
    assert p.ties == pytest.approx(1 / 4)
    worst = respondent_percentile(1 - majority, 1 - majority, AGREE, PREDICT, leave_one_out=False)
    assert worst.wins == 0.0
    # several models among the same raters at once: each as if alone
    both = respondent_percentiles([(majority, majority), (1 - majority, 1 - majority)], AGREE, PREDICT)
    for got, alone in zip(both, (majority, 1 - majority), strict=True):
        want = respondent_percentile(alone, alone, AGREE, PREDICT)
        assert (got.wins, got.ties, got.n_raters) == (want.wins, want.ties, want.n_raters)
        assert np.array_equal(got.model_per_rater, want.model_per_rater, equal_nan=True)
        assert np.array_equal(got.human, want.human, equal_nan=True)


def test_silicon_fidelity_correlations() -> None:
    rng = np.random.default_rng(0)
    human_a = rng.uniform(0, 1, 300)
    human_b = np.clip(human_a + rng.normal(0, 0.1, 300), 0, 1)
    model_a = np.clip(human_a + rng.normal(0, 0.2, 300), 0, 1)
    model_b = np.clip(human_b + rng.normal(0, 0.2, 300), 0, 1)
    model_a[5] = np.nan  # a statement the model did not answer
    f = silicon_fidelity(model_a, human_a, model_b, human_b, n_boot=300, seed=1)
    ok = np.isfinite(model_a)
    expected = np.corrcoef(model_a[ok], human_a[ok])[0, 1]
    assert f.agree.r == pytest.approx(expected)
    assert f.agree.n == 299
    assert f.agree.low is not None
    assert f.agree.high is not None
    assert f.agree.low < expected < f.agree.high
    assert f.commonsensicality is not None
    assert f.commonsensicality.r is not None
    assert -1 <= f.commonsensicality.r <= 1
    assert silicon_fidelity(model_a, human_a).commonsensicality is None
