"""RICA positivity bias and names-vs-novel accuracy on shared axioms: hand-computed cases."""

from __future__ import annotations

import pytest

from commonsense.metrics.rica_bias import axiom_counts, positivity, shared_axiom_accuracy


def test_positivity_by_hand() -> None:
    # 3 positive of 4 comparatives; None (no answer) and a non-comparative word are left out
    e = positivity(["more", "Better", "less", "faster", None, "blue"], n_boot=200)
    assert e.value == pytest.approx(0.75)
    assert e.n == 4
    assert e.low is not None
    assert e.high is not None
    assert e.low <= 0.75 <= e.high
    assert positivity([None, "blue"]).value is None


def test_shared_axiom_accuracy_by_hand() -> None:
    names = [("ax1", True), ("ax1", False), ("ax2", True), ("ax3", True)]
    novel = [("ax1", False), ("ax1", False), ("ax2", None), ("ax4", True)]
    # shared axioms ax1, ax2: names 2/3 right, novel 0/3 (None counts as wrong)
    assert axiom_counts(novel) == {"ax1": (2, 0), "ax2": (1, 0), "ax4": (1, 1)}
    assert shared_axiom_accuracy(axiom_counts(names), axiom_counts(novel)) == (pytest.approx(2 / 3), 0.0, 2)
    assert shared_axiom_accuracy(axiom_counts(names), axiom_counts([("zz", True)])) == (None, None, 0)
