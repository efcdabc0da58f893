"""Answer extraction, yes/no token variants and renormalisation, verbatim prompts, tie rules."""

from __future__ import annotations

import pytest

from commonsense.scoring import prompts as P
from commonsense.scoring.extract import extract_letter, first_yes_no, normalise_token, renormalise, sum_word_probs
from commonsense.scoring.loglik import argmax_first
from commonsense.scoring.types import Item

OPTS = ("complete job", "learn from each other", "kill animals", "wear hats", "talk to each other")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B", 1),
        (" C: kill animals.", 2),
        ("The answer is D.", 3),
        ("Answer: (E)", 4),
        ("(B) learn from each other", 1),
        ("A good worker would complete job first, so the answer is A.", 0),  # article "A" skipped, then "A."
        ("A person at work wants to learn. Answer: B", 1),  # article first, letter later
        ("the answer is a bird", None),  # lower-case "a" is a word, not an option
        ("I think they wear hats", 3),  # no letter: the option text quoted
        ("No Answer", None),
        ("", None),
        ("E. talk to each other, or maybe A.", 4),  # the first option that appears wins
        ("F: something else", None),  # not an option letter with 5 options
    ],
)
def test_extract_letter(text: str, expected: int | None) -> None:
    assert extract_letter(text, 5, OPTS) == expected


def test_extract_letter_without_option_text() -> None:
    assert extract_letter("I think they wear hats", 5) is None


def test_token_variants_and_renormalisation() -> None:
    for tok in ("Yes", " yes", "▁YES", '"Yes', "Yes,", "Ġyes", "yes."):
        assert normalise_token(tok) == "yes"
    assert normalise_token("Yesterday") != "yes"
    probs = {"Yes": 0.5, " yes": 0.1, "No": 0.2, "▁no": 0.05, "As": 0.1, "Yesterday": 0.05}
    d = sum_word_probs(probs, ["yes", "no"])
    assert d["yes"] == pytest.approx(0.6)
    assert d["no"] == pytest.approx(0.25)
    assert d["other"] == pytest.approx(0.15)
    assert renormalise(d["yes"], d["no"]) == pytest.approx(0.6 / 0.85)
    assert renormalise(0.0, 0.0) is None
    # NWW worked example: Llama-3-70B raw response for "A ball is round."
    assert renormalise(0.959675669670105, 0.039145417511463165) == pytest.approx(0.96081, abs=1e-5)


def test_first_yes_no() -> None:
    assert first_yes_no("Yes, a ball is round.") == "yes"
    assert first_yes_no("NO.") == "no"
    assert first_yes_no("As an AI, I cannot say.") is None


def test_argmax_ties_go_to_lowest_index() -> None:
    assert argmax_first([-1.0, -0.5, -0.5]) == 1
    assert argmax_first([]) is None


def test_prompts_verbatim() -> None:
    it = Item(id="1", question="What do people aim to do at work?", options=OPTS)
    text = P.coco_prompt(it)
    assert text.startswith(
        "Answer this commonsense reasoning question, where you are supposed to handle a multiple-choice question "
        "answering task to select the correct answer. Select one correct answer from A to E.\n\n"
        "Question: What do people aim to do at work?\n\n"
        "A: complete job. B: learn from each other. C: kill animals. D: wear hats. E: talk to each other.\n\nAnswer:"
    )
    assert "Context: PersonX" in P.coco_prompt(Item(id="2", question="q?", options=OPTS, context="PersonX sleeps"))
    assert P.cot_answer_prompt(it, "Work is for jobs.").endswith(
        "Work is for jobs.\nTherefore, among A through E, the answer is"
    )
    msgs = P.knowcot_messages(it, "Step 1) ...")
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert (
        "Step 2) Recall the relevant knowledge: Recall the relevant knowledge triple of the core event implied by the question."
        in msgs[0]["content"]
    )
    assert (
        msgs[2]["content"]
        == "Q: Based on all the reasoning above, select the correct option to answer the initial question."
    )
    assert P.nww_prompt("A ball is round.", "q1") == (
        'Consider the statement, "A ball is round." Do you agree with this statement? Start your answer with a "yes" or "no".'
    )
    assert "most people would agree" in P.nww_prompt("A ball is round.", "q2")
