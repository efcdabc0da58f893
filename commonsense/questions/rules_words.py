"""Rules of the table (:mod:`.rule_table`) about words: length, English words, capitals, a person
or a word twice, articles before vowels, mass nouns and plurals, the words after a verb of motion,
"be" and "to". Each rule reads the display text's tokens (:func:`commonsense.questions.words.tokens`:
"'s" and "n't" split off) and is tried in the order of this module."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .lexicon import (
    ADVERBIALS,
    AFTER_MOTION,
    AUXILIARIES,
    BE_TAKERS,
    FUNCTION_WORDS,
    GENDERED,
    LINKS,
    MASS_NOUNS,
    MOTION,
    PERSON,
    WORD,
)
from .rule_table import rule
from .words import bare_verb, lexical, plural_noun, tags, third_person


def _name_inside(t: str, i: int) -> bool:
    """A capitalised word after the first: a name or a proper noun (the word rules leave it to the
    capital rules)."""
    return i > 0 and t[:1].isupper() and bool(WORD.match(t))


def _plain(t: str) -> bool:
    """A token the word rules read (not a person, a clitic or an ATOMIC blank)."""
    return not PERSON.match(t) and t not in ("'s", "n't", "___")


@rule(
    "too-short",
    "a single word: no subject and verb",
    accept=["PersonX sleeps"],
    reject=["happy", "PersonX"],
    gate=True,
)
def too_short(toks: list[str], text: str) -> str | None:
    return "no subject and verb" if len(toks) < 2 else None


@rule(
    "too-long",
    "more than 16 tokens: run-on text no question can carry",
    accept=["PersonX asks PersonY to help carry the heavy old sofa up the narrow stairs"],
    reject=[
        "PersonX asks PersonY to help carry the heavy old sofa up the narrow stairs of the big house",
        "PersonX and PersonY walk the dog to the park and then go to the store to buy some milk",
    ],
    gate=True,
)
def too_long(toks: list[str], text: str) -> str | None:
    return "too long" if len(toks) > 16 else None


@rule(
    "gendered-pronoun",
    "he, him, his, she, her: names are drawn without regard to gender, so the pronoun contradicts the name",
    accept=["PersonX washes PersonX's hands", "PersonX helps PersonY with the homework"],
    reject=["PersonX applies himself to study", "PersonX goes abroad for his studies"],
)
def gendered_pronoun(toks: list[str], text: str) -> str | None:
    for t in toks:
        if t.lower() in GENDERED:
            return f"gendered pronoun {t!r}"
    return None


@rule(
    "person-twice",
    "the same person twice in a row (ASER merged two placeholders)",
    accept=["PersonX meets PersonY", "PersonX gives PersonY PersonX's book"],
    reject=["PersonX PersonX eats an apple", "PersonX calls PersonY PersonY"],
)
def person_twice(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if PERSON.match(toks[i]) and toks[i] == toks[i - 1]:
            return f"word twice: {toks[i]!r}"
    return None


@rule(
    "possessive-after-verb",
    "'s after a word that is no noun: a split or misspelt verb",
    accept=["PersonX borrows the teacher's book", "PersonX reads the story's end"],
    reject=["PersonX get's some exercise", "PersonX always's wins"],
)
def possessive_after_verb(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if toks[i] == "'s" and toks[i - 1].islower() and "NOUN" not in tags(toks[i - 1]):
            return f"'s after {toks[i - 1]!r}"
    return None


@rule(
    "stray-letter",
    "a letter standing alone: the fragment of a split word",
    accept=["PersonX buys a car", "I love PersonY"],
    reject=["PersonX dons t care", "PersonX is n t sure"],
)
def stray_letter(toks: list[str], text: str) -> str | None:
    for t in toks:
        if _plain(t) and len(t) == 1 and t.lower() not in ("a", "i"):
            return f"stray letter {t!r}"
    return None


@rule(
    "capitals",
    "a word in capitals inside the sentence: shouting or an acronym a reader may not know",
    accept=["PersonX visits Paris"],
    reject=["PersonX is SO happy", "PersonX LOVES the cake"],
)
def capitals(toks: list[str], text: str) -> str | None:
    for i, t in enumerate(toks):
        if _plain(t) and _name_inside(t, i) and len(t) > 1 and t.isupper():
            return f"capitals: {t!r}"
    return None


@rule(
    "capitalised-word",
    "a capitalised function word, adjective or verb inside the sentence (no name)",
    accept=["PersonX visits the Grand Canyon", "PersonX calls Mom", "PersonX is Young's friend"],
    reject=["PersonX is Happy", "PersonX goes To the store", "PersonX is Young"],
)
def capitalised_word(toks: list[str], text: str) -> str | None:
    for i, t in enumerate(toks):
        if _plain(t) and _name_inside(t, i) and not (len(t) > 1 and t.isupper()):
            low = t.lower()
            if low in FUNCTION_WORDS or tags(low) & {"ADJ", "VERB"} and "NOUN" not in tags(low):
                return f"capitalised word: {t!r}"
            # an adjective that is a noun too, ending the sentence after a link verb ("is Young")
            if i + 1 == len(toks) and "ADJ" in tags(low) and toks[i - 1].lower() in LINKS:
                return f"capitalised word: {t!r}"
    return None


@rule(
    "not-english",
    "a word neither lemminflect's English lexicon nor WordNet knows (a typo, a fragment, a foreign word)",
    accept=[
        "PersonX eats a sandwich",
        "PersonX buys a well-made coat",
        "PersonY calls the cops",
        "PersonX lasts 30 seconds",
    ],
    reject=["PersonX eats a blorf", "PersonX perosny jumps up", "PersonX scans their surrondings"],
    library="lemminflect, WordNet",
)
def not_english(toks: list[str], text: str) -> str | None:
    for i, t in enumerate(toks):
        if _plain(t) and not _name_inside(t, i) and not (len(t) == 1 and t.lower() not in ("a", "i")):
            if not lexical(t):
                return f"not an English word: {t!r}"
    return None


@rule(
    "stray-placeholder",
    "a placeholder no name is drawn for ('PersonA', 'PeopleB'): only PersonX/Y/Z and PeopleX/Y are",
    accept=["PersonX is with PersonY", "PersonX meets PersonZ"],
    reject=["PersonY is with PersonA", "PersonX calls PersonB"],
)
def stray_placeholder(toks: list[str], text: str) -> str | None:
    for t in toks:
        if STRAY_PLACEHOLDER.fullmatch(t):
            return f"a placeholder no name is drawn for: {t!r}"
    return None


STRAY_PLACEHOLDER = re.compile(r"(?:Person|People)[A-W](?:'s)?")


@rule(
    "word-twice",
    "the same word twice in a row (but 'very very', 'really really', 'so so')",
    accept=["PersonX is very very tired", "PersonX really really wants a dog"],
    reject=["PersonX eats eats an apple", "PersonX goes to to the store"],
)
def word_twice(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        t = toks[i]
        if _plain(t) and not _name_inside(t, i) and t.lower() == toks[i - 1].lower():
            if t.lower() not in ("very", "really", "so"):
                return f"word twice: {t!r}"
    return None


@rule(
    "be-lemma",
    "the lemma 'be' where a finite verb must stand (ASER's lemmatised copula)",
    accept=["PersonX wants to be happy", "PersonX will be late"],
    reject=["PersonX be happy", "PersonX's car be broken"],
)
def be_lemma(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if toks[i].lower() == "be" and toks[i - 1].lower() not in BE_TAKERS:
            return "verb lemma 'be'"
    return None


@lru_cache(maxsize=1)
def _inflect() -> Any:
    """inflect's engine. inflect (7.2 on) wraps its classes in typeguard's ``@typechecked``, which
    re-parses and recompiles their source at import: 5-7 s on this machine at load 10, 0.5 s without
    (jaraco/inflect#212, open). Imported here with the decorator as the identity for the import only:
    the checks are runtime type assertions on the arguments, not part of what ``a()`` answers."""
    import sys

    if "inflect" not in sys.modules:
        import typeguard

        checked = typeguard.typechecked
        typeguard.typechecked = _unchecked
        try:
            import inflect  # noqa: F401
        finally:
            typeguard.typechecked = checked
    import inflect

    return inflect.engine()


def _unchecked(target: Any = None, **_: Any) -> Any:
    """``typeguard.typechecked`` as the identity (used bare or with arguments)."""
    return target if target is not None else (lambda f: f)


@lru_cache(maxsize=65536)
def article_for(word: str) -> str:
    """The indefinite article ``word`` takes, by its sound (inflect: "an hour", "a uniform", "an MBA")."""
    return str(_inflect().a(word)).split(" ", 1)[0].lower()


@rule(
    "article-choice",
    "'a' where the word's sound takes 'an', or 'an' where it takes 'a' (by inflect)",
    accept=["PersonX eats an apple", "PersonX buys a used car", "PersonX waits an hour", "PersonX wears a uniform"],
    reject=["PersonX eats a apple", "PersonX gets a idea", "PersonX buys an car", "PersonX waits a hour"],
    library="inflect",
)
def article_choice(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        art, word = toks[i - 1].lower(), toks[i]
        if art in ("a", "an") and WORD.match(word) and not PERSON.match(word) and article_for(word) != art:
            return f"'{toks[i - 1]}' before {word!r}"
    return None


@rule(
    "article-before-mass-noun",
    "'a' or 'an' before a mass noun",
    accept=["PersonX spends the money", "PersonX gives some advice"],
    reject=["PersonX spends a money", "PersonX gives an advice"],
)
def article_before_mass_noun(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if toks[i - 1].lower() in ("a", "an") and toks[i].lower() in MASS_NOUNS:
            return f"'{toks[i - 1]}' before {toks[i]!r}"
    return None


@rule(
    "article-before-plural",
    "'a' or 'an' before a plural noun (adjectives between)",
    accept=["PersonX buys a pair of shoes", "PersonX gets a restraining order"],
    reject=["PersonX gets a restraining orders", "PersonX buys a new shoes"],
)
def article_before_plural(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if toks[i - 1].lower() not in ("a", "an"):
            continue
        k = i
        while k < len(toks) - 1 and not plural_noun(toks[k].lower()):
            if not ("ADJ" in tags(toks[k]) or toks[k].lower().endswith("ing")):
                break
            k += 1
        if plural_noun(toks[k].lower()) and not (k + 1 < len(toks) and toks[k + 1] == "of"):
            return f"'{toks[i - 1]}' before a plural: {toks[k]!r}"
    return None


@rule(
    "motion-without-preposition",
    "go or come followed by a noun without a preposition",
    accept=["PersonX goes home", "PersonX goes shopping", "PersonX comes to the party"],
    reject=["PersonX goes work", "PersonX comes party"],
)
def motion_without_preposition(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        t, nxt = toks[i].lower(), toks[i + 1]
        if t in MOTION and nxt.lower() not in AFTER_MOTION and not nxt.endswith("ing"):
            if not PERSON.match(nxt) and not nxt[:1].isupper():
                return f"no preposition after {toks[i]!r}: {nxt!r}"
    return None


@rule(
    "like-before-auxiliary",
    "'like' before an auxiliary verb",
    accept=["PersonX looks like PersonY"],
    reject=["PersonX looks like was going", "PersonX feels like is sick"],
)
def like_before_auxiliary(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if toks[i].lower() == "like" and toks[i + 1].lower() in AUXILIARIES:
            return f"'like' before {toks[i + 1]!r}"
    return None


@rule(
    "inflected-after-to",
    "a third-person verb after 'to'",
    accept=["PersonX wants to eat", "PersonX goes to the store"],
    reject=["PersonX wants to eats", "PersonX tries to finds a job"],
)
def inflected_after_to(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if toks[i].lower() == "to" and third_person(toks[i + 1]):
            return f"inflected verb after 'to': {toks[i + 1]!r}"
    return None


@rule(
    "lot-without-a",
    "'lot' without 'a' before it",
    accept=["PersonX eats a lot of food"],
    reject=["PersonX eats lot of food", "PersonX has the lot of work"],
)
def lot_without_a(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if toks[i + 1].lower() == "lot" and toks[i].lower() != "a":
            return "'lot' without 'a'"
    return None


@rule(
    "lemma-after-link",
    "a verb's lemma after is, gets, feels (a participle or an adjective must follow)",
    accept=["PersonX gets bored", "PersonX is open to ideas", "PersonX is intimate", "PersonX is let down"],
    reject=["PersonX gets bore", "PersonX is wonder"],
    library="lemminflect",
)
def lemma_after_link(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if toks[i].lower() in LINKS and bare_verb(toks[i + 1]):
            return f"verb lemma after {toks[i]!r}: {toks[i + 1]!r}"
    return None


@rule(
    "lemma-after-link-adverb",
    "a verb's lemma after is, gets, feels and an adverb",
    accept=["PersonX is well prepared", "PersonX is really tired", "PersonX is definitely coming"],
    reject=["PersonX is well prepare", "PersonX gets really bore", "PersonX is definitely meet PersonY"],
    library="lemminflect",
)
def lemma_after_link_adverb(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 2):
        adverb = toks[i + 1].lower()
        if toks[i].lower() in LINKS and (adverb in ADVERBIALS | {"well", "so", "very"} or adverb.endswith("ly")):
            if bare_verb(toks[i + 2]):
                return f"verb lemma after {toks[i]!r} {toks[i + 1]!r}: {toks[i + 2]!r}"
    return None
