"""The words the text rules and the display share (:mod:`.fluent`, :mod:`.text_rules`): one
definition per list. Closed classes (function words, modals, determiners), verb and noun classes
the rules need and that lemminflect's lexicon does not give (which verbs take two objects, which
nouns read without an article), and the person placeholders. A change here changes
:data:`commonsense.questions.text_rules.RULES_VERSION`."""

from __future__ import annotations

import re

# ---------------------------------------------------------------- persons (placeholders)

PEOPLE_SLOT = re.compile(r"\bPeople ?[XYZ]\b")
PERSON_SLOT = re.compile(r"^Person ?[XYZ]$")
POSSESSOR_SLOT = re.compile(r"^Person ?[XYZ]'s$")
PERSON = re.compile(r"^(?:Person[XYZ]|People[XYZ]|people)(?:'s)?$")
WORD = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*$")

# ---------------------------------------------------------------- closed classes

FUNCTION_WORDS = frozenset(
    """a an the this that these those some any no every each either neither all both half several
    many much more most few less least other another such what which who whom whose whatever
    i me my mine myself you your yours yourself we us our ours ourselves they them their theirs
    themselves themself he him his himself she her hers herself it its itself one ones someone somebody
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
FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
SUBJECTS = frozenset(
    """i you he she it we they no someone somebody everyone everybody nobody people others there this
    that these those the a an my your his her our their its one some many all both nothing
    something everything each another""".split()
)
PRONOUNS_3SG = frozenset({"he", "she", "it", "that", "this", "someone", "everyone", "somebody", "everybody"})
PRONOUNS_PLURAL = frozenset({"i", "you", "we", "they", "people", "others"})
DETERMINERS = frozenset(
    {"the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "thier", "this", "that", "these", "those"}
)
# words after which no person can stand ("the PersonY", "another PersonY")
ARTICLE_LIKE = frozenset("a an the another every each this that these those some any no other such".split())
MODALS = frozenset({"would", "will", "can", "could", "should", "must", "may", "might", "shall", "cannot"})
ADVERBS = frozenset({"not", "n't", "never", "really", "so", "very", "too", "always", "still", "just", "also", "all"})
PRE_VERB_ADVERBS = frozenset({"finally", "already", "usually", "often", "sometimes", "eventually", "even", "only"})
PRE_VERB_ADVERBS |= frozenset({"super", "pretty", "extremely", "quite", "rather", "truly", "totally", "almost"})
# After "be", a verb followed by one of these (or by nothing) reads as a passive participle
# ("is stolen by", "is stuck in", "is tired"), unless it is an intransitive verb of MOTION_AND_ACTIVITY.
PARTICLES = frozenset({"by", "out", "up", "off", "down", "away", "over", "back", "in", "with"})
FINITE = frozenset({"is", "are", "am", "was", "were", "has", "had", "does", "did"})
PERFECT_NEXT = frozenset({"been", "not", "never", "already", "just"})
DETERMINING = frozenset(
    """a an the this that these those any no every each either neither all both half several
    many much more most few less least other another such what which whose my your our their his
    her its one two three four five six seven eight nine ten hundred thousand lot lots""".split()
)
PREPOSITIONS = frozenset(
    """of to in on at by for with from about into onto upon over under above below between among
    through during before after against without within along across around behind beyond near
    toward towards off out like via per""".split()
)
AUXILIARIES = frozenset(
    "is are am was were has have had does do did will would can could should must may might shall cannot".split()
)
ADVERBIALS = frozenset("not never really just also still always already finally even only often".split())
BE_TAKERS = frozenset({"to", "will", "would", "can", "could", "should", "must", "may", "might", "not", "n't"})
BE_TAKERS |= frozenset({"shall", "cannot", "never", "always", "also", "just", "still", "really"})
LINKS = frozenset({"is", "are", "am", "was", "were", "been", "be", "gets", "get", "got", "feels", "becomes"})
COPULAS = frozenset({"is", "are", "am", "feels", "feel", "gets", "get", "becomes", "become", "seems", "seem"})
INTENSIFIERS = frozenset(
    {"very", "so", "really", "quite", "pretty", "a", "bit", "little", "too", "extremely", "more", "less", "most"}
)
INTENSIFIERS |= frozenset({"not", "also", "still", "just", "somewhat", "rather", "fairly", "truly", "kind", "of"})
QUANTIFIERS_PLURAL = frozenset("many several these those few both two three four five various some".split())
# a sentence ending on these points at something the reader has not been told ("PersonX wraps it",
# "PersonX practices for it", "PersonY guesses so"); a question built on it is not about common sense
VAGUE_ENDINGS = frozenset("it this that one them these those so there here".split())

# ---------------------------------------------------------------- verbs

# Verbs whose verb complement reads as a gerund ("love read" -> "loves reading").
GERUND_TAKERS = frozenset(
    {"love", "like", "hate", "start", "stop", "finish", "enjoy", "keep", "begin", "avoid", "quit", "practice", "mind"}
)
MOTION_AND_ACTIVITY = frozenset(
    {"go", "come", "run", "walk", "try", "work", "wait", "talk", "play", "sleep", "rest", "sit", "lie", "think"}
    | {"care", "feel", "cry", "laugh", "smile", "swim", "dance", "sing", "drive", "ride", "travel", "live", "die"}
)
# verbs taking two objects ("gives PersonY money"): the person after them is no possessor
DITRANSITIVE = frozenset(
    {"give", "buy", "tell", "show", "send", "offer", "bring", "pass", "teach", "lend", "hand", "make", "get", "pay"}
    | {"owe", "ask", "call", "find", "leave", "cook", "read", "write", "sell", "throw", "cost", "promise", "serve"}
    | {"feed", "allow", "deny", "wish", "save", "spare", "bake", "fetch", "grant", "name", "consider", "keep"}
)
# particles of a verb of moving ("runs away", "moves in"), after which a person needs a preposition
MOTION_PARTICLES = frozenset("away in out off up down over back along around".split())
MOTION = frozenset("go goes went come comes came".split())
# what may follow "goes" / "comes" directly ("goes home", "comes back", "goes shopping")
AFTER_MOTION = frozenset(
    """to home back out in up down away on off there here for with into around ahead outside inside
    over through along by after together straight first again well badly wrong right missing crazy
    bad unnoticed unpunished far somewhere anywhere nowhere everywhere upstairs downstairs abroad
    across about past near forward forth alone and or but""".split()
)
TO_VERBS = frozenset("need needs needed want wants wanted has have had tries try tried going".split())
# verbs that need an object: a sentence does not end on them ("Steven takes", "Andrea wants")
NEEDS_OBJECT = frozenset(
    """take need give want get put make buy bring use tell find keep realize suppose send wear hold
    carry grab catch reach hit throw pick receive offer show owe lend allow let set control grasp
    attain view destroy enjoy like love hate prefer expect avoid accept cause taste appreciate refer
    sustain nail mention impress look grant""".split()
)
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
# verbs after which "to" leads to a place or a person ("walks to room", "talks to nurse")
DESTINATION_VERBS = frozenset(
    """walk run drive travel move return head rush hurry fly ride swim arrive jump climb crawl talk
    speak listen reply respond write sail march wander""".split()
)
# verbs after which a person is followed by a bare verb ("helps PersonY move", "watches PersonY play")
CAUSATIVES = frozenset("help let make have watch see hear feel bid notice observe".split())
# verbs besides fluent.DITRANSITIVE that take a person and a mass noun as two objects
BENEFACTIVE = frozenset("cause pour fix order".split())
# adjectives that are also verbs in their base form and have no comparative in lemminflect's tables
ADJECTIVE_VERBS = frozenset(
    """open upset content present hurt average broke cut set shut spread wet secure separate perfect
    complete correct direct close dry empty clear free calm quiet clean slow warm cool sure blind
    lame idle tame""".split()
)

# ---------------------------------------------------------------- nouns

# nouns that are verbs too but, right after a person, are what the person has ("PersonX mother die")
POSSESSED_NOUNS = frozenset(
    """husband wife mother father mom dad son daughter brother sister friend boss parent child kid
    baby family team dog cat car house home school phone hair face eye hand leg arm foot heart life
    boyfriend girlfriend partner doctor teacher neighbor plan voice head stomach back nail finger lip
    mouth nose neck shoulder knee skin name room bag wallet book bike seat""".split()
)
NOT_POSSESSED = frozenset("home outside inside up down daily there here back away over one some any all".split())
# nouns that are verbs too but after ASER's "have" and before a place or nothing are had, not done:
# "have cash on hand", "have change in pocket", "have room in fridge", "have trouble in school",
# "have phone on" (read in the CSKB-Population and ATOMIC texts; "have work at dealership" and "have
# stay in phoenix" are the perfect and stay so)
HAVE_NOUNS = frozenset("cash change room trouble time phone eye brace money fun".split())
# nouns that read without an article after a verb ("goes to class") but not after a person, where
# they are that person's ("enjoys PersonY class", "takes PersonY place")
OWNED_BARE = frozenset("class room door hand office place part bed side turn life mind heart car job house".split())
# words after a possessive that cannot be owned ("takes PersonY's outside", "sends PersonY's away")
NOT_OWNED = frozenset("outside inside up down there here away over out off around".split())  # not "back": a body part
# a preposition and a noun that read right together without an article
BARE_AFTER = frozenset(
    [("at", "night"), ("by", "car"), ("by", "bus"), ("by", "train"), ("by", "plane"), ("on", "foot")]
    + [("in", "public"), ("to", "sleep"), ("on", "purpose"), ("by", "mistake"), ("in", "person"), ("at", "first")]
    # prepositional idioms with a bare noun (the article repair must not touch them: "bows in conclusion")
    + [("in", w) for w in "conclusion advance charge hand line order front place case fact return touch half".split()]
    + [("on", w) for w in "sight demand duty call vacation sale stage camera board hand time".split()]
    + [("at", w) for w in "ease hand heart risk sea last least".split()]
    + [("by", w) for w in "hand heart chance name phone boat bike bicycle taxi".split()]
    + [("in", "question"), ("from", "scratch"), ("of", "course"), ("of", "state"), ("in", "league"), ("for", "life")]
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
# the endings of nouns made from verbs and adjectives, which often stand bare ("attends orientation")
ABSTRACT_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "acy", "ery", "ship", "hood")
# nouns of a time an adjective makes an adverbial of ("meets PersonY last night", "sees PersonY next week")
TIME_NOUNS = frozenset(
    "night day week month year time morning evening afternoon weekend summer winter spring fall".split()
)
