"""Issue 11: only well-formed triples are edges by default (text that reads as English, a tail that
answers its relation's question), no feeling or attribute as a distractor where one can answer,
ASER's dropped possessives restored, and intersections only of relations that ask one question.
Each check is planted with the faults the blind reading found, and each default build is shown
free of them while the loose build is not."""

from __future__ import annotations

import pytest

from commonsense.kg.edges import plausible_only
from commonsense.queries.rules import DEFAULT_RULES, composes, same_question
from commonsense.questions import fluent, grammar, wellformed, wordnet_verbs
from commonsense.questions.text_rules import verdict
from commonsense.questions.wellformed import build_edges, display_reason, misfit, triple_reason, unreadable


@pytest.mark.parametrize(
    "text",
    [
        "PersonX perosny jumps up from coffee",  # not a word
        "it dons t amount to much",  # split clitic
        "PersonX knows that",  # dangling
        "PersonX needs to",
        "PersonX is be bully",  # lemma "be"
        "PersonX's character be shit",
        "PersonX makes lot friend",
        "PersonX needs to travels",
        "PersonX has a idea",
        "PersonX is Careless",  # ATOMIC's stray capitals
        "PersonX GETTING A NEW JOB",
        "PersonX gives it to Y",
        "PersonX another job line up first",  # no verb
        "PersonX gets bore easily",  # lemma after a link verb
        "PersonX gives PersonY PersonY",
        "PersonX maintains PersonY equilibrium",  # a possessive left out of inflected text
        "PersonX sees PersonY daughter",
        "PersonX makes some",
        "PersonX gets a restraining orders",
        "PersonX is wonder",  # a verb lemma the lexicon also lists as an adjective
        "PersonX get's some exercise",
        "PersonX goes work",  # no preposition after a verb of motion
        "PersonX looks like was going",
        "PersonX bites PersonX nail",
        "PersonX spends a money",
        "PersonX impresses",  # a verb that needs its object, read in a built item
        # session 12, from the items read blind at c36cdf8 and the next build's items
        "PersonX walks to room",  # "to" a place, no article
        "PersonX talks to nurse",
        "PersonX drops out school",
        "PersonX takes PersonX outside",  # ASER's "he ... him" made one placeholder
        "PersonX improves PersonX grade",
        "PersonX wraps it",  # refers to nothing the reader has seen
        "PersonY guesses so",
        "PersonX respects",  # a fragment of a longer event
        "PersonX grants PersonY request",  # a noun that is a verb too, still possessed
        "PersonX is well prepare",  # a lemma after an adverb after a link verb
        "PersonX runs lap",  # the main verb's object, a noun that is a verb too, without an article
        "PersonX calls doctor",
        "PersonY minds",
        "PersonX goes",
        # session 12, second reading
        "PersonX loves PersonY with all my heart",  # a first person in a third-person event
        "PersonX needs to raise one's fist",
        "PersonX takes PersonY's outside",  # a possessive before what nobody owns
        "PersonX is a nice PersonY",  # a placeholder where a noun stood
        "PersonX has any question",
        "PersonX given unfair consequences or punishment",  # no finite verb
        "PersonX enjoys PersonY class",  # a noun that reads bare after a verb, not after a person
        "PersonX mothers would not wake up",  # a noun conjugated as a verb
        "PersonX will be the nice PersonY",
        # session 13, round 6: names are drawn without gender
        "PersonX applies himself to study",
        "PersonX goes abroad for his studies",
        "PersonX invites PersonY to her car",
        "PersonX studied harder",
        # session 13, recurring in the A/B reading
        # ("PersonX sees all the animal" is no longer caught: the counting-singular rule went, never right
        # where it decided in two blind readings of node text, issue 27: "is all wet", "uses all the soap")
        "PersonX has two kid",
        "PersonX leaves PersonY high dry",
        "PersonX wells know",
        "PersonX thinks send PersonX's wife",  # the parser's example, now caught by the lexical check too
        # session 15, read in a default build: a noun that reads bare after a verb, not after a person
        "PersonX catches PersonY attention",
        "PersonX appreciates PersonY help",
        "PersonX steals PersonY credit card",
        "PersonX wants to finish PeopleX work",
        "PeopleX do not value PersonX time",
        "PersonX celebrates PeopleX good grade",  # the same after adjectives (read in a default build)
        "PersonX will forgive PersonY bad judgment",
        "PersonX reviews PersonY medical chart",
        "PersonX can chop PersonY head off",  # "head" is an adjective too: still PersonY's head
    ],
)
def test_unreadable_text_is_named(text: str) -> None:
    assert unreadable(text) is not None, text


@pytest.mark.parametrize(
    "text",
    [
        "PersonX is happy",
        "PersonX feels very embarrassed",
        "PersonX reluctantly agrees",
        "PersonX's fingers tremble",
        "PersonX catches PersonY's eye",
        "PersonX catches PersonY's attention",
        "PersonX gives PersonY advice",  # two objects: the noun is no one's
        "PersonX teaches PersonY math",
        "PersonX lends PersonY money",
        "PersonX causes PersonY pain",
        "PersonX lets PersonY rest",  # the noun is a verb the person does
        "PersonX watches PersonY work",
        "PersonX meets PersonY last night",  # an adjective and a time: an adverbial
        "PersonX gives PersonY good advice",
        "PersonX calls PersonY stupid names",  # a plural: no one's
        "PersonX makes PersonY very happy",
        "PersonX wants to apologize to PersonY",
        "PersonX keeps ___ up all night",
        "there is not enough snow",
        "PersonX has to repeat a grade",
        "PersonX tells PersonY stories",
        "PersonX gives PersonY a hug",
        "PersonX is calm",
        "PersonX gets a new pair of shoes",
        "PersonX goes home",
        "PersonX goes shopping",
        "PersonY does not mind",
        "PersonX comes to visit",  # infinitives after "to", kept
        "PersonX walks to meet PersonY",
        "PersonX helps PersonY move",
        "PersonX makes PersonY cry",
        "PersonX asks PersonX's sister",
        "PersonX is relieved",
        "PersonX wins",
        "PersonX gives the book to PersonY",  # "gives it to PersonY": 'it' points at nothing (read blind, #27)
        # a simple past reads as English (read blind, issue 27: the past-tense rule was wrong 5 times in 7)
        "PersonX lost their voice",
        "PersonX got sick from PersonY",
        "PersonX watches PersonY's face",
        "PersonX continues teaching",
        "PersonX finds a hiding spot",
        "PersonX helps cook",
        "PersonX does not have any question",
        "PersonX is given a gift",
        "PersonX visits PersonY's home",
        "PersonX sends PersonY home",
        "PersonX gives PersonY a hand",
        "PersonX reads a book",
        "PersonX puts the phone away",
        "PersonX is tired",
        "PersonX sees all the animals",
        "PersonX runs all the way home",
        "PersonX works all day",
        "PersonX has two kids",
        "PersonX leaves PersonY alone",
        "PersonX helps cook dinner",
        "PersonX feels safe and sound",
    ],
)
def test_readable_text_passes(text: str) -> None:
    assert unreadable(text) is None, (text, unreadable(text))


@pytest.mark.parametrize(
    ("relation", "tail", "fits"),
    [
        ("xReact", "PersonX is relieved", True),
        ("xReact", "PersonX feels happy", True),
        ("xReact", "PersonX is traveling", False),  # an event, not a feeling
        ("xReact", "PersonX feeds up satisfied", False),
        ("xReact", "the policeman is puzzled", False),  # not about PersonX
        ("oReact", "PersonY is angry", True),
        ("oReact", "PersonX is angry", False),  # asked about PersonY
        ("xAttr", "PersonX is skillful", True),
        ("xAttr", "PersonX confesses", False),
        ("xWant", "PersonX wants to go home", True),
        ("xWant", "PersonX goes home", True),  # COM2 Table 5 drops "to"
        ("xWant", "PersonX is happy", False),  # a state is no want
        ("xNeed", "PersonX is afraid", False),
        ("xWant", "PersonX does not care", False),  # session 12: the gold of "wants … after getting dirty"
        ("xWant", "PersonX has not eaten", False),  # a perfect is no want
        ("xWant", "PersonX could taste everything", False),
        ("xWant", "PersonX has a drink", True),
        ("xNeed", "PersonX has to buy a car", True),
        ("xEffect", "PersonX is tired", True),  # an effect may be a state
        ("oEffect", "PersonY listens", True),
        ("isAfter", "PersonX goes home", True),  # no rule: any readable event
    ],
)
def test_tail_answers_the_relation_question(relation: str, tail: str, fits: bool) -> None:
    assert (misfit(relation, tail) is None) is fits, (relation, tail, misfit(relation, tail))


def test_display_reason_reads_the_graph_text_as_shown() -> None:
    # ASER's lemma forms are judged after the display conversion, not refused for being lemmas
    assert display_reason("PersonX lean back", "xReact", "PersonX be relieve") is None
    assert display_reason("PersonX see PersonY alone", "xAttr", "PersonX confess") is not None
    assert display_reason("PersonX win", "xReact", "happy") is None  # ATOMIC tail, normalised
    assert display_reason("PersonX can not rebind", "xWant", "PersonX can not rebind") is not None


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("PersonX catch PersonY eye", "PersonX catches PersonY's eye"),
        ("PersonX pass PersonX exam", "PersonX passes PersonX's exam"),
        ("PersonX give PersonY money", "PersonX gives PersonY money"),  # two objects, no possessive
        ("PersonX reluctantly agree", "PersonX reluctantly agrees"),
        ("PersonX just want something", "PersonX just wants something"),
        ("PersonX be super excite", "PersonX is super excited"),
        ("PersonX keeps PersonX's promise", "PersonX keeps PersonX's promise"),  # ATOMIC text unchanged
        ("PersonX loses PersonY keys", "PersonX loses PersonY keys"),  # inflected: not ASER, left alone
        ("PersonX help PersonY move", "PersonX helps PersonY move"),  # a verb, not PersonY's move
        ("PersonX husband ask", "PersonX's husband asks"),
        ("PersonX dog rarely bark", "PersonX's dog rarely barks"),
        # session 15, read in a default build ("Alicia has cashed on hand"): had, not done
        ("PersonX have cash on hand", "PersonX has cash on hand"),
        ("PersonX have change in pocket", "PersonX has change in pocket"),
        ("PersonX have trouble in school", "PersonX has trouble in school"),
        ("PersonX have work at dealership", "PersonX has worked at dealership"),  # the perfect, still
        ("PersonX have stay in phoenix", "PersonX has stayed in phoenix"),
        # "to have" + a lemma is the perfect infinitive (read blind: "Jordan needs to have visit Alicia")
        ("PersonX need to have visit PersonY", "PersonX needs to have visited PersonY"),
        ("PersonX need to have try meat", "PersonX needs to have tried meat"),
        ("PersonX seems to have miss the point", "PersonX seems to have missed the point"),
        ("PersonX need to have power", "PersonX needs to have power"),  # a noun with nothing after it
        ("PersonX has to have clean hair", "PersonX has to have clean hair"),  # an adjective
        ("PersonX is relieved to have found the ring", "PersonX is relieved to have found the ring"),  # not "founded"
    ],
)
def test_display_restores_possessives_and_skips_adverbs(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown


def test_intersections_ask_one_question() -> None:
    assert same_question(["xReact", "xReact"])
    assert same_question(["xWant", "xNeed"])  # COM2's script
    assert same_question(["xEffect", "HinderedBy"])  # 2in's negated branch
    assert not same_question(["xEffect", "xIntent"])  # "the effect on Denise after A and her intention before B"
    assert not DEFAULT_RULES.intersectable(["xEffect", "xIntent"])
    assert composes("xEffect", "xEffect")
    assert composes("xNeed", "xNeed")
    assert not composes("xNeed", "isBefore")  # "what Aria needed to do before what happens before …"


needs_parser = pytest.mark.skipif(
    not grammar.available(), reason="Debian's link-grammar is not installed (apt-get install python3-link-grammar)"
)


@needs_parser
@pytest.mark.parametrize(
    "text",
    [
        "PersonX ends up go",  # what only the parser sees: every word is English, the sentence is not
        "PersonX develops a plan meet the request",
        "PersonX arrives at house",
        "PersonX can not talk because wound",
        "PersonX would do the exact same",
    ],
)
def test_the_parser_names_sentences_the_lexical_checks_pass(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert unreadable(text) == "no complete parse (Link Grammar)", text
    # the fault it guards: without the parser these read as English to the lexical checks
    verdict.cache_clear()
    monkeypatch.setattr(grammar, "available", lambda: False)
    try:
        assert unreadable(text) is None, (text, unreadable(text))
    finally:
        verdict.cache_clear()


@needs_parser
def test_parser_reads_placeholders_as_names_and_keeps_every_linkage() -> None:
    # a placeholder parses as the name a reader sees; with one sampled linkage, post-processing
    # could reject it and call a good sentence unparsable
    assert grammar.parses("PersonX watches PersonY's face")
    assert grammar.parses("there is not enough snow")
    assert grammar.version().startswith("link-grammar-")


def test_edge_filter_says_whether_the_parse_and_the_verb_frames_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    # the name keys the graph index cache and is stored with every set
    monkeypatch.setattr(wordnet_verbs, "load", lambda: {"research": False})
    monkeypatch.setattr(grammar, "available", lambda: False)
    assert build_edges().name.endswith(f"+well-formed-{wellformed.rules_version()}+unparsed+verb-frames")
    monkeypatch.setattr(grammar, "available", lambda: True)
    monkeypatch.setattr(grammar, "version", lambda: "link-grammar-9.9.9")
    assert build_edges().name.endswith(
        f"+well-formed-{wellformed.rules_version()}+parsed:link-grammar-9.9.9+verb-frames"
    )
    monkeypatch.setattr(wordnet_verbs, "load", lambda: None)
    assert build_edges().name.endswith("+parsed:link-grammar-9.9.9+no-verb-frames")
    assert wellformed.build_edges(include_malformed=True).name == plausible_only().name


def test_verb_frames_decide_only_where_wordnet_is(monkeypatch: pytest.MonkeyPatch) -> None:
    # a verb WordNet gives no intransitive frame cannot end the sentence after "to"; without WordNet
    # (a fresh machine without wordnet-base) the rule falls back to its own list and lets it through
    assert wordnet_verbs.needs_object("research") is (wordnet_verbs.load() is not None)
    try:
        verdict.cache_clear()
        monkeypatch.setattr(wordnet_verbs, "load", lambda: {"research": False, "cook": True})
        assert verdict("PersonX is going to research") is not None
        assert verdict("PersonX is going to cook") is None
        monkeypatch.setattr(wordnet_verbs, "load", lambda: None)
        verdict.cache_clear()
        assert verdict("PersonX is going to research") is None
    finally:
        verdict.cache_clear()  # no verdict of the fake lexicons outlives the test


def test_verb_frames_read_from_wordnet_files() -> None:
    # data.verb / index.verb lines (wndb(5WN)): research has only "Somebody ----s something" (8),
    # cook's first sense "Somebody ----s" (2)
    data = (
        "00001 31 v 01 research 0 000 01 + 08 00 | attempt to find out\n"
        "00002 36 v 01 cook 0 000 01 + 02 00 | prepare a hot meal\n"
    )
    index = "research v 1 0 1 1 00001\ncook v 1 0 1 1 00002\n"
    assert wordnet_verbs.parse(data, index) == {"research": False, "cook": True}


@pytest.mark.parametrize(
    ("head", "tail", "repeat"),
    [
        ("PersonX feels happy about something", "PersonX feels happy", True),  # read blind: a copied context
        ("PersonX looks angry", "PersonX is angry", True),
        ("PersonX feels very frustrated", "PersonX is frustrated", True),
        ("PersonX goes home", "PersonX goes home", True),
        ("PersonX wins the race", "PersonX is happy", False),
        ("PersonX feels happy", "PersonX wants to celebrate", False),
    ],
)
def test_a_tail_that_repeats_its_head_is_no_answer(head: str, tail: str, repeat: bool) -> None:
    assert wellformed.repeats(head, tail) is repeat
    relation = "xReact" if tail.split()[1] in ("is", "feels") else "xWant"
    assert (triple_reason(head, relation, tail) == "tail repeats the head") is repeat
