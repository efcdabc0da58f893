"""Is a triple fit to be asked about? Its head is a readable event and its tail a readable answer
of the kind its relation's question asks for.

Read blind, default builds on CSKB-Population were 24 % sound: human label 1 says a triple is
plausible, not that its ASER text is a sentence, nor that the tail answers the relation's question.
"What Linda feels after Linda is a camper?" was answered by "Linda feeds up satisfied", "what Sara is
seen as given …" by "Sara does not answer", and distractors such as "Lillian perosny jump up from
coffee" or "it dons t amount to much" made whole items unsound. So a triple is an edge only when

* **both texts read as English** (:func:`unreadable`): every word is in lemminflect's English
  lexicon (the inflection library the display text already uses, its data in the wheel) or is a
  function word, a person placeholder or a name; no stray letters or split clitics ("dons t",
  "n'tneed"), no word twice in a row, no sentence that ends on a preposition, article or
  conjunction ("Linda knows that", "PersonX needs to"), a subject and a verb; no idiom of one's
  own with someone else's possessive and no clipped idiom that the display could not repair
  (:func:`commonsense.questions.fluent.idioms`: "someone loses PersonY's temper", "people get to
  foot");
* **both texts parse** (:mod:`.grammar`, Link Grammar with its English dictionary) with every word
  linked: a check of structure that the lexical one cannot make ("walks to room", "ends up go");
  where the parser is not installed the edge filter's name says ``unparsed``;
* **the tail answers its relation's question** (:func:`misfit`): a feeling (xReact, oReact) is the
  asked-about person *being* or *feeling* an adjective or a participle ("PersonX is relieved",
  "PersonY feels happy"), an attribute (xAttr) the person *being* an adjective; a want, an intent
  or a need (xWant, oWant, xIntent, xNeed) something the person does, not a state ("PersonX is
  happy" is no want); an effect or an event starts with a subject and a verb; the person the
  relation asks about is the tail's subject where the relation's template says so ("what PersonX
  feels": PersonX, "the effect on PersonY": PersonY); a tail that repeats its head is no answer.

The checks read the *display* text (:func:`commonsense.questions.fluent.display`: present tense, so
"PersonX be relieve" is judged as "PersonX is relieved"); the graph's own text stays in provenance.
They are deliberately strict: a dropped triple costs a question, a kept broken one costs the
benchmark's credibility. ``--include-malformed`` (``build_questions``, ``build_coco``, the build
forms) turns them off.
"""

from __future__ import annotations

import re
from functools import lru_cache

from commonsense.kg.edges import EdgeFilter, edge_filter
from commonsense.kg.normalize import clean, normalize_tail

from . import fluent, grammar
from .fluent import inflections, lemmas

FUNCTION_WORDS = frozenset(
    """a an the this that these those some any no every each either neither all both half several
    many much more most few less least other another such what which who whom whose whatever
    i me my mine myself you your yours yourself we us our ours ourselves they them their theirs
    themselves he him his himself she her hers herself it its itself one ones someone somebody
    something anyone anybody anything everyone everybody everything nobody nothing people
    and or but nor so yet because although though if unless until while whereas since as than
    whether when where why how then there here
    of to in on at by for with from about into onto upon over under above below between among
    through during before after against without within along across around behind beyond near
    toward towards off out up down away back past like via per
    be is am are was were been being have has had having do does did done doing
    will would shall should can could may might must cannot
    not n't 's 're 've 'll 'd 'm very too also just still even only really quite rather so
    ever never always often sometimes again already yet almost enough""".split()
)

# a sentence does not end on these ("PersonX needs to", "Linda knows that", "PersonX is with")
DANGLING = frozenset(
    """a an the this these those my your our their his her its and or but nor because although
    though if unless until while whereas since than whether to of in on at by for with from about
    into onto upon over under between among through during before after against without within
    along across toward towards via per is am are was were be been being has had have do does did
    will would shall should can could may might must cannot that which who whom whose very like
    some any every each another other""".split()
)

# Person names are drawn without regard to gender (:mod:`.names`), so a gendered pronoun in a node
# contradicts the name half the time: read blind, "Amy applies himself to study", "Kimberly eats
# himself" and "Hannah goes abroad for his studies" were unreadable.
GENDERED = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})

PERSON = re.compile(r"^(?:Person[XYZ]|People[XYZ]|people)(?:'s)?$")
_WORD = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*$")
COPULAS = frozenset({"is", "are", "am", "feels", "feel", "gets", "get", "becomes", "become", "seems", "seem"})
INTENSIFIERS = frozenset(
    {"very", "so", "really", "quite", "pretty", "a", "bit", "little", "too", "extremely", "more", "less", "most"}
)
INTENSIFIERS |= frozenset({"not", "also", "still", "just", "somewhat", "rather", "fairly", "truly", "kind", "of"})
WANT = re.compile(r"^(?:wants?|would like|hopes?|plans?|intends?|tries|try|decides?) to \w+")
NEED = re.compile(r"^(?:needs?|has|have|had) to \w+")

FEELINGS = frozenset({"xReact", "oReact"})
ATTRIBUTES = frozenset({"xAttr"})
WANTS = frozenset({"xWant", "oWant", "xIntent"})
# relations whose tail's subject must be the person the question names (the rest: any subject)
TAIL_SUBJECT = {"xReact": "PersonX", "xAttr": "PersonX", "xWant": "PersonX", "xIntent": "PersonX"}
TAIL_SUBJECT |= {"xNeed": "PersonX", "xEffect": "PersonX", "oReact": "PersonY", "oWant": "PersonY"}
TAIL_SUBJECT |= {"oEffect": "PersonY"}


@lru_cache(maxsize=262144)
def _lexical(word: str) -> bool:
    w = word.lower()
    if w in FUNCTION_WORDS:
        return True
    if not _WORD.match(word):
        return False
    if "-" in w:
        return all(_lexical(p) for p in w.split("-"))
    return bool(lemmas(w))


@lru_cache(maxsize=262144)
def _pos(word: str) -> frozenset[str]:
    return frozenset(lemmas(word.lower()))


# adjectives that are also verbs in their base form and have no comparative in lemminflect's tables
ADJECTIVE_VERBS = frozenset(
    """open upset content present hurt average broke cut set shut spread wet secure separate perfect
    complete correct direct close dry empty clear free calm quiet clean slow warm cool sure blind
    lame idle tame""".split()
)


@lru_cache(maxsize=65536)
def _verb_not_adjective(word: str) -> bool:
    """A verb's base form that lemminflect's lexicon also lists as an adjective without being one:
    "PersonX is wonder", "PersonX is scare", "PersonX is elect" (true adjectives that are verbs too,
    "calm", "open", have comparatives or are in :data:`ADJECTIVE_VERBS`)."""

    w = word.lower()
    if w in ADJECTIVE_VERBS or w not in lemmas(w, "VERB").get("VERB", ()):
        return False
    adj = inflections(w, "ADJ")
    return "JJR" not in adj and not w.endswith(("ed", "en"))


def _is_state(word: str) -> bool:
    """An adjective ("happy") or a participle used as one ("relieved", "embarrassed", "stuck")."""
    if word.lower() in FUNCTION_WORDS or _verb_not_adjective(word):
        return False  # "PersonX is much", "PersonX is there", "PersonX is wonder"
    pos = _pos(word)
    if "ADJ" in pos:
        return True
    w = word.lower()
    return "VERB" in pos and (w.endswith(("ed", "en")) or w in {"upset", "hurt", "lost", "stuck", "left", "torn"})


MOTION = frozenset("go goes went come comes came".split())
# what may follow "goes" / "comes" directly ("goes home", "comes back", "goes shopping")
AFTER_MOTION = frozenset(
    """to home back out in up down away on off there here for with into around ahead outside inside
    over through along by after together straight first again well badly wrong right missing crazy
    bad unnoticed unpunished far somewhere anywhere nowhere everywhere upstairs downstairs abroad
    across about past near forward forth alone and or but""".split()
)
SUBJECTS = frozenset(
    """i you he she it we they someone somebody everyone everybody nobody people others there this
    that these those the a an my your his her our their its one some many all both nothing
    something everything each another""".split()
)
TO_VERBS = frozenset("need needs needed want wants wanted has have had tries try tried going".split())
AUXILIARIES = frozenset(
    "is are am was were has have had does do did will would can could should must may might shall cannot".split()
)
ADVERBIALS = frozenset("not never really just also still always already finally even only often".split())
BE_TAKERS = frozenset({"to", "will", "would", "can", "could", "should", "must", "may", "might", "not", "n't"})
BE_TAKERS |= frozenset({"shall", "cannot", "never", "always", "also", "just", "still", "really"})
LINKS = frozenset({"is", "are", "am", "was", "were", "been", "be", "gets", "get", "got", "feels", "becomes"})


def _bare_verb(word: str) -> bool:
    """A verb in its base form that is no adjective ("PersonX gets bore", "PersonX is wonder")."""
    w = word.lower()
    if w in FUNCTION_WORDS or not _WORD.match(word):
        return False
    pos = _pos(w)
    if "VERB" not in pos:
        return False
    if "ADJ" in pos:
        return _verb_not_adjective(w)
    return w in lemmas(w, "VERB").get("VERB", ()) and not w.endswith(("ed", "ing", "en"))


PREPOSITIONS = frozenset(
    """of to in on at by for with from about into onto upon over under above below between among
    through during before after against without within along across around behind beyond near
    toward towards off out like via per""".split()
)
# words after which a count noun is plural ("all the animals", "two kids"), and the singulars that
# read right after them anyway ("all the way", "all day")
COUNTING = frozenset("all both two three four five six several many few various".split())
COUNTED_SINGULAR = frozenset("way day night time week year morning evening afternoon while summer winter".split())
QUANTIFIERS_PLURAL = frozenset("many several these those few both two three four five various some".split())
# a preposition and a noun that read right together without an article
BARE_AFTER = frozenset(
    [("at", "night"), ("by", "car"), ("by", "bus"), ("by", "train"), ("by", "plane"), ("on", "foot")]
    + [("in", "public"), ("to", "sleep"), ("on", "purpose"), ("by", "mistake"), ("in", "person"), ("at", "first")]
)
DETERMINING = frozenset(
    """a an the this that these those any no every each either neither all both half several
    many much more most few less least other another such what which whose my your our their his
    her its one two three four five six seven eight nine ten hundred thousand lot lots""".split()
)
# singular nouns that read right without an article ("goes to school", "has fun", "loses weight")
BARE_NOUNS = frozenset(
    """school home work bed church college class town jail prison court lunch dinner breakfast
    time money water food help fun music weight love advice information news homework rest sleep
    care attention fire trouble luck hope coffee tea milk bread rice pizza candy chocolate ice snow
    rain air space traffic life death health sex art math science history english football soccer
    basketball baseball tennis golf chess poker exercise practice shopping cash gas oil paint paper
    wood hair medicine stuff furniture equipment luggage clothing mail email media television tv
    business freedom peace war power energy confidence courage respect permission credit control
    part place action advantage notice sight track touch sense mind pain fear anger joy fun
    breath dinner laundry dishes camping fishing hunting swimming dancing cooking cleaning
    everything something nothing anything someone everyone anyone nobody church birth school
    college work office duty vacation holiday christmas halloween summer winter spring fall
    dark bed town door hand advice alcohol beer wine juice soup meat cheese sugar salt pasta cake
    dessert gum tobacco weed drugs jail hospital surgery therapy class lunch music time
    fault charge place part care hold track sight advantage attention interest note trouble""".split()
)
# nouns that take no "a": "spends a money", "gives an advice"
MASS_NOUNS = frozenset(
    """money information advice furniture equipment luggage homework news traffic weather music
    knowledge evidence research stuff garbage trash rice sugar bread milk water""".split()
)
# verbs that need an object: a sentence does not end on them ("Steven takes", "Andrea wants")
NEEDS_OBJECT = frozenset(
    """take need give want get put make buy bring use tell find keep realize suppose send wear hold
    carry grab catch reach hit throw pick receive offer show owe lend allow let set control grasp
    attain view destroy enjoy like love hate prefer expect avoid accept cause taste appreciate refer
    sustain nail mention impress look grant""".split()
)


# a sentence ending on these points at something the reader has not been told ("PersonX wraps it",
# "PersonX practices for it", "PersonY guesses so"); a question built on it is not about common sense
VAGUE_ENDINGS = frozenset("it this that one them these those so there here".split())
# verbs that make a whole event with a subject alone ("PersonX wins"); other verbs alone are
# fragments of a longer ASER event ("PersonX asks", "PersonX figures", "PersonY shares")
COMPLETE_INTRANSITIVES = frozenset(
    """leave win lose die smile cry wait arrive return hesitate disappear live fight marry
    behave gamble pray agree refuse listen stop sleep laugh relax rest celebrate apologize panic
    faint sweat shiver blush nod sigh scream yell dance sing swim run walk fall trip cheat quit
    retire graduate succeed fail recover eat drink work study read write cook shop travel vote
    complain worry frown grin giggle sob weep shout whisper cough sneeze yawn jog exercise train
    practice meditate kneel sit stand wake sleepwalk drown bleed starve suffer survive heal improve
    escape hide participate volunteer compete wander hurry rush obey
    protest surrender resign vomit shower bathe dress drive fly ride sail hike climb skate ski
    surf fish hunt camp donate explode crash understand forgive""".split()
)


# nouns that read without an article after a verb ("goes to class") but not after a person, where
# they are that person's ("enjoys PersonY class", "takes PersonY place")
OWNED_BARE = frozenset("class room door hand office place part bed side turn life mind heart car job house".split())
MODALS = frozenset("would will can could should must may might shall".split())
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
# words after a possessive that cannot be owned ("takes PersonY's outside", "sends PersonY's away")
NOT_OWNED = frozenset("outside inside up down there here back away over out off around".split())


def _participle_only(word: str) -> bool:
    """A past participle that is no past tense ("given", "taken", "seen", "broken"): right after the
    subject, the sentence has no finite verb."""
    verb = _verb_form(word)
    if verb is None:
        return False
    forms = inflections(verb, "VERB")
    return word in forms.get("VBN", ()) and word not in forms.get("VBD", ())


MODAL_PASTS = frozenset({"would", "could", "should", "might"})  # modals, not past events


def _past_only(word: str) -> bool:
    """A simple past that is neither the verb's base nor its present form ("ran", "studied", "lost";
    not "read" or "put"): every event is shown in the present tense, so a past one reads as a
    slip. Read blind: "Ashley accidentally ran", "Sara studied harder longer"."""
    verb = _verb_form(word)
    if verb is None or word == verb or word in MODAL_PASTS:
        return False
    return word in inflections(verb, "VERB").get("VBD", ())


def _singular_count(word: str) -> bool:
    """A singular noun that is no mass noun we know of ("question", not "money" or "questions")."""
    w = word.lower()
    return (
        w not in BARE_NOUNS
        and w not in MASS_NOUNS
        and "NOUN" in _pos(w)
        and w in lemmas(w, "NOUN").get("NOUN", ())
        and not w.endswith("s")
    )


_verb_form = fluent.verb_lemma  # the verb lemma of an inflected or base verb form, or None


def _bare_count_noun(toks: list[str], i: int) -> bool:
    """``toks[i]`` is a singular count noun that needs an article here ("cuts the vegetable on
    counter", "watches cartoon", "makes some cookie", "many new friend")."""
    w = toks[i].lower()
    if w in BARE_NOUNS and toks[i - 1].lower() == "out" and i > 1 and _verb_form(toks[i - 2].lower()):
        return True  # "drops out school": "out of school"
    if w in BARE_NOUNS or w in FUNCTION_WORDS or PERSON.match(toks[i]) or toks[i][:1].isupper():
        return False
    pos = _pos(w)
    if "NOUN" not in pos or "ADJ" in pos or "ADV" in pos:
        return False
    if w not in lemmas(w, "NOUN").get("NOUN", ()):
        return False  # a plural ("cookies") or another form
    j = i - 1
    while j > 0 and (
        "ADJ" in _pos(toks[j].lower()) and toks[j].lower() not in FUNCTION_WORDS or toks[j].lower() == "very"
    ):
        j -= 1
    prev = toks[j].lower()
    if prev in QUANTIFIERS_PLURAL:
        return True
    if (prev, w) in BARE_AFTER:
        return False
    if prev in DETERMINING or prev.endswith("'s") or prev == "'s" or PERSON.match(toks[j]):
        return False
    if "VERB" in pos and prev in BE_TAKERS and not _to_as_preposition(toks, j):
        return False  # a verb after all ("to cook", "will cook")
    if "VERB" in pos and prev not in PREPOSITIONS:
        # after a verb, a word that is a verb too may be one ("helps cook dinner"), unless it ends
        # the phrase after a verb that takes no bare verb: "runs lap", "drives town"
        ends = i + 1 == len(toks) or toks[i + 1].lower() in PREPOSITIONS | {"and", "or", "but"}
        taker = _verb_form(prev) in CAUSATIVES | {"go", "come", "dare", "need", "help"}
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
            and _verb_form(prev) is not None
            and prev not in FUNCTION_WORDS
        )
    return prev in PREPOSITIONS or (_verb_form(prev) is not None and prev not in FUNCTION_WORDS)


# verbs after which "to" leads to a place or a person ("walks to room", "talks to nurse")
DESTINATION_VERBS = frozenset(
    """walk run drive travel move return head rush hurry fly ride swim arrive jump climb crawl talk
    speak listen reply respond write sail march wander""".split()
)


def _to_as_preposition(toks: list[str], j: int) -> bool:
    """``toks[j]`` is "to" after a verb of moving or speaking and the noun after it ends the phrase,
    so "to" is a preposition: "walks to room" needs an article as much as "walks into room" (but
    "walks to relax", "walks to meet PersonY" and "comes to visit" are infinitives)."""
    if toks[j].lower() != "to" or j < 2 or j + 1 >= len(toks):
        return False
    after = toks[j + 2].lower() if j + 2 < len(toks) else None
    if after is not None and after not in PREPOSITIONS | {"and", "or", "but"}:
        return False
    return _verb_form(toks[j - 1].lower()) in DESTINATION_VERBS


def _plural_noun(word: str) -> bool:
    """A noun in the plural that is no singular noun, verb or adjective too ("orders" is a verb form)."""
    nouns = lemmas(word, "NOUN").get("NOUN", ())
    return bool(nouns) and word not in nouns and word.endswith("s") and "ADJ" not in _pos(word)


def _missing_possessive(toks: list[str], i: int) -> bool:
    """A person followed by a singular noun with no article, which must be theirs: "maintains PersonY
    equilibrium", "grants PersonY request", "sees PersonY daughter" (but "gives PersonY money",
    "sends PersonY home", "tells PersonY stories")."""
    from .fluent import NOT_POSSESSED, POSSESSED_NOUNS

    nxt = toks[i + 1].lower()
    j = i + 1
    while j < len(toks) - 1 and "ADJ" in _pos(toks[j].lower()) and toks[j].lower() not in FUNCTION_WORDS:
        j += 1  # "celebrates PersonY good grade": the noun after the adjectives
    if j > i + 1:
        noun = toks[j].lower()
        verb = _verb_form(toks[i - 1].lower())
        if (
            verb is not None
            and verb not in fluent.DITRANSITIVE | BENEFACTIVE | CAUSATIVES
            and "NOUN" in _pos(noun)
            and noun not in TIME_NOUNS  # "meets PersonY last night"
            and noun in lemmas(noun, "NOUN").get("NOUN", ())  # singular: "calls PersonY stupid names" is fine
            and (j + 1 == len(toks) or toks[j + 1].lower() in PREPOSITIONS | {"and", "or", "but"})
        ):
            return True
    if nxt in OWNED_BARE and _verb_form(toks[i - 1].lower()) not in CAUSATIVES:
        return True  # "enjoys PersonY class", "takes PersonY place" (but "sends PersonY home")
    if nxt in NOT_POSSESSED or toks[i + 1][:1].isupper():
        return False
    if nxt in BARE_NOUNS:
        # a noun that reads bare after a verb ("pays attention", "needs help") is the person's after
        # one ("catches PersonY attention", "appreciates PersonY help", "steals PersonY credit"),
        # unless the verb takes two objects ("gives PersonY advice", "causes PersonY pain") or lets
        # the person do it ("lets PersonY rest", "watches PersonY work")
        verb = _verb_form(toks[i - 1].lower())
        return (
            verb is not None
            and verb not in fluent.DITRANSITIVE | BENEFACTIVE | CAUSATIVES
            and nxt in lemmas(nxt, "NOUN").get("NOUN", ())
        )
    if _pos(nxt) != frozenset({"NOUN"}) and nxt not in POSSESSED_NOUNS:
        # a noun that is a verb too: a possession unless the verb lets the person do it ("helps
        # PersonY move", "makes PersonY cry") or it goes on as a verb ("lets PersonY request it")
        if "NOUN" not in _pos(nxt) or "ADJ" in _pos(nxt) or _verb_form(toks[i - 1].lower()) in CAUSATIVES:
            return False
        if i + 2 < len(toks) and toks[i + 2].lower() not in PREPOSITIONS | {"and", "or", "but"}:
            return False
    if nxt not in lemmas(nxt, "NOUN").get("NOUN", ()):
        return False  # a plural: "tells PersonY stories"
    # after a verb that takes two objects too: a singular noun needs "'s" or an article either way
    return _verb_form(toks[i - 1].lower()) is not None or toks[i - 1].lower() in PREPOSITIONS


# verbs after which a person is followed by a bare verb ("helps PersonY move", "watches PersonY play")
CAUSATIVES = frozenset("help let make have watch see hear feel bid notice observe".split())
# nouns of a time an adjective makes an adverbial of ("meets PersonY last night", "sees PersonY next week")
TIME_NOUNS = frozenset(
    "night day week month year time morning evening afternoon weekend summer winter spring fall".split()
)
# verbs besides fluent.DITRANSITIVE that take a person and a mass noun as two objects
BENEFACTIVE = frozenset("cause pour fix order".split())


def _third_person(word: str) -> bool:
    """A verb in the third person singular ("travels") where a base form must stand."""
    w = word.lower()
    verb = lemmas(w, "VERB").get("VERB", ())
    return bool(verb) and w not in verb and w.endswith("s") and not w.endswith("ss")


def _tokens(text: str) -> list[str]:
    return re.sub(r"(\w)('s|n't)\b", r"\1 \2", text).split()


@lru_cache(maxsize=1 << 20)
def unreadable(text: str) -> str | None:
    """Why ``text`` (display form) does not read as English, or None."""
    toks = _tokens(text)
    if len(toks) < 2:
        return "no subject and verb"
    if len(toks) > 16:
        return "too long"
    for i, t in enumerate(toks):
        if t.lower() in GENDERED:
            return f"gendered pronoun {t!r}"  # names are drawn at random: "Amy applies himself to study"
        if i and PERSON.match(t) and t == toks[i - 1]:
            return f"word twice: {t!r}"
        if t == "'s" and i and toks[i - 1].islower() and "NOUN" not in _pos(toks[i - 1]):
            return f"'s after {toks[i - 1]!r}"  # "Anthony get's some exercise"
        if PERSON.match(t) or t in ("'s", "n't"):
            continue
        if len(t) == 1 and t.lower() not in ("a", "i"):
            return f"stray letter {t!r}"
        if t[:1].isupper() and i > 0 and _WORD.match(t):
            if len(t) > 1 and t.isupper():
                return f"capitals: {t!r}"
            low = t.lower()
            if low in FUNCTION_WORDS or _pos(low) & {"ADJ", "VERB"} and "NOUN" not in _pos(low):
                return f"capitalised word: {t!r}"
            continue  # a name or a proper noun inside the sentence
        if t == "___":
            continue  # an ATOMIC blank: filled from the graph for display, or the node is left out
        if not _lexical(t):
            return f"not an English word: {t!r}"
        if i and t.lower() == toks[i - 1].lower() and t.lower() not in ("very", "really", "so"):
            return f"word twice: {t!r}"
    for i in range(1, len(toks)):
        low = toks[i].lower()
        if low == "be" and toks[i - 1].lower() not in BE_TAKERS:
            return "verb lemma 'be'"
        if toks[i - 1].lower() == "a" and low[:1] in "aeiou" and not low.startswith(("u", "one", "eu")):
            return f"'a' before {toks[i]!r}"
        if toks[i - 1].lower() in ("a", "an") and low in MASS_NOUNS:
            return f"'{toks[i - 1]}' before {toks[i]!r}"  # "Mila spends a money"
        if toks[i - 1].lower() in ("a", "an"):
            k = i
            while k < len(toks) - 1 and not _plural_noun(toks[k].lower()):
                if not ("ADJ" in _pos(toks[k]) or toks[k].lower().endswith("ing")):
                    break
                k += 1
            if _plural_noun(toks[k].lower()) and not (k + 1 < len(toks) and toks[k + 1] == "of"):
                return f"'{toks[i - 1]}' before a plural: {toks[k]!r}"  # "a restraining orders"
    for i in range(1, len(toks) - 1):
        if toks[i].lower() in MOTION and toks[i + 1].lower() not in AFTER_MOTION and not toks[i + 1].endswith("ing"):
            if not PERSON.match(toks[i + 1]) and not toks[i + 1][:1].isupper():
                return f"no preposition after {toks[i]!r}: {toks[i + 1]!r}"  # "Lily goes work"
        if toks[i].lower() == "like" and toks[i + 1].lower() in AUXILIARIES:
            return f"'like' before {toks[i + 1]!r}"  # "Oliver looks like was going"
        if toks[i].lower() == "to" and _third_person(toks[i + 1]):
            return f"inflected verb after 'to': {toks[i + 1]!r}"
        if toks[i + 1].lower() == "lot" and toks[i].lower() != "a":
            return "'lot' without 'a'"
        if toks[i].lower() in LINKS and _bare_verb(toks[i + 1]):
            return f"verb lemma after {toks[i]!r}: {toks[i + 1]!r}"
        if (
            toks[i].lower() in LINKS
            and i + 2 < len(toks)
            and toks[i + 1].lower() in ADVERBIALS | {"well", "so", "very"}
        ):
            if _bare_verb(toks[i + 2]):
                return f"verb lemma after {toks[i]!r} {toks[i + 1]!r}: {toks[i + 2]!r}"  # "is well prepare"
    first = toks[0]
    if not (PERSON.match(first) or first.lower() in SUBJECTS or first[:1].isupper()):
        return f"no subject: starts with {first!r}"  # "feel relaxed", "reserve lodging"
    if PERSON.match(first):
        j = 1
        while j < len(toks) - 1 and (toks[j].lower() in ADVERBIALS or toks[j].lower().endswith("ly")):
            j += 1
        if _past_only(toks[j].lower()):
            return f"a past tense among present-tense events: {toks[j]!r}"  # "Ashley accidentally ran"
    if "themselves" in (t.lower() for t in toks) and PERSON.match(first) and first.startswith("Person"):
        return "'themselves' for one person"
    for i in range(1, len(toks) - 1):
        if toks[i].lower() == "to" and toks[i - 1].lower() in TO_VERBS and _pos(toks[i + 1]) == frozenset({"NOUN"}):
            return f"a noun where a verb must follow 'to': {toks[i + 1]!r}"  # "needs to money"
    if PERSON.match(toks[0]):
        j = 1
        while j < len(toks) - 1 and (toks[j].lower() in ADVERBIALS or toks[j].lower().endswith("ly")):
            j += 1
        w = toks[j].lower()
        if w not in AUXILIARIES and "VERB" not in _pos(w):
            return f"no verb after the subject: {toks[j]!r}"
        if w in ("been", "being") or w.endswith("ing") and w not in AUXILIARIES:
            return f"no finite verb after the subject: {toks[j]!r}"
        if _participle_only(w):
            return f"no finite verb after the subject: {toks[j]!r}"  # "PersonX given unfair punishment"
        if toks[j][:1].isupper():
            return f"capitalised verb: {toks[j]!r}"
        if w in ("does", "do", "did") and j + 2 < len(toks) and toks[j + 1].lower() in ("not", "n't"):
            if _third_person(toks[j + 2]):
                return f"inflected verb after {toks[j]!r} {toks[j + 1]!r}"
    if PERSON.match(toks[0]) and toks[0].startswith("Person"):
        for i in range(2, len(toks)):
            if toks[i] == toks[0] and (i + 1 == len(toks) or toks[i + 1] != "'s"):
                # ASER made "he ... him" and "he ... his" one placeholder: "PersonX takes PersonX
                # outside", "PersonX improves PersonX grade", "PersonX stops PersonX"
                return f"the subject again as an object: {toks[i]}"
    for i, t in enumerate(toks):
        low = t.lower()
        if low in FIRST_PERSON and not (i == 0 and low == "i"):
            return f"first person in a third-person event: {t!r}"  # "loves PersonY with all my heart"
        if low == "one" and i + 1 < len(toks) and toks[i + 1] == "'s":
            return "'one's' for a person"  # "PersonX needs to raise one's fist"
        if t == "'s" and i + 1 < len(toks) and toks[i + 1].lower() in NOT_OWNED:
            if toks[i + 1].lower() not in fluent.idiom_nouns(text):  # but "turns PersonX's back"
                return f"a possessive before {toks[i + 1]!r}"  # "takes PersonY's outside"
        if PERSON.match(t) and i and toks[i - 1].lower() in ("a", "an", "the"):
            return f"a person after {toks[i - 1]!r}"  # "PersonX is a nice PersonY"
        if i == 2 and low in MODALS and PERSON.match(toks[0]) and _third_person(toks[1]):
            return f"a verb before {t!r}: {toks[i - 1]!r}"  # "PersonX mothers would not wake up"
        if (
            PERSON.match(t)
            and i
            and "ADJ" in _pos(toks[i - 1])
            and toks[i - 2 if i > 1 else 0].lower() in ("a", "an", "the")
        ):
            return f"a person after {toks[i - 2]} {toks[i - 1]!r}"
        if low == "any" and i + 1 < len(toks) and _singular_count(toks[i + 1]):
            if not any(x.lower() in ("not", "n't", "never", "if", "without", "no") for x in toks[:i]):
                return f"'any' before a singular noun: {toks[i + 1]!r}"  # "PersonX has any question"
    for i in range(1, len(toks) - 1):
        if PERSON.match(toks[i]) and not toks[i].endswith("'s") and _missing_possessive(toks, i):
            return f"no possessive: {toks[i]} {toks[i + 1]}"  # "Emily maintains Michael equilibrium"
    for i in range(1, len(toks)):
        if _bare_count_noun(toks, i):
            return f"no article before {toks[i]!r}"
        if toks[i - 1].lower() in COUNTING:
            k = i + 1 if toks[i].lower() == "the" and toks[i - 1].lower() == "all" else i
            while k < len(toks) - 1 and _pos(toks[k].lower()) == frozenset({"ADJ"}):
                k += 1
            w = toks[k].lower() if k < len(toks) else ""
            if w and w not in COUNTED_SINGULAR and _singular_count(w) and (k == i or toks[i].lower() == "the"):
                if k + 1 == len(toks) or toks[k + 1].lower() in PREPOSITIONS | {"and", "or", "but"}:
                    return f"{toks[i - 1]!r} before a singular: {toks[k]!r}"  # "sees all the animal", "has two kid"
    if (
        len(toks) > 3
        and PERSON.match(toks[-3])
        and all("ADJ" in _pos(t.lower()) and t.lower() not in INTENSIFIERS | FUNCTION_WORDS for t in toks[-2:])
    ):
        return f"two adjectives with nothing between: {toks[-2]!r} {toks[-1]!r}"  # "leaves PersonY high dry"
    if len(toks) > 2 and PERSON.match(toks[0]) and _third_person(toks[1]) and _pos(toks[2].lower()) == {"VERB"}:
        if toks[2].lower() in lemmas(toks[2].lower(), "VERB").get("VERB", ()):
            if _verb_form(toks[1].lower()) not in CAUSATIVES | {"go", "come", "dare", "help"}:
                return f"a bare verb after {toks[1]!r}: {toks[2]!r}"  # "Henry wells know"
    last = toks[-1].lower()
    before = toks[-2].lower() if len(toks) > 1 else ""
    if _verb_form(last) in NEEDS_OBJECT and (PERSON.match(toks[-2]) or before in ADVERBIALS | AUXILIARIES | {"to"}):
        if last == _verb_form(last) or _third_person(last):
            return f"ends on {toks[-1]!r}, which needs an object"
    if len(toks) > 2 and _pos(last) == frozenset({"ADJ"}) and toks[-2].lower() in ("a", "an", "the"):
        return f"ends on an adjective: {toks[-1]!r}"
    if toks[-1].lower() in DANGLING:
        return f"ends on {toks[-1]!r}"
    if not any(
        "VERB" in _pos(t) or t.lower() in FUNCTION_WORDS - DANGLING | {"is", "are", "has", "does"} for t in toks[1:]
    ):
        return "no verb"
    if last in VAGUE_ENDINGS:
        return f"ends on {toks[-1]!r}, which refers to nothing the reader has seen"  # "PersonX wraps it"
    if PERSON.match(toks[0]) or toks[0].lower() in ("people", "someone"):
        j = 1
        while j < len(toks) - 1 and (toks[j].lower() in ADVERBIALS | AUXILIARIES or toks[j].lower().endswith("ly")):
            j += 1
        verb = _verb_form(last)
        linked = any(t.lower() in LINKS for t in toks[1:j])  # "PersonX is relieved", "PersonX gets hurt"
        if verb in ("mind", "care") and toks[j - 1].lower() in ("not", "n't", "never"):
            linked = True  # "PersonY does not mind" (but "PersonY minds")
        if j == len(toks) - 1 and verb is not None and verb not in COMPLETE_INTRANSITIVES and not linked:
            return f"nothing after {toks[-1]!r}"  # "PersonX asks", "PersonY guesses", "PersonX figures"
    why = fluent.idiom_fault(text)
    if why:
        # the display repairs what it can (:func:`commonsense.questions.fluent.idioms`); what is left
        # is uncertain: "someone loses PersonY's temper", "people get to foot"
        return why
    if grammar.available() and not grammar.parses(text):
        return "no complete parse (Link Grammar)"  # "Carlos walks to room", "Gregory ends up go"
    return None


def _rest_after(subject: str, toks: list[str]) -> list[str] | None:
    """The words after ``subject`` when the sentence starts with it, else None."""
    if toks and toks[0] == subject:
        return toks[1:]
    return None


@lru_cache(maxsize=1 << 20)
def misfit(relation: str, tail: str) -> str | None:
    """Why ``tail`` (display form) does not answer ``relation``'s question, or None. Relations
    without a rule (physical, CSKB "general …") always fit."""
    subject = TAIL_SUBJECT.get(relation)
    if subject is None and relation != "HinderedBy":
        return None
    toks = _tokens(tail)
    if subject is not None:
        rest = _rest_after(subject, toks)
        if rest is None:
            return f"not about {subject}"
    else:  # HinderedBy: any subject, then a verb
        rest = toks[1:]
    if not rest:
        return "no predicate"
    joined = " ".join(rest)
    if relation in FEELINGS or relation in ATTRIBUTES:
        if rest[0].lower() not in (COPULAS if relation in FEELINGS else {"is", "are", "am"}):
            return "not a state (no copula)"
        words = rest[1:]
        while words and words[0].lower() in INTENSIFIERS:
            words = words[1:]
        if not words or not _is_state(words[0]):
            return "not a feeling or attribute (no adjective)"
        if len(words) > 4:
            return "a state with a long tail"
        return None
    first = rest[0].lower()
    if relation in WANTS or relation == "xNeed":
        if WANT.match(joined) or NEED.match(joined):
            return None
        if first in COPULAS or first in ("was", "were", "'s", "n't"):
            return "a state, not something to do"
        if any(t.lower() in ("not", "n't", "never") for t in rest[:3]):
            return "a negation, not something to do"  # wants after getting dirty: "does not care"
        if first in ("has", "have", "had") and len(rest) > 1:
            nxt = rest[1].lower()
            if nxt in ("not", "never", "been", "already") or _participle_only(nxt) or nxt.endswith("ed"):
                return "a perfect, not something to do"  # wants after a shower: "has not eaten"
        if first in ("can", "could", "may", "might", "will", "would", "should", "must") and relation != "xNeed":
            return "a modal, not something to do"  # "PersonX could taste everything"
    if first in ("n't", "'s"):
        return "no verb after the subject"
    if "VERB" not in _pos(first) and first not in FUNCTION_WORDS:
        return "no verb after the subject"
    return None


def triple_reason(head: str, relation: str, tail: str) -> str | None:
    """Why the triple (display texts) is not fit to be asked about, or None."""
    why = unreadable(head)
    if why:
        return f"head: {why}"
    why = unreadable(tail)
    if why:
        return f"tail: {why}"
    if repeats(head, tail):
        return "tail repeats the head"
    why = misfit(relation, tail)
    return f"tail: {why}" if why else None


@lru_cache(maxsize=1 << 20)
def display_form(text: str) -> str:
    """A graph text as questions show it (present tense, "people" for PeopleX), which the checks read."""
    return fluent.display(fluent.people(text))


def display_reason(head: str, relation: str, tail: str) -> str | None:
    """:func:`triple_reason` for the graph's own text (a record before the index is built). The
    head's and the tail's verdicts are cached apart: a graph repeats both far more than triples."""
    why = _head_reason(head)
    if why:
        return why
    shown_head, (shown_tail, why) = display_form(clean(head)), _tail_reason(relation, tail)
    if why:
        return why
    return "tail repeats the head" if repeats(shown_head, shown_tail) else None


def repeats(head: str, tail: str) -> bool:
    """The tail says nothing the head has not said: the same text, or every content word of the
    tail's predicate is in the head ("PersonX feels happy about something" -> "PersonX feels happy",
    "PersonX looks angry" -> "PersonX is angry"). Read blind, such golds copied the context."""
    if head == tail:
        return True
    words = [w.lower() for w in _tokens(tail)[1:]]
    content = {w for w in words if w not in FUNCTION_WORDS | COPULAS | INTENSIFIERS and not PERSON.match(w)}
    return bool(content) and content <= {w.lower() for w in _tokens(head)}


@lru_cache(maxsize=1 << 20)
def _head_reason(head: str) -> str | None:
    why = unreadable(display_form(clean(head)))
    return f"head: {why}" if why else None


@lru_cache(maxsize=1 << 20)
def _tail_reason(relation: str, tail: str) -> tuple[str, str | None]:
    shown = display_form(normalize_tail(relation, tail))
    why = unreadable(shown)
    if why:
        return shown, f"tail: {why}"
    why = misfit(relation, shown)
    return shown, f"tail: {why}" if why else None


# Part of the edge filter's name, which keys the graph index cache: raise it whenever a check here
# changes what is kept, or an index built under the former checks is served from disk.
RULES_VERSION = "v18"


READABLE = "readable"


def readable_reason(head: str, relation: str, tail: str) -> tuple[str, str] | None:
    """:func:`display_reason` as a build funnel's (stage, reason): the reason's kind, not its words
    ("head unreadable", "tail unreadable", "tail does not answer the relation", "tail repeats the head")."""
    why = _head_reason(head)
    if why:
        return READABLE, "head unreadable"
    shown_tail, why = _tail_reason(relation, tail)
    if why:
        return READABLE, "tail unreadable" if unreadable(shown_tail) else "tail does not answer the relation"
    if repeats(display_form(clean(head)), shown_tail):
        return READABLE, "tail repeats the head"
    return None


def well_formed(base: EdgeFilter) -> EdgeFilter:
    """``base``, and only triples :func:`display_reason` finds nothing wrong with."""
    base_why = base.why

    def why(head: str, relation: str, tail: str, p: float | None) -> tuple[str, str] | None:
        return base_why(head, relation, tail, p) or readable_reason(head, relation, tail)

    # the name keys the graph index cache and is stored with every set: it says whether the parse ran
    parsed = f"parsed:{grammar.version()}" if grammar.available() else "unparsed"
    return EdgeFilter(f"{base.name}+well-formed-{RULES_VERSION}+{parsed}", why, base.drop_origins)


def build_edges(
    include_implausible: bool = False, include_malformed: bool = False, include_populated: bool = False
) -> EdgeFilter:
    """A build's edges: label-1 (or unlabelled) triples unless ``include_implausible``, well-formed
    ones unless ``include_malformed``, the knowledge base's own triples (not CSKB-Population's
    candidates mined from ASER, :data:`commonsense.kg.edges.POPULATED`) unless ``include_populated``."""
    base = edge_filter(include_implausible, include_populated)
    return base if include_malformed else well_formed(base)
