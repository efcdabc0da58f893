"""The settlement rule ``needs`` (issue 26 follow-up, commonsense/verified_needs.py) on planted
posteriors: an item is settled when the verified item it makes is confidently right - the context
fine, a confident gold, three confident negatives - whatever the answers say of the option it drops."""

from __future__ import annotations

import pytest

from commonsense.annotators import COLD_START, judge, settle_needs
from commonsense.validation import NONE_CORRECT, com2_postprocess
from commonsense.verified_needs import needs

N = 5
SURE_NO, SURE_YES, CTX_FINE = 0.002, 0.99, 0.001


def _settle(label, post, n_answers=3, tied=()):  # type: ignore[no-untyped-def]
    nd = needs(label, post, N, tied=tied)
    # the answers' bits only decide "unanimous" vs "confident": one of them differs on option 1
    bits = [[0, int(k > 0), 0, 0, 0, 0] for k in range(n_answers)]
    return nd, settle_needs(bits, nd, min_answers=3, max_answers=5, threshold=0.95)


def test_settled_with_context_gold_and_three_confident_negatives() -> None:
    """Option 4 is a coin flip (0.45): the verified item drops it, so it settles nothing."""
    post = [SURE_NO, SURE_YES, SURE_NO, SURE_NO, 0.45, CTX_FINE]
    nd, s = _settle({"plausible": [1], "bad_context": False}, post)
    assert (nd.use, nd.gold, nd.negatives, nd.missing) == ("gold", 1, (0, 2, 3), 0)
    assert nd.confidence == pytest.approx((1 - CTX_FINE) * SURE_YES * (1 - SURE_NO) ** 3)
    assert s.settled
    assert s.wanted == 3
    assert s.state == "confident"


def test_not_settled_with_only_two_confident_negatives() -> None:
    """The third negative the item would keep is doubtful (0.3): it wants a fourth answer."""
    post = [SURE_NO, SURE_YES, SURE_NO, 0.3, 0.35, CTX_FINE]
    nd, s = _settle({"plausible": [1], "bad_context": False}, post)
    assert nd.negatives == (0, 2, 3)
    assert nd.confidence < 0.95
    assert not s.settled
    assert (s.state, s.wanted) == ("open", 4)
    _, at_max = _settle({"plausible": [1], "bad_context": False}, post, n_answers=5)
    assert at_max.state == "exhausted"


def test_not_settled_when_the_label_leaves_two_negatives_and_a_tie() -> None:
    """Options 3 and 4 tied 1-1 (majority rule): two negatives remain, and a further answer may
    make a third; the item stays open though gold, context and both negatives are sure."""
    post = [SURE_NO, SURE_YES, SURE_NO, 0.5, 0.5, CTX_FINE]
    nd, s = _settle({"plausible": [1], "bad_context": False}, post, tied=(3, 4))
    assert (nd.negatives, nd.missing) == ((0, 2), 1)
    assert not s.settled


def test_settles_short_of_negatives_only_when_the_rest_is_surely_plausible() -> None:
    """Three options confidently plausible: no answer would add a negative; A.4 tops up."""
    post = [SURE_NO, 0.995, SURE_YES, SURE_YES, SURE_NO, CTX_FINE]
    nd, s = _settle({"plausible": [1, 2, 3], "bad_context": False}, post)
    assert (nd.gold, nd.negatives, nd.missing) == (1, (0, 4), 1)
    assert s.settled


def test_not_settled_when_the_gold_is_unconfident() -> None:
    post = [SURE_NO, 0.7, SURE_NO, SURE_NO, SURE_NO, CTX_FINE]
    nd, s = _settle({"plausible": [1], "bad_context": False}, post)
    assert nd.gold == 1
    assert not s.settled
    assert s.state == "open"


def test_not_settled_when_the_context_is_doubtful() -> None:
    post = [SURE_NO, SURE_YES, SURE_NO, SURE_NO, SURE_NO, 0.2]
    assert not _settle({"plausible": [1], "bad_context": False}, post)[1].settled


def test_none_correct_needs_four_negatives() -> None:
    post = [SURE_NO, SURE_NO, SURE_NO, SURE_NO, 0.4, CTX_FINE]
    nd, s = _settle({"plausible": [], "none_correct": True, "bad_context": False}, post)
    assert (nd.use, nd.gold, nd.negatives) == ("none", None, (0, 1, 2, 3))
    assert s.settled
    nd, s = _settle({"plausible": [], "none_correct": True, "bad_context": False}, [*post[:3], 0.4, 0.4, CTX_FINE])
    assert not s.settled


def test_the_gold_is_the_surest_plausible_option_and_the_verified_item_keeps_exactly_its_negatives() -> None:
    post = [0.2, 0.9, 0.999, SURE_NO, 0.01, CTX_FINE]
    nd = needs({"plausible": [1, 2], "bad_context": False}, post, N)
    assert (nd.gold, nd.negatives) == (2, (3, 4, 0))
    item = com2_postprocess(["a", "b", "c", "d", "e"], [1, 2], seed=0, key="k", keep=(nd.gold, nd.negatives))
    assert item.positive == "c"
    assert sorted(o for o in item.options if o not in ("c", NONE_CORRECT)) == ["a", "d", "e"]
    assert len(item.options) == 5


def test_judge_settles_a_split_on_the_dropped_option_at_the_minimum() -> None:
    """Through :func:`judge` (what the queue calls): two of three also tick option 4, so the label
    has two plausible options. Every verdict's rule wants a fourth answer (option 4 is 2-1); ``needs``
    keeps option 1 (unanimous) as the gold, drops 4, and settles."""
    answers = list(enumerate([{"plausible": [1, 4]}, {"plausible": [1, 4]}, {"plausible": [1]}]))
    kw = {"n_options": N, "model": COLD_START, "min_answers": 3, "max_answers": 5}
    every = judge(answers, **kw)  # type: ignore[arg-type]
    assert not every.settlement.settled
    nd = judge(answers, settlement="needs", **kw)  # type: ignore[arg-type]
    assert nd.settlement.settled
    assert nd.settlement.state == "unanimous"
    assert nd.settlement.needs is not None
    assert (nd.settlement.needs.gold, nd.settlement.needs.negatives) == (1, (0, 2, 3))
    with pytest.raises(ValueError, match="settlement rule must be one of"):
        judge(answers, settlement="most", **kw)  # type: ignore[arg-type]
