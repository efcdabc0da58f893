"""ReComSBench Fig. 7: the similarity threshold swept. At each threshold the coverage (KCR, Eq. 5)
and the redundancy ratio of every stored reasoning path against its question's stored K_prior are
recomputed, and correct and incorrect paths compared with a two-sided Mann–Whitney U test (scipy).
K_prior itself is kept as the run selected it (at the run's threshold)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats

from .recoms import Embed, Triple, knowledge_coverage_ratio, knowledge_redundancy_ratio


@dataclass(frozen=True, slots=True)
class PathRecord:
    triples: Sequence[Triple]
    k_prior: Sequence[Triple]
    correct: bool


@dataclass(frozen=True, slots=True)
class SweepPoint:
    threshold: float
    kcr_u: float | None
    kcr_p: float | None
    krr_u: float | None
    krr_p: float | None
    kcr_correct: float | None  # means, for the table
    kcr_incorrect: float | None
    n_correct: int
    n_incorrect: int


def _test(good: list[float], bad: list[float]) -> tuple[float | None, float | None]:
    if not good or not bad:
        return None, None
    res = stats.mannwhitneyu(good, bad, alternative="two-sided")
    return float(res.statistic), float(res.pvalue)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def threshold_sweep(paths: Sequence[PathRecord], thresholds: Sequence[float], embed: Embed) -> list[SweepPoint]:
    for t in thresholds:
        if not 0.0 < t <= 1.0:
            raise ValueError(f"threshold {t} outside (0, 1]")
    usable = [p for p in paths if p.k_prior]
    out = []
    for t in thresholds:
        kcr: dict[bool, list[float]] = {True: [], False: []}
        krr: dict[bool, list[float]] = {True: [], False: []}
        for p in usable:
            c = knowledge_coverage_ratio(list(p.triples), list(p.k_prior), embed, t)
            r = knowledge_redundancy_ratio(list(p.triples), list(p.k_prior), embed, t)
            if c is not None:
                kcr[p.correct].append(c)
            if r is not None:
                krr[p.correct].append(r)
        ku, kp = _test(kcr[True], kcr[False])
        ru, rp = _test(krr[True], krr[False])
        out.append(SweepPoint(t, ku, kp, ru, rp, _mean(kcr[True]), _mean(kcr[False]), len(kcr[True]), len(kcr[False])))
    return out
