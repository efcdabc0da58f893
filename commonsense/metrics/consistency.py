"""Per-set consistency categories: the explorer's 2×2 of "knows the parts × solves the whole".

For an application set, *knows* = every atomic sub-question correct and *solves* = the composed
(reasoning) question correct. For a comprehension set, *knows* = the original memorization
question correct and *solves* = every conceptualization question correct (``strict``) or at least
half of them (``strict=False``). Memorization-only sets have no 2×2 and are skipped.

Categories:
- ``consistent``: knows and solves;
- ``knows_cannot_compose``: knows the parts, fails the whole (CoCo's APP misses);
- ``right_wrong_reason``: solves the whole without knowing the parts (CoCo's FAI misses);
- ``neither``: knows neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .coco import CocoAnswer

Category = Literal["consistent", "knows_cannot_compose", "right_wrong_reason", "neither"]
CATEGORIES: tuple[Category, ...] = ("consistent", "knows_cannot_compose", "right_wrong_reason", "neither")
LABELS: dict[Category, str] = {
    "consistent": "knows the facts and solves the question",
    "knows_cannot_compose": "knows the facts but cannot compose them",
    "right_wrong_reason": "right for the wrong reason",
    "neither": "knows neither",
}


@dataclass(frozen=True, slots=True)
class SetConsistency:
    group: str
    task: Literal["comprehension", "application"]
    aspect: str
    knows: bool
    solves: bool
    parts_correct: int
    parts_total: int

    @property
    def category(self) -> Category:
        return category(self.knows, self.solves)


def category(knows: bool, solves: bool) -> Category:
    if knows:
        return "consistent" if solves else "knows_cannot_compose"
    return "right_wrong_reason" if solves else "neither"


def set_consistency(answers: Iterable[CocoAnswer], *, strict: bool = True) -> list[SetConsistency]:
    """One entry per comprehension or application set, in first-seen order."""
    by_group: dict[str, list[CocoAnswer]] = {}
    for a in answers:
        by_group.setdefault(a.group, []).append(a)
    out: list[SetConsistency] = []
    for group, rows in by_group.items():
        aspect = next((r.aspect for r in rows if r.aspect), "")
        atomics = [r.correct for r in rows if r.role.startswith("atomic_")]
        reasoning = [r.correct for r in rows if r.role == "reasoning"]
        concepts = [r.correct for r in rows if r.role.startswith("conceptualization_")]
        base = [r.correct for r in rows if r.role == "memorization"]
        if atomics and len(reasoning) == 1:
            out.append(
                SetConsistency(
                    group, "application", aspect, all(atomics), bool(reasoning[0]), sum(atomics), len(atomics)
                )
            )
        elif concepts and len(base) == 1:
            solved = all(concepts) if strict else 2 * sum(concepts) >= len(concepts)
            out.append(
                SetConsistency(group, "comprehension", aspect, bool(base[0]), solved, sum(concepts), len(concepts))
            )
        elif atomics or reasoning or concepts:
            raise ValueError(f"set {group!r} is incomplete: roles {sorted(r.role for r in rows)}")
    return out


def consistency_table(sets: Iterable[SetConsistency]) -> dict[Category, int]:
    """Counts per category (all four keys present)."""
    counts = Counter(s.category for s in sets)
    return {c: counts.get(c, 0) for c in CATEGORIES}
