"""CoCo consistency scores (Li et al.): MEM, COM, REA, FAI, APP and their Average.

Input is one :class:`CocoAnswer` per answered question: the question set it belongs to
(``group``), its role in the set and whether it was answered correctly. The set type follows from
the roles (CoCo Eq. 2):

- memorization set: one ``memorization`` question (aspect = relation);
- comprehension set: one ``memorization`` question + ``conceptualization_<k>`` (aspect = relation);
  Eq. 5 divides the conceptualisations answered right by m, the paper's m = 3 (``M_CONCEPTS``), so
  a comprehension set is one with exactly m conceptualisation questions; a set with another number
  is not an Eq. 5 set and is left out of COM (counted in ``CocoSets.com_left_out``);
- application set: ``atomic_<k>`` sub-questions + one ``reasoning`` question (aspect = query kind).

Micro scores are the pooled Eqs. 4–8. Macro scores average per aspect first: over relations for
MEM and COM, over query kinds for REA, FAI and APP — Table 3 of the paper reports macro REA/FAI/APP
(see the spec's [derived] note); both are returned. ``Average`` is the mean of the five.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .bootstrap import EMPTY, LEVEL, N_BOOT, Estimate, FloatArray, group_indices, macro_ci, ratio_ci

_ROLE = re.compile(r"^(memorization|reasoning|conceptualization_\d+|atomic_\d+)$")
METRICS = ("MEM", "COM", "REA", "FAI", "APP")
M_CONCEPTS = 3  # Eq. 5's m: conceptualisation questions per comprehension set (§A2.2 samples 3)


@dataclass(frozen=True, slots=True)
class CocoAnswer:
    group: str
    role: str
    correct: bool
    aspect: str = ""


@dataclass(frozen=True, slots=True)
class CocoSets:
    """Per-set indicators, as parallel arrays (one entry per set of that type)."""

    mem_aspect: list[str]
    mem_correct: FloatArray  # memorization set answered correctly
    com_aspect: list[str]
    com_base: FloatArray  # the set's original (memorization) question correct
    com_concept: FloatArray  # share of its conceptualization questions answered correctly
    app_aspect: list[str]
    app_reasoning: FloatArray  # the composed question correct
    app_atomic: FloatArray  # every atomic sub-question correct
    com_left_out: int = 0  # comprehension sets without exactly m conceptualisations (not Eq. 5 sets)

    @staticmethod
    def build(
        mem: Iterable[tuple[str, bool]] = (),
        com: Iterable[tuple[str, bool, float]] = (),
        app: Iterable[tuple[str, bool, bool]] = (),
        com_left_out: int = 0,
    ) -> CocoSets:
        """From per-set tuples: ``(aspect, correct)``, ``(aspect, base_correct, concept_share)``,
        ``(aspect, reasoning_correct, all_atomic_correct)``."""
        m, c, a = list(mem), list(com), list(app)
        return CocoSets(
            [x[0] for x in m],
            np.asarray([x[1] for x in m], dtype=float),
            [x[0] for x in c],
            np.asarray([x[1] for x in c], dtype=float),
            np.asarray([x[2] for x in c], dtype=float),
            [x[0] for x in a],
            np.asarray([x[1] for x in a], dtype=float),
            np.asarray([x[2] for x in a], dtype=float),
            com_left_out,
        )


def _aspect(group: str, rows: list[CocoAnswer]) -> str:
    found = {r.aspect for r in rows if r.aspect}
    if len(found) > 1:
        raise ValueError(f"set {group!r} mixes aspects {sorted(found)}")
    return found.pop() if found else ""


def assemble_sets(answers: Iterable[CocoAnswer], *, m: int = M_CONCEPTS) -> CocoSets:
    """Group answers into question sets and check each set's structure; a comprehension set's
    share is Eq. 5's Σ 1[p_{k*^c} = a_{k*^c}] / m over its m conceptualisations."""
    by_group: dict[str, list[CocoAnswer]] = {}
    for ans in answers:
        if not _ROLE.match(ans.role):
            raise ValueError(f"set {ans.group!r}: unknown role {ans.role!r}")
        by_group.setdefault(ans.group, []).append(ans)
    mem: list[tuple[str, bool]] = []
    com: list[tuple[str, bool, float]] = []
    app: list[tuple[str, bool, bool]] = []
    left_out = 0
    for group, rows in by_group.items():
        roles = [r.role for r in rows]
        if len(set(roles)) != len(roles):
            raise ValueError(f"set {group!r} repeats a role: {sorted(roles)}")
        base = [r for r in rows if r.role == "memorization"]
        concepts = [r for r in rows if r.role.startswith("conceptualization_")]
        atomics = [r for r in rows if r.role.startswith("atomic_")]
        reasoning = [r for r in rows if r.role == "reasoning"]
        aspect = _aspect(group, rows)
        if reasoning or atomics:
            if base or concepts or len(reasoning) != 1 or not atomics:
                raise ValueError(
                    f"set {group!r}: an application set needs one reasoning and >= 1 atomic question"
                    f" and nothing else, got {sorted(roles)}"
                )
            app.append((aspect, bool(reasoning[0].correct), all(r.correct for r in atomics)))
        elif concepts:
            if len(base) != 1:
                raise ValueError(f"set {group!r}: a comprehension set needs its memorization question")
            if len(concepts) != m:
                left_out += 1
                continue
            com.append((aspect, bool(base[0].correct), sum(bool(r.correct) for r in concepts) / m))
        else:
            mem.append((aspect, bool(base[0].correct)))
    return CocoSets.build(mem, com, app, left_out)


@dataclass(frozen=True, slots=True)
class CocoScores:
    """One estimate per metric; ``average`` is the mean of the five point values (no interval)."""

    MEM: Estimate
    COM: Estimate
    REA: Estimate
    FAI: Estimate
    APP: Estimate

    @property
    def average(self) -> float | None:
        vals = [getattr(self, m).value for m in METRICS]
        return None if any(v is None for v in vals) else float(np.mean(vals))

    def as_dict(self) -> dict[str, float | None]:
        return {**{m: getattr(self, m).value for m in METRICS}, "Average": self.average}


def _pairs(s: CocoSets) -> dict[str, tuple[list[str], FloatArray, FloatArray]]:
    """(aspects, numerator, denominator) per metric, one entry per set."""
    ones_m, ones_a = np.ones_like(s.mem_correct), np.ones_like(s.app_reasoning)
    both = s.app_reasoning * s.app_atomic
    return {
        "MEM": (s.mem_aspect, s.mem_correct, ones_m),
        "COM": (s.com_aspect, s.com_base * s.com_concept, s.com_base),  # Eq. 5
        "REA": (s.app_aspect, s.app_reasoning, ones_a),  # Eq. 6
        "FAI": (s.app_aspect, both, s.app_reasoning),  # Eq. 7: P(all atomic | reasoning correct)
        "APP": (s.app_aspect, both, s.app_atomic),  # Eq. 8: P(reasoning | all atomic correct)
    }


def coco_scores_micro(sets: CocoSets, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> CocoScores:
    """Pooled Eqs. 4–8; intervals resample question sets."""
    out = {}
    for name, (_, num, den) in _pairs(sets).items():
        out[name] = ratio_ci(num, den, n_boot=n_boot, seed=seed, level=level) if den.size else EMPTY
    return CocoScores(**out)


def coco_scores_macro(sets: CocoSets, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> CocoScores:
    """Unweighted means over aspects (relations for MEM/COM, query kinds for REA/FAI/APP) of the
    per-aspect pooled scores; intervals resample sets within each aspect."""
    out = {}
    for name, (aspects, num, den) in _pairs(sets).items():
        groups = {k: (num[i], den[i]) for k, i in group_indices(aspects).items()}
        out[name] = macro_ci(groups, n_boot=n_boot, seed=seed, level=level)
    return CocoScores(**out)


def coco_scores_by_aspect(
    sets: CocoSets, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL
) -> dict[str, dict[str, Estimate]]:
    """``{metric: {aspect: estimate}}`` — Table 4 (per relation) and Table 5 (per query kind)."""
    out: dict[str, dict[str, Estimate]] = {}
    for name, (aspects, num, den) in _pairs(sets).items():
        out[name] = {
            k: ratio_ci(num[i], den[i], n_boot=n_boot, seed=seed, level=level)
            for k, i in group_indices(aspects).items()
        }
    return out


@dataclass(frozen=True, slots=True)
class CocoReport:
    micro: CocoScores
    macro: CocoScores
    by_aspect: dict[str, dict[str, Estimate]]
    com_left_out: int = 0  # comprehension sets without exactly m conceptualisations


def coco_report(
    answers: Iterable[CocoAnswer], *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL
) -> CocoReport:
    """Assemble the sets and compute micro, macro and per-aspect scores."""
    sets = assemble_sets(answers)
    return CocoReport(
        coco_scores_micro(sets, n_boot=n_boot, seed=seed, level=level),
        coco_scores_macro(sets, n_boot=n_boot, seed=seed, level=level),
        coco_scores_by_aspect(sets, n_boot=n_boot, seed=seed, level=level),
        sets.com_left_out,
    )
