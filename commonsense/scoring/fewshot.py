"""COM2 Table 1's prompting variants: 1-shot and 8-shot, with or without chain-of-thought, and
letter-logit scoring (Flan-T5 / Llama2 in COM2: "compute the logits received by each of the options
in the first prediction token and take the argmax over the letters").

Exemplars come from a chosen pool (another question set, or the same one), drawn per item with
``random.Random(f"{seed}:{item id}")`` and never the item itself (same id or same question text);
the ids drawn are stored on the prediction (``extra["exemplars"]``). Each exemplar is the COM2
Table 10 prompt followed by its answer letter; a CoT exemplar puts its reasoning (``fields
["reasoning"]``, e.g. the verbalized golden chain) between them and ends "So the answer is: X", as
COM2's CoT exemplars do. Prompts are completion text (``chat`` sends it as one user turn)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from . import prompts as P
from .extract import extract_letter
from .types import LETTERS, Backend, Item, ItemResult


def pick_exemplars(pool: Sequence[Item], item: Item, k: int, seed: int) -> list[Item]:
    """``k`` exemplars for ``item`` (fewer if the pool is short), never the item itself."""
    cands = [e for e in pool if e.id != item.id and e.question.strip() != item.question.strip() and e.gold is not None]
    rng = random.Random(f"{seed}:{item.id}")
    return rng.sample(cands, min(k, len(cands)))


def exemplar_text(ex: Item, *, cot: bool) -> str:
    assert ex.gold is not None
    letter = LETTERS[ex.gold]
    if not cot:
        return f"{P.coco_prompt(ex)} {letter}"
    reasoning = ex.fields.get("reasoning", "").strip()
    return f"{P.coco_prompt(ex)} {P.COT_TRIGGER}\n{reasoning}\n\nSo the answer is:\n\n{letter}"


def few_shot_prompt(item: Item, exemplars: Sequence[Item], *, cot: bool) -> str:
    parts = [exemplar_text(e, cot=cot) for e in exemplars]
    target = P.coco_prompt(item) + (f" {P.COT_TRIGGER}" if cot else "")
    return "\n\n".join([*parts, target])


class _FewShotBase:
    method = "generate"

    def __init__(
        self,
        backend: Backend,
        *,
        exemplars: Sequence[Item] = (),
        shots: int = 0,
        cot: bool = False,
        seed: int = 0,
        chat: bool = False,
        max_new_tokens: int = 16,
        reasoning_tokens: int = 256,
        exemplar_set: str = "",
    ) -> None:
        if shots < 0:
            raise ValueError("shots must be at least 0")
        if shots and not exemplars:
            raise ValueError(f"{shots}-shot prompting needs an exemplar pool")
        self.backend, self.pool, self.shots, self.cot, self.seed = backend, list(exemplars), shots, cot, seed
        self.chat, self.max_new_tokens, self.reasoning_tokens = chat, max_new_tokens, reasoning_tokens
        self.exemplar_set = exemplar_set

    def _prompt(self, item: Item) -> tuple[str, list[str]]:
        ex = pick_exemplars(self.pool, item, self.shots, self.seed) if self.shots else []
        return few_shot_prompt(item, ex, cot=self.cot), [e.id for e in ex]

    def describe(self) -> dict[str, Any]:
        d = getattr(self.backend, "describe", None)
        return {
            "method": self.method,
            "shots": self.shots,
            "cot": self.cot,
            "exemplar_seed": self.seed,
            "exemplar_set": self.exemplar_set,
            "exemplar_pool": len(self.pool),
            "chat": self.chat,
            "prompt_version": P.PROMPT_VERSION + "+com2-table10-fewshot",
            **(d() if callable(d) else {"backend": self.backend.name}),
        }


class FewShotGenerateScorer(_FewShotBase):
    """Generation after the few-shot prompt; the first option letter read (CoT: after the reasoning)."""

    method = "generate"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        built = [self._prompt(it) for it in items]
        budget = self.reasoning_tokens if self.cot else self.max_new_tokens
        # one call for the whole batch: an HTTP backend sends the prompts concurrently
        gens = self.backend.generate([P.user(t) if self.chat else t for t, _ in built], max_new_tokens=budget)
        out = []
        for it, (_, ids), g in zip(items, built, gens, strict=True):
            answer = g.text
            if self.cot:
                low = answer.lower()
                cut = max(low.rfind("answer is"), low.rfind("answer would be"))
                answer = answer[cut:] if cut >= 0 else answer
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=extract_letter(answer, len(it.options), it.options),
                    raw_output=g.text,
                    latency_s=g.latency_s,
                    prompt_tokens=g.prompt_tokens,
                    completion_tokens=g.completion_tokens,
                    extra={"exemplars": ids},
                )
            )
        return out


class LetterLogitScorer(_FewShotBase):
    """P of each option letter as the next token after the (few-shot) Table 10 prompt; argmax."""

    method = "letter"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        t0 = time.perf_counter()
        built = [self._prompt(it) for it in items]
        prompts = [P.user(t) if self.chat else t for t, _ in built]
        letters_per = [LETTERS[: len(it.options)] for it in items]
        # one call per letter set (items with as many options), the prompts of each call sent together
        probs: list[dict[str, float]] = [{} for _ in items]
        by_letters: dict[str, list[int]] = {}
        for i, letters in enumerate(letters_per):
            by_letters.setdefault(letters, []).append(i)
        for letters, idx in by_letters.items():
            for i, p in zip(idx, self.backend.word_probs([prompts[i] for i in idx], list(letters)), strict=True):
                probs[i] = p
        each = (time.perf_counter() - t0) / max(1, len(items))
        out = []
        for it, (_, ids), letters, p in zip(items, built, letters_per, probs, strict=True):
            scores = [float(p.get(L, 0.0)) for L in letters]
            chosen = max(range(len(scores)), key=scores.__getitem__) if scores and max(scores) > 0 else None
            out.append(
                ItemResult(item_id=it.id, chosen=chosen, scores=scores, latency_s=each, extra={"exemplars": ids})
            )
        return out
