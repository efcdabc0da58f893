"""COM2 §3.3 fluent contexts: the Table 6 prompt as sent, and how a model's answer is read
(NA drops the item, a narrative needs both event marks)."""

from __future__ import annotations

import pytest

from commonsense.questions.fluent_contexts import INSTRUCTIONS, INSTRUCTIONS_NEG, prompt, read_answer


def test_prompt_is_table_6_with_exemplars_then_the_events() -> None:
    msgs = prompt("2i", "Ava gets a raise", "Ava is happy")
    assert msgs[0] == {"role": "system", "content": INSTRUCTIONS}
    assert INSTRUCTIONS.startswith(
        "Given two events, come up with concise and necessary context to make the a coherent"
    )
    assert msgs[-1] == {"role": "user", "content": "Event 1: Ava gets a raise\nEvent 2: Ava is happy"}
    assert [m["role"] for m in msgs[1:-1]] == ["user", "assistant"] * 3
    neg = prompt("2in", "Ava gets a raise", "Ava is happy")
    assert neg[0]["content"] == INSTRUCTIONS_NEG
    assert "Don't explain the reasons why E2 didn't happen!!" in INSTRUCTIONS_NEG


@pytest.mark.parametrize(
    ("answer", "status", "context"),
    [
        ("NA", "na", ""),
        ("  N/A.", "na", ""),
        ("na - these are unrelated", "na", ""),
        (
            "<E1>Ava got a raise</E1>, and <E2>she was happy</E2>.\n\nEvent 1: ...",
            "ok",
            "Ava got a raise, and she was happy.",
        ),
        ("Ava got a raise and she was happy.", "unmarked", ""),  # no marks: the rule-based context stays
        ("", "unmarked", ""),
        ("Nathan got a raise: <E1>x</E1> <E2>y</E2>", "ok", "Nathan got a raise: x y"),  # a name, not NA
    ],
)
def test_read_answer(answer: str, status: str, context: str) -> None:
    r = read_answer(answer)
    assert (r.status, r.context) == (status, context)


def test_unfaithful_narratives_keep_the_rule_context() -> None:
    e1, e2 = "Zoey eats food", "Zoey is happy"
    assert read_answer("<E1>Zoey ate some food</E1> and <E2>she was happy</E2>.", e1, e2).status == "ok"
    # a name copied from the exemplars, not in the events
    assert read_answer("<E1>Mia was eating food</E1> and <E2>Zoey was happy</E2>.", e1, e2).status == "unfaithful"
    # a marked span that has nothing to do with its event
    assert read_answer("<E1>Zoey ate food</E1> and <E2>the bus left</E2>.", e1, e2).status == "unfaithful"
