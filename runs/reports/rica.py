"""RICA rows beyond accuracy (commonsense.metrics.rica_bias): the positivity bias of the chosen
comparatives and the same share among the gold answers, for every RICA run."""

from __future__ import annotations

from typing import Any

from commonsense.metrics.rica_bias import positivity

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def _word(options: list[Any], i: int | None) -> str | None:
    return str(options[i]) if i is not None and 0 <= i < len(options) else None


def rica_bias_rows(records: list[dict[str, Any]], seed: int) -> list[Row]:
    chosen = positivity([_word(r.get("options") or [], r["chosen"]) for r in records], seed=seed)
    gold = positivity([_word(r.get("options") or [], r["answer"]) for r in records], seed=seed)
    return [
        ("positivity_bias", "overall", chosen.value, chosen.low, chosen.high, chosen.n, {"gold_share": gold.value}),
        ("gold_positive_share", "overall", gold.value, gold.low, gold.high, gold.n, {}),
    ]
