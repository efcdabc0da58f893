"""CoCo's tables (spec A4–A5): the five-metric Average of Table 3, the ↑/↓ marks of Tables 4–5,
and the rule-based error category of a wrong or unanswered prediction (§6.4).

- Average = mean(MEM, COM, REA, FAI, APP), checked against all 22 rows of Table 3; Table 3's REA,
  FAI and APP are macro-averages over query types, MEM and COM pooled (spec A4, [derived]).
- Marks: "↓ and ↑ represent the performance is lower or higher than its average performance": each
  per-relation (Table 4) or per-query-type (Table 5) value against the model's own overall score.
- Error categories: **No Answer** (no final answer: empty output or an abstention), **Hallucination**
  (an answer is given but is none of the options), **Reasoning Error** (a wrong option). **Metric
  Limit** (the answer is right but the metric cannot tell) needs a reviewer: never set by the rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

CATEGORIES = ("No Answer", "Reasoning Error", "Hallucination", "Metric Limit")
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
