"""COM2's generative setting (§4): the model writes the answer to the question, no options shown.
The prompt is COM2's Llama2 zero-shot prompt (Appendix B.2, verbatim system message; the chat
template of the model wraps it), or as one completion text ``[System] Context: … Question: …
Answer:`` for models without a chat template. The generation is cut at its first line and stored as
``extra["generation"]``; the metrics against the reference answers are computed when the run ends
(commonsense.metrics.generation), because CIDEr's IDF and BERTScore's model span the whole run."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .types import Backend, Item, ItemResult, Message, Prompt

PROMPT_VERSION = "com2-b2-llama2-zero-shot-v1"
COM2_GEN_SYSTEM = (
    "As an expert in commonsense reasoning, your task is to provide a concise response to a question based on "
    "the given context. The question focuses on studying the causes, effects, or attributes of personas related "
    "to the given context. Answer shortly with no more than 5 words."
)


def generate_answer_prompt(item: Item, *, chat: bool) -> Prompt:
    body = f"{item.context} {item.question}".strip() if item.context else item.question
    if chat:
        msgs: list[Message] = [{"role": "system", "content": COM2_GEN_SYSTEM}, {"role": "user", "content": body}]
        return msgs
    ctx = f"Context: {item.context}\n" if item.context else ""
    return f"{COM2_GEN_SYSTEM}\n\n{ctx}Question: {item.question}\nAnswer:"


def first_line(text: str) -> str:
    """The answer: the first non-empty line, without surrounding quotes or a final period."""
    for line in text.strip().splitlines():
        s = line.strip().strip('"').strip()
        if s:
            return s.rstrip(".").strip()
    return ""


class GenerateAnswerScorer:
    method = "generate-answer"

    def __init__(self, backend: Backend, *, chat: bool = True, max_new_tokens: int = 24) -> None:
        self.backend = backend
        self.chat = chat
        self.max_new_tokens = max_new_tokens

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        t0 = time.perf_counter()
        prompts = [generate_answer_prompt(it, chat=self.chat) for it in items]
        gens = self.backend.generate(prompts, max_new_tokens=self.max_new_tokens)
        each = (time.perf_counter() - t0) / max(1, len(items))
        return [
            ItemResult(
                item_id=it.id,
                chosen=None,
                raw_output=g.text,
                latency_s=each,
                prompt_tokens=g.prompt_tokens,
                completion_tokens=g.completion_tokens,
                extra={"generation": first_line(g.text)},
            )
            for it, g in zip(items, gens, strict=True)
        ]

    def describe(self) -> dict[str, Any]:
        d = getattr(self.backend, "describe", None)
        return {
            "method": self.method,
            "chat": self.chat,
            "max_new_tokens": self.max_new_tokens,
            "prompt_version": PROMPT_VERSION,
            "temperature": 0,
            **(d() if callable(d) else {"backend": self.backend.name}),
        }


class GenerationReplay:
    """Generations made elsewhere: a JSONL of ``{"id": …, "generation": "…"}`` (``id`` = the
    question's external id, or its database id). A question absent from the file is an error row."""

    method = "generate-answer"

    def __init__(self, path: str | Path) -> None:
        self.source = Path(path)
        self.rows: dict[str, str] = {}
        with self.source.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    key, text = str(obj["id"]), obj["generation"]
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ValueError(f"{self.source}:{n}: want {{'id': …, 'generation': '…'}} ({exc})") from None
                if not isinstance(text, str):
                    raise ValueError(f"{self.source}:{n}: 'generation' must be text")
                self.rows[key] = text

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            text = self.rows.get(it.fields.get("external_id", ""), self.rows.get(it.id))
            if text is None:
                out.append(
                    ItemResult(
                        item_id=it.id, chosen=None, error=f"no generation for item {it.id} in {self.source.name}"
                    )
                )
            else:
                out.append(
                    ItemResult(item_id=it.id, chosen=None, raw_output=text, extra={"generation": first_line(text)})
                )
        return out

    def describe(self) -> dict[str, Any]:
        return {"backend": "replay", "source": str(self.source), "method": self.method}
