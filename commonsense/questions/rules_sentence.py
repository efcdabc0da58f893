"""Rules of the table (:mod:`.rule_table`) about the sentence: a subject, a finite verb after it, the
present tense, persons where persons can stand (not twice, not after an article, not in the first
person), possessives. Tried after :mod:`.rules_words`, in the order of this module."""

from __future__ import annotations

from . import fluent
from .fluent import lemmas
from .lexicon import (
    ADVERBIALS,
    ARTICLE_LIKE,
    AUXILIARIES,
    BARE_NOUNS,
    DETERMINERS,
    FIRST_PERSON,
    MODALS,
    NOT_OWNED,
    PERSON,
    SUBJECTS,
    TO_VERBS,
)
from .rule_table import rule
from .words import bare_verb_lemma, missing_possessive, participle_only, tags, third_person


def _verb_index(toks: list[str]) -> int:
    """The index of the word after the subject and its adverbs ("PersonX finally *agrees*")."""
    j = 1
    while j < len(toks) - 1 and (toks[j].lower() in ADVERBIALS or toks[j].lower().endswith("ly")):
        j += 1
    return j


@rule(
    "no-subject",
    "no subject: the text starts with a verb or an adjective (an ATOMIC tail shown as it is)",
    accept=["someone knocks on the door", "PersonX's dog barks"],
    reject=["feel relaxed", "reserve lodging for the trip", "Feed the dogs", "Take PersonY home"],
)
def no_subject(toks: list[str], text: str) -> str | None:
    first = toks[0]
    if not (PERSON.match(first) or first.lower() in SUBJECTS or first[:1].isupper()):
        return f"no subject: starts with {first!r}"
    if first[:1].isupper() and not PERSON.match(first) and first.lower() not in SUBJECTS:
        # a capital that is a verb's base form before an object: an imperative ("Feed the dogs")
        nxt = toks[1].lower() if len(toks) > 1 else ""
        if bare_verb_lemma(first.lower()) and (nxt in DETERMINERS or PERSON.match(toks[1])):
            return f"no subject: starts with the verb {first!r}"
    return None


@rule(
    "pronoun-subject",
    "the subject is a pronoun that points at nothing the reader was told ('it is not usable', 'Their boss')",
    accept=["PersonX knows it is late", "people like PersonX", "this dog barks"],
    reject=["it is not usable", "it tastes okay", "Their boss is never satisfied", "This is the last year"],
)
def pronoun_subject(toks: list[str], text: str) -> str | None:
    first = toks[0].lower()
    if first in ("it", "they", "their", "them"):
        return f"the subject {toks[0]!r} points at nothing"
    if first in ("this", "that", "these", "those") and len(toks) > 1:
        nxt = toks[1].lower()
        if nxt in AUXILIARIES or "NOUN" not in tags(nxt) and "ADJ" not in tags(nxt):
            return f"the subject {toks[0]!r} points at nothing"
    return None


@rule(
    "noun-after-to",
    "a noun where a verb must follow 'needs to', 'wants to'",
    accept=["PersonX needs to study", "PersonX wants to go home"],
    reject=["PersonX needs to money", "PersonX wants to pizza"],
)
def noun_after_to(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if toks[i].lower() == "to" and toks[i - 1].lower() in TO_VERBS and tags(toks[i + 1]) == frozenset({"NOUN"}):
            return f"a noun where a verb must follow 'to': {toks[i + 1]!r}"
    return None


@rule(
    "no-verb-after-subject",
    "the word after the subject (and its adverbs) is no verb",
    accept=["PersonX laughs", "PersonX always wins"],
    reject=["PersonX happy", "PersonX very tired"],
)
def no_verb_after_subject(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]):
        j = _verb_index(toks)
        w = toks[j].lower()
        if w not in AUXILIARIES and "VERB" not in tags(w):
            return f"no verb after the subject: {toks[j]!r}"
    return None


@rule(
    "no-finite-verb",
    "a gerund or 'been' right after the subject: no finite verb",
    accept=["PersonX is running fast", "PersonX has been sick"],
    reject=["PersonX being nice", "PersonX running fast"],
)
def no_finite_verb(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]):
        j = _verb_index(toks)
        w = toks[j].lower()
        if w in ("been", "being") or w.endswith("ing") and w not in AUXILIARIES:
            return f"no finite verb after the subject: {toks[j]!r}"
    return None


@rule(
    "participle-only",
    "a past participle that is no past tense right after the subject ('given', 'taken')",
    accept=["PersonX gives PersonY a gift", "PersonX is given a gift"],
    reject=["PersonX given unfair punishment", "PersonX taken to the hospital"],
    library="lemminflect",
)
def participle_only_rule(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]):
        j = _verb_index(toks)
        if participle_only(toks[j].lower()):
            return f"no finite verb after the subject: {toks[j]!r}"
    return None


@rule(
    "capitalised-verb",
    "the verb after the subject is capitalised",
    accept=["PersonX walks home"],
    reject=["PersonX Walks home", "PersonX Cooks dinner"],
)
def capitalised_verb(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]):
        j = _verb_index(toks)
        if toks[j][:1].isupper():
            return f"capitalised verb: {toks[j]!r}"
    return None


@rule(
    "inflected-after-do-not",
    "a third-person verb after 'does not'",
    accept=["PersonX does not like apples"],
    reject=["PersonX does not likes apples", "PersonX does n't wants to go"],
)
def inflected_after_do_not(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]):
        j = _verb_index(toks)
        w = toks[j].lower()
        if w in ("does", "do", "did") and j + 2 < len(toks) and toks[j + 1].lower() in ("not", "n't"):
            if third_person(toks[j + 2]):
                return f"inflected verb after {toks[j]!r} {toks[j + 1]!r}"
    return None


@rule(
    "subject-as-object",
    "the subject again as its own object (ASER made 'he ... him' one placeholder)",
    accept=["PersonX takes PersonX's dog outside", "PersonX takes PersonY outside"],
    reject=["PersonX takes PersonX outside", "PersonX stops PersonX"],
)
def subject_as_object(toks: list[str], text: str) -> str | None:
    if PERSON.match(toks[0]) and toks[0].startswith("Person"):
        for i in range(2, len(toks)):
            if toks[i] == toks[0] and (i + 1 == len(toks) or toks[i + 1] != "'s"):
                return f"the subject again as an object: {toks[i]}"
    return None


def _verb_next(toks: list[str], i: int) -> bool:
    """The word after ``toks[i]`` is a verb of which it is the subject ("knows it *is* late")."""
    nxt = toks[i + 1].lower()
    return nxt in AUXILIARIES or third_person(nxt)


@rule(
    "pronoun-object",
    "'it', 'them' or 'this' as an object, or 'it' as a clause's subject, or 'its', inside the sentence "
    "with nothing before it that it could be",
    accept=[
        "PersonX holds a baby and puts it down",
        "PersonX sees that it rains",
        "PersonX knows it is late",
        "PersonX recommends this place",
        "PersonX buys a car and its tyres",
    ],
    reject=[
        "PersonX takes it everywhere",
        "PersonX hands it to PersonY",
        "PersonX waters them often",
        "PersonX hopes it arrives on time",
        "PersonX tries to silence its noise",
        "PersonX discusses this with PersonY",
    ],
)
def pronoun_object(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        w = toks[i].lower()
        if w in ("it", "them", "this") and "VERB" in tags(toks[i - 1].lower()) and not _verb_next(toks, i):
            if w == "this" and tags(toks[i + 1].lower()) & {"NOUN", "ADJ"}:
                continue  # "this" before its noun: "recommends this location"
            if not any(t.lower() in DETERMINERS or t == "'s" for t in toks[:i]):
                return f"{toks[i]!r} points at nothing"
        # "it" as the subject of a clause, or "its", with nothing before that it could be ("hopes it
        # arrives on time", "silences its twitting"); not the "it" of the weather or a time ("it is late")
        nxt = toks[i + 1].lower()
        if (w == "it" and _verb_next(toks, i) and nxt not in DUMMY_IT) or w == "its":
            if not any(t.lower() in DETERMINERS or t == "'s" for t in toks[:i]):
                return f"{toks[i]!r} points at nothing"
    return None


# what the "it" of the weather, a time or a clause does ("it is late", "it rains", "it seems so")
DUMMY_IT = frozenset("is was will would can could may might must should 's seems looks feels rains snows takes".split())


@rule(
    "noun-after-be",
    "'is' and a bare singular noun that is no adjective, ending the sentence ('PersonX is anticipation')",
    accept=["PersonX is in trouble", "PersonX is a teacher", "PersonX is ready", "PersonX is fun"],
    reject=["PersonX is anticipation", "PersonX is teacher"],
    library="lemminflect",
)
def noun_after_be(toks: list[str], text: str) -> str | None:
    if len(toks) == 3 and PERSON.match(toks[0]) and toks[1].lower() in ("is", "are"):
        w = toks[2].lower()
        if tags(w) == frozenset({"NOUN"}) and w not in BARE_NOUNS and w in lemmas(w, "NOUN").get("NOUN", ()):
            return f"a bare noun after {toks[1]!r}: {toks[2]!r}"
    return None


@rule(
    "first-person",
    "I, me, my, we in a third-person event",
    accept=["I love PersonY", "PersonX loves PersonY with all PersonX's heart"],
    reject=["PersonX loves PersonY with all my heart", "PersonX tells us a story"],
)
def first_person(toks: list[str], text: str) -> str | None:
    for i, t in enumerate(toks):
        low = t.lower()
        if low in FIRST_PERSON and not (i == 0 and low == "i"):
            return f"first person in a third-person event: {t!r}"
    return None


@rule(
    "ones",
    "'one's' for a person",
    accept=["PersonX raises one hand"],
    reject=["PersonX needs to raise one's fist", "PersonX loses one's keys"],
)
def ones(toks: list[str], text: str) -> str | None:
    for i in range(len(toks) - 1):
        if toks[i].lower() == "one" and toks[i + 1] == "'s":
            return "'one's' for a person"
    return None


@rule(
    "possessive-before-adverb",
    "a possessive before a word that cannot be owned ('PersonY's outside'), idioms apart",
    accept=["PersonX turns PersonX's back", "PersonX takes PersonY's dog outside"],
    reject=["PersonX takes PersonY's outside", "PersonX sends PersonY's away"],
)
def possessive_before_adverb(toks: list[str], text: str) -> str | None:
    for i in range(len(toks) - 1):
        if toks[i] == "'s" and toks[i + 1].lower() in NOT_OWNED:
            if toks[i + 1].lower() not in fluent.idiom_nouns(text):
                return f"a possessive before {toks[i + 1]!r}"
    return None


@rule(
    "person-after-article",
    "a person after an article or a determiner ('a', 'the', 'another', 'every')",
    accept=["PersonX calls PersonY", "PersonX meets the neighbor", "PersonX calls PersonY every day"],
    reject=["PersonX calls the PersonY", "PersonX is a PersonY", "PersonX marries another PersonY"],
)
def person_after_article(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if PERSON.match(toks[i]) and toks[i - 1].lower() in ARTICLE_LIKE:
            return f"a person after {toks[i - 1]!r}"
    return None


@rule(
    "verb-before-modal",
    "a third-person verb between the subject and a modal ('PersonX mothers would')",
    accept=["PersonX would not wake up"],
    reject=["PersonX mothers would not wake up", "PersonX fathers would agree"],
)
def verb_before_modal(toks: list[str], text: str) -> str | None:
    if len(toks) > 2 and toks[2].lower() in MODALS and PERSON.match(toks[0]) and third_person(toks[1]):
        return f"a verb before {toks[2]!r}: {toks[1]!r}"
    return None


@rule(
    "person-after-article-adjective",
    "a person after an article and an adjective",
    accept=["PersonX is a nice person"],
    reject=["PersonX is a nice PersonY", "PersonX meets the new PersonY"],
)
def person_after_article_adjective(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks)):
        if (
            PERSON.match(toks[i])
            and "ADJ" in tags(toks[i - 1])
            and toks[i - 2 if i > 1 else 0].lower() in ("a", "an", "the")
        ):
            return f"a person after {toks[i - 2]} {toks[i - 1]!r}"
    return None


@rule(
    "any-before-singular",
    "'any' before a noun outside a negation or a condition ('people do any work')",
    accept=[
        "PersonX does not have any questions",
        "PersonX will never have any fun",
        "PersonX asks if there is any milk",
    ],
    reject=["PersonX has any question", "people do any work", "PersonX is on any kind of insurance"],
)
def any_before_singular(toks: list[str], text: str) -> str | None:
    for i in range(len(toks) - 1):
        if toks[i].lower() == "any" and "NOUN" in tags(toks[i + 1].lower()):
            if not any(x.lower() in NEGATING for x in toks[:i]):
                return f"'any' outside a negation: any {toks[i + 1]!r}"
    return None


NEGATING = frozenset(("not", "n't", "never", "if", "without", "no", "whether", "nobody", "nothing", "hardly", "than"))


@rule(
    "ever-outside-negation",
    "'ever' outside a negation, a condition or a comparison ('would ever find true love')",
    accept=["PersonX will never ever lie", "PersonX does not ever lie", "PersonX wonders if PersonY will ever come"],
    reject=["PersonX would ever find true love", "PersonX can ever win"],
)
def ever_outside_negation(toks: list[str], text: str) -> str | None:
    for i, t in enumerate(toks):
        if t.lower() == "ever" and not any(x.lower() in NEGATING for x in toks[:i]):
            if i + 1 == len(toks) or toks[i + 1].lower() not in ("since", "after", "so", "more", "again"):
                return "'ever' outside a negation"
    return None


@rule(
    "missing-possessive",
    "a person followed by a singular noun that must be theirs ('maintains PersonY equilibrium')",
    accept=["PersonX gives PersonY money", "PersonX sends PersonY home", "PersonX tells PersonY stories"],
    reject=["PersonX maintains PersonY equilibrium", "PersonX enjoys PersonY class"],
)
def missing_possessive_rule(toks: list[str], text: str) -> str | None:
    for i in range(1, len(toks) - 1):
        if PERSON.match(toks[i]) and not toks[i].endswith("'s") and missing_possessive(toks, i):
            return f"no possessive: {toks[i]} {toks[i + 1]}"
    return None
