"""Issue 28 item 5: formulas made exact, each held to the paper's own equation or printed numbers.

- RICA Fig. 5a: accuracy on probes whose gold comparative is positive vs negative; the appendix
  tables' "Joint Set" = per-probe accuracy on Easy ∪ Hard (their printed rows).
- ReComSBench §4.2: seven windows of N/3 at step N/9; KBA hints with all generated knowledge.
- NWW C.4: an unanswered statement is a miss (Eq. 16's n_s); Eqs. 9–11 include the rater's own vote.
- CoCo Eq. 5 with m = 3; Table 3's REA/FAI/APP are macro over the query kinds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from commonsense.metrics import coco as C
from commonsense.metrics.nww import human_majority, rater_scores
from commonsense.metrics.nww_compare import respondent_percentile
from commonsense.metrics.recoms import easy_hard, window_bounds
from commonsense.metrics.rica_bias import joint_accuracy, polarity, polarity_accuracy

# --------------------------------------------------------------------------------------- RICA


def test_fig5a_accuracy_by_gold_polarity() -> None:
    golds = ["more", "less", "Easier", "harder", "more", "blue", None]
    right = [True, False, True, None, False, True, True]  # None = no answer = wrong
    acc = polarity_accuracy(golds, right, n_boot=100)
    # positive golds: more (right), Easier (right), more (wrong) -> 2/3; negative: less, harder -> 0/2
    assert acc["positive"].value == pytest.approx(2 / 3)
    assert acc["positive"].n == 3
    assert acc["negative"].value == 0.0
    assert acc["negative"].n == 2
    assert polarity("Worse") == "negative"
    assert polarity("blue") is None
    # a model that always says the positive word: perfect on positive golds, 0 on negative ones,
    # which the share of positive picks alone (the former Fig. 5a) could not tell from a good model
    always_more = polarity_accuracy(["more", "less", "more", "less"], [True, False, True, False], n_boot=0)
    assert (always_more["positive"].value, always_more["negative"].value) == (1.0, 0.0)
    with pytest.raises(ValueError, match="3 gold words for 2 answers"):
        polarity_accuracy(["more", "less", "more"], [True, False])


@pytest.mark.parametrize(
    ("easy", "hard", "printed"),
    [
        (49.32, 49.7, 49.56),  # BERT-base zero-shot
        (56.38, 49.85, 52.37),  # BERT-base low-resource 10 %
        (49.15, 49.35, 49.27),  # BERT-large zero-shot
        (60.62, 50.33, 54.3),  # BERT-base low-resource 50 %
    ],
)
def test_joint_is_per_probe_accuracy_on_easy_and_hard(easy: float, hard: float, printed: float) -> None:
    """The appendix tables' Joint column from Easy (1,000 probes) and Hard (1,600) accuracies."""
    got = joint_accuracy((1000, easy / 100 * 1000), (1600, hard / 100 * 1600))
    assert got is not None
    assert got * 100 == pytest.approx(printed, abs=0.02)
    assert joint_accuracy((0, 0), (0, 0)) is None


# -------------------------------------------------------------------------------- ReComSBench


@pytest.mark.parametrize("n", [3, 9, 10, 27, 100, 1221, 1000])
def test_windows_are_seven_of_a_third_at_a_ninth(n: int) -> None:
    """§4.2: window = N/3, step = window/3 = N/9: seven windows from 0 to N, each N/3 rounded."""
    ws = window_bounds(n)
    assert len(ws) == 7
    assert ws[0][0] == 0
    assert ws[-1][1] == n
    for i, (a, b) in enumerate(ws):
        assert abs(a - i * n / 9) <= 0.5
        assert abs(b - (i * n / 9 + n / 3)) <= 0.5
        assert math.floor(n / 3) <= b - a <= math.ceil(n / 3)
    if n % 9 == 0:
        assert ws == [(i * n // 9, i * n // 9 + n // 3) for i in range(7)]


def test_windows_cut_easy_and_hard_the_papers_way() -> None:
    # N = 10 (not a multiple of 9): Easy = items [0, 3), Hard = [7, 10) — no eighth window
    assert window_bounds(10) == [(0, 3), (1, 4), (2, 6), (3, 7), (4, 8), (6, 9), (7, 10)]
    d = list(range(10))
    c = [1, 1, 1, 0, 0, 0, 0, 0, 1, 0]
    eh = easy_hard(d, c)
    assert eh is not None
    assert eh.easy == 1.0
    assert eh.hard == pytest.approx(1 / 3)
    assert window_bounds(2) == []
    assert window_bounds(0) == []
    # a custom cut keeps a last window at N (Hard stays the hardest items)
    assert window_bounds(10, window=4, step=4) == [(0, 4), (4, 8), (6, 10)]


# -------------------------------------------------------------------------------------- NWW

# Four raters, three statements (as tests/commonsense/test_metrics_nww.py)
AGREE = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, np.nan]], dtype=float)
PREDICT = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]], dtype=float)


def test_rater_scores_default_is_the_papers_own_vote() -> None:
    """Eqs. 9–11: the majority includes the rater's own vote (no leave-one-out) by default."""
    default = rater_scores(AGREE, PREDICT)
    own = rater_scores(AGREE, PREDICT, leave_one_out=False)
    assert np.array_equal(default.commonsensicality, own.commonsensicality, equal_nan=True)
    assert default.consensus.tolist() == pytest.approx([1.0, 2 / 3, 2 / 3, 1 / 2])
    assert not np.allclose(default.consensus, rater_scores(AGREE, PREDICT, leave_one_out=True).consensus)


def test_c4_unanswered_statement_is_a_miss() -> None:
    """C.4 recomputes Eq. 16 over Φ_j: every statement of the rater's with a majority counts, one
    the model did not answer is a miss (it was left out of the denominator before)."""
    maj = human_majority(AGREE)  # 1, 1, 0
    model_a = np.array([1.0, np.nan, 0.0])  # right on s0 and s2, no answer on s1
    model_b = maj.copy()
    p = respondent_percentile(model_a, model_b, AGREE, PREDICT)
    # rater 0 (s0, s1, s2): C = 2/3, A = 1 -> M = sqrt(2/3); rater 3 (s0, s1 rated on (a), s2 on (b)):
    # C over s0, s1 = 1/2, A over s0, s1, s2 = 1 -> sqrt(1/2)
    assert p.model_per_rater[0] == pytest.approx(math.sqrt(2 / 3))
    assert p.model_per_rater[3] == pytest.approx(math.sqrt(1 / 2))
    assert p.human[0] == pytest.approx(1.0)


# ------------------------------------------------------------------------------------- CoCo


def _com_set(group: str, base: bool, concepts: list[bool], aspect: str = "xAttr") -> list[C.CocoAnswer]:
    out = [C.CocoAnswer(group, "memorization", base, aspect)]
    out += [C.CocoAnswer(group, f"conceptualization_{k}", ok, aspect) for k, ok in enumerate(concepts, 1)]
    return out


def test_eq5_divides_by_m_equal_3() -> None:
    answers = _com_set("c1", True, [True, False, True]) + _com_set("c2", True, [True, True, True])
    answers += _com_set("c3", False, [True, True, True])  # base wrong: not in Eq. 5's denominator
    answers += _com_set("c4", True, [True, True])  # two conceptualisations: not an Eq. 5 set (m = 3)
    sets = C.assemble_sets(answers)
    assert sets.com_left_out == 1
    micro = C.coco_scores_micro(sets, n_boot=0)
    assert micro.COM.value == pytest.approx((2 / 3 + 3 / 3) / 2)
    assert micro.COM.n == 2
    assert C.M_CONCEPTS == 3
    rep = C.coco_report(answers, n_boot=0)
    assert rep.com_left_out == 1


def test_table3_application_scores_are_macro_over_kinds() -> None:
    """Table 3's Mistral Vanilla REA (52.35) is the mean of its four Table 5 kinds, not the pooled
    value (52.51 by the Table 1 counts): the macro score of unequal kinds differs from the pooled."""
    answers = []
    # 2i: 3 sets, reasoning right in 3; 2p: 1 set, reasoning wrong
    for i in range(3):
        answers += [C.CocoAnswer(f"a{i}", "atomic_1", True, "2i"), C.CocoAnswer(f"a{i}", "reasoning", True, "2i")]
    answers += [C.CocoAnswer("b", "atomic_1", True, "2p"), C.CocoAnswer("b", "reasoning", False, "2p")]
    rep = C.coco_report(answers, n_boot=0)
    assert rep.macro.REA.value == pytest.approx((1.0 + 0.0) / 2)
    assert rep.micro.REA.value == pytest.approx(3 / 4)
