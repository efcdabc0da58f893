"""RICA analyses beyond accuracy (Fig. 5): the positivity bias — the share of answered probes
where the model picks the "positive" comparative (more, better, easier, higher, larger, faster)
over its opposite, beside the same share among the gold answers — and names vs novel entities:
accuracy of two runs restricted to the axioms both answered."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .bootstrap import EMPTY, Estimate, mean_ci

PAIRS = (
    ("more", "less"),
    ("better", "worse"),
    ("easier", "harder"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("faster", "slower"),
)
POSITIVE = frozenset(p for p, _ in PAIRS)
NEGATIVE = frozenset(n for _, n in PAIRS)


def positivity(words: Sequence[str | None], *, seed: int = 0, n_boot: int = 1000) -> Estimate:
    """Share of the comparative words (None = no answer, left out; other words left out) that are
    positive, with a bootstrap interval; ``n`` counts the words that are one or the other."""
    flags = [w.lower() in POSITIVE for w in words if w is not None and w.lower() in POSITIVE | NEGATIVE]
    if not flags:
        return EMPTY
    return mean_ci([float(f) for f in flags], seed=seed, n_boot=n_boot)


def axiom_counts(answers: Iterable[tuple[str, bool | None]]) -> dict[str, tuple[int, int]]:
    """``{axiom: (probes, right)}`` of ``(axiom, correct)`` pairs (None = no answer = wrong)."""
    out: dict[str, tuple[int, int]] = {}
    for g, c in answers:
        n, right = out.get(g, (0, 0))
        out[g] = (n + 1, right + bool(c))
    return out


def shared_axiom_accuracy(
    a: Mapping[str, tuple[int, int]], b: Mapping[str, tuple[int, int]]
) -> tuple[float | None, float | None, int]:
    """(accuracy of a, accuracy of b, axioms) over the probes of the axioms both runs have
    (:func:`axiom_counts` of each run, or the same counts read by a database): names vs novel
    entities on the same axioms (RICA Fig. 5b)."""
    shared = a.keys() & b.keys()

    def acc(counts: Mapping[str, tuple[int, int]]) -> float | None:
        n = sum(counts[g][0] for g in shared)
        return sum(counts[g][1] for g in shared) / n if n else None

    return acc(a), acc(b), len(shared)
