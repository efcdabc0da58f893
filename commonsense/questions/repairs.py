"""Display repairs (issue 27 item 3): a node text made English without changing what it says, where
a library decides the repair, so that the text rules judge the sentence a reader can read instead of
refusing a text for a fault of form.

* :func:`joined_tokens`: the tokeniser's splits of ASER/ATOMIC ("gon na", "wan na", "got ta",
  "can n't") as the words they stand for ("going to", "want to", "got to", "cannot"), and ASER's
  "peoples" as "people", before the display conjugates the verb ("PersonX be gon na die" ->
  "PersonX is going to die").
* :func:`articles`: a singular count noun after a verb or a preposition with no determiner gets the
  indefinite article ("PersonX puts on shoe" -> "puts on a shoe"): the noun is a count noun by Link
  Grammar's dictionary (:func:`.grammar.bare_noun`: it cannot stand bare), the article is the one
  its sound takes (inflect), and the repair is kept only when the parser prefers it (a complete
  parse, cheaper than the text's own).
* :func:`agreement`: a verb joined by "and" to the subject's present-tense verb takes its form
  ("PersonX sits down and talk" -> "... and talks"), kept only when the parser prefers it.
* :func:`capitals`: a lower-case proper noun as WordNet spells it ("moves to ohio" -> "Ohio").

Every repair is a row of the rule table's repairs (:data:`REPAIRS`), with the texts it must change
and the texts it must leave alone (``tests/commonsense/test_repairs.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import grammar, wordnet_words
from .lexicon import (
    AUXILIARIES,
    DETERMINING,
    FUNCTION_WORDS,
    LINKS,
    PERSON,
    POSSESSED_NOUNS,
    PREPOSITIONS,
    QUANTIFIERS_PLURAL,
)
from .words import bare_count_noun, tags, third_person, to_as_preposition, verb_form

# nouns of measure before "of": what follows is a plural or a mass noun ("a pair of shoes")
MEASURES = frozenset("pair couple lot lots set bunch kind type sort number group piece".split())


@dataclass(frozen=True)
class Repair:
    name: str
    does: str
    library: str
    changes: tuple[tuple[str, str], ...]  # (display before, after) it must produce
    keeps: tuple[str, ...]  # display texts it must leave as they are


_SPLITS = (
    (re.compile(r"\bgon na\b", re.I), "going to"),
    (re.compile(r"\bwan na\b", re.I), "want to"),
    (re.compile(r"\bgot ta\b", re.I), "got to"),
    (re.compile(r"\bcan n't\b", re.I), "cannot"),
    # ASER's lemmatiser makes "people" a plural noun ("other peoples can not like it")
    (re.compile(r"\bpeoples\b"), "people"),
)


def joined_tokens(text: str) -> str:
    """The graph text with the tokeniser's splits joined back into the words they stand for."""
    if " na" not in text and " ta" not in text and "n't" not in text and "peoples" not in text:
        return text
    for pattern, words in _SPLITS:
        text = pattern.sub(words, text)
    return text


def _prefers(new: str, old: str, *, tie: bool = False) -> bool:
    """Link Grammar parses ``new`` completely and at a lower cost than ``old`` (or ``old`` not at all;
    ``tie``: at no higher cost)."""
    if not grammar.available():
        return False
    got = grammar.cost(new)
    if got is None:
        return False
    before = grammar.cost(old)
    return before is None or got < before or (tie and got <= before)


def _article_at(toks: list[str], i: int) -> int | None:
    """Where an indefinite article goes for the bare count noun ``toks[i]`` (before its adjectives),
    or None when no article belongs there (a quantifier, a determiner, "out" + a bare noun)."""
    w = toks[i].lower()
    if grammar.bare_noun(w):
        return None  # the dictionary lets it stand bare: a mass noun ("attends orientation")
    if wordnet_words.body_part(w) or w in POSSESSED_NOUNS:
        return None  # one's own ("opens mouth", "argues with husband"), never "a mouth", "a husband"
    j = i - 1
    while j > 0 and "ADJ" in tags(toks[j].lower()) and toks[j].lower() not in FUNCTION_WORDS:
        j -= 1
    prev = toks[j].lower()
    if prev in QUANTIFIERS_PLURAL or prev == "out" or PERSON.match(toks[j]) or prev in AUXILIARIES:
        return None
    before = toks[j - 1].lower() if j > 0 else ""
    if before in DETERMINING or before.endswith("'s") or ("ADJ" in tags(before) and before not in FUNCTION_WORDS):
        return None  # a noun phrase already ("the parking lot", "blue collar worker"): its first word is no verb
    if verb_form(prev) is not None and wordnet_words.verb_phrase(verb_form(prev) or "", w):
        return None  # one verb in WordNet, the noun bare in it: "loses track", "follows suit"
    if prev in LINKS and "VERB" in tags(w):
        return None  # after a link verb a verb's lemma is a participle lost, not a noun: "gets bore"
    if prev == "of" and j > 0 and toks[j - 1].lower() in MEASURES:
        return None  # "a pair of skate" wants the plural, not "a pair of a skate"
    if prev == "to":
        # only "to" as a preposition ("walks to room"), never an infinitive ("is going to stay")
        return j + 1 if to_as_preposition(toks, j) else None
    if prev == "of":
        return None  # "the rule of pool" wants "the", "a person of consequence" nothing: not "a" (r20)
    if prev in PREPOSITIONS or (verb_form(prev) is not None and prev not in FUNCTION_WORDS):
        return j + 1
    return None


def _bare_after_verb(toks: list[str], i: int) -> bool:
    """A noun that is a verb too, ending the phrase right after a verb ("needs to finish project",
    "goes to interview"): the rules cannot tell it from a bare verb, the parser can."""
    w = toks[i].lower()
    pos = tags(w)
    if i < 2 or "NOUN" not in pos or "VERB" not in pos or "ADV" in pos or "ADJ" in pos or w.endswith(("ing", "s")):
        return False
    ends = i + 1 == len(toks) or toks[i + 1].lower() in PREPOSITIONS | {"and", "or", "but"}
    prev = toks[i - 1].lower()
    # the sentence's verb right after the subject, or an infinitive ("to finish"): never a noun
    # before a noun ("a phone call", "the parking lot")
    main = (i == 2 and third_person(prev)) or toks[i - 2].lower() == "to"
    return ends and main and verb_form(prev) is not None and prev not in FUNCTION_WORDS | AUXILIARIES | {"to"}


@lru_cache(maxsize=1 << 18)
def articles(text: str) -> str:
    """The display with "a"/"an" before each singular count noun that lacks a determiner, where the
    parser prefers it (see the module's docstring)."""
    from .rules_words import article_for

    toks = text.split()
    if len(toks) < 3 or not (PERSON.match(toks[0]) or toks[0] == "people"):
        return text  # a sentence about a person (a subject-less fragment stays as the graph has it)
    for _ in range(3):
        for i in range(1, len(toks)):
            if not (bare_count_noun(toks, i) or _bare_after_verb(toks, i)):
                continue
            at = _article_at(toks, i)
            if at is None:
                continue
            new = [*toks[:at], article_for(toks[at]), *toks[at:]]
            if _prefers(" ".join(new), " ".join(toks), tie=True):
                toks = new
                break
        else:
            break
    return " ".join(toks)


@lru_cache(maxsize=1 << 18)
def agreement(text: str) -> str:
    """The display with a verb after "and" in the subject's present-tense form, where the parser
    prefers it (see the module's docstring)."""
    from .fluent import _inflect

    toks = text.split()
    if len(toks) < 4 or not PERSON.match(toks[0]) or "and" not in toks:
        return text
    k = toks.index("and")
    if k + 1 >= len(toks) or "to" in (t.lower() for t in toks[1:k]) or not third_person(toks[1].lower()):
        return text
    w = toks[k + 1].lower()
    if verb_form(w) != w or "VERB" not in tags(w):
        return text
    if any(t.lower() in DETERMINING or t.endswith("'s") for t in toks[2:k]):
        return text  # "gets a fishing hook and line": two nouns may be what "and" joins
    new = [*toks[: k + 1], _inflect(w, "VBZ"), *toks[k + 2 :]]
    joined = " ".join(new)
    return joined if _prefers(joined, text) else text


@lru_cache(maxsize=1 << 18)
def capitals(text: str) -> str:
    """The display with a lower-case proper noun spelled as WordNet spells it ("moves to ohio" ->
    "moves to Ohio"): only a word whose every noun sense is capitalised there and that is no verb,
    adjective or adverb (:func:`.wordnet_words.proper_noun`)."""
    toks = text.split()
    changed = False
    for i, t in enumerate(toks):
        if len(t) > 2 and t.isalpha() and t.islower():
            got = wordnet_words.proper_noun(t)
            if got is not None:
                toks[i] = got
                changed = True
    return " ".join(toks) if changed else text


def repair(text: str) -> str:
    """Every display repair of a display text, in order."""
    return capitals(agreement(articles(text)))


@lru_cache(maxsize=1 << 20)
def display_form(text: str) -> str:
    """A graph text as questions show it and the text rules read it: the tokeniser's splits joined
    (:func:`joined_tokens`), then :func:`commonsense.questions.fluent.fluent_form` (present tense,
    "people" for CSKB's PeopleX, clitics joined, idioms repaired), then the repairs (:func:`repair`)."""
    from .fluent import fluent_form

    return repair(fluent_form(joined_tokens(text)))


def applied(text: str) -> list[str]:
    """The names of the repairs that change a graph text's display (as :func:`display_form` makes
    it), in order: what a reading's key
    records, so that each repair's precision can be read where it fires."""
    from .fluent import fluent_form

    joined = joined_tokens(text)
    shown = fluent_form(joined)
    out = ["joined-tokens"] if joined != text else []
    with_articles = articles(shown)
    if with_articles != shown:
        out.append("article")
    agreed = agreement(with_articles)
    if agreed != with_articles:
        out.append("agreement")
    if capitals(agreed) != agreed:
        out.append("capitals")
    return out


REPAIRS: tuple[Repair, ...] = (
    Repair(
        "joined-tokens",
        "the tokeniser's splits 'gon na', 'wan na', 'got ta', 'can n't' as the words they stand for; ASER's 'peoples'",
        "",
        (
            ("PersonX be gon na die", "PersonX is going to die"),
            ("PeopleX wan na be public", "people want to be public"),
            ("PersonX can n't believe PersonX's luck", "PersonX cannot believe PersonX's luck"),
            ("many peoples tell PersonX", "many people tell PersonX"),
        ),
        ("PersonX goes to the gym", "PersonX eats a banana", "other people can not like it"),
    ),
    Repair(
        "article",
        "'a'/'an' before a singular count noun without a determiner after a verb or a preposition",
        "Link Grammar, WordNet, inflect",
        (
            ("PersonX puts on shoe", "PersonX puts on a shoe"),
            ("PersonX sits on chair", "PersonX sits on a chair"),
            ("PersonX needs to finish project", "PersonX needs to finish a project"),
        ),
        (
            "PersonX attends orientation",
            "PersonX goes to school",
            "PersonX pays attention",
            "PersonX makes some cookie",
            "PersonX hands out candy",
            "PersonX helps cook dinner",
            "PersonX is going to stay in a car",
            "PersonX cannot get their car to start",
            "PersonX is going to make a phone call",
            "PersonX walks around the parking lot",
            "PersonX bows in conclusion",
            "PersonX opens mouth",
            "PersonX purchases a pair of skate",
            "PersonX wants to jump back to school",
            "PersonY gets bore",
            "PersonX loses track of the time",
            "PersonX follows suit",
            "PersonX is only a blue collar worker",
            "PersonX is arguing with husband",
            "PersonX talks to the person in question",
            "PersonX is starting from scratch",
            "PersonX does not know the rule of pool",
        ),
    ),
    Repair(
        "agreement",
        "a verb joined by 'and' to the subject's present-tense verb in the same form",
        "Link Grammar, lemminflect",
        (("PersonX sits down and talk", "PersonX sits down and talks"),),
        (
            "PersonX gets a fishing hook and line",
            "PersonX gets PersonY's trust and hope",
            "PersonX wants to sit and talk",
            "PersonX sits and talks",
        ),
    ),
    Repair(
        "capitals",
        "a lower-case proper noun as WordNet spells it (every noun sense capitalised, no other part of speech)",
        "WordNet",
        (
            ("PersonX moves to ohio", "PersonX moves to Ohio"),
            ("PersonX is driving from atlanta", "PersonX is driving from Atlanta"),
        ),
        ("PersonX buys china", "PersonX eats turkey", "PersonX speaks english", "PersonX goes to the beach"),
    ),
)
