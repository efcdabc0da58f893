"""ReComSBench's curriculum learning (§3.3, Eqs. 6–7, Table 3).

- **Levels** (Eq. 6): ``D_l = {Q | d(Q) = l}``, one per difficulty value present, easiest first;
  questions without a d(Q) (no correct path) are left out and counted. :func:`levels`.
- **Reason-CL** (Eq. 7): ``D_1 → D_2 → … → D_L``. **Score-CL** (Maharana & Bansal 2022, the paper's
  baseline): the same schedule over levels cut from the negative log-likelihood of the right
  answer under the base model (equal-count bins, lowest loss first). **RandSample**: one shuffle.
- **Dynamic weighting** (the paper: "during sampling, we use dynamic weighting to address data
  imbalance and ensure diversity", not specified further — this is ours, stated): stage l draws
  |D_l| questions from the levels unlocked so far, D_1 … D_l, each level an equal share of the
  stage's draws (a question's weight ∝ 1 / |D_k|: a small level is not drowned by a big one), each
  level's questions in a fresh seeded shuffle, cycled when a level has fewer than its share
  (earlier levels are revisited: diversity). The whole curriculum has N draws, as one epoch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
STRATEGIES = ("random", "score-cl", "reason-cl")


@dataclass(frozen=True, slots=True)
class TrainItem:
    id: str
    prompt: str  # the question as the model reads it, ending where the answer starts
    answer: str  # the answer text the loss is taken on
    difficulty: int | None = None  # d(Q) = |K_prior| of a ReComSBench run
    loss: float | None = None  # NLL of the answer under the base model (Score-CL)


def training_prompt(context: str, stem: str, options: Sequence[str]) -> str:
    """A question as the fine-tuned model reads it; the answer's text follows "Answer:"."""
    q = f"{context} {stem}".strip()
    return f"Question: {q}\nOptions: {'; '.join(options)}\nAnswer:"


def levels(items: Sequence[TrainItem]) -> tuple[list[tuple[int, list[TrainItem]]], int]:
    """Eq. 6: ``[(l, D_l)]`` by ascending d(Q), and how many items had no d(Q)."""
    by: dict[int, list[TrainItem]] = {}
    missing = 0
    for it in items:
        if it.difficulty is None:
            missing += 1
        else:
            by.setdefault(it.difficulty, []).append(it)
    return sorted(by.items()), missing


def loss_levels(items: Sequence[TrainItem], n_levels: int) -> list[list[TrainItem]]:
    """Score-CL's levels: items with a loss, sorted by it (ties by id), cut into ``n_levels`` bins
    of equal count (the first ones one larger when N does not divide)."""
    if n_levels < 1:
        raise ValueError("n_levels must be at least 1")
    ranked = sorted((it for it in items if it.loss is not None), key=lambda it: (it.loss, it.id))
    n = len(ranked)
    k = min(n_levels, n) or 1
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [ranked[bounds[i] : bounds[i + 1]] for i in range(k) if bounds[i + 1] > bounds[i]]


def schedule(groups: Sequence[Sequence[T]], seed: int) -> list[T]:
    """Eq. 7 with the dynamic weighting of the module note: stage l draws |D_l| items, an equal
    share from each of D_1 … D_l (the remainder to the newest levels), each level cycled through
    its own seeded shuffle."""
    rng = random.Random(seed)
    queues: list[list[T]] = []
    pos: list[int] = []
    out: list[T] = []

    def draw(k: int) -> T:
        if pos[k] == len(queues[k]):
            rng.shuffle(queues[k])
            pos[k] = 0
        pos[k] += 1
        return queues[k][pos[k] - 1]

    for level in groups:
        if not level:
            continue
        q = list(level)
        rng.shuffle(q)
        queues.append(q)
        pos.append(0)
        n_open, size = len(queues), len(level)
        share, extra = divmod(size, n_open)
        for k in range(n_open):
            for _ in range(share + (1 if k >= n_open - extra else 0)):
                out.append(draw(k))
    return out


def order(
    items: Sequence[TrainItem], strategy: str, seed: int, *, n_levels: int | None = None
) -> tuple[list[TrainItem], dict[str, object]]:
    """The training sequence of ``strategy`` and what it was built from (for the job's record)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if strategy == "random":
        seq = list(items)
        random.Random(seed).shuffle(seq)
        return seq, {"items": len(seq)}
    if strategy == "reason-cl":
        lv, missing = levels(items)
        return schedule([g for _, g in lv], seed), {
            "levels": {str(d): len(g) for d, g in lv},
            "without_difficulty": missing,
        }
    bins = loss_levels(items, n_levels or max(1, len(levels(items)[0])))
    return schedule(bins, seed), {
        "levels": [len(b) for b in bins],
        "without_loss": sum(it.loss is None for it in items),
    }


def export_levels(items: Sequence[TrainItem], write: Callable[[int, list[TrainItem]], None]) -> dict[int, int]:
    """Eq. 6's levels as training splits: ``write(l, D_l)`` per level; returns the sizes."""
    lv, _ = levels(items)
    for d, group in lv:
        write(d, group)
    return {d: len(g) for d, g in lv}
