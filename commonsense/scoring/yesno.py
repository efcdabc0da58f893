"""NWW yes/no scoring: P("yes") and P("no") of the first answer token, each summed over its token
variants, renormalised p_yes / (p_yes + p_no); question (a) "do you agree" (``q1``) and (b) "do most
people agree" (``q2``) are asked as separate conversations.

An item's ``question`` is the statement; its options are ``("no", "yes")`` so that ``chosen`` is the
binarised answer α = 1[p_yes(a) ≥ 0.5]; ``extra["q2"]["chosen"]`` is β for question (b).

``system="role-clarification"`` adds SI E.3's system prompt (the paper's Table E.5 compares it with the
default, no system prompt: M of GPT-3.5 76.8 → 63.7, GPT-4-0409 80.6 → 82.1, GPT-4o 75.2 → 81.3); a
model without a chat template gets it as a first paragraph."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .extract import renormalise
from .prompts import NWW_SYSTEM, PROMPT_VERSION, nww_prompt, user
from .types import Backend, Item, ItemResult, Prompt

YESNO_OPTIONS = ("no", "yes")


def yes_no_record(probs: dict[str, float]) -> dict[str, Any]:
    """Raw probabilities (as NWW store them) plus the renormalised p_yes and the binarised answer."""
    p = renormalise(probs.get("yes", 0.0), probs.get("no", 0.0))
    return {
        "yes": probs.get("yes", 0.0),
        "no": probs.get("no", 0.0),
        "other": probs.get("other", 0.0),
        "p_yes": p,
        "chosen": None if p is None else int(p >= 0.5),
    }


def result_from_records(item_id: str, q1: dict[str, Any], q2: dict[str, Any] | None, **kw: Any) -> ItemResult:
    p = q1["p_yes"]
    extra: dict[str, Any] = {"q1": q1}
    if q2 is not None:
        extra["q2"] = q2
    return ItemResult(item_id=item_id, chosen=q1["chosen"], scores=[] if p is None else [1.0 - p, p], extra=extra, **kw)


class YesNoScorer:
    method = "yesno"

    def __init__(
        self, backend: Backend, *, chat: bool = True, questions: Sequence[str] = ("q1", "q2"), system: str = "default"
    ) -> None:
        if not questions or questions[0] not in ("q1", "q2", "q3"):
            raise ValueError("questions must start with q1, q2 or q3")
        if system not in NWW_SYSTEM:
            raise ValueError(f"system must be one of {', '.join(NWW_SYSTEM)}, got {system!r}")
        self.backend = backend
        self.chat = chat
        self.questions = tuple(questions)
        self.system = system

    def prompt(self, statement: str, question: str) -> Prompt:
        text = nww_prompt(statement, question)
        sys_text = NWW_SYSTEM[self.system]
        if not self.chat:
            return text if sys_text is None else f"{sys_text}\n\n{text}"
        return user(text) if sys_text is None else [{"role": "system", "content": sys_text}, *user(text)]

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        if not items:
            return []
        prompts = [self.prompt(it.question, q) for it in items for q in self.questions]
        t0 = time.perf_counter()
        probs = self.backend.word_probs(prompts, ["yes", "no"])
        per_item = (time.perf_counter() - t0) / len(items)
        k = len(self.questions)
        out = []
        for n, it in enumerate(items):
            recs = [yes_no_record(p) for p in probs[n * k : (n + 1) * k]]
            res = result_from_records(it.id, recs[0], None, latency_s=per_item)
            for q, rec in zip(self.questions[1:], recs[1:], strict=True):
                res.extra[q] = rec
            out.append(res)
        return out

    def describe(self) -> dict[str, Any]:
        d = getattr(self.backend, "describe", None)
        return {
            "method": self.method,
            "chat": self.chat,
            "questions": list(self.questions),
            "system_prompt": self.system,
            "prompt_version": PROMPT_VERSION,
            **(d() if callable(d) else {"backend": self.backend.name}),
        }
