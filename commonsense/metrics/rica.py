"""RICA (Zhou et al.): per-probe accuracy by perturbation and all-perturbations-correct per axiom.

A probe is correct when the model prefers the gold comparative over its opposite (MWP) or the
correct sentence over the flipped one (SP); the paper reports the mean of that (chance = 0.5).
The all-perturbations score — an axiom counts only if *every* probe of its statement set is right
(the paper's §2.1 success criterion, never reported as a number there) — is our extension and is
labelled so. It is not the paper's "Joint" column, which is per-probe accuracy on the union of the
Easy and Hard sets (:func:`commonsense.metrics.rica_bias.joint_accuracy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .accuracy import accuracy, accuracy_by, correctness
from .bootstrap import LEVEL, N_BOOT, Estimate, group_indices, mean_ci

LINGUISTIC = (
    "original",
    "negation",
    "antonym",
    "paraphrase",
    "paraphrase_inversion",
    "negation_antonym",
    "negation_paraphrase",
    "negation_paraphrase_inversion",
)
ASYMMETRY = ("original", "asymmetric_premise", "asymmetric_conclusion")
# The labels above are the human-curated set's 8 × 3 grid; other sets use their own names (the 10k
# set's keys are e.g. ``negated_asymmetric_premise``), so any non-empty label is accepted.


@dataclass(frozen=True, slots=True)
class RicaProbe:
    axiom: str
    correct: bool | None  # None = no prediction (scored as wrong)
    linguistic: str = "original"
    asymmetry: str = "original"


@dataclass(frozen=True, slots=True)
class AxiomResult:
    axiom: str
    n_probes: int
    n_correct: int

    @property
    def all_correct(self) -> bool:
        return self.n_probes > 0 and self.n_correct == self.n_probes


@dataclass(frozen=True, slots=True)
class RicaReport:
    accuracy: Estimate  # per-probe (the paper's number)
    by_perturbation: dict[str, Estimate]  # "<linguistic>/<asymmetry>", up to 24 cells
    by_linguistic: dict[str, Estimate]
    by_asymmetry: dict[str, Estimate]
    axioms: list[AxiomResult]
    all_perturbations_correct: Estimate  # extension: share of axioms with every probe right


def _check(probes: Sequence[RicaProbe]) -> None:
    for i, p in enumerate(probes):
        if not p.linguistic or not p.asymmetry:
            raise ValueError(f"probe {i}: empty perturbation label")
        if not p.axiom:
            raise ValueError(f"probe {i}: empty axiom id")


def axiom_results(probes: Sequence[RicaProbe]) -> list[AxiomResult]:
    x = correctness([p.correct for p in probes], "wrong")
    return [
        AxiomResult(k, int(idx.size), int(x[idx].sum())) for k, idx in group_indices([p.axiom for p in probes]).items()
    ]


def rica_report(
    probes: Sequence[RicaProbe], *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL
) -> RicaReport:
    _check(probes)
    correct = [p.correct for p in probes]
    kw_b, kw_s, kw_l = n_boot, seed, level
    axioms = axiom_results(probes)
    joint = mean_ci(np.asarray([a.all_correct for a in axioms], dtype=float), n_boot=kw_b, seed=kw_s, level=kw_l)
    return RicaReport(
        accuracy(correct, n_boot=kw_b, seed=kw_s, level=kw_l),
        accuracy_by(correct, [f"{p.linguistic}/{p.asymmetry}" for p in probes], n_boot=kw_b, seed=kw_s, level=kw_l),
        accuracy_by(correct, [p.linguistic for p in probes], n_boot=kw_b, seed=kw_s, level=kw_l),
        accuracy_by(correct, [p.asymmetry for p in probes], n_boot=kw_b, seed=kw_s, level=kw_l),
        axioms,
        joint,
    )
