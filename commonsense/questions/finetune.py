"""COM2 §3.4 training data: a question set as fine-tuning pairs, after COM2's diversity filter.

- :func:`diversity_filter` (COM2 B2.5, after G-DAUG): for each unique answer, repeatedly take the
  query that adds the most unigrams not yet in that answer's vocabulary (ties: the earlier query),
  until ``top`` queries (COM2: 20) are chosen or none is left.
- :func:`prompt_completion` / :func:`chat_messages`: the generative pair, the verbalized query
  (``[Context] [Question]``, as COM2's Llama2 fine-tuning format puts it) and its answer, in the
  prompt/completion JSONL form and the chat-messages form (COM2's ``question``/``answer`` turns
  become user/assistant).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .record import BuiltQuestion

_WORD = re.compile(r"[a-z0-9']+")
FORMS = ("prompt-completion", "chat")


def query_text(q: BuiltQuestion) -> str:
    return f"{q.context} {q.question}".strip() if q.context else q.question


def unigrams(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def diversity_filter(questions: Sequence[BuiltQuestion], top: int = 20) -> list[BuiltQuestion]:
    """Up to ``top`` queries per answer by greedy unigram gain; the result keeps the set's order."""
    if top < 1:
        raise ValueError("top must be at least 1")
    by_answer: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        if 0 <= q.answer_index < len(q.options):
            by_answer.setdefault(q.answer, []).append(i)
    keep: set[int] = set()
    for idx in by_answer.values():
        vocab: set[str] = set()
        left = list(idx)
        words = {i: unigrams(query_text(questions[i])) for i in idx}
        for _ in range(min(top, len(idx))):
            best = max(left, key=lambda i: (len(words[i] - vocab), -i))
            keep.add(best)
            vocab |= words[best]
            left.remove(best)
    return [q for i, q in enumerate(questions) if i in keep]


def prompt_completion(q: BuiltQuestion) -> dict[str, Any]:
    return {"id": q.id, "prompt": query_text(q), "completion": q.answer}


def chat_messages(q: BuiltQuestion) -> dict[str, Any]:
    return {
        "id": q.id,
        "messages": [{"role": "user", "content": query_text(q)}, {"role": "assistant", "content": q.answer}],
    }


def write_finetune(questions: Iterable[BuiltQuestion], path: str | Path, form: str) -> int:
    if form not in FORMS:
        raise ValueError(f"unknown fine-tuning form {form!r}; one of {', '.join(FORMS)}")
    make = prompt_completion if form == "prompt-completion" else chat_messages
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for q in questions:
            if 0 <= q.answer_index < len(q.options):
                fh.write(json.dumps(make(q), ensure_ascii=False, sort_keys=True) + "\n")
                n += 1
    return n
