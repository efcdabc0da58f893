"""Accuracy (micro/macro, grouped, missing answers), bootstrap intervals, RICA reports."""

from __future__ import annotations

import numpy as np
import pytest

from commonsense.metrics import RicaProbe, accuracy, accuracy_by, accuracy_report, macro_accuracy, mean_ci, rica_report
from commonsense.metrics.bootstrap import macro_ci, ratio_ci


def test_micro_and_macro_accuracy() -> None:
    correct = [1, 1, 1, 0, 1, 0, None]
    keys = ["2i", "2i", "2i", "2i", "2p", "2p", "2p"]
    assert accuracy(correct, n_boot=0).value == pytest.approx(4 / 7)  # missing answer = wrong
    assert accuracy(correct, missing="drop", n_boot=0).value == pytest.approx(4 / 6)
    by = accuracy_by(correct, keys, n_boot=0)
    assert by["2i"].value == pytest.approx(0.75)
    assert by["2p"].value == pytest.approx(1 / 3)
    assert macro_accuracy(correct, keys, n_boot=0).value == pytest.approx((0.75 + 1 / 3) / 2)
    rep = accuracy_report(correct, {"structure": keys, "relation": ["x", "x", "y", "y", "", "", None]}, n_boot=100)
    assert set(rep.by["relation"].groups) == {"x", "y"}  # empty keys are left out
    assert rep.by["structure"].macro.value == pytest.approx((0.75 + 1 / 3) / 2)
    with pytest.raises(ValueError, match="boolean"):
        accuracy([0.5, 1])
    with pytest.raises(ValueError, match="keys for"):
        accuracy_by([1, 0], ["a"])


def test_bootstrap_is_seeded_and_sensible() -> None:
    rng = np.random.default_rng(0)
    x = (rng.random(2000) < 0.7).astype(float)
    a, b, c = mean_ci(x, seed=1), mean_ci(x, seed=1), mean_ci(x, seed=2)
    assert a == b
    assert a != c
    assert a.low is not None
    assert a.high is not None
    se = np.sqrt(0.7 * 0.3 / 2000)
    assert a.high - a.low == pytest.approx(2 * 1.96 * se, rel=0.15)  # close to the normal interval
    assert mean_ci([]).value is None
    r = ratio_ci([1, 0, 1, 0], [1, 1, 1, 0], n_boot=200)
    assert r.value == pytest.approx(2 / 3)
    assert r.n == 3
    m = macro_ci({"a": (np.ones(5), np.ones(5)), "b": (np.zeros(5), np.ones(5))}, n_boot=200)
    assert m.value == 0.5
    assert m.low == 0.5
    assert m.high == 0.5


def test_rica_report_by_perturbation_and_joint_axiom() -> None:
    probes = [
        RicaProbe("ax1", True, "original", "original"),
        RicaProbe("ax1", True, "negation", "original"),
        RicaProbe("ax1", True, "original", "asymmetric_premise"),
        RicaProbe("ax2", True, "original", "original"),
        RicaProbe("ax2", False, "negation", "original"),
        RicaProbe("ax2", None, "antonym", "asymmetric_conclusion"),
    ]
    rep = rica_report(probes, n_boot=100)
    assert rep.accuracy.value == pytest.approx(4 / 6)
    assert rep.by_linguistic["negation"].value == pytest.approx(0.5)
    assert rep.by_asymmetry["original"].value == pytest.approx(3 / 4)
    assert rep.by_perturbation["antonym/asymmetric_conclusion"].value == 0.0
    assert [(a.axiom, a.n_probes, a.n_correct, a.all_correct) for a in rep.axioms] == [
        ("ax1", 3, 3, True),
        ("ax2", 3, 1, False),
    ]
    assert rep.all_perturbations_correct.value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="empty axiom"):
        rica_report([RicaProbe("", True)])
