"""RICA analyses beyond accuracy (Fig. 5).

- Fig. 5a, :func:`polarity_accuracy`: accuracy on the probes whose gold comparative is the
  positive word (more, better, easier, higher, larger, faster) and on those whose gold is the
  negative one ("accuracy on positive-valence words is much higher than on negative ones").
- :func:`positivity`: a diagnostic beside it, the share of answered probes where the model picks
  the positive word, with the same share among the gold answers (an unbiased model sits there).
- Fig. 5b, :func:`shared_axiom_accuracy`: names vs novel entities, accuracy of two runs restricted
  to the axioms both answered.
- Appendix tables, :func:`joint_accuracy`: the "Joint Set" score, per-probe accuracy on Easy ∪ Hard
  (the human-verified test set and the human-curated set): (n_E·Acc_E + n_H·Acc_H) / (n_E + n_H).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .accuracy import correctness
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


def polarity(word: str | None) -> str | None:
    """ "positive", "negative", or None for a word of neither list (or no word)."""
    w = (word or "").lower()
    return "positive" if w in POSITIVE else "negative" if w in NEGATIVE else None


def polarity_accuracy(
    golds: Sequence[str | None], correct: Sequence[bool | None], *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Estimate]:
    """RICA Fig. 5a: ``{"positive": acc, "negative": acc}`` over the probes whose gold word is of
    that polarity (None = no answer = wrong); probes whose gold is neither are left out."""
    if len(golds) != len(correct):
        raise ValueError(f"{len(golds)} gold words for {len(correct)} answers")
    x = correctness(list(correct), "wrong")
    out: dict[str, Estimate] = {}
    for pol in ("positive", "negative"):
        sel = [float(x[i]) for i, g in enumerate(golds) if polarity(g) == pol]
        out[pol] = mean_ci(sel, seed=seed, n_boot=n_boot) if sel else EMPTY
    return out


def joint_accuracy(easy: tuple[float, float], hard: tuple[float, float]) -> float | None:
    """RICA's Joint Set score from ``(probes, right)`` of the Easy and the Hard set: per-probe
    accuracy on their union (None when both are empty)."""
    n = easy[0] + hard[0]
    return (easy[1] + hard[1]) / n if n else None


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
