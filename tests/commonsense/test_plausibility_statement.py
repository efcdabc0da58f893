"""The plausibility scorer's statement text (ATOMIC-2020 templates) and its decision rules, on a
backend that answers from a table (no model: the rules are what is tested)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from commonsense.scoring.plausibility import PlausibilityCheck, denormalize_tail, statement


@pytest.mark.parametrize(
    ("head", "rel", "tail", "text"),
    [
        ("PersonX is on vacation", "xReact", "relaxed", "PersonX is on vacation. As a result, PersonX feels relaxed."),
        # the node text of a normalised tail reads the same as the raw tail
        (
            "PersonX is on vacation",
            "xReact",
            "PersonX is relaxed",
            "PersonX is on vacation. As a result, PersonX feels relaxed.",
        ),
        (
            "PersonX goes to the store",
            "xWant",
            "PersonX buy milk",
            "PersonX goes to the store. As a result, PersonX wants to buy milk.",
        ),
        (
            "PersonX goes to the store",
            "xNeed",
            "to drive",
            "PersonX goes to the store. But before, PersonX needed to drive.",
        ),
        (
            "PersonX falls",
            "oEffect",
            "PersonY helps PersonX",
            "PersonX falls. As a result, PersonY or others will helps PersonX.",
        ),
        ("PersonX is on vacation", "xAttr", "PersonX is lucky", "PersonX is on vacation. PersonX is seen as lucky."),
        ("PersonX eats", "isAfter", "PersonX cooks", "PersonX eats happens after PersonX cooks."),
    ],
)
def test_statement_follows_the_atomic_template(head: str, rel: str, tail: str, text: str) -> None:
    assert statement(head, rel, tail) == text


def test_denormalize_inverts_normalize() -> None:
    from commonsense.kg.normalize import normalize_tail

    for rel, tail in [("xReact", "relaxed"), ("xWant", "to go home"), ("xEffect", "gets a job"), ("oReact", "sad")]:
        assert denormalize_tail(rel, normalize_tail(rel, tail)) == tail


def _table(scores: dict[tuple[str, str, str], float]):  # type: ignore[no-untyped-def]
    calls: list[int] = []

    def score(triples: Sequence[tuple[str, str, str]]) -> list[float]:
        calls.append(len(triples))
        return [scores[t] for t in triples]

    return score, calls


def test_edges_kept_at_or_above_threshold_and_none_tails_never_scored() -> None:
    score, calls = _table({("a", "xReact", "b"): 0.5, ("a", "xReact", "c"): 0.49})
    check = PlausibilityCheck(score=score, key="table", threshold=0.5)
    assert check.keep_edges([("a", "xReact", "b"), ("a", "xReact", "c"), ("a", "xReact", "none")]) == [
        True,
        False,
        True,
    ]
    assert calls == [2]


def test_a_distractor_is_refused_only_when_it_answers_every_branch() -> None:
    s = {
        ("h1", "xReact", "d1"): 0.9,
        ("h2", "xWant", "d1"): 0.9,  # answers both branches: refused
        ("h1", "xReact", "d2"): 0.9,
        ("h2", "xWant", "d2"): 0.1,  # answers one branch only: kept
    }
    score, _ = _table(s)
    check = PlausibilityCheck(score=score, key="table", threshold=0.5)
    assert check.plausible_distractors([("h1", "xReact"), ("h2", "xWant")], ["d1", "d2"]) == {0}
    assert check.rejected == 1
    assert check.rejected_texts == ["d1"]
