"""Reading a generated conceptualisation (issue 11 item 6): h^c from the first line, the concept
as the replaced span, and answers that are not a conceptualisation of the head refused."""

from __future__ import annotations

from commonsense.questions.conceptualize import EXEMPLARS, prompt, read_candidate


def test_candidate_and_concept() -> None:
    r = read_candidate("PersonX adopts a dog", " PersonX adopts a loyal companion.\nEvent: ...")
    assert r is not None
    assert r.abstract_head == "PersonX adopts a loyal companion"
    assert r.concept == "loyal companion"
    assert read_candidate("PersonX adopts a dog", "PersonX adopts a dog") is None  # nothing conceptualised
    assert read_candidate("PersonX adopts a dog", "") is None
    assert read_candidate("PersonX adopts a dog", "the weather is nice") is None  # not about the head


def test_prompt_ends_with_the_head() -> None:
    p = prompt("PersonX eats pizza")
    assert p.endswith("Event: PersonX eats pizza\nConceptualized:")
    assert all(f"Event: {h}\nConceptualized: {c}" in p for h, c in EXEMPLARS)
