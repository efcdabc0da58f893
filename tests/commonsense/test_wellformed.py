"""Issue 11: only well-formed triples are edges by default (text that reads as English, a tail that
answers its relation's question), no feeling or attribute as a distractor where one can answer,
ASER's dropped possessives restored, and intersections only of relations that ask one question.
Each check is planted with the faults the blind reading found, and each default build is shown
free of them while the loose build is not."""

from __future__ import annotations

from functools import lru_cache

import pytest

from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
from commonsense.kg.edges import plausible_only
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.rules import ANSWER_CLASS, DEFAULT_RULES, composes, same_question
from commonsense.questions import fluent, grammar, wellformed, wordnet_verbs
from commonsense.questions.com2 import STATE_CLASSES, BuildParams, BuildReport, build_com2
from commonsense.questions.text_rules import verdict
from commonsense.questions.wellformed import build_edges, display_reason, misfit, triple_reason, unreadable
from tests.conftest import shared_file


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
        "PersonX asks",  # a fragment of a longer event
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


@lru_cache(maxsize=2)
def _ckbp(malformed: bool) -> GraphIndex:
    rows = [
        (r.head, r.relation, r.tail, r.plausibility) for r in read_cskb_csv(shared_file("ckbp_eval/evaluation_set.csv"))
    ]
    f = build_edges(include_malformed=malformed)
    return GraphIndex.build(f(rows), IndexOptions(normalize=True))


@pytest.mark.slow  # the CKBP evaluation graph, well-formed and not (~30 s)
@pytest.mark.parametrize("kind", ["2i", "2p", "3i"])
def test_ckbp_default_build_has_only_readable_text_and_fitting_answers(kind: str) -> None:
    from commonsense.questions.names import apply

    qs = build_com2(_ckbp(False), BuildParams(kind=kind, count=30, seed=5, person_names=False))
    assert len(qs) == 30
    for q in qs:
        for text in [*q.options, *q.anchors]:
            assert unreadable(apply(text, {})) is None, (q.id, text)
        for h, r, t in q.chain:
            assert display_reason(h, r, t) is None, (q.id, h, r, t)
    loose = build_com2(_ckbp(True), BuildParams(kind=kind, count=30, seed=5, person_names=False))
    assert any(display_reason(h, r, t) is not None for q in loose for h, r, t in q.chain)  # the fault


@pytest.mark.slow  # the ATOMIC sample graph and two builds (~15 s)
def test_the_same_type_veto_keeps_states_out_where_a_state_answers() -> None:
    path = shared_file("atomic2020_sample/atomic2020_triples.tsv")
    rows = [(r.head, r.relation, r.tail) for r in read_atomic_tsv(path)]
    idx = GraphIndex.build(build_edges()(rows), IndexOptions(normalize=True))
    state_rel = {i for i, r in enumerate(idx.rel_names) if ANSWER_CLASS.get(r) in STATE_CLASSES}
    states = {int(d) for r, d in zip(idx.f_rel.tolist(), idx.f_dst.tolist(), strict=True) if r in state_rel}
    names = {idx.names[n] for n in states}

    def state_options(params: BuildParams) -> tuple[int, int]:
        report = BuildReport()
        qs = build_com2(idx, params, report=report)
        asked = [q for q in qs if any(ANSWER_CLASS.get(r) in STATE_CLASSES for r in q.relations)]
        n = sum(o in names for q in asked for i, o in enumerate(q.options) if i != q.answer_index)
        return n, report.distractors_rejected["a state where a state answers"]

    # the same-type veto, an option off by default since issue 25 (COM2's adversarial negatives are
    # states beside a state gold); with it on, no state is offered where a state answers
    p = BuildParams(kind="2i", count=30, seed=3, person_names=False, near_duplicate=None, state_distractors=False)
    strict, rejected = state_options(p)
    assert strict == 0
    assert rejected > 0
    loose, _ = state_options(BuildParams(**{**p.__dict__, "state_distractors": True}))
    assert loose > 0  # what the veto removes: "Samantha is happy" beside gold "Samantha is needy"
    assert plausible_only().name in build_edges().name


def test_random_options_come_from_shared_tails_when_the_graph_has_enough() -> None:
    from commonsense.questions.distractors import event_tails, shared_event_tails

    rows = [(f"PersonX does task {i}", "xEffect", f"PersonX earns coin {i // 2}") for i in range(40)]  # 20 shared
    rows += [(f"PersonX plays game {i}", "xEffect", f"PersonX loses round {i}") for i in range(10)]  # one-offs
    idx = GraphIndex.build(rows, IndexOptions(normalize=True))
    names = lambda nodes: {idx.names[int(n)] for n in nodes}  # noqa: E731
    shared = names(shared_event_tails(idx, min_pool=20))
    assert shared == {f"PersonX earns coin {k}" for k in range(20)}
    # too few shared tails: every event tail stays in the pool
    assert names(shared_event_tails(idx, min_pool=21)) == names(event_tails(idx))


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


# Idioms of one's own and clipped idioms (fluent.OWN_POSSESSIVE_IDIOMS, fluent.CLIPPED_IDIOMS). Read
# from default CSKB builds: "Alicia forces Sean's way" (ATOMIC's head "PersonX forces PersonY's way")
# and "Molly pulls out the stop" (ASER's lemma of "PersonX pulls out all the stops").
@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("PersonX force PersonY 's way", "PersonX forces PersonX's way"),  # CSKB's own text
        ("PersonX forces PersonY's way", "PersonX forces PersonX's way"),  # ATOMIC's
        ("PersonX makes PersonY's way home", "PersonX makes PersonX's way home"),
        ("PersonX make PersonY 's way", "PersonX makes PersonX's way"),
        ("PersonX work PersonY way up", "PersonX works PersonX's way up"),
        ("PersonX lose PersonY 's temper", "PersonX loses PersonX's temper"),
        ("PersonY loses PersonX's temper", "PersonY loses PersonY's temper"),  # the subject is PersonY
        ("PersonX find PersonY way", "PersonX finds PersonX's way"),  # ASER dropped the "'s"
        ("PersonY lose PersonY mind", "PersonY loses PersonY's mind"),
        ("PersonX need to make up PersonX mind", "PersonX needs to make up PersonX's mind"),
        ("PersonX be try PersonX best", "PersonX is trying PersonX's best"),
        ("PersonX do PeopleX best", "PersonX does PersonX's best"),
        ("PersonX will hold PersonX tongue", "PersonX will hold PersonX's tongue"),
        ("PersonX holds PersonY's breath", "PersonX holds PersonX's breath"),
        ("PersonX shrug PersonY 's shoulder", "PersonX shrugs PersonX's shoulders"),  # and the idiom's number
        ("PersonX turns PersonY's backs", "PersonX turns PersonX's back"),
        ("PersonX gets to PersonY's feet", "PersonX gets to PersonX's feet"),
        ("PersonX forces PersonX's way", "PersonX forces PersonX's way"),  # right already
        ("PersonX pull out the stop", "PersonX pulls out all the stops"),
        ("PersonX turn the table", "PersonX turns the tables"),
        ("PersonX be still learn the rope", "PersonX is still learning the ropes"),
        ("PersonX get to foot", "PersonX gets to PersonX's feet"),
        ("PersonX take matter into hand", "PersonX takes matters into PersonX's own hands"),
        ("PersonX play PersonX card right", "PersonX plays PersonX's cards right"),
        ("PersonY have butterfly", "PersonY has butterflies"),
    ],
)
def test_idioms_of_ones_own_and_clipped_idioms_are_repaired(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
    assert unreadable(shown) is None, unreadable(shown)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("PersonX changes PersonY's mind", "PersonX changes PersonY's mind"),  # persuades PersonY
        ("PersonX catch PersonY eye", "PersonX catches PersonY's eye"),
        ("PersonX takes PersonY's word", "PersonX takes PersonY's word"),
        ("PersonX looks PersonY's way", "PersonX looks PersonY's way"),  # in PersonY's direction
        ("PersonX does PersonY's best friend a favor", "PersonX does PersonY's best friend a favor"),
        ("PersonX keep PersonY cool", "PersonX keeps PersonY cool"),  # PersonY is the object
        ("PersonX pay PersonY respect", "PersonX pays PersonY respect"),  # respect paid to PersonY
        ("PersonX finds PersonY's way of life strange", "PersonX finds PersonY's way of life strange"),
        ("PersonX helps PersonY find PersonY's way", "PersonX helps PersonY find PersonY's way"),
        ("PersonX turns the table over", "PersonX turns the table over"),  # a table, no tables turned
        ("PersonX pulls out all the stops", "PersonX pulls out all the stops"),
        ("PersonX turns PersonY's life around", "PersonX turns PersonY's life around"),
    ],
)
def test_idioms_that_may_be_someone_elses_are_left_alone(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
    assert fluent.idiom_fault(shown) is None


def test_names_read_the_repaired_idiom() -> None:
    from commonsense.questions.names import apply

    names = {"PersonX": "Alicia", "PersonY": "Sean"}
    assert apply(fluent.display("PersonX force PersonY 's way"), names) == "Alicia forces Alicia's way"
    assert apply(fluent.display("PersonX pull out the stop"), {"PersonX": "Molly"}) == "Molly pulls out all the stops"


@pytest.mark.parametrize(
    "text",
    [
        "someone loses PersonY's temper",  # no person to own the temper
        "PersonX's friend loses PersonX's temper",  # the friend's own
        "PersonX helps PersonY find PersonZ's way",  # PersonY's (or PersonX's), not PersonZ's
        "people get to foot",  # clipped, and "people's feet" is no English
        "PersonX's dog gets to foot",
        "PersonX turns PersonY's life",  # "around" or "upside down": CLIPPED_UNREPAIRABLE
    ],
)
def test_an_idiom_the_display_cannot_repair_is_rejected(text: str) -> None:
    assert fluent.display(text) == text
    why = unreadable(text)
    assert why is not None, why
    assert "idiom" in why, why


def test_the_graph_text_of_a_repaired_idiom_is_kept_and_its_triple_passes() -> None:
    assert display_reason("PersonX force PersonY 's way", "xReact", "PersonX be powerful") is None
    assert display_reason("PersonX pull out the stop", "xAttr", "PersonX be determine") is None
    assert wellformed.display_form("PersonX force PersonY 's way") == "PersonX forces PersonX's way"


@pytest.mark.slow  # the CKBP evaluation graph (~30 s)
def test_ckbp_default_graph_shows_no_idiom_with_anothers_possessive_or_clipped() -> None:
    from commonsense.questions.display import Display

    idx = _ckbp(False)
    show = Display(idx)
    shown = {idx.names[n]: show(n) for n in range(len(idx.names))}
    assert shown["PersonX force PersonY 's way"] == "PersonX forces PersonX's way"
    assert shown["PersonX pull out the stop"] == "PersonX pulls out all the stops"
    assert all(fluent.idiom_fault(t) is None for t in shown.values())
    assert not [t for t in shown.values() if " forces PersonY's way" in t or t.endswith(" out the stop")]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # ATOMIC's inflected text after a possessive subject: a later word was conjugated instead
        ("PersonX's spouse is still getting ready", "PersonX's spouse is still getting ready"),  # "is stills"
        ("PersonY's dog is too mean", "PersonY's dog is too mean"),  # "is too means"
        ("PersonX's friend loses PersonX's temper", "PersonX's friend loses PersonX's temper"),  # "tempers"
        ("PersonX's cat refuses to play", "PersonX's cat refuses to play"),  # "to plays"
        ("PersonX husband ask", "PersonX's husband asks"),  # ASER's lemma is still conjugated
    ],
)
def test_inflected_text_after_a_possessive_subject_is_left_as_it_is(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
