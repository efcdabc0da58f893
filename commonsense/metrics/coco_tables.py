"""CoCo's tables (spec A4–A5): the five-metric Average of Table 3, the ↑/↓ marks of Tables 4–5,
and the rule-based error category of a wrong or unanswered prediction (§6.4).

- Average = mean(MEM, COM, REA, FAI, APP), checked against all 22 rows of Table 3; Table 3's REA,
  FAI and APP are macro-averages over query types, MEM and COM pooled (spec A4, [derived]).
- Marks: "↓ and ↑ represent the performance is lower or higher than its average performance": each
  per-relation (Table 4) or per-query-type (Table 5) value against the model's own overall score.
- Error categories: **No Answer** (no final answer: empty output or an abstention), **Hallucination**
  (an answer is given but is none of the options), **Reasoning Error** (a wrong option). **Metric
  Limit** (the answer is right but the metric cannot tell) needs a reviewer: never set by the rule.
- Split by subtask (§6.4, Fig. 4: 100 errors per subtask): **REA** errors are the application sets
  whose composed question is wrong, **APP** errors those of them whose atomic questions were all
  right, both in the categories above; **FAI** errors are the sets whose composed question is right
  but not every atomic one: **No Knowledge** (no atomic question right) or **Partial Knowledge**
  (some), by rule; **Evaluation Failure** (the model did not use the annotated knowledge) and Metric
  Limit need a reviewer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

CATEGORIES = ("No Answer", "Reasoning Error", "Hallucination", "Metric Limit")
FAI_CATEGORIES = ("No Knowledge", "Partial Knowledge", "Evaluation Failure", "Metric Limit")
SUBTASK_CATEGORIES = {"REA": CATEGORIES, "FAI": FAI_CATEGORIES, "APP": CATEGORIES}
_ABSTAIN = re.compile(
    r"^\s*(none|n/?a|no answer|i (can ?not|cannot|can't|don't know|am not sure)|unknown|sorry)\b", re.IGNORECASE
)


def five_average(
    mem: float | None, com: float | None, rea: float | None, fai: float | None, app: float | None
) -> float | None:
    vals = [v for v in (mem, com, rea, fai, app) if v is not None]
    return sum(vals) / 5 if len(vals) == 5 else None


def marks(values: Mapping[str, float | None], overall: float | None) -> dict[str, str]:
    """ "↑" above the overall score, "↓" below, "=" equal; groups without a value are left out."""
    if overall is None:
        return {}
    return {k: ("↑" if v > overall else "↓" if v < overall else "=") for k, v in values.items() if v is not None}


def error_category(chosen: int | None, answer: int | None, output: str) -> str | None:
    """The rule's category of one multiple-choice prediction, None when it is right."""
    if chosen is not None:
        return None if chosen == answer else "Reasoning Error"
    text = output.strip()
    if not text or _ABSTAIN.match(text):
        return "No Answer"
    return "Hallucination"


def fai_category(atomic_correct: Sequence[bool]) -> str:
    """An FAI error (composed question right, not every atomic one): "No Knowledge" when no atomic
    question is right, else "Partial Knowledge"."""
    return "Partial Knowledge" if any(atomic_correct) else "No Knowledge"


def subtask_errors(sets: Iterable[tuple[bool, Sequence[bool], str | None]]) -> dict[str, Counter[str]]:
    """Per subtask, the errors' categories. ``sets``: per application set (composed question right,
    each atomic question right, the composed prediction's category — the rule's or a reviewer's;
    None when right)."""
    out: dict[str, Counter[str]] = {s: Counter() for s in SUBTASK_CATEGORIES}
    for reasoning, atomic, category in sets:
        if not reasoning:
            out["REA"][category or "Reasoning Error"] += 1
            if atomic and all(atomic):
                out["APP"][category or "Reasoning Error"] += 1
        elif atomic and not all(atomic):
            out["FAI"][fai_category(atomic)] += 1
    return out
