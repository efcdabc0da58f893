"""The English rules as a table (issue 27 item 2): every rule's own examples, each accepted or
rejected as its row says (the tests are generated from the table), and the rules' version, derived
from their source: it changes when a rule's code does and not when a comment or a docstring does."""

from __future__ import annotations

import inspect

import pytest

from commonsense.questions import grammar, rules_phrase, rules_words, text_rules, wordnet_verbs
from commonsense.questions.rule_table import Rule, source_version
from commonsense.questions.text_rules import TABLE, firing, verdict

PARSED = grammar.available()
FRAMES = wordnet_verbs.load() is not None


def _rows(kind: str) -> list[tuple[Rule, str]]:
    return [(r, text) for r in TABLE for text in getattr(r, kind)]


def _id(row: tuple[Rule, str]) -> str:
    return f"{row[0].name}: {row[1]}"


@pytest.mark.parametrize("row", _rows("reject"), ids=_id)
def test_each_rule_rejects_its_examples_and_is_the_one_that_decides(row: tuple[Rule, str]) -> None:
    rule, text = row
    if rule.library == "Link Grammar" and not PARSED:
        pytest.skip("Link Grammar is not installed")
    if "WordNet" in rule.library and not FRAMES:
        pytest.skip("WordNet (wordnet-base) is not installed")
    got = verdict(text)
    assert got is not None, (text, got)
    assert got[0] == rule.name, (text, got)
    assert rule.name in [name for name, _ in firing(text)]


@pytest.mark.parametrize("row", _rows("accept"), ids=_id)
def test_each_rules_accepted_examples_read_as_english(row: tuple[Rule, str]) -> None:
    rule, text = row
    if "WordNet" in rule.library and not FRAMES:
        pytest.skip("WordNet (wordnet-base) is not installed")
    assert rule.check(text_rules.tokens(text), text) is None, text
    assert verdict(text) is None, (text, firing(text))


def test_the_table_is_whole() -> None:
    names = [r.name for r in TABLE]
    assert len(names) == len(set(names)) >= 40
    assert all(r.accept and len(r.reject) >= 2 and r.catches for r in TABLE), [
        r.name for r in TABLE if not (r.accept and len(r.reject) >= 2)
    ]
    # the words' rules first, the parse last (it sees only what the word rules let through)
    assert names[0] == "too-short"
    assert names[-1] == "no-parse"
    assert TABLE[0].gate
    assert not TABLE[-1].gate


def _sources() -> list[tuple[str, str]]:
    return [(m.__name__, inspect.getsource(m)) for m in (rules_words, rules_phrase)]


def test_version_changes_with_a_rules_code_and_not_with_its_comments_or_docstrings() -> None:
    base = _sources()
    v = source_version(base)
    assert v == source_version(_sources()) == source_version(base)
    (name, words), phrase = base
    # a comment and a docstring reworded: the same version
    reworded = words.replace('"""A token the word rules read', '"""A token that the word rules read', 1)
    reworded = reworded.replace("def too_short(", "# a new comment\ndef too_short(", 1)
    assert reworded != words
    assert source_version([(name, reworded), phrase]) == v
    # a rule's code changed (its threshold): another version
    changed = words.replace("len(toks) > 16", "len(toks) > 17", 1)
    assert changed != words
    assert source_version([(name, changed), phrase]) != v
    # a word list changed: another version
    assert source_version([(name, words.replace('"very", "really", "so"', '"very", "so"', 1)), phrase]) != v


def test_the_edge_filter_is_named_by_the_rules_version() -> None:
    from commonsense.questions.wellformed import build_edges, rules_version

    assert rules_version() == text_rules.rules_version()
    assert len(rules_version()) == 12
    assert f"+well-formed-{rules_version()}+" in build_edges().name
