"""The quality report of a built set (issue 11, item 8): text checks counted over the items, next
to the build's own counts (rejected distractors, shortfall). Pure: items in, a dict out, so the
same figures can be recomputed from an exported JSONL file."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from commonsense.kg.edges import PLAUSIBLE
from commonsense.kg.normalize import is_none

from .fluent import has_lemma_form

PLACEHOLDER = re.compile(r"\b(?:Person ?[XYZ]|People ?[XYZ])\b")


def _texts(item: Mapping[str, Any]) -> list[str]:
    return [str(item.get("context") or ""), str(item.get("question") or ""), *map(str, item.get("options") or [])]


def text_checks(items: Iterable[Mapping[str, Any]], *, person_names: bool = True) -> dict[str, int]:
    """Items (dicts with context, question, options) with each problem; a placeholder counts as a
    leak only when names were drawn."""
    out = {"items": 0, "placeholder_leaks": 0, "lemma_forms": 0, "none_options": 0, "duplicate_options": 0}
    for it in items:
        texts = _texts(it)
        out["items"] += 1
        if person_names and any(PLACEHOLDER.search(t) for t in texts):
            out["placeholder_leaks"] += 1
        if any(has_lemma_form(t) for t in texts):
            out["lemma_forms"] += 1
        opts = [str(o) for o in it.get("options") or []]
        if any(is_none(o) for o in opts):
            out["none_options"] += 1
        if len({" ".join(o.casefold().split()) for o in opts}) < len(opts):
            out["duplicate_options"] += 1
    return out


def chain_plausibility(
    chains: Iterable[list[float | None]], threshold: float = PLAUSIBLE
) -> dict[str, int | float | None]:
    """Per item, the plausibility of every triple of its golden chain (None: unlabelled)."""
    plausible = implausible = unlabelled = n = 0
    for ps in chains:
        n += 1
        if any(p is not None and p < threshold for p in ps):
            implausible += 1
        elif any(p is None for p in ps) or not ps:
            unlabelled += 1
        else:
            plausible += 1
    labelled = plausible + implausible
    return {
        "chains": n,
        "chains_all_plausible": plausible,
        "chains_with_implausible": implausible,
        "chains_unlabelled": unlabelled,
        "share_all_plausible": round(plausible / labelled, 4) if labelled else None,
    }
