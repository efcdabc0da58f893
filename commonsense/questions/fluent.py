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


@cache
def lemmas(word: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllLemmas``, cached per (word, part of speech): the library deep-copies
    its tables on every call (most of the well-formed check's time on a 1.33 M-triple graph).
    Callers must not change the returned dict."""
    from lemminflect import getAllLemmas

    got: dict[str, tuple[str, ...]] = getAllLemmas(word, upos=upos) if upos else getAllLemmas(word)
    return got


@cache
def inflections(word: str, upos: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllInflections``, cached (see :func:`lemmas`)."""
    from lemminflect import getAllInflections

    got: dict[str, tuple[str, ...]] = getAllInflections(word, upos=upos)
    return got


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
    elif _verb_lemma(w):
        if not plural and not first_person:
            toks[v] = _inflect(w, "VBZ")
        if w in GERUND_TAKERS and v + 1 < len(toks) and _verb_lemma(toks[v + 1].lower()):
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
def display_form(text: str) -> str:
    """A graph text as questions show it and the text rules read it: :func:`display` of the text
    with "people" for CSKB's PeopleX (present tense, clitics joined, idioms repaired)."""
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


def verb_lemma(word: str) -> str | None:
    """The verb lemma of an inflected or base verb form ("camping" -> "camp"), or None."""
    got = lemmas(word.lower(), "VERB").get("VERB", ())
    return got[0] if got else None


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


# ----------------------------------------------------------------------------- idioms
#
# Idioms whose possessive is the subject's own: no one forces another person's way, loses another
# person's temper or holds another person's breath. ATOMIC's heads spell "one's" as either
# placeholder ("PersonX forces PersonY's way", "PersonX loses PersonY's temper", "PersonX shrugs
# PersonY's shoulders") and ASER drops the "'s" ("PersonX find PersonY way", "PersonY lose PersonY
# mind"); shown with names, "Alicia forces Sean's way" is not English. The possessor of such an
# idiom is the subject, spelt as ATOMIC spells a subject's own ("PersonX forces PersonX's way":
# names are drawn without regard to gender, so there is no "her"). Idioms in which another person's
# possessive reads right are left out on purpose: "change PersonY's mind", "catch PersonY's eye",
# "take PersonY's word", "look PersonY's way", "go PersonY's way", "make PersonY's day", "sing
# PersonY's praises", "put PersonY's mind at ease". The verb is matched in any form, the words after
# "one's" by their noun lemma, and given the idiom's number: ASER's lemmas and ATOMIC's own slips
# ("PersonX shrug PersonY 's shoulder", "PersonX turns PersonY's backs") read "shrugs PersonX's
# shoulders", "turns PersonX's back".
OWN_POSSESSIVE_IDIOMS = (
    "force one's way",
    "make one's way",
    "work one's way",
    "fight one's way",
    "push one's way",
    "elbow one's way",
    "find one's way",
    "lose one's way",
    "wend one's way",
    "weave one's way",
    "worm one's way",
    "inch one's way",
    "feel one's way",
    "mend one's ways",
    "lose one's temper",
    "keep one's temper",
    "lose one's cool",
    "keep one's cool",
    "lose one's mind",
    "make up one's mind",
    "speak one's mind",
    "lose one's nerve",
    "lose one's head",
    "lose one's balance",
    "lose one's composure",
    "regain one's composure",
    "do one's best",
    "try one's best",
    "hold one's breath",
    "catch one's breath",
    "waste one's breath",
    "hold one's tongue",
    "bite one's tongue",
    "bite one's lip",
    "clear one's throat",
    "crane one's neck",
    "shrug one's shoulders",
    "square one's shoulders",
    "roll one's eyes",
    "avert one's eyes",
    "avert one's gaze",
    "cry one's eyes out",
    "hang one's head",
    "shake one's head",
    "duck one's head",
    "bow one's head",
    "arch one's back",
    "turn one's back",
    "keep one's word",
    "break one's word",
    "stand one's ground",
    "hold one's ground",
    "pull one's weight",
    "push one's luck",
    "try one's luck",
    "try one's hand at",
    "cross one's fingers",
    "bide one's time",
    "spread one's wings",
    "earn one's keep",
    "pay one's respects",
    "count one's blessings",
    "let one's guard down",
    "drop one's guard",
    "laugh one's head off",
    "laugh one's ass off",
    "stop dead in one's tracks",
    "stop in one's tracks",
    "get to one's feet",
    "jump to one's feet",
    "rise to one's feet",
    "put one's foot down",
    "play one's cards right",
    "mind one's manners",
    "get one's act together",
)

# Idioms that ASER's lemmatisation clipped (CSKB-Population keeps ATOMIC's heads in that form: plurals
# made singular, "all" and possessives dropped), and the idiom they stand for. Shown as they are,
# "Molly pulls out the stop" and "Molly turns the table" say something else than the annotated
# "pulls out all the stops" and "turns the tables". Only a clipped form that has no other reading is
# listed; it is matched with its verb in any form and must end the phrase (see :data:`_PHRASE_GOES_ON`),
# and "one's" in the full form is the subject's own, as above. Found by reading the CSKB-Population
# nodes; a clipped idiom not listed here is not repaired.
CLIPPED_IDIOMS = {
    "pull out the stop": "pull out all the stops",
    "turn the table": "turn the tables",
    "learn the rope": "learn the ropes",
    "know the rope": "know the ropes",
    "make end meet": "make ends meet",
    "get cold foot": "get cold feet",
    "get to foot": "get to one's feet",
    "think on foot": "think on one's feet",
    "put foot down": "put one's foot down",
    "take matter into hand": "take matters into one's own hands",
    "take matter into one's hand": "take matters into one's own hands",
    "wait for shoe to drop": "wait for the other shoe to drop",
    "have butterfly": "have butterflies",
}
# Clipped idioms with more than one full form: rejected where they end the text, not repaired.
# "Isaac turns Hunter's life" (ATOMIC's "turns PersonY's life around", or "upside down"?)
CLIPPED_UNREPAIRABLE = ("turn one's life",)

_SLOT = re.compile(r"^(?:Person[XYZ]|People[XYZ]|people)(?:'s)?$")
_BARE_PERSON = re.compile(r"^(?:Person[XYZ]|People[XYZ]|people)$")
# after an idiom, a word that carries its noun phrase on ("do PersonY's best friend a favour",
# "find PersonY's way of life", "turn the table over") means the words were no idiom
_PHRASE_GOES_ON = frozenset({"of", "'s", "over", "upside", "around", "round", "aside"})
# words that may follow an idiom although they are nouns or adjectives too ("makes PersonX's way home")
_AFTER_IDIOM = frozenset({"home", "back", "out", "down", "up", "off", "in", "again", "together", "forward"})


def _idiom_words(phrase: str) -> tuple[str, tuple[str, ...]]:
    verb, *rest = phrase.split()
    return verb, tuple(rest)


_OWN_IDIOMS: dict[str, list[tuple[str, ...]]] = {}
for _p in OWN_POSSESSIVE_IDIOMS:
    _v, _rest = _idiom_words(_p)
    _OWN_IDIOMS.setdefault(_v, []).append(_rest)
_CLIPPED: dict[str, list[tuple[tuple[str, ...], tuple[str, ...] | None]]] = {}
for _p, _full in [*CLIPPED_IDIOMS.items(), *((p, None) for p in CLIPPED_UNREPAIRABLE)]:
    _v, _rest = _idiom_words(_p)
    _CLIPPED.setdefault(_v, []).append((_rest, _idiom_words(_full)[1] if _full else None))


def _noun_lemma(word: str) -> str:
    w = word.lower()
    got = lemmas(w, "NOUN").get("NOUN", ())
    return got[0] if got else w


def _goes_on(toks: list[str], k: int) -> bool:
    """The noun phrase or the verb's object goes on at ``toks[k]`` (so the words before were no idiom)."""
    if k >= len(toks):
        return False
    w = toks[k].lower()
    if w in _PHRASE_GOES_ON:
        return True
    if w in _AFTER_IDIOM or PERSON_SLOT.match(toks[k]) or toks[k][:1].isupper():
        return False
    pos = set(lemmas(w))
    return bool(pos & {"NOUN", "ADJ"}) and not pos & {"ADP", "ADV", "CCONJ", "SCONJ", "PRON", "DET"}


def _owner(toks: list[str], verb: int) -> tuple[str | None, frozenset[str]]:
    """Whose own an idiom at ``toks[verb]`` speaks of: the subject when it is a person and no other
    person stands before the verb ("PersonX forces …", "PersonX finally wants to make …"), else
    None; and every person that may be the verb's subject ("PersonX helps PersonY find …": both)."""
    first = toks[0]
    if not _BARE_PERSON.match(first) or first == "people":
        return None, frozenset(t for t in toks[:verb] if _BARE_PERSON.match(t))
    others = {t.removesuffix("'s") for t in toks[1:verb] if _SLOT.match(t)} - {first}
    candidates = frozenset({first} | {t for t in toks[1:verb] if _BARE_PERSON.match(t)})
    return (None if others else first), candidates


def _join_s(text: str) -> list[str]:
    return re.sub(r"(\S) 's\b", r"\1's", text).split()


def _own(person: str) -> str:
    return person + "'s"


def _match(toks: list[str], start: int, pattern: tuple[str, ...], exact: bool) -> int | None:
    """The index of the slot ("one's") where ``pattern`` matches ``toks`` from ``start`` (-1 when
    it has none), or None if it does not match or the phrase goes on after it. An idiom's own
    words match by their noun lemma ("ways", "eyes") unless ``exact`` (a clipped form)."""
    slot = -1
    for n, p in enumerate(pattern):
        k = start + n
        if k >= len(toks):
            return None
        t = toks[k]
        if p == "one's":
            if not _SLOT.match(t) or not _owned_after(toks, k):
                return None
            slot = k
        elif t.lower() != p and (exact or _noun_lemma(t) != _noun_lemma(p)):
            return None
    if _goes_on(toks, start + len(pattern)):
        return None
    return slot


def _owned_after(toks: list[str], k: int) -> bool:
    """The person at ``toks[k]`` owns the word after it: spelt so ("PersonY's way"), or ASER's
    bare person before a noun ("find PersonY way", "lose PersonX mind"), not before an adjective or
    an adverb ("keep PersonY cool", "turn PersonY back": PersonY is the object) nor a second object
    ("pay PersonY respect": respect paid to PersonY)."""
    if toks[k].endswith("'s"):
        return True
    if k + 1 >= len(toks):
        return False
    nxt = toks[k + 1].lower()
    if nxt in NOT_POSSESSED or nxt in _AFTER_IDIOM or ("ADJ" in lemmas(nxt) and nxt != "best"):
        return False
    before = verb_lemma(toks[k - 1]) if toks[k - 1].islower() else None
    return not (before in DITRANSITIVE and toks[k] != toks[0] and nxt != "way")


Found = tuple[str, int, int, int, tuple[str, ...] | None]


def _idioms(toks: list[str]) -> list[Found]:
    """Every listed idiom in ``toks``: (kind, verb index, slot index or -1, number of words after
    the verb, the full idiom's words after the verb), kind "own" (:data:`OWN_POSSESSIVE_IDIOMS`) or
    "clipped" (:data:`CLIPPED_IDIOMS`)."""
    found: list[Found] = []
    for i in range(1, len(toks) - 1):
        lemma = verb_lemma(toks[i]) if toks[i].islower() else None
        if lemma is None:
            continue
        for clipped, full in _CLIPPED.get(lemma, ()):
            slot = _match(toks, i + 1, clipped, exact=True)
            if slot is not None and (full is not None or i + 1 + len(clipped) == len(toks)):
                found.append(("clipped", i, slot, len(clipped), full))
        for pattern in _OWN_IDIOMS.get(lemma, ()):
            slot = _match(toks, i + 1, pattern, exact=False)
            if slot is not None and slot >= 0:
                found.append(("own", i, slot, len(pattern), pattern))
    return found


def idioms(text: str) -> str:
    """Listed idioms repaired (display text): another person's possessive in an idiom of one's own
    becomes the subject's ("PersonX forces PersonY's way" -> "PersonX forces PersonX's way",
    "PersonX finds PersonY way" -> "PersonX finds PersonX's way"), a clipped idiom is given back
    its words ("PersonX pulls out the stop" -> "PersonX pulls out all the stops"). Where the owner
    is not certain (a subject that is no person, another person before the verb) the text is left
    as it is, and :func:`idiom_fault` names what is wrong with it."""
    toks = _join_s(text)
    if len(toks) < 3:
        return text
    changed = False
    for kind, verb, _, length, full in reversed(_idioms(toks)):  # from the end: a repair may add words
        owner, _ = _owner(toks, verb)
        if full is None:
            continue  # a clipped idiom with more than one reading: idiom_fault names it
        if kind == "own":
            if owner is not None:
                words = [_own(owner) if w == "one's" else w for w in full]
                if toks[verb + 1 : verb + 1 + length] != words:
                    toks[verb + 1 : verb + 1 + length] = words  # the owner, and the idiom's number
                    changed = True
        elif owner is not None or "one's" not in full:
            toks[verb + 1 : verb + 1 + length] = [_own(owner) if w == "one's" and owner else w for w in full]
            changed = True
    return " ".join(toks) if changed else text


def idiom_nouns(text: str) -> frozenset[str]:
    """The words after "one's" of the idioms of one's own in ``text`` ("back" in "PersonX turns
    PersonX's back"): owned there, though elsewhere they are no noun ("sends PersonY's back")."""
    toks = _join_s(text)
    return frozenset(toks[slot + 1].lower() for kind, _, slot, _, _ in _idioms(toks) if kind == "own")


def idiom_fault(text: str) -> str | None:
    """What is wrong with a listed idiom that :func:`idioms` could not repair, or None: a clipped
    idiom ("people get to foot"), or an idiom of one's own with the possessive of someone who
    cannot be the verb's subject ("someone loses PersonY's temper", "PersonX's friend loses
    PersonX's temper", "PersonX helps PersonY find PersonZ's way")."""
    toks = _join_s(text)
    for kind, verb, slot, length, _ in _idioms(toks):
        if kind == "clipped":
            return f"a clipped idiom: {' '.join(toks[verb : verb + 1 + length])!r}"
        _, candidates = _owner(toks, verb)
        if toks[slot].removesuffix("'s") not in candidates or not toks[slot].endswith("'s"):
            return f"another's possessive in an idiom of one's own: {toks[verb]} {toks[slot]}"
    return None
