"""Display text for lemmatised ASER events (CSKB-Population): "Michael be unemployed" ->
"Michael is unemployed", "Walter love read" -> "Walter loves reading".

CSKB-Population stores ASER's lemmatised events; questions built from them read as broken English.
This module conjugates the event's first verb to the present tense with ``lemminflect`` (its
inflection tables ship in the wheel; no model, no download). Only a verb that is still in its lemma
form is touched, so ATOMIC-style text that is already inflected ("PersonX keeps a secret") stays as
it is. The graph's text is never changed: the question's provenance (chain, triples) keeps it.

``PeopleX`` / ``PeopleY`` (CSKB's plural placeholders) read as "people" once names are drawn.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from .idioms import CLIPPED_IDIOMS, OWN_POSSESSIVE_IDIOMS, idiom_fault, idiom_nouns, idioms
from .lemma_tables import inflections, lemmas, verb_lemma
from .lexicon import (
    ADVERBS,
    DETERMINERS,
    DITRANSITIVE,
    FINITE,
    GERUND_TAKERS,
    HAVE_NOUNS,
    MODALS,
    MOTION_AND_ACTIVITY,
    NOT_POSSESSED,
    PARTICLES,
    PEOPLE_SLOT,
    PERFECT_NEXT,
    PERSON_SLOT,
    POSSESSED_NOUNS,
    POSSESSOR_SLOT,
    PRE_VERB_ADVERBS,
    PRONOUNS_3SG,
    PRONOUNS_PLURAL,
)


@lru_cache(maxsize=65536)
def _verb_lemma(word: str) -> bool:
    """``word`` is a verb in its base form (and not only an adjective that happens to be a verb)."""
    return word in lemmas(word, "VERB").get("VERB", ())


@lru_cache(maxsize=65536)
def _adjective(word: str) -> bool:
    return bool(lemmas(word, "ADJ"))


@cache
def _inflect(word: str, tag: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(word, tag=tag)
    return forms[0] if forms else word


@lru_cache(maxsize=65536)
def _adverb(word: str) -> bool:
    """A pre-verbal adverb ("reluctantly", "finally", "just"): skipped when looking for the verb."""

    w = word.lower()
    if w in ADVERBS or w in PRE_VERB_ADVERBS:
        return True
    pos = lemmas(w)
    return set(pos) == {"ADV"} and w.endswith("ly")


def possessives(text: str) -> str:
    """ASER drops the possessive: "PersonX catch PersonY eye" -> "PersonX catch PersonY's eye",
    "PersonX pass PersonX exam" -> "PersonX pass PersonX's exam". A placeholder that follows a verb
    or preposition and is followed by a noun is a possessor, unless the verb takes two objects
    ("PersonX give PersonY money") and the person is someone else than the subject."""

    toks = text.split()
    if len(toks) < 3 or not PERSON_SLOT.match(toks[0]):
        return text
    second = set(lemmas(toks[1].lower()))
    if toks[1].islower() and "NOUN" in second and (second == {"NOUN"} or toks[1].lower() in POSSESSED_NOUNS):
        k = 2
        while k < len(toks) - 1 and _adverb(toks[k]) and toks[k].lower() not in ("not", "n't"):
            k += 1  # "PersonX dog rarely bark"
        if set(lemmas(toks[k].lower())) & {"VERB"} or toks[k].lower() in MODALS | {"be", "have", "do"}:
            toks[0] += "'s"  # "PersonX husband ask" -> "PersonX's husband ask"
    for i in range(1, len(toks) - 1):
        if not PERSON_SLOT.match(toks[i]):
            continue
        nxt = toks[i + 1].lower()
        pos = set(lemmas(nxt))
        if pos != {"NOUN"} and nxt not in POSSESSED_NOUNS or nxt in NOT_POSSESSED:
            continue  # "picks PersonY up", "takes PersonY outside", "helps PersonY move"
        if "VERB" in pos and i + 2 < len(toks) and toks[i + 2].lower() in PARTICLES | {"to", "up", "around"}:
            continue  # "helps PersonY move in", "lets PersonY go to"
        if nxt in PRONOUNS_3SG | PRONOUNS_PLURAL or nxt in MODALS or nxt in ("one", "'s", "some", "any", "all"):
            continue
        prev = toks[i - 1].lower()
        prev_verb = lemmas(prev, "VERB").get("VERB", (prev,))[0]
        if toks[i] != toks[0] and prev_verb in DITRANSITIVE:
            continue
        toks[i] = toks[i] + "'s"
    return " ".join(toks)


@lru_cache(maxsize=65536)
def _inflected_verb(word: str) -> bool:
    """An inflected verb form that is no noun or adjective too ("banned", "keeps", "used"; not
    "lunches" or "broken")."""
    forms = lemmas(word)
    verbs = forms.get("VERB", ())
    return bool(verbs) and word not in verbs and not forms.keys() & {"NOUN", "ADJ"}


def _is_person(tok: str) -> bool:
    return bool(PERSON_SLOT.match(tok)) or (tok[:1].isupper() and tok.lower() not in DETERMINERS | PRONOUNS_PLURAL)


def _subject_end(toks: list[str]) -> int:
    """Index of the first verb token (the end of the subject), or -1 if the event has none."""
    if POSSESSOR_SLOT.match(toks[0]) and len(toks) > 2:
        i = 2  # "PersonX's husband ask": the possessed noun is no verb
        while i < len(toks):
            w = toks[i].lower()
            if w in MODALS or w in ("be", "have", "do") or _verb_lemma(w):
                return i
            if w in FINITE or _inflected_verb(w):
                return -1  # ATOMIC's inflected text: "PersonX's township banned the use of water"
            i += 1
        return -1
    first = toks[0].lower()
    if toks[0].islower() and first not in DETERMINERS | PRONOUNS_3SG | PRONOUNS_PLURAL and _verb_lemma(first):
        return -1  # a subject-less fragment ("go visit relatives"): nothing to conjugate
    if first in PRONOUNS_3SG | PRONOUNS_PLURAL or PERSON_SLOT.match(toks[0]) or PEOPLE_SLOT.match(toks[0]):
        if len(toks) > 1 and toks[1] != "'s":
            j = 1
            while j < len(toks) - 1 and _adverb(toks[j]) and toks[j].lower() not in ("not", "n't"):
                j += 1  # "PersonX reluctantly agree" -> the verb is "agree"
            return j
    i = 1
    while i < len(toks):
        w = toks[i].lower()
        prev = toks[i - 1].lower()
        if w == "'s" or prev in DETERMINERS or prev == "'s" and not _verb_lemma(w):
            i += 1
            continue
        if w in MODALS or w in ("be", "have", "do") or _verb_lemma(w):
            return i
        i += 1
    return -1


def _plural(subject: list[str]) -> bool:
    head = subject[-1]
    low = head.lower()
    if low in PRONOUNS_PLURAL or PEOPLE_SLOT.match(head):
        return True
    if low in PRONOUNS_3SG or _is_person(head):
        return False

    lemma = lemmas(low, "NOUN").get("NOUN", (low,))[0]
    return (lemma != low or low.endswith("es")) and low.endswith("s") and not low.endswith(("ss", "us", "is"))


def _participle(toks: list[str], j: int) -> None:
    """After "be": a base-form verb becomes a participle ("be steal by" -> "stolen by",
    "be not answer the phone" -> "answering the phone")."""
    while j < len(toks) and (toks[j].lower() in ADVERBS or toks[j].lower() in PRE_VERB_ADVERBS):
        j += 1
    if j >= len(toks):
        return
    w = toks[j].lower()
    if not _verb_lemma(w) or _adjective(w) or w == "be":
        return
    nxt = toks[j + 1].lower() if j + 1 < len(toks) else ""
    passive = w not in MOTION_AND_ACTIVITY and (not nxt or nxt in PARTICLES)
    toks[j] = _inflect(w, "VBN" if passive else "VBG")


def present_tense(text: str) -> str:
    """The event with its first lemma-form verb conjugated in the present tense; text whose
    verb is already inflected (or that has no verb) is returned unchanged."""
    toks = text.split()
    if len(toks) < 2:
        return text
    v = _subject_end(toks)
    if v < 1:
        return text
    subject = toks[:v]
    while len(subject) > 1 and _adverb(subject[-1]):
        subject = subject[:-1]
    plural = _plural(subject)
    first_person = len(subject) == 1 and subject[0] == "I"
    w = toks[v].lower()
    if w in MODALS:
        if v + 1 < len(toks) and toks[v + 1].lower() == "have":
            _perfect(toks, v + 2)
        return " ".join(toks)
    if w == "be":
        toks[v] = "am" if first_person else "are" if plural else "is"
        _participle(toks, v + 1)
    elif w == "have":
        if not plural and not first_person:
            toks[v] = "has"
        _perfect(toks, v + 1)
    elif w == "do":
        if not plural and not first_person:
            toks[v] = "does"
    elif _verb_lemma(w) and w != "people":  # (CSKB's PeopleX, never the verb "to people": "other people can")
        if not plural and not first_person:
            toks[v] = _inflect(w, "VBZ")
        # ("keeps people healthy": "people" stands for CSKB's PeopleX, never the verb "to people")
        if w in GERUND_TAKERS and v + 1 < len(toks) and toks[v + 1] != "people" and _verb_lemma(toks[v + 1].lower()):
            toks[v + 1] = _inflect(toks[v + 1].lower(), "VBG")
    return " ".join(toks)


def _perfect(toks: list[str], j: int) -> None:
    """After "have": "have keep silence" -> "kept silence", "have be go" -> "been going"."""
    while j < len(toks) and toks[j].lower() in ADVERBS:
        j += 1
    if j >= len(toks):
        return
    w = toks[j].lower()
    if w == "be":
        toks[j] = "been"
        _participle(toks, j + 1)
    elif _verb_lemma(w) and w not in ("to",):
        nxt = toks[j + 1].lower() if j + 1 < len(toks) else ""
        pos = set(lemmas(w))
        if "ADJ" in pos and nxt and set(lemmas(nxt)) == {"NOUN"}:
            return  # possession, not the perfect: "have major surgery" -> "has major surgery"
        if "NOUN" in pos and nxt in ("about", "for", "with", "of", "over"):
            return  # "have concern about something" -> "has concern about something"
        if w in HAVE_NOUNS and (not nxt or nxt in ("on", "in", "at", "to", "for")):
            return  # "have cash on hand" -> "has cash on hand", not "has cashed on hand"
        if nxt != "to" or w in ("go", "come"):
            toks[j] = _inflect(w, "VBN")


def people(text: str) -> str:
    """``PeopleX`` / ``PeopleY`` -> "people" (a plural that reads right with ASER's plain verb)."""
    return PEOPLE_SLOT.sub("people", text)


_CLITIC = re.compile(r"\s+('s|n't|'re|'ll|'ve|'m|'d)\b")


def display(text: str) -> str:
    """Event text as shown in a question: fluent present tense, clitics joined ("Ezra 's car"
    -> "Ezra's car"), listed idioms repaired (:func:`idioms`: "PersonX forces PersonY's way" ->
    "PersonX forces PersonX's way", "PersonX pull out the stop" -> "PersonX pulls out all the
    stops")."""
    return idioms(perfect_infinitive(_fluent(text)))


@lru_cache(maxsize=1 << 20)
def fluent_form(text: str) -> str:
    """:func:`display` of a graph text with "people" for CSKB's PeopleX (present tense, clitics
    joined, idioms repaired): the display before :mod:`.repairs` (whose
    :func:`~commonsense.questions.repairs.display_form` is what questions show)."""
    return display(people(text))


def perfect_infinitive(text: str) -> str:
    """ASER's "to have" + a verb's lemma is the perfect infinitive: "PersonX needs to have visit
    PersonY" -> "needs to have visited PersonY", "needs to have try meat" -> "tried meat". A word
    that is a noun too stays a noun unless an object follows it ("needs to have power", "needs to
    have money first")."""
    if " to have " not in text:
        return text
    toks = text.split()
    changed = False
    for j in range(2, len(toks)):
        if toks[j - 2].lower() != "to" or toks[j - 1].lower() != "have":
            continue
        w = toks[j].lower()
        forms = lemmas(w)
        if not toks[j].islower() or not _verb_lemma(w) or w in HAVE_NOUNS or "ADJ" in forms:
            continue  # "to have clean hair"
        if any(v != w for v in forms.get("VERB", ())):
            continue  # a form of another verb already: "to have found the ring" (not "founded")
        if "NOUN" in lemmas(w):
            nxt = toks[j + 1] if j + 1 < len(toks) else ""
            if not nxt or not (_is_person(nxt) or nxt.lower() in DETERMINERS or set(lemmas(nxt.lower())) == {"NOUN"}):
                continue  # "to have power", "to have relationship with other"
        toks[j] = _inflect(w, "VBN")
        changed = True
    return " ".join(toks) if changed else text


def _fluent(text: str) -> str:
    poss = possessives(text)
    if poss != text:
        fixed = present_tense(poss)
        if fixed != poss:  # lemmatised ASER text, which drops possessives; ATOMIC's own text keeps them
            return _CLITIC.sub(r"\1", fixed)
    return _CLITIC.sub(r"\1", present_tense(text))


def has_lemma_form(text: str) -> bool:
    """True when a raw ASER lemma is left right after a person's name or placeholder
    ("Michael be", "PersonX have", "people be"; "people have" is plural, not a lemma): the quality
    report's "unconverted lemma" count."""
    return bool(_LEMMA_AFTER_NAME.search(text))


_LEMMA_AFTER_NAME = re.compile(r"\b(?:[A-Z][a-z]+|Person[XYZ])\s+(?:be|have)\b|\b(?:People[XYZ]|people)\s+be\b")


@lru_cache(maxsize=65536)
def hindered_phrase(text: str) -> str | None:
    """A present-tense event as the object of "what hindered …": "PersonX gets back" -> "PersonX
    from getting back", "PersonX is at school" -> "PersonX from being at school". COM2's template
    ("what hindered PersonX gets back") is not English; read blind, every 2in item was called
    unreadable for it. None where no gerund reads right (a modal, a negation, a perfect, no verb):
    the caller keeps the template's own words."""
    toks = text.split()
    if len(toks) < 2 or not (PERSON_SLOT.match(toks[0]) or PEOPLE_SLOT.match(toks[0]) or toks[0] == "people"):
        return None  # only a person's own event ("PersonX's car breaks down" keeps the template)
    k = 1  # pre-verbal adverbs stay before the gerund ("finally getting up")
    while k < len(toks) - 1 and _adverb(toks[k]):
        if toks[k].lower() in ("not", "n't", "never"):
            return None
        k += 1
    verb = toks[k].lower()
    if verb in MODALS or verb in ("not", "n't", "never", "does", "do", "did", "was", "were"):
        return None
    subject, adverbs, rest = toks[0], toks[1:k], toks[k + 1 :]
    if verb in ("is", "are", "am"):
        first = rest[0].lower() if rest else ""
        progressive = verb_lemma(first)
        if progressive and first in inflections(progressive, "VERB").get("VBG", ()):
            return " ".join([subject, "from", *adverbs, *rest])  # "is camping" -> "from camping"
        gerund = "being"
    elif verb in ("has", "have"):
        nxt = rest[0].lower() if rest else ""
        if not rest or nxt in PERFECT_NEXT or nxt.endswith("ed") or nxt == verb_lemma(nxt):
            return None  # "has finished the work", "has been", "has lost": no plain possession
        gerund = "having"
    else:
        lemma = verb_lemma(verb)
        if lemma is None:
            return None
        gerund = _inflect(lemma, "VBG")
    return " ".join([subject, "from", *adverbs, gerund, *rest])


__all__ = [
    "CLIPPED_IDIOMS",
    "OWN_POSSESSIVE_IDIOMS",
    "display",
    "fluent_form",
    "has_lemma_form",
    "hindered_phrase",
    "idiom_fault",
    "idiom_nouns",
    "idioms",
    "inflections",
    "lemmas",
    "people",
    "perfect_infinitive",
    "possessives",
    "present_tense",
    "verb_lemma",
]
