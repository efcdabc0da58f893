"""ReComSBench (spec §3.2–3.3): prior knowledge, difficulty, KBA, MSG and KCR.

Reasoning paths are sampled, judged and have their knowledge triples extracted elsewhere (a
model does that); this module does the set arithmetic. Triples are compared *fuzzily*: two triples
are the same when the cosine similarity of their embeddings is ≥ ``threshold`` (0.75 with
all-MiniLM-L6-v2 in the paper). The embedding function is passed in — ``embed(texts) -> (n, dim)``
array — so nothing here loads a model. A triple is embedded as ``"subject predicate object"``.

- ``K_new(S) = K(S) \\ K(Q)`` (Eq. 2); ``S* = argmin |K(S)|`` over correct paths (Eq. 1; ties → the
  earliest path, i.e. the greedy one when it is first); ``K_prior = K_new(S*)``; ``d(Q) = |K_prior|``.
- ``KCR(S) = |K(S) ∩ K_prior| / |K_prior|`` (Eq. 5): the share of prior triples the path covers.
- ``MSG(K) = pass@K − pass@(K−1)`` (Eq. 4) with pass@K the share of questions solved by one of
  the first K samples.
- Sliding windows (§4.2): sort by d(Q) ascending, window = N/3, step = window/3 = N/9, so seven
  windows, the last ending at N (:func:`window_bounds`); Easy = first window, Hard = last,
  Δ = Acc_Easy − Acc_Hard (Δ* the same on KBA predictions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from .bootstrap import FloatArray

Triple = tuple[str, str, str]
Embed = Callable[[Sequence[str]], npt.ArrayLike]
THRESHOLD = 0.75


def triple_text(t: Triple) -> str:
    return " ".join(part.strip() for part in t if part and part.strip())


def _unit(embed: Embed, triples: Sequence[Triple]) -> FloatArray:
    if not triples:
        return np.zeros((0, 1))
    v = np.asarray(embed([triple_text(t) for t in triples]), dtype=float)
    if v.ndim != 2 or v.shape[0] != len(triples):
        raise ValueError(f"embed returned shape {v.shape} for {len(triples)} texts; expected (n, dim)")
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return np.asarray(v / np.where(norm == 0, 1.0, norm))


def _sim(a: FloatArray, b: FloatArray) -> FloatArray:
    if a.shape[0] == 0 or b.shape[0] == 0:
        return np.zeros((a.shape[0], b.shape[0]))
    return np.asarray(a @ b.T)


def deduplicate(triples: Sequence[Triple], embed: Embed, threshold: float = THRESHOLD) -> list[Triple]:
    """Keep each triple unless it is ≥ threshold similar to one already kept (first wins)."""
    vec = _unit(embed, triples)
    kept: list[int] = []
    for i in range(len(triples)):
        if not kept or float(np.max(vec[kept] @ vec[i])) < threshold:
            kept.append(i)
    return [triples[i] for i in kept]


def fuzzy_difference(
    triples: Sequence[Triple], remove: Sequence[Triple], embed: Embed, threshold: float = THRESHOLD
) -> list[Triple]:
    """``triples \\ remove``: those with no match ≥ threshold in ``remove``."""
    if not remove:
        return list(triples)
    s = _sim(_unit(embed, triples), _unit(embed, remove))
    return [t for t, row in zip(triples, s, strict=True) if float(row.max()) < threshold]


@dataclass(frozen=True, slots=True)
class ReasoningPath:
    correct: bool
    triples: tuple[Triple, ...]


@dataclass(frozen=True, slots=True)
class PriorKnowledge:
    k_prior: list[Triple]
    path_index: int | None  # index of S* in the input, None when no path is correct

    @property
    def difficulty(self) -> int | None:
        """d(Q) = |K_prior|; None when the question has no correct path (undefined in the paper)."""
        return None if self.path_index is None else len(self.k_prior)


def select_prior_knowledge(
    paths: Sequence[ReasoningPath],
    question_triples: Sequence[Triple],
    embed: Embed,
    *,
    threshold: float = THRESHOLD,
    minimise: Literal["all", "new"] = "all",
) -> PriorKnowledge:
    """K_prior of one question. Each path's triples are deduplicated first; ``minimise="all"``
    follows Eq. 1 (smallest |K(S)|), ``"new"`` picks the smallest |K_new(S)| instead."""
    if minimise not in ("all", "new"):
        raise ValueError(f"minimise must be 'all' or 'new', got {minimise!r}")
    best: tuple[int, int, list[Triple]] | None = None
    for i, path in enumerate(paths):
        if not path.correct:
            continue
        k = deduplicate(list(path.triples), embed, threshold)
        new = fuzzy_difference(k, question_triples, embed, threshold)
        size = len(k) if minimise == "all" else len(new)
        if best is None or size < best[0]:
            best = (size, i, new)
    if best is None:
        return PriorKnowledge([], None)
    return PriorKnowledge(best[2], best[1])


def knowledge_coverage_ratio(
    path_triples: Sequence[Triple], k_prior: Sequence[Triple], embed: Embed, threshold: float = THRESHOLD
) -> float | None:
    """KCR (Eq. 5); None when K_prior is empty."""
    if not k_prior:
        return None
    s = _sim(_unit(embed, k_prior), _unit(embed, path_triples))
    covered = int((s >= threshold).any(axis=1).sum()) if s.size else 0
    return covered / len(k_prior)


def knowledge_redundancy_ratio(
    path_triples: Sequence[Triple], k_prior: Sequence[Triple], embed: Embed, threshold: float = THRESHOLD
) -> float | None:
    """[derived, no formula in the paper] |K(S) \\ K_prior| / |K_prior| — unbounded above."""
    if not k_prior:
        return None
    return len(fuzzy_difference(list(path_triples), k_prior, embed, threshold)) / len(k_prior)


def pass_at_k(correct: npt.ArrayLike) -> FloatArray:
    """``correct[q, s]`` = sample s of question q was right (sample 0 = greedy). Returns
    pass@1..pass@S: share of questions solved by one of the first K samples."""
    c = np.asarray(correct, dtype=bool)
    if c.ndim != 2 or c.shape[1] == 0:
        raise ValueError(f"correct must be a question × sample matrix, got shape {c.shape}")
    return np.asarray(np.logical_or.accumulate(c, axis=1).mean(axis=0), dtype=float)


def marginal_sampling_gain(pass_k: npt.ArrayLike) -> dict[int, float]:
    """MSG(K) = pass@K − pass@(K−1) for K = 2..len(pass_k) (pass_k[0] is pass@1)."""
    p = np.asarray(pass_k, dtype=float)
    return {k: float(p[k - 1] - p[k - 2]) for k in range(2, p.size + 1)}


def sampling_budget(pass_k: npt.ArrayLike, tau: float) -> int:
    """The K at which sampling stops: the first K ≥ 2 with MSG(K) < tau (else the last K)."""
    gains = marginal_sampling_gain(pass_k)
    return next((k for k, g in gains.items() if g < tau), max(gains, default=1))


@dataclass(frozen=True, slots=True)
class Window:
    start: int
    stop: int
    mean_difficulty: float
    accuracy: float


def sliding_windows(
    difficulty: npt.ArrayLike, correct: npt.ArrayLike, *, window: int | None = None, step: int | None = None
) -> list[Window]:
    """Windows over the items sorted by d(Q) (stable: ties keep input order), cut by
    :func:`window_bounds` (default: the paper's seven windows of N/3 at step N/9)."""
    d, c = np.asarray(difficulty, dtype=float), np.asarray(correct, dtype=float)
    if d.shape != c.shape or d.ndim != 1:
        raise ValueError("difficulty and correct must be 1-D and of equal length")
    if np.isnan(d).any() or np.isnan(c).any():
        raise ValueError("drop questions without a difficulty or a prediction first")
    order = np.argsort(d, kind="stable")
    ds, cs = d[order], c[order]
    return [
        Window(a, b, float(ds[a:b].mean()), float(cs[a:b].mean()))
        for a, b in window_bounds(d.size, window=window, step=step)
    ]


def _half_up(num: int, den: int) -> int:
    """round(num / den), halves up, in integers."""
    return (2 * num + den) // (2 * den)


def window_bounds(n: int, *, window: int | None = None, step: int | None = None) -> list[tuple[int, int]]:
    """[start, stop) of each window over n sorted items.

    Default: the paper's windows exactly (§4.2, "the window length is one-third of the dataset size,
    and the step size is one-third of the window length"): seven windows, the i-th (i = 0..6)
    covering [i·N/9, i·N/9 + N/3), its bounds rounded to whole items (halves up). When 9 divides N
    every window holds exactly N/3 items; otherwise a window holds ⌊N/3⌋ or ⌈N/3⌉ items. The first
    window starts at 0 and the seventh ends at N, so no extra window is needed. [] when N < 3 (a
    third of the set is not one item).

    With ``window`` (and ``step``, default window // 3) given, windows start at 0, step, 2·step, …
    while they fit, and a last window ending at N is added if the steps miss it: Hard is then still
    the hardest items, which a custom cut would otherwise leave out."""
    if window is None and step is None:
        if n < 3:
            return []
        return [(_half_up(i * n, 9), _half_up((i + 3) * n, 9)) for i in range(7)]
    w = window or max(1, n // 3)
    s = step or max(1, w // 3)
    if n == 0 or w > n:
        return []
    starts = list(range(0, n - w + 1, s))
    if starts[-1] != n - w:
        starts.append(n - w)
    return [(a, a + w) for a in starts]


@dataclass(frozen=True, slots=True)
class EasyHard:
    easy: float
    hard: float

    @property
    def delta(self) -> float:
        return self.easy - self.hard


def easy_hard(
    difficulty: npt.ArrayLike, correct: npt.ArrayLike, *, window: int | None = None, step: int | None = None
) -> EasyHard | None:
    """Acc on the first (Easy) and last (Hard) window; Δ = Easy − Hard. Pass KBA predictions
    (answers given K_prior as hints) as ``correct`` for KBA's Δ*."""
    ws = sliding_windows(difficulty, correct, window=window, step=step)
    return EasyHard(ws[0].accuracy, ws[-1].accuracy) if ws else None
