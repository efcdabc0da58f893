"""Generation-based scoring: ``generate`` (CoCo Figure 9, greedy, first option letter), ``cot``
(zero-shot CoT, then "Therefore, among A through E, the answer is") and ``knowcot`` (CoCo Figure 6,
two turns). ``chosen`` is ``None`` when no option can be read from the answer ("No Answer")."""

from __future__ import annotations

import time
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

    def _result(self, item: Item, final: Generation, steps: list[Generation], t0: float) -> ItemResult:
        opts = item.options if self.match_option_text else ()
        chosen = extract_letter(final.text, len(item.options), opts)
        return ItemResult(
            item_id=item.id,
            chosen=chosen,
            raw_output=final.text,
            latency_s=time.perf_counter() - t0,
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
        out = []
        for it in items:
            t0 = time.perf_counter()
            g = self.backend.generate([_as_prompt(P.coco_prompt(it), self.chat)], max_new_tokens=self.max_new_tokens)[0]
            out.append(self._result(it, g, [g], t0))
        return out


class CotScorer(_GenerativeBase):
    """Kojima et al.: reasoning after "Let's think step by step.", then the answer trigger."""

    method = "cot"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            t0 = time.perf_counter()
            first = P.cot_prompt(it)
            r = self.backend.generate([_as_prompt(first, self.chat)], max_new_tokens=self.reasoning_tokens)[0]
            second: Prompt = (
                [
                    {"role": "user", "content": first},
                    {"role": "assistant", "content": r.text},
                    {"role": "user", "content": P.COT_ANSWER_TRIGGER},
                ]
                if self.chat
                else P.cot_answer_prompt(it, r.text)
            )
            a = self.backend.generate([second], max_new_tokens=self.max_new_tokens)[0]
            out.append(self._result(it, a, [r, a], t0))
        return out


class KnowCotScorer(_GenerativeBase):
    """CoCo KnowCoT: the guidance turn, the model's reasoning, then the final-question turn."""

    method = "knowcot"

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            t0 = time.perf_counter()
            r = self.backend.generate(
                [_as_prompt(P.knowcot_first(it), self.chat)], max_new_tokens=self.reasoning_tokens
            )[0]
            second: Prompt = P.knowcot_messages(it, r.text) if self.chat else P.knowcot_text(it, r.text)
            a = self.backend.generate([second], max_new_tokens=self.max_new_tokens)[0]
            out.append(self._result(it, a, [r, a], t0))
        return out
