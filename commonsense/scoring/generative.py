"""Generation-based scoring: ``generate`` (CoCo Figure 9, greedy, first option letter), ``cot``
(zero-shot CoT, then "Therefore, among A through E, the answer is") and ``knowcot`` (CoCo Figure 6,
two turns). ``chosen`` is ``None`` when no option can be read from the answer ("No Answer")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import prompts as P
from .extract import extract_letter
from .types import Backend, Generation, Item, ItemResult, Prompt


def _as_prompt(text: str, chat: bool) -> Prompt:
    return P.user(text) if chat else text


class _GenerativeBase:
    method = "generate"

    def __init__(
        self,
        backend: Backend,
        *,
        chat: bool = True,
        max_new_tokens: int = 16,
        reasoning_tokens: int = 256,
        match_option_text: bool = True,
    ) -> None:
        """``chat``: send chat messages (the backend applies the model's template) instead of raw
        text. ``max_new_tokens`` bounds the answer, ``reasoning_tokens`` the CoT/KnowCoT reasoning.
        ``match_option_text``: when no letter is found, the first option text quoted counts."""
        self.backend = backend
        self.chat = chat
        self.max_new_tokens = max_new_tokens
        self.reasoning_tokens = reasoning_tokens
        self.match_option_text = match_option_text

    def _result(self, item: Item, final: Generation, steps: list[Generation]) -> ItemResult:
        opts = item.options if self.match_option_text else ()
        chosen = extract_letter(final.text, len(item.options), opts)
        return ItemResult(
            item_id=item.id,
            chosen=chosen,
            raw_output=final.text,
            latency_s=sum(g.latency_s for g in steps),
            prompt_tokens=sum(g.prompt_tokens for g in steps),
            completion_tokens=sum(g.completion_tokens for g in steps),
            extra={"reasoning": steps[0].text} if len(steps) > 1 else {},
        )

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        d = getattr(self.backend, "describe", None)
        return {
            "method": self.method,
            "chat": self.chat,
            "max_new_tokens": self.max_new_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "prompt_version": P.PROMPT_VERSION,
            "temperature": 0,
            **(d() if callable(d) else {"backend": self.backend.name}),
        }


class GenerateScorer(_GenerativeBase):
    method = "generate"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        # one call for the whole batch: an HTTP backend sends the prompts concurrently
        gens = self.backend.generate(
            [_as_prompt(P.coco_prompt(it), self.chat) for it in items], max_new_tokens=self.max_new_tokens
        )
        return [self._result(it, g, [g]) for it, g in zip(items, gens, strict=True)]


class CotScorer(_GenerativeBase):
    """Kojima et al.: reasoning after "Let's think step by step.", then the answer trigger."""

    method = "cot"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        firsts = [P.cot_prompt(it) for it in items]
        reasons = self.backend.generate(
            [_as_prompt(f, self.chat) for f in firsts], max_new_tokens=self.reasoning_tokens
        )
        seconds: list[Prompt] = [
            [
                {"role": "user", "content": first},
                {"role": "assistant", "content": r.text},
                {"role": "user", "content": P.COT_ANSWER_TRIGGER},
            ]
            if self.chat
            else P.cot_answer_prompt(it, r.text)
            for it, first, r in zip(items, firsts, reasons, strict=True)
        ]
        answers = self.backend.generate(seconds, max_new_tokens=self.max_new_tokens)
        return [self._result(it, a, [r, a]) for it, r, a in zip(items, reasons, answers, strict=True)]


class KnowCotScorer(_GenerativeBase):
    """CoCo KnowCoT: the guidance turn, the model's reasoning, then the final-question turn."""

    method = "knowcot"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        reasons = self.backend.generate(
            [_as_prompt(P.knowcot_first(it), self.chat) for it in items], max_new_tokens=self.reasoning_tokens
        )
        seconds: list[Prompt] = [
            P.knowcot_messages(it, r.text) if self.chat else P.knowcot_text(it, r.text)
            for it, r in zip(items, reasons, strict=True)
        ]
        answers = self.backend.generate(seconds, max_new_tokens=self.max_new_tokens)
        return [self._result(it, a, [r, a]) for it, r, a in zip(items, reasons, answers, strict=True)]
