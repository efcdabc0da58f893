"""What the error views group a run's predictions by, copied from the item onto each prediction
when it is stored (``Prediction.item_*``): relation, query kind, perturbation, CoCo role and set,
correct option, number of options, difficulty d(Q); and, from the prediction's own ``extra``,
ReComSBench's KBA answer (``Prediction.kba_correct``).

A question never changes once its set is built, and a prediction never changes once stored, so
the copies stay true; with them an error view aggregates a 40,000-prediction run from one
covering index instead of joining every question and parsing its JSON metadata.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from commonsense.questions.record import question_relation

DIFFICULTY_KEY = "difficulty"  # ReComSBench d(Q) = |K_prior|
KBA_KEY = "kba"  # ReComSBench: the answer given the hints, {chosen, correct, raw, hints} or null

FACET_FIELDS = (
    "item_relation",
    "item_kind",
    "item_perturbation",
    "item_role",
    "item_group",
    "item_answer",
    "item_options",
    "item_difficulty",
)


def as_int(value: Any) -> int | None:
    """An integer difficulty from JSON: ints, integral floats and digit strings; else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def question_facets(question: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``item_*`` values of a prediction of ``question``. ``extra``: the prediction's own
    extra; a d(Q) it carries (the recoms scoring stores one, JSON null = no correct path) wins
    over the question's metadata."""
    meta = question.metadata if isinstance(question.metadata, dict) else {}
    options = question.options if isinstance(question.options, list) else []
    if extra is not None and DIFFICULTY_KEY in extra:
        difficulty = as_int(extra[DIFFICULTY_KEY])
    else:
        difficulty = as_int(meta.get(DIFFICULTY_KEY))
    return {
        "item_relation": question_relation(meta, question.structure or "")[:64],
        "item_kind": (question.structure or "")[:32],
        "item_perturbation": _text(meta.get("perturbation"))[:64],
        "item_role": (question.role or "")[:32],
        "item_group": (question.group or "")[:255],
        "item_answer": question.answer_index,
        "item_options": len(options),
        "item_difficulty": difficulty,
    }


def kba_correct(extra: Mapping[str, Any] | None) -> bool | None:
    """``Prediction.kba_correct`` from the prediction's own extra: whether the ReComSBench answer
    given the hints was right; None when there is none (no ``kba``, JSON null, or no ``correct``).
    Not a question facet, but copied the same way, so the explorer's windows read it from an index."""
    kba = extra.get(KBA_KEY) if isinstance(extra, Mapping) else None
    value = kba.get("correct") if isinstance(kba, Mapping) else None
    return None if value is None else value in (True, 1, "true", "True")
