"""WordNet's words (commonsense/questions/wordnet_words.py), the second lexicon of the text rule
``not-english``: lemmas and inflections found as WordNet's morphy finds them, read from Debian's
files or from a planted folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonsense.questions import wordnet_words
from commonsense.questions.rules_words import not_english
from commonsense.questions.words import tokens


def _plant(folder: Path) -> None:
    for pos in wordnet_words.POS:
        (folder / f"index.{pos}").write_text("  1 license text\n", encoding="utf-8")
    (folder / "index.noun").write_text(
        "  1 license\ncop n 1 0 1 0 00001\ngoose n 1 0 1 0 00002\nthere n 1 0 1 0 00004\n", encoding="utf-8"
    )
    (folder / "index.verb").write_text("carpool v 1 0 1 0 00003\n", encoding="utf-8")
    (folder / "noun.exc").write_text("geese goose\n", encoding="utf-8")


def test_a_planted_wordnet_knows_lemmas_exceptions_and_detached_endings(tmp_path: Path) -> None:
    _plant(tmp_path)
    table = wordnet_words.load(str(tmp_path))
    assert table is not None
    lemmas, exc = table["noun"]
    assert "cop" in lemmas
    assert exc["geese"] == "goose"
    assert "license" not in lemmas  # the licence's lines start with a space


def test_a_missing_wordnet_loads_as_none_and_knows_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert wordnet_words.load(str(tmp_path)) is None
    monkeypatch.setattr(wordnet_words, "load", lambda: None)
    wordnet_words.known.cache_clear()
    try:
        assert not wordnet_words.known("cops")
    finally:
        wordnet_words.known.cache_clear()


def test_morphy_endings_over_a_planted_wordnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _plant(tmp_path)
    table = wordnet_words.load(str(tmp_path))
    monkeypatch.setattr(wordnet_words, "load", lambda: table)
    wordnet_words.known.cache_clear()
    try:
        assert wordnet_words.known("cops")  # noun: -s
        assert wordnet_words.known("geese")  # the exception list
        assert wordnet_words.known("carpooling")  # verb: -ing
        assert not wordnet_words.known("copz")
        assert not wordnet_words.known("theres")  # a function word with an ending is no inflection
    finally:
        wordnet_words.known.cache_clear()


@pytest.mark.skipif(wordnet_words.load() is None, reason="WordNet (wordnet-base) is not installed")
def test_not_english_takes_wordnet_words_and_still_refuses_typos() -> None:
    for text in ("PersonX gets a burger", "PersonY calls the cops", "PersonX is on meth"):
        assert not_english(tokens(text), text) is None, text
    for text in ("PersonX scans their surrondings", "PersonX hits it accross the net"):
        assert not_english(tokens(text), text) is not None, text


def test_body_part_reads_the_lexicographer_file_of_the_first_sense(tmp_path: Path) -> None:
    # index.noun: lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets (first = most frequent)
    data = "  1 license\n"
    mouth = len(data.encode())
    data += f"{mouth:08d} 08 n 01 mouth 0 000 | the opening\n"
    chair = len(data.encode())
    data += f"{chair:08d} 06 n 01 chair 0 000 | a seat\n"
    (tmp_path / "data.noun").write_text(data, encoding="utf-8")
    (tmp_path / "index.noun").write_text(
        f"  1 license\nmouth n 2 1 @ 2 1 {mouth:08d} {chair:08d}\nchair n 1 0 1 0 {chair:08d}\n", encoding="utf-8"
    )
    assert wordnet_words.body_part("mouth", str(tmp_path))
    assert not wordnet_words.body_part("chair", str(tmp_path))
    assert not wordnet_words.body_part("blorf", str(tmp_path))
    # the planted fault: a first sense in another file is no body part, whatever the later senses
    (tmp_path / "index.noun").write_text(f"mouth n 2 0 2 1 {chair:08d} {mouth:08d}\n", encoding="utf-8")
    wordnet_words._first_offsets.cache_clear()
    wordnet_words.body_part.cache_clear()
    assert not wordnet_words.body_part("mouth", str(tmp_path))
    wordnet_words.body_part.cache_clear()


@pytest.mark.skipif(wordnet_words.load() is None, reason="WordNet (wordnet-base) is not installed")
def test_debian_wordnet_knows_the_body() -> None:
    assert wordnet_words.body_part("mouth")
    assert wordnet_words.body_part("hand")
    assert not wordnet_words.body_part("shoe")
    assert not wordnet_words.body_part("project")


def test_proper_noun_is_a_noun_every_sense_of_which_is_capitalised(tmp_path: Path) -> None:
    _plant(tmp_path)
    data = "  1 license\n"
    ohio_state = len(data.encode())
    data += f"{ohio_state:08d} 15 n 02 Ohio 0 Buckeye_State 0 000 | a state\n"
    ohio_river = len(data.encode())
    data += f"{ohio_river:08d} 17 n 01 Ohio 0 000 | a river\n"
    china_land = len(data.encode())
    data += f"{china_land:08d} 15 n 01 China 0 000 | a country\n"
    china_ware = len(data.encode())
    data += f"{china_ware:08d} 06 n 01 china 0 000 | porcelain\n"
    (tmp_path / "data.noun").write_text(data, encoding="utf-8")
    (tmp_path / "index.noun").write_text(
        f"ohio n 2 0 2 1 {ohio_state:08d} {ohio_river:08d}\nchina n 2 0 2 1 {china_land:08d} {china_ware:08d}\n",
        encoding="utf-8",
    )
    (tmp_path / "index.verb").write_text("carpool v 1 0 1 0 00003\n", encoding="utf-8")
    wordnet_words.load.cache_clear()
    wordnet_words.proper_noun.cache_clear()
    try:
        assert wordnet_words.proper_noun("ohio", str(tmp_path)) == "Ohio"
        # the planted fault: one lower-case sense ("china", porcelain) and it is no proper noun
        assert wordnet_words.proper_noun("china", str(tmp_path)) is None
        assert wordnet_words.proper_noun("carpool", str(tmp_path)) is None  # a verb too
    finally:
        wordnet_words.load.cache_clear()
        wordnet_words.proper_noun.cache_clear()
