"""Log-likelihood scoring: ``loglik`` (lm-evaluation-harness multiple choice: acc and acc_norm)
and ``rica`` (sentence probability of the statement with each candidate word in the blank)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .prompts import CLOZE, PROMPT_VERSION
from .types import Backend, Item, ItemResult, LoglikRequest

MASK = "[MASK]"


def argmax_first(values: Sequence[float]) -> int | None:
    """Index of the largest value, ties to the lowest index (numpy.argmax), ``None`` if empty."""
    best: int | None = None
    for i, v in enumerate(values):
        if best is None or v > values[best]:
            best = i
    return best


class LoglikScorer:
    """Sum of the continuation's token log-probabilities per option.

    The context is ``template`` filled with the item (default lm-eval's cloze prompt
    ``Question: {question}\\nAnswer:``; ``{context}`` is available too), each continuation is
    ``delimiter + option``. ``chosen`` is lm-eval's ``acc`` choice, ``chosen_norm`` its ``acc_norm``
    choice (log-likelihood divided by the option's length in characters)."""

    method = "loglik"

    def __init__(self, backend: Backend, *, template: str = CLOZE, delimiter: str = " ") -> None:
        self.backend = backend
        self.template = template
        self.delimiter = delimiter

    def context(self, item: Item) -> str:
        question = f"{item.context} {item.question}".strip() if "{context}" not in self.template else item.question
        extra = {k: v for k, v in item.fields.items() if k not in ("question", "context")}
        return self.template.format(question=question, context=item.context, **extra)

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        if not items:
            return []
        reqs = [LoglikRequest(self.context(it), tuple(self.delimiter + o for o in it.options)) for it in items]
        t0 = time.perf_counter()
        scored = self.backend.loglikelihood(reqs)
        per_item = (time.perf_counter() - t0) / len(items)  # one batched call: latency is amortised
        out = []
        for it, conts in zip(items, scored, strict=True):
            lls = [c.logprob for c in conts]
            norm = [ll / max(1, len(o)) for ll, o in zip(lls, it.options, strict=True)]
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=argmax_first(lls),
                    scores=lls,
                    norm_scores=norm,
                    chosen_norm=argmax_first(norm),
                    latency_s=per_item,
                    completion_tokens=sum(c.n_tokens for c in conts),
                    extra={"is_greedy": [c.is_greedy for c in conts]},
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "template": self.template,
            "delimiter": self.delimiter,
            "prompt_version": PROMPT_VERSION,
            **_describe(self.backend),
        }


class RicaScorer:
    """RICA sentence probability: the probe (``question`` with ``[MASK]``) is completed with each
    option and scored as a whole sentence, log P(s) = Σ log P(w_t | w_<t); the more probable
    sentence wins. ``norm_scores`` divide by the sentence length in characters."""

    method = "rica"

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        if not items:
            return []
        sentences = []
        for it in items:
            if MASK not in it.question:
                raise ValueError(f"item {it.id}: a rica probe needs {MASK} in its question")
            sentences.append(tuple(it.question.replace(MASK, o, 1) for o in it.options))
        t0 = time.perf_counter()
        scored = self.backend.loglikelihood([LoglikRequest("", s) for s in sentences])
        per_item = (time.perf_counter() - t0) / len(items)
        out = []
        for it, sents, conts in zip(items, sentences, scored, strict=True):
            lls = [c.logprob for c in conts]
            norm = [ll / len(s) for ll, s in zip(lls, sents, strict=True)]
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=argmax_first(lls),
                    scores=lls,
                    norm_scores=norm,
                    chosen_norm=argmax_first(norm),
                    latency_s=per_item,
                    completion_tokens=sum(c.n_tokens for c in conts),
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "scoring": "sentence probability", **_describe(self.backend)}


def _describe(backend: object) -> dict[str, Any]:
    d = getattr(backend, "describe", None)
    return dict(d()) if callable(d) else {"backend": getattr(backend, "name", type(backend).__name__)}
