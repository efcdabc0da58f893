"""COM2 Table 1 prompting variants: exemplar draws (seeded, never the item itself) and the
few-shot prompt text, checked by hand; letter-logit scoring on a fake backend."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from commonsense.scoring import prompts as P
from commonsense.scoring.fewshot import LetterLogitScorer, few_shot_prompt, pick_exemplars
from commonsense.scoring.types import Item

POOL = [
    Item(id=str(i), question=f"Q{i}?", options=("a", "b", "c"), gold=i % 3, fields={"reasoning": f"R{i}."})
    for i in range(12)
]


def test_exemplars_are_seeded_and_never_the_item() -> None:
    item = POOL[3]
    twin = Item(id="99", question="Q5?", options=("a", "b", "c"), gold=0)  # same text as pool item 5
    for seed in range(20):
        ex = pick_exemplars(POOL, item, 8, seed)
        assert len(ex) == 8
        assert item.id not in {e.id for e in ex}
        assert "5" not in {e.id for e in pick_exemplars(POOL, twin, 11, seed)}
    assert pick_exemplars(POOL, item, 8, 1) == pick_exemplars(POOL, item, 8, 1)
    assert pick_exemplars(POOL, item, 8, 1) != pick_exemplars(POOL, item, 8, 2)
    assert len(pick_exemplars(POOL[:4], item, 8, 0)) == 3  # a short pool gives what it has


def test_prompt_text_by_hand() -> None:
    target = Item(id="t", question="Why?", options=("x", "y", "z"))
    one = few_shot_prompt(target, [POOL[1]], cot=False)
    assert one == f"{P.coco_prompt(POOL[1])} B\n\n{P.coco_prompt(target)}"
    cot = few_shot_prompt(target, [POOL[2]], cot=True)
    assert cot == (
        f"{P.coco_prompt(POOL[2])} {P.COT_TRIGGER}\nR2.\n\nSo the answer is:\n\nC\n\n{P.coco_prompt(target)} {P.COT_TRIGGER}"
    )


class FakeLM:
    name = "fake"
    capabilities = frozenset({"word_probs"})

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def word_probs(self, prompts: Sequence[str], words: Sequence[str]) -> list[dict[str, float]]:
        self.prompts += list(prompts)
        return [{"A": 0.1, "B": 0.6, "C": 0.2, "other": 0.1} for _ in prompts]


def test_letter_logit_scoring() -> None:
    lm = FakeLM()
    s = LetterLogitScorer(lm, exemplars=POOL, shots=1, seed=4)  # type: ignore[arg-type]
    (r,) = s.score_batch([Item(id="t", question="Why?", options=("x", "y", "z"))])
    assert r.scores == [0.1, 0.6, 0.2]
    assert r.chosen == 1
    assert len(r.extra["exemplars"]) == 1
    assert lm.prompts[0].count("Question:") == 2
    with pytest.raises(ValueError, match="exemplar pool"):
        LetterLogitScorer(lm, shots=8)  # type: ignore[arg-type]
