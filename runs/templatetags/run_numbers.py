"""How run pages print a model's numbers (issue 29 item 11): ``{% load run_numbers %}``.

``scores|option_scores`` labels each score with its option (``A 0.200 · B 0.800``, a statement run's
``no 0.000 · yes 1.000``) at three decimals; stored scores keep their full precision (exports, API)."""

from __future__ import annotations

from collections.abc import Sequence

from django import template

from commonsense.scoring.yesno import YESNO_OPTIONS

register = template.Library()

STATEMENT_OPTIONS = YESNO_OPTIONS  # a statement run's scores are [P(no), P(yes)] (commonsense.scoring.yesno)


def score_text(value: object) -> str:
    """A score at three decimals; "–" for a missing or non-numeric one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    return f"{value:.3f}"


@register.filter
def option_scores(scores: Sequence[object] | None, options: Sequence[str] | str | None = None) -> str:
    """``scores`` paired with their options' names: the letters A, B, … by default, or ``options``
    (a list, or ``"statement"`` for no/yes). Empty when there are no scores."""
    if not scores:
        return ""
    if options == "statement":
        names: Sequence[str] = STATEMENT_OPTIONS
    elif isinstance(options, (list, tuple)) and len(options) == len(scores):
        names = [str(o) for o in options]
    else:
        names = [chr(65 + i) if i < 26 else str(i + 1) for i in range(len(scores))]
    return " · ".join(f"{name} {score_text(s)}" for name, s in zip(names, scores, strict=False))
