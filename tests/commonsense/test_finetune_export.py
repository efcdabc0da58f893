"""COM2 §3.4 fine-tuning export: the diversity filter by hand, and the two JSONL forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commonsense.questions.finetune import chat_messages, diversity_filter, prompt_completion, write_finetune
from commonsense.questions.record import BuiltQuestion


def _q(i: int, text: str, answer: str, context: str = "") -> BuiltQuestion:
    return BuiltQuestion(
        id=f"q{i}",
        kind="2i",
        context=context,
        question=text,
        options=[answer, "other"],
        answer_index=0,
        answers=[answer],
    )


def test_diversity_filter_by_hand() -> None:
    qs = [_q(0, "a b", "x"), _q(1, "a b c", "x"), _q(2, "d", "x"), _q(3, "a", "x"), _q(4, "e f", "y")]
    # answer x: q1 adds 3 new unigrams, then q2 adds 1 (q0 and q3 add none); answer y: q4 alone
    assert [q.id for q in diversity_filter(qs, top=2)] == ["q1", "q2", "q4"]
    # a third pick for x: q0 and q3 both add nothing, the earlier one wins
    assert [q.id for q in diversity_filter(qs, top=3)] == ["q0", "q1", "q2", "q4"]
    assert len(diversity_filter(qs, top=20)) == 5
    with pytest.raises(ValueError, match="top"):
        diversity_filter(qs, top=0)


def test_the_two_forms(tmp_path: Path) -> None:
    q = _q(7, "What does Alex want?", "to rest", context="Alex runs a marathon.")
    assert prompt_completion(q) == {
        "id": "q7",
        "prompt": "Alex runs a marathon. What does Alex want?",
        "completion": "to rest",
    }
    assert chat_messages(q)["messages"] == [
        {"role": "user", "content": "Alex runs a marathon. What does Alex want?"},
        {"role": "assistant", "content": "to rest"},
    ]
    out = tmp_path / "ft.jsonl"
    assert write_finetune([q, q], out, "chat") == 2
    assert json.loads(out.read_text().splitlines()[0])["messages"][1]["content"] == "to rest"
    with pytest.raises(ValueError, match="unknown fine-tuning form"):
        write_finetune([q], out, "xml")
