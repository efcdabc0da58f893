"""RICA rows beyond accuracy (commonsense.metrics.rica_bias), for every RICA run: accuracy on the
probes whose gold comparative is positive and on those whose gold is negative (Fig. 5a), and the
positivity bias of the chosen comparatives beside the same share among the gold answers."""

from __future__ import annotations

from typing import Any

from commonsense.metrics.rica_bias import polarity_accuracy, positivity

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def _word(options: list[Any], i: int | None) -> str | None:
    return str(options[i]) if i is not None and 0 <= i < len(options) else None


def rica_bias_rows(records: list[dict[str, Any]], seed: int) -> list[Row]:
    chosen = positivity([_word(r.get("options") or [], r["chosen"]) for r in records], seed=seed)
    gold = positivity([_word(r.get("options") or [], r["answer"]) for r in records], seed=seed)
    golds = [_word(r.get("options") or [], r["answer"]) for r in records]
    right = [None if r["chosen"] is None else r["chosen"] == r["answer"] for r in records]
    by_gold = polarity_accuracy(golds, right, seed=seed)
    return [
        *(
            (f"accuracy_gold_{pol}", "overall", e.value, e.low, e.high, e.n, {"figure": "RICA Fig. 5a"})
            for pol, e in by_gold.items()
        ),
        ("positivity_bias", "overall", chosen.value, chosen.low, chosen.high, chosen.n, {"gold_share": gold.value}),
        ("gold_positive_share", "overall", gold.value, gold.low, gold.high, gold.n, {}),
    ]
