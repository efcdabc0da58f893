"""Display repairs (commonsense/questions/repairs.py): each row of the repairs' table changes the
texts it must change, into what it says, and leaves the others alone (the tests are generated from
the table); a repair the parser decides is not made without the parser; the stored display is the
repaired one (node_text.judge)."""

from __future__ import annotations

import pytest

from commonsense.questions import grammar, repairs, wordnet_words
from commonsense.questions.node_text import judge
from commonsense.questions.repairs import REPAIRS, Repair, display_form

PARSED = grammar.available()


def _rows(kind: str) -> list[tuple[Repair, object]]:
    return [(r, row) for r in REPAIRS for row in getattr(r, kind)]


def _id(row: tuple[Repair, object]) -> str:
    return f"{row[0].name}: {row[1]}"


@pytest.mark.parametrize("row", _rows("changes"), ids=_id)
def test_each_repair_makes_its_change(row: tuple[Repair, tuple[str, str]]) -> None:
    repair, (before, after) = row
    if "Link Grammar" in repair.library and not PARSED:
        pytest.skip("Link Grammar is not installed")
    if "WordNet" in repair.library and wordnet_words.load() is None:
        pytest.skip("WordNet (wordnet-base) is not installed")
    assert display_form(before) == after
    assert judge(before).display == after


@pytest.mark.parametrize("row", _rows("keeps"), ids=_id)
def test_each_repair_leaves_its_examples_alone(row: tuple[Repair, str]) -> None:
    _, text = row
    assert display_form(text) == text


def test_a_repaired_text_is_judged_as_repaired() -> None:
    if not PARSED:
        pytest.skip("Link Grammar is not installed")
    # "PersonX is gon na stay in hotel": 'gon' is no English word; repaired, nothing is left to refuse
    got = judge("PersonX be gon na stay in hotel")
    assert got.display == "PersonX is going to stay in a hotel"
    assert got.readable, got


def test_without_the_parser_no_parser_repair_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grammar, "available", lambda: False)
    repairs.articles.cache_clear()
    repairs.agreement.cache_clear()
    try:
        assert repairs.articles("PersonX puts on shoe") == "PersonX puts on shoe"
        assert repairs.agreement("PersonX sits down and talk") == "PersonX sits down and talk"
        # the tokeniser's splits need no parser
        assert repairs.joined_tokens("PersonX be gon na go") == "PersonX be going to go"
    finally:
        repairs.articles.cache_clear()
        repairs.agreement.cache_clear()


def test_an_article_goes_before_the_adjectives_and_takes_the_words_sound() -> None:
    if not PARSED:
        pytest.skip("Link Grammar is not installed")
    assert repairs.articles("PersonX waits for hour") == "PersonX waits for an hour"
    assert repairs.articles("PersonX buys umbrella") == "PersonX buys an umbrella"
    assert repairs.articles("PersonX sits on old chair") == "PersonX sits on an old chair"
