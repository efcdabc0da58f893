"""commonsense.validation (pure): COM2 post-processing, qualification grading, item labels."""

from __future__ import annotations

import pytest

from commonsense.validation import (
    NONE_CORRECT,
    answer_normalise,
    com2_postprocess,
    constant_answers,
    gold_hits,
    gold_passed,
    item_label,
    items_needed,
    qualification_grade,
    qualification_loopholes,
)

OPTS = ["proud", "well-liked", "rewarded", "mature", "stressed"]


def test_com2_one_positive_three_negatives_none_as_e_and_seeded() -> None:
    a = com2_postprocess(OPTS, [0, 2], seed=1, key="q7")
    assert a == com2_postprocess(OPTS, [0, 2], seed=1, key="q7")
    assert a.positive in ("proud", "rewarded")
    assert a.options[a.answer_index] == a.positive
    assert len(a.options) == 5
    assert a.options[4] == NONE_CORRECT
    assert set(a.negatives) <= {"well-liked", "mature", "stressed"}
    assert len(a.negatives) == 3
    positives = {com2_postprocess(OPTS, [0, 2], seed=s, key="q7").positive for s in range(40)}
    assert positives == {"proud", "rewarded"}  # sampled among the majority-plausible options


def test_com2_none_plausible_and_too_few_negatives() -> None:
    none = com2_postprocess(OPTS, [], seed=0, key="k")
    assert none.positive is None
    assert none.answer_index == 4
    assert none.options[4] == NONE_CORRECT
    assert len(set(none.options[:4])) == 4
    few = com2_postprocess(OPTS, [0, 1, 2], seed=0, key="k")
    assert few.needs_manual_negatives == 1
    assert len(few.options) == 4


# Six COM2-like qualification items (five options each), their gold plausible sets.
SIX_GOLDS = [[2], [0, 3], [4], [1], [0, 2], [3]]
NONE = {"plausible": [], "none_correct": True, "bad_context": False}


def _tick(*options: int) -> dict[str, object]:
    return {"plausible": list(options), "none_correct": False, "bad_context": False}


def test_qualification_is_graded_per_item_golden() -> None:
    """Issue 26: per option, ticking "No answers are correct" on all six items scored 80 % against the
    85 % mark (24 of 30 option verdicts match a one-gold item) and two right answers with four "none"
    passed (26 of 30 = 86.7 %). Per item (the ticked set equals the gold set) they score 0 / 6 and 2 / 6."""
    one_gold = [([k], 5) for k in (2, 0, 4, 1, 3, 0)]
    pairs = [(NONE, {"plausible": g}, n) for g, n in one_gold]
    per_option = sum(gold_hits("mcqa", a, g, n_options=n)[0] for a, g, n in pairs) / 30
    assert per_option == pytest.approx(0.8)  # the old score of "none" everywhere
    g = qualification_grade("mcqa", pairs, 0.85)
    assert (g.score, g.hits, g.total, g.passed) == (0.0, 0, 6, False)
    two_right = [(_tick(*gold), {"plausible": gold}, n) for gold, n in one_gold[:2]] + pairs[2:]
    per_option = sum(gold_hits("mcqa", a, g, n_options=n)[0] for a, g, n in two_right) / 30
    assert per_option == pytest.approx(26 / 30)
    assert per_option >= 0.85
    g = qualification_grade("mcqa", two_right, 0.85)
    assert g.score == pytest.approx(2 / 6)
    assert not g.passed

    golds = [{"plausible": x} for x in SIX_GOLDS]
    answers = [_tick(2), _tick(0, 3), _tick(4), _tick(1), _tick(0, 2), _tick(3)]
    assert qualification_grade("mcqa", [(a, g, 5) for a, g in zip(answers, golds, strict=True)], 0.85).score == 1.0
    # one extra tick (item 1), one missing tick (item 2): each of those items is wrong
    off = [_tick(2, 1), _tick(0), _tick(4), _tick(1), _tick(0, 2), _tick(3)]
    g = qualification_grade("mcqa", [(a, gd, 5) for a, gd in zip(off, golds, strict=True)], 0.85)
    assert (g.hits, g.score, g.passed) == (4, pytest.approx(4 / 6), False)
    five = [*answers[:5], _tick(1)]
    g = qualification_grade("mcqa", [(a, gd, 5) for a, gd in zip(five, golds, strict=True)], 0.8)
    assert g.hits == 5
    assert g.passed
    assert items_needed(0.8, 6) == 5
    assert items_needed(0.85, 6) == 6
    bad = {"plausible": [], "none_correct": False, "bad_context": True}
    assert gold_passed("mcqa", NONE, {"plausible": []})
    assert not gold_passed("mcqa", bad, {"plausible": []})


def test_none_everywhere_and_the_same_option_everywhere_fail() -> None:
    """A respondent who does not read fails: every constant answer is checked against the pool."""
    golds = [({"plausible": x}, 5) for x in SIX_GOLDS]
    for name, answer in constant_answers("mcqa", 5):
        g = qualification_grade("mcqa", [(answer, gold, n) for gold, n in golds], 0.85)
        assert not g.passed, name
        assert g.hits <= 1, name
    assert qualification_loopholes("mcqa", golds, 0.85, 6) == []
    # a pool where "none" is the gold of most items lets "none everywhere" through: refused by name
    lazy = [({"plausible": []}, 5)] * 5 + [({"plausible": [1]}, 5)]
    assert qualification_loopholes("mcqa", lazy, 0.8, 6) == [("'No answers are correct' everywhere", 5)]
    # so does a pool where option 1 is always the gold, on a draw of 3 of these 4 items
    first = [({"plausible": [0]}, 5)] * 3 + [({"plausible": [2]}, 5)]
    assert qualification_loopholes("mcqa", first, 1.0, 3) == [("option 1 everywhere", 3)]
    assert qualification_loopholes("mcqa", first, 1.0, 4) == []


def test_item_labels_and_answer_shapes() -> None:
    lab = item_label("mcqa", [{"plausible": [0, 1]}, {"plausible": [0]}, {"plausible": [3]}], n_options=5)
    assert lab.label["plausible"] == [0]
    assert lab.votes["option_ticks"] == [2, 1, 0, 1, 0]
    assert lab.agreement == pytest.approx((1 / 3 + 1 / 3 + 1 + 1 / 3 + 1) / 5)
    tie = item_label("survey", [{"agree": 1, "predict": 1}, {"agree": 0, "predict": 1}])
    assert tie.label == {"agree": 1}
    assert tie.agreement == 0.0
    assert item_label("rica", [{"valid": 1}, {"valid": 0}]).label == {"valid": None}
    with pytest.raises(ValueError):
        answer_normalise("survey", {"agree": 2, "predict": 0})
    assert answer_normalise("mcqa", {"bad_context": True}, n_options=5) == {
        "plausible": [],
        "none_correct": False,
        "bad_context": True,
    }


def test_com2_two_annotators_ticking_options_5_and_2_is_not_none_correct() -> None:
    """Issue 14 bug 7: an item where two annotators ticked options 5 and 2 was labelled "none
    correct" with agreement 0.600 although nobody chose "none"."""
    lab = item_label("mcqa", [{"plausible": [4]}, {"plausible": [1]}], n_options=5)
    assert lab.label == {"plausible": [], "none_correct": None, "bad_context": False}  # undecided, not "none"
    assert not lab.decided
    assert lab.votes["tied_options"] == [1, 4]
    assert lab.agreement == pytest.approx(0.6)
    # COM2's three answers per item: no ties, and A.4's rule stands: no option with a majority -> "none"
    three = item_label("mcqa", [{"plausible": [4]}, {"plausible": [1]}, {"plausible": [0]}], n_options=5)
    assert three.decided
    assert three.label["none_correct"] is True
    assert three.label["plausible"] == []
    voted = item_label("mcqa", [{"plausible": [], "none_correct": True}] * 2, n_options=5)
    assert voted.decided
    assert voted.label["none_correct"] is True


def test_generation_judgements_majority_agreement_and_table_4_shares() -> None:
    from commonsense.validation import gold_passed, judgement_shares

    P, H, F = ({"judgement": j} for j in ("plausible", "one_hop", "false"))
    two_of_three = item_label("generation", [H, F, H])
    assert two_of_three.label == {"judgement": "one_hop"}
    assert two_of_three.decided
    assert not two_of_three.unanimous
    assert two_of_three.agreement == pytest.approx(1 / 3)  # one agreeing pair of three
    assert two_of_three.votes == {"plausible": 0, "one_hop": 2, "false": 1, "n": 3}
    assert item_label("generation", [P, P, P]).unanimous
    assert item_label("generation", [P, P, P]).agreement == 1.0
    tie = item_label("generation", [P, H, F])
    assert tie.label == {"judgement": None}
    assert not tie.decided
    assert tie.agreement == 0.0
    assert item_label("generation", [P, P, H, H, F]).decided is False  # 2-2-1: tied for the most votes
    assert item_label("generation", [P, P, H, F]).label == {"judgement": "plausible"}  # plurality of 4
    assert answer_normalise("generation", {"judgement": "one_hop", "extra": 1}) == H
    for bad in ({}, {"judgement": "1-hop"}, {"judgement": None}):
        with pytest.raises(ValueError, match="judgement must be one of plausible, one_hop, false"):
            answer_normalise("generation", bad)
    assert gold_passed("generation", F, F)
    assert not gold_passed("generation", P, F)
    # by hand: 2i has P, P, H, undecided; 2p has F, H; overall P 2, H 2, F 1 of n = 5, one undecided
    rows = judgement_shares(
        [("2p", "false"), ("2i", "plausible"), ("2i", "one_hop"), ("2i", None), ("2p", "one_hop"), ("2i", "plausible")]
    )
    assert [r.group for r in rows] == ["2i", "2p", "overall"]
    assert rows[0].counts == {"plausible": 2, "one_hop": 1, "false": 0}
    assert rows[0].n == 3
    assert rows[0].undecided == 1
    assert rows[0].shares == pytest.approx({"plausible": 2 / 3, "one_hop": 1 / 3, "false": 0.0})
    assert rows[1].shares == pytest.approx({"plausible": 0.0, "one_hop": 0.5, "false": 0.5})
    assert rows[2].counts == {"plausible": 2, "one_hop": 2, "false": 1}
    assert rows[2].n == 5
    assert rows[2].undecided == 1
    assert judgement_shares([("2i", None)])[0].shares == {"plausible": None, "one_hop": None, "false": None}
    with pytest.raises(ValueError, match="unknown judgement"):
        judgement_shares([("2i", "maybe")])
