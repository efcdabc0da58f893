"""Word-class tests the text rules share, over lemminflect's lexicon (its tables ship in the wheel)
and the lists of :mod:`.lexicon`: is a word English, a noun, a verb's lemma, a state, a plural, a
third-person form; does a person before a noun own it. No rule here: the rules of
:mod:`.text_rules` call these."""

from __future__ import annotations

import re
from functools import lru_cache

from . import fluent, wordnet_verbs, wordnet_words
from .fluent import inflections, lemmas
from .lexicon import (
    ABSTRACT_SUFFIXES,
    ADJECTIVE_VERBS,
    ADVERBIALS,
    AUXILIARIES,
    BARE_AFTER,
    BARE_NOUNS,
    BE_TAKERS,
    BENEFACTIVE,
    CAUSATIVES,
    DESTINATION_VERBS,
    DETERMINING,
    DITRANSITIVE,
    FUNCTION_WORDS,
    MASS_NOUNS,
    NOT_POSSESSED,
    OWNED_BARE,
    PERSON,
    POSSESSED_NOUNS,
    PREPOSITIONS,
    QUANTIFIERS_PLURAL,
    TIME_NOUNS,
    WORD,
)


@lru_cache(maxsize=262144)
def lexical(word: str) -> bool:
    """An English word: a function word, a number, or a word lemminflect's tables or WordNet know
    (:mod:`.wordnet_words`: lemminflect misses "burger", "cops", "ten")."""
    w = word.lower()
    if w in FUNCTION_WORDS or w.isdigit():
        return True
    if not WORD.match(word):
        return False
    if "-" in w:
        return all(lexical(p) for p in w.split("-"))
    return bool(lemmas(w)) or wordnet_words.known(w)


@lru_cache(maxsize=262144)
def tags(word: str) -> frozenset[str]:
    """lemminflect's parts of speech of ``word`` (UPOS tags: NOUN, VERB, ADJ, ADV, …)."""
    return frozenset(lemmas(word.lower()))


@lru_cache(maxsize=65536)
def verb_not_adjective(word: str) -> bool:
    """A verb's base form that lemminflect's lexicon also lists as an adjective without being one:
    "PersonX is wonder", "PersonX is scare", "PersonX is elect" (true adjectives that are verbs too,
    "calm", "open", have comparatives or are in :data:`ADJECTIVE_VERBS`)."""

    w = word.lower()
    if w in ADJECTIVE_VERBS or w not in lemmas(w, "VERB").get("VERB", ()):
        return False
    adj = inflections(w, "ADJ")
    return "JJR" not in adj and not w.endswith(("ed", "en"))


def is_state(word: str) -> bool:
    """An adjective ("happy") or a participle used as one ("relieved", "embarrassed", "stuck")."""
    if word.lower() in FUNCTION_WORDS or verb_not_adjective(word):
        return False  # "PersonX is much", "PersonX is there", "PersonX is wonder"
    pos = tags(word)
    if "ADJ" in pos:
        return True
    w = word.lower()
    return "VERB" in pos and (w.endswith(("ed", "en")) or w in {"upset", "hurt", "lost", "stuck", "left", "torn"})


def bare_verb(word: str) -> bool:
    """A verb in its base form that is no adjective ("PersonX gets bore", "PersonX is wonder")."""
    w = word.lower()
    if w in FUNCTION_WORDS or not WORD.match(word):
        return False
    pos = tags(w)
    if "VERB" not in pos:
        return False
    if "ADV" in pos or w in inflections(w, "VERB").get("VBN", ()):
        return False  # "gets home"; a participle like its base: "is let down", "is put off"
    if "ADJ" in pos:
        return verb_not_adjective(w) and not _parser_adjective(w)
    return w in lemmas(w, "VERB").get("VERB", ()) and not w.endswith(("ed", "ing", "en"))


def _parser_adjective(word: str) -> bool:
    """Link Grammar's dictionary has ``word`` as an adjective ("intimate", "overweight"; not
    "wonder", "scare"): "Lee is very <word>." parses. False without the parser."""
    from . import grammar

    return grammar.available() and grammar.parses(f"Lee is very {word}")


def bare_verb_lemma(word: str) -> bool:
    """A verb's base form that is no adjective ("feed", "take"; not "open", "fed")."""
    w = word.lower()
    return w in lemmas(w, "VERB").get("VERB", ()) and "ADJ" not in tags(w) and w not in FUNCTION_WORDS


def count_only(word: str) -> bool:
    """A singular count noun that needs a determiner: lemminflect's singular noun that Link Grammar's
    dictionary does not let stand bare (``grammar.bare_noun``: "chair", not "orientation" or
    "soap"). Without the parser, lemminflect's and :data:`BARE_NOUNS`' word alone."""
    from . import grammar

    if not grammar.available():
        return True
    return not grammar.bare_noun(word.lower())


def participle_only(word: str) -> bool:
    """A past participle that is no past tense ("given", "taken", "seen", "broken"): right after the
    subject, the sentence has no finite verb."""
    verb = verb_form(word)
    if verb is None:
        return False
    forms = inflections(verb, "VERB")
    return word in forms.get("VBN", ()) and word not in forms.get("VBD", ())


def singular_count(word: str) -> bool:
    """A singular noun that is no mass noun we know of ("question", not "money" or "questions")."""
    w = word.lower()
    return (
        w not in BARE_NOUNS
        and w not in MASS_NOUNS
        and "NOUN" in tags(w)
        and w in lemmas(w, "NOUN").get("NOUN", ())
        and not w.endswith("s")
        and not (w.endswith(ABSTRACT_SUFFIXES) and not count_only(w))
    )


verb_form = fluent.verb_lemma  # the verb lemma of an inflected or base verb form, or None


def bare_count_noun(toks: list[str], i: int) -> bool:
    """``toks[i]`` is a singular count noun that needs an article here ("cuts the vegetable on
    counter", "watches cartoon", "makes some cookie", "many new friend")."""
    w = toks[i].lower()
    if w in BARE_NOUNS and toks[i - 1].lower() == "out" and i > 1 and verb_form(toks[i - 2].lower()):
        # "drops out school": "out of school"; not after a verb that takes an object ("hands out candy")
        return not wordnet_verbs.needs_object(verb_form(toks[i - 2].lower()) or "")
    if w in BARE_NOUNS or w in FUNCTION_WORDS or PERSON.match(toks[i]) or toks[i][:1].isupper():
        return False
    pos = tags(w)
    if "NOUN" not in pos or "ADJ" in pos or "ADV" in pos:
        return False
    nouns = lemmas(w, "NOUN").get("NOUN", ())
    if w not in nouns or w.endswith("s") and any(n != w for n in nouns):
        return False  # a plural ("cookies", "things") or another form
    if w.endswith("ing") and "VERB" in pos:
        return False  # a gerund: "prevents PersonY from coming"
    nxt = toks[i + 1].lower() if i + 1 < len(toks) else ""
    if nxt and "NOUN" in tags(nxt) and nxt not in FUNCTION_WORDS and not PERSON.match(toks[i + 1]):
        return False  # a noun before a noun ("guitar classes", "jury duty"): the head noun is judged
    if w.endswith(ABSTRACT_SUFFIXES) and not count_only(w):
        # an abstract noun Link Grammar's dictionary lets stand bare ("attends orientation", "practises
        # deception"); its mass list alone is too generous for concrete nouns ("looks at tag", "dies at
        # age", "sees all the animal")
        return False
    j = i - 1
    while j > 0 and (
        "ADJ" in tags(toks[j].lower()) and toks[j].lower() not in FUNCTION_WORDS or toks[j].lower() == "very"
    ):
        j -= 1
    prev = toks[j].lower()
    if prev in QUANTIFIERS_PLURAL:
        return True
    if (prev, w) in BARE_AFTER:
        return False
    if prev in DETERMINING or prev.endswith("'s") or prev == "'s" or PERSON.match(toks[j]):
        return False
    if "VERB" in pos and prev in BE_TAKERS and not to_as_preposition(toks, j):
        return False  # a verb after all ("to cook", "will cook")
    if "VERB" in pos and prev not in PREPOSITIONS:
        # after a verb, a word that is a verb too may be one ("helps cook dinner"), unless it ends
        # the phrase after a verb that takes no bare verb: "runs lap", "drives town"
        ends = i + 1 == len(toks) or toks[i + 1].lower() in PREPOSITIONS | {"and", "or", "but"}
        taker = verb_form(prev) in CAUSATIVES | {"go", "come", "dare", "need", "help"}
        # and only for the sentence's main verb ("PersonX runs lap"), not a noun compound after
        # an article ("a search engine", "a hiding spot")
        main = all(
            PERSON.match(t) or t.lower() in ADVERBIALS | AUXILIARIES | {"to"} or t.lower().endswith("ly")
            for t in toks[: i - 1]
        )
        return (
            ends
            and main
            and j == i - 1
            and not w.endswith("ing")
            and not taker
            and verb_form(prev) is not None
            and prev not in FUNCTION_WORDS
        )
    return prev in PREPOSITIONS or (verb_form(prev) is not None and prev not in FUNCTION_WORDS)


def to_as_preposition(toks: list[str], j: int) -> bool:
    """``toks[j]`` is "to" after a verb of moving or speaking and the noun after it ends the phrase,
    so "to" is a preposition: "walks to room" needs an article as much as "walks into room" (but
    "walks to relax", "walks to meet PersonY" and "comes to visit" are infinitives)."""
    if toks[j].lower() != "to" or j < 2 or j + 1 >= len(toks):
        return False
    after = toks[j + 2].lower() if j + 2 < len(toks) else None
    if after is not None and after not in PREPOSITIONS | {"and", "or", "but"}:
        return False
    return verb_form(toks[j - 1].lower()) in DESTINATION_VERBS


def plural_noun(word: str) -> bool:
    """A noun in the plural that is no singular noun, verb or adjective too ("orders" is a verb form)."""
    nouns = lemmas(word, "NOUN").get("NOUN", ())
    return bool(nouns) and word not in nouns and word.endswith("s") and "ADJ" not in tags(word)


def missing_possessive(toks: list[str], i: int) -> bool:
    """A person followed by a singular noun with no article, which must be theirs: "maintains PersonY
    equilibrium", "grants PersonY request", "sees PersonY daughter" (but "gives PersonY money",
    "sends PersonY home", "tells PersonY stories")."""

    nxt = toks[i + 1].lower()
    j = i + 1
    while j < len(toks) - 1 and "ADJ" in tags(toks[j].lower()) and toks[j].lower() not in FUNCTION_WORDS:
        j += 1  # "celebrates PersonY good grade": the noun after the adjectives
    if j > i + 1:
        noun = toks[j].lower()
        verb = verb_form(toks[i - 1].lower())
        if (
            verb is not None
            and verb not in DITRANSITIVE | BENEFACTIVE | CAUSATIVES
            and "NOUN" in tags(noun)
            and noun not in TIME_NOUNS  # "meets PersonY last night"
            and noun in lemmas(noun, "NOUN").get("NOUN", ())  # singular: "calls PersonY stupid names" is fine
            and (j + 1 == len(toks) or toks[j + 1].lower() in PREPOSITIONS | {"and", "or", "but"})
        ):
            return True
    if nxt in OWNED_BARE and verb_form(toks[i - 1].lower()) not in CAUSATIVES:
        return True  # "enjoys PersonY class", "takes PersonY place" (but "sends PersonY home")
    if nxt in NOT_POSSESSED or toks[i + 1][:1].isupper():
        return False
    if nxt in BARE_NOUNS:
        # a noun that reads bare after a verb ("pays attention", "needs help") is the person's after
        # one ("catches PersonY attention", "appreciates PersonY help", "steals PersonY credit"),
        # unless the verb takes two objects ("gives PersonY advice", "causes PersonY pain") or lets
        # the person do it ("lets PersonY rest", "watches PersonY work")
        verb = verb_form(toks[i - 1].lower())
        return (
            verb is not None
            and verb not in DITRANSITIVE | BENEFACTIVE | CAUSATIVES
            and nxt in lemmas(nxt, "NOUN").get("NOUN", ())
        )
    if tags(nxt) != frozenset({"NOUN"}) and nxt not in POSSESSED_NOUNS:
        # a noun that is a verb too: a possession unless the verb lets the person do it ("helps
        # PersonY move", "makes PersonY cry") or it goes on as a verb ("lets PersonY request it")
        if "NOUN" not in tags(nxt) or "ADJ" in tags(nxt) or verb_form(toks[i - 1].lower()) in CAUSATIVES:
            return False
        if i + 2 < len(toks) and toks[i + 2].lower() not in PREPOSITIONS | {"and", "or", "but"}:
            return False
    if nxt not in lemmas(nxt, "NOUN").get("NOUN", ()):
        return False  # a plural: "tells PersonY stories"
    # after a verb that takes two objects too: a singular noun needs "'s" or an article either way
    return verb_form(toks[i - 1].lower()) is not None or toks[i - 1].lower() in PREPOSITIONS


def third_person(word: str) -> bool:
    """A verb in the third person singular ("travels") where a base form must stand."""
    w = word.lower()
    verb = lemmas(w, "VERB").get("VERB", ())
    return bool(verb) and w not in verb and w.endswith("s") and not w.endswith("ss")


def tokens(text: str) -> list[str]:
    """The words of a display text, "'s" and "n't" apart (a new list: callers may change it)."""
    return list(_tokens(text))


_CLITIC = re.compile(r"(\w)('s|n't)\b")


@lru_cache(maxsize=1 << 20)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_CLITIC.sub(r"\1 \2", text).split())
