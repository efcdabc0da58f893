"""Idioms of one's own and clipped idioms in graph text (the display text repairs them; the text
rules ask whether a text still has one it cannot repair). Moved out of ``fluent`` whole (issue 30
item 6: no module over 400 lines); ``fluent`` re-exports its public names."""

from __future__ import annotations

import re

from .lemma_tables import lemmas, verb_lemma
from .lexicon import DITRANSITIVE, NOT_POSSESSED, PERSON_SLOT

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
