"""ReComSBench metrics of one evaluated question set (spec §3.3, Tables 2/5/6, Fig. 3–5).

Input: one :class:`RecomsItem` per question — the direct answer's and the KBA answer's
correctness, d(Q), and each sampled path's correctness and KCR (in sampling order, path 0 the
greedy one). Output (:func:`recoms_report`):

- **pass@1..K** and **MSG(K) = pass@K − pass@(K−1)** (Eq. 4) with their sum (= pass@K − pass@1).
  K is the smallest number of paths any judged question has, so every pass@k is over the same
  questions. As per-question indicators (solved within k; first solved at k), each has a
  bootstrap interval.
- **Accuracy** (direct prompt) and **KBA** (Eq. 3, hints prompt) overall.
- **Sliding windows** Easy → Hard over the questions with a difficulty, sorted by d(Q) (stable,
  ties in input order), the paper's seven windows of N/3 at step N/9 (:func:`.recoms.window_bounds`):
  accuracy and KBA per window; Easy = first
  window, Hard = last; Δ = Acc_Easy − Acc_Hard, Δ* = KBA_Easy − KBA_Hard (§4.2, Table 5).
- **KCR** (Eq. 5) of correct vs incorrect paths (paths of questions whose K_prior is empty have
  no KCR), their means with intervals, and the two-sided Mann–Whitney U test (Fig. 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .bootstrap import EMPTY, Estimate, mean_ci
from .recoms import window_bounds


@dataclass(frozen=True, slots=True)
class RecomsItem:
    correct: bool | None  # direct answer right; None = no gold or not asked
    kba_correct: bool | None
    difficulty: int | None  # d(Q); None = no correct path
    path_correct: tuple[bool | None, ...] = ()
    path_kcr: tuple[float | None, ...] = ()


@dataclass(frozen=True, slots=True)
class WindowScores:
    index: int
    start: int
    stop: int
    d_min: float
    d_max: float
    mean_difficulty: float
    accuracy: Estimate
    kba: Estimate


@dataclass(frozen=True, slots=True)
class MannWhitney:
    u: float  # U of the correct group
    p: float  # two-sided
    n_correct: int
    n_incorrect: int


@dataclass(frozen=True, slots=True)
class RecomsReport:
    k: int
    pass_at: list[Estimate]  # pass@1 .. pass@k
    msg: dict[int, Estimate]  # MSG(2) .. MSG(k)
    msg_sum: Estimate
    accuracy: Estimate
    kba: Estimate
    windows: list[WindowScores] = field(default_factory=list)
    difficulty: Estimate = EMPTY  # mean d(Q) over questions that have one
    with_difficulty: int = 0
    kcr_correct: Estimate = EMPTY
    kcr_incorrect: Estimate = EMPTY
    kcr_test: MannWhitney | None = None

    @property
    def easy(self) -> WindowScores | None:
        return self.windows[0] if self.windows else None

    @property
    def hard(self) -> WindowScores | None:
        return self.windows[-1] if self.windows else None

    @property
    def delta(self) -> float | None:
        """Δ = Acc_Easy − Acc_Hard."""
        return _diff(self.easy.accuracy if self.easy else None, self.hard.accuracy if self.hard else None)

    @property
    def delta_kba(self) -> float | None:
        """Δ* = KBA_Easy − KBA_Hard."""
        return _diff(self.easy.kba if self.easy else None, self.hard.kba if self.hard else None)


def _diff(a: Estimate | None, b: Estimate | None) -> float | None:
    if a is None or b is None or a.value is None or b.value is None:
        return None
    return a.value - b.value


def _bools(values: Sequence[bool | None]) -> list[float]:
    return [float("nan") if v is None else float(v) for v in values]


def _pass_at(items: Sequence[RecomsItem], seed: int) -> tuple[int, list[Estimate], dict[int, Estimate], Estimate]:
    judged = [it.path_correct for it in items if it.path_correct and all(c is not None for c in it.path_correct)]
    if not judged:
        return 0, [], {}, EMPTY
    k = min(len(p) for p in judged)
    solved = np.logical_or.accumulate(np.asarray([p[:k] for p in judged], dtype=bool), axis=1)
    pass_at = [mean_ci(solved[:, j], seed=seed) for j in range(k)]
    first_at = {j + 1: mean_ci(solved[:, j] & ~solved[:, j - 1], seed=seed) for j in range(1, k)}
    total = mean_ci(solved[:, k - 1] & ~solved[:, 0], seed=seed) if k > 1 else EMPTY
    return k, pass_at, first_at, total


def _windows(items: Sequence[RecomsItem], seed: int, window: int | None, step: int | None) -> list[WindowScores]:
    pool = [it for it in items if it.difficulty is not None and it.correct is not None]
    order = sorted(range(len(pool)), key=lambda i: pool[i].difficulty or 0)  # sorted() is stable
    ranked = [pool[i] for i in order]
    out = []
    for w, (a, b) in enumerate(window_bounds(len(ranked), window=window, step=step)):
        part = ranked[a:b]
        d = [float(it.difficulty or 0) for it in part]
        out.append(
            WindowScores(
                w,
                a,
                b,
                min(d),
                max(d),
                float(np.mean(d)),
                mean_ci(_bools([it.correct for it in part]), seed=seed),
                mean_ci(_bools([it.kba_correct for it in part]), seed=seed),
            )
        )
    return out


def _kcr(items: Sequence[RecomsItem], seed: int) -> tuple[Estimate, Estimate, MannWhitney | None]:
    good: list[float] = []
    bad: list[float] = []
    for it in items:
        for c, v in zip(it.path_correct, it.path_kcr, strict=False):
            if v is None or c is None:
                continue
            (good if c else bad).append(float(v))
    test = None
    if good and bad:
        from scipy import stats

        res = stats.mannwhitneyu(good, bad, alternative="two-sided")
        test = MannWhitney(float(res.statistic), float(res.pvalue), len(good), len(bad))
    return mean_ci(good, seed=seed), mean_ci(bad, seed=seed), test


def recoms_report(
    items: Sequence[RecomsItem], *, seed: int = 0, window: int | None = None, step: int | None = None
) -> RecomsReport:
    k, pass_at, msg, msg_sum = _pass_at(items, seed)
    with_d = [float(it.difficulty) for it in items if it.difficulty is not None]
    good, bad, test = _kcr(items, seed)
    return RecomsReport(
        k=k,
        pass_at=pass_at,
        msg=msg,
        msg_sum=msg_sum,
        accuracy=mean_ci(_bools([it.correct for it in items]), seed=seed),
        kba=mean_ci(_bools([it.kba_correct for it in items]), seed=seed),
        windows=_windows(items, seed, window, step),
        difficulty=mean_ci(with_d, seed=seed),
        with_difficulty=len(with_d),
        kcr_correct=good,
        kcr_incorrect=bad,
        kcr_test=test,
    )
