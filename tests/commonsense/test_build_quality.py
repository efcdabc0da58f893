"""Issue 11: what default builds put in front of a reader. Faithful defaults (COM2's twelve / CoCo's
nine relations, no ``none`` options), readable text (no placeholders, no raw lemmas, no ``___``),
and no distractor that is a near-copy of an answer. What the builds take from the graph (label-1
edges, composition rules): test_build_quality_graph.py."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import is_none
from commonsense.kg.relations import COCO_RELATIONS, COM2_RELATIONS
from commonsense.queries.sampling import QInter, QProj
from commonsense.questions import fluent
from commonsense.questions.coco import application
from commonsense.questions.com2 import BuildParams, BuildReport, build_com2
from commonsense.questions.neardup import NEAR_ANSWER
from tests.commonsense.build_graphs import atomic_index, texts


@pytest.mark.slow  # the ATOMIC sample graph (shared data) indexed and built twice (~11 s at load 2)
@pytest.mark.parametrize("kind", ["2i", "3i"])
def test_atomic_default_relations_and_options(kind: str) -> None:
    idx = atomic_index()
    qs = build_com2(idx, BuildParams(kind=kind, count=20, seed=1))
    assert len(qs) >= 10
    for q in qs:
        assert set(q.relations) <= set(COM2_RELATIONS), q.relations
        assert not any(is_none(o) or o.strip().lower() == "none" for o in q.options)
        assert all("___" not in t for t in texts(q)), q.id
    # random distractors are events, not physical objects ("wood") or blank fillers
    from commonsense.questions.distractors import event_tails

    # (on the label-filtered graph: the well-formed filter already drops most subject-less objects)
    loose = atomic_index(well_formed_only=False)
    events = set(event_tails(loose).tolist())
    objects = {loose.names[n] for n in loose.tail_nodes.tolist() if n not in events}
    assert objects
    assert not any(o in objects for q in qs for o in q.options)
    from commonsense.questions.com2 import sample_questions

    bare = sample_questions(loose, kind, 40, seed=1, relations=list(COM2_RELATIONS), person_names=False)
    assert any(o in objects for q in bare for o in q.options)  # the fault the default removes
    coco = application(idx, 10, seed=1, kinds=("2i", "2p"))
    assert coco
    assert all(set(q.relations) <= set(COCO_RELATIONS) for q in coco)
    assert not any(is_none(o) for q in coco for o in q.options)


@pytest.mark.slow  # indexes the ATOMIC sample (shared data): 7.8 s CPU of make test-fast's ~100
def test_atomic_none_tails_are_never_nodes() -> None:
    idx = atomic_index()
    assert not any(is_none(n) for n in idx.names)
    assert "PersonX none" not in idx.names
    assert "none" not in idx.names


def _near_copy_graph() -> GraphIndex:
    rows = [
        ("PersonX wins the race", "xReact", "happy"),
        ("PersonX wins the race", "xAttr", "also happy"),  # the near-copy: an adversarial candidate
        ("PersonX wins the race", "xAttr", "fast"),
        ("PersonX wins the race", "xWant", "to celebrate"),
    ]
    rows += [(f"PersonX does chore {i}", "xEffect", f"gets {w}") for i, w in enumerate("wet tired paid lost".split())]
    rows += [(f"PersonX reads book {i}", "xWant", f"to {w}") for i, w in enumerate("sleep cook swim travel".split())]
    return GraphIndex.build(rows, IndexOptions(normalize=True))


def test_no_distractor_is_a_near_copy_of_an_answer() -> None:
    idx = _near_copy_graph()
    near = "PersonX is also happy"
    seen_without = 0
    for seed in range(12):
        # state_distractors: the near-copy is an attribute, which the state-distractor check refuses
        # for its kind alone; this test isolates the near-duplicate check
        p = BuildParams(kind="1p", count=1, seed=seed, relations=["xReact"], person_names=False, state_distractors=True)
        report = BuildReport()
        qs = build_com2(idx, p, report=report)
        assert qs
        assert qs[0].answers == ["PersonX is happy"]
        assert near not in qs[0].options
        assert report.distractors_rejected.get(NEAR_ANSWER, 0) <= 1
        loose = build_com2(idx, BuildParams(**{**p.__dict__, "near_duplicate": None}))
        seen_without += near in loose[0].options
    assert seen_without > 0  # the planted near-copy is offered when the check is off


def test_near_duplicate_rejections_are_counted() -> None:
    report = BuildReport()
    for seed in range(6):
        build_com2(
            _near_copy_graph(),
            BuildParams(
                kind="1p", count=1, seed=seed, relations=["xReact"], person_names=False, state_distractors=True
            ),
            report=report,
        )
    assert report.distractors_rejected[NEAR_ANSWER] >= 1
    assert set(report.as_dict()) >= {"requested", "built", "shortfall", "distractors_rejected"}


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Michael be unemployed", "Michael is unemployed"),
        ("Walter love read", "Walter loves reading"),
        ("PersonX be not answer the phone", "PersonX is not answering the phone"),
        ("Ezra 's car be steal by criminal", "Ezra's car is stolen by criminal"),
        ("Ronald have keep silence", "Ronald has kept silence"),
        ("David would have lose the weight", "David would have lost the weight"),
        ("their clothes be too tight", "their clothes are too tight"),
        ("PeopleX like food", "PeopleX like food"),
        ("I be happy", "I am happy"),
        ("Keith do not give up", "Keith does not give up"),
        # "have" + a word that is a noun or adjective too: possession, not the perfect
        ("Andrea just have major surgery", "Andrea just has major surgery"),
        ("Alice have concern about something", "Alice has concern about something"),
        ("Jack have fall in love", "Jack has fallen in love"),
        ("Jack have finish the work", "Jack has finished the work"),
        # already inflected ATOMIC text is left alone
        ("PersonX keeps the baby up all night", "PersonX keeps the baby up all night"),
        ("PersonX gets a job", "PersonX gets a job"),
        ("go visit relatives", "go visit relatives"),  # a subject-less fragment has no verb to conjugate
    ],
)
def test_lemmatised_events_read_in_present_tense(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown


def test_blank_heads_are_filled_or_left_out() -> None:
    rows = [
        ("PersonX keeps ___ up all night", "isFilledBy", "the baby"),
        ("PersonX keeps ___ up all night", "xEffect", "is tired"),
        ("PersonX keeps ___ up all night", "xReact", "tired"),
        ("PersonX divides ___ into groups", "xEffect", "is organised"),
        ("PersonX divides ___ into groups", "xReact", "organised"),
    ]
    rows += [(f"PersonX runs lap {i}", "xReact", w) for i, w in enumerate("sweaty proud sore fit calm".split())]
    idx = GraphIndex.build(rows, IndexOptions(normalize=True))
    kinds: Counter[str] = Counter()
    for seed in range(20):
        # state_distractors: this graph has nothing but states to offer as distractors
        params = BuildParams(kind="1p", count=3, seed=seed, person_names=False, state_distractors=True)
        for q in build_com2(idx, params):
            assert all("___" not in t for t in texts(q)), q.question
            kinds["filled" if "the baby" in q.question else "other"] += 1
            assert "divides" not in q.question  # no filler in the graph: never an anchor
    assert kinds["filled"] > 0


def test_adversarial_distractors_answer_another_kind_of_thing() -> None:
    from commonsense.queries.sampling import QAnchor, Query
    from commonsense.questions import distractors
    from commonsense.questions.com2 import other_kind

    rows = [
        ("PersonX wins the race", "xReact", "proud"),
        ("PersonX wins the race", "xReact", "tired"),  # same kind as the gold: often also right
        ("PersonX wins the race", "xWant", "to celebrate"),
        ("PersonX gets a prize", "xReact", "proud"),
        ("PersonX gets a prize", "xWant", "to thank everyone"),
    ]
    idx = GraphIndex.build(rows, IndexOptions(normalize=True))
    n = idx.node
    r = idx.rel_ids["xReact"]
    a, b, gold = n("PersonX wins the race"), n("PersonX gets a prize"), n("PersonX is proud")
    q = Query("2i", QInter((QProj(r, QAnchor(a), gold), QProj(r, QAnchor(b), gold)), gold))
    ok = other_kind(idx, q)
    assert not ok(r)
    assert ok(idx.rel_ids["xWant"])
    seen_on, seen_off = set(), set()
    for seed in range(10):
        for flag, seen in ((ok, seen_on), (None, seen_off)):
            got = distractors.pick(
                idx, random.Random(seed), answers={gold}, anchors=[a, b], n_random=0, adversarial_relations=flag
            )
            seen.update(idx.names[x] for x, _ in got or [])
    assert "PersonX is tired" in seen_off
    assert "PersonX is tired" not in seen_on
    assert seen_on <= {"PersonX celebrate", "PersonX thank everyone"}


def _hike_graph() -> GraphIndex:
    rows = [
        ("PersonX takes a hike", "xEffect", "PersonX gets hungry"),  # the hidden middle step of the 2p
        ("PersonX gets hungry", "xWant", "to eat a sandwich"),
        ("PersonX takes a hike", "xReact", "proud"),
        ("PersonX misses the bus", "xEffect", "PersonX is tired"),  # a state-shaped effect
    ]
    rows += [(f"PersonX does chore {i}", "xEffect", f"PersonX {w}") for i, w in enumerate("naps cooks swims".split())]
    rows += [(f"PersonX reads book {i}", "xWant", f"to {w}") for i, w in enumerate("sleep call travel rest".split())]
    return GraphIndex.build(rows, IndexOptions(normalize=True))


def test_the_hidden_middle_step_is_never_a_distractor() -> None:
    from commonsense.questions import distractors

    idx = _hike_graph()
    middle = idx.node("PersonX gets hungry")
    assert middle is not None
    assert middle in set(distractors.event_tails(idx).tolist())
    params = BuildParams(kind="2p", count=1, seed=0, person_names=False, near_duplicate=None)
    offered_before = 0
    for seed in range(15):
        qs = build_com2(idx, BuildParams(**{**params.__dict__, "seed": seed}))
        assert qs
        assert qs[0].answers == ["PersonX eats a sandwich"]
        assert "PersonX gets hungry" not in qs[0].options, qs[0].options
        # the fault the guard removes: without it, the middle node is an ordinary candidate
        anchor = idx.node("PersonX takes a hike")
        picked = distractors.pick(
            idx, random.Random(seed), answers={idx.node("PersonX eat a sandwich")}, anchors=[anchor]
        )
        offered_before += picked is not None and middle in {n for n, _ in picked}
    assert offered_before > 0


def test_a_state_shaped_event_is_no_distractor_where_a_state_answers() -> None:
    from commonsense.questions.com2 import StateDistractorCheck

    idx = _hike_graph()
    check = StateDistractorCheck(idx)
    tired, nap = idx.node("PersonX is tired"), idx.node("PersonX naps")
    assert tired is not None
    assert nap is not None
    assert not check.state[tired]
    assert check.state_shaped(tired)
    assert not check.state_shaped(nap)
    seen = {True: 0, False: 0}
    for seed in range(20):
        for allow in (True, False):
            p = BuildParams(
                kind="1p",
                count=1,
                seed=seed,
                relations=["xReact"],
                person_names=False,
                near_duplicate=None,
                state_distractors=allow,
            )
            qs = build_com2(idx, p)
            seen[allow] += bool(qs) and "PersonX is tired" in qs[0].options
    assert seen[False] == 0
    assert seen[True] > 0


@pytest.mark.parametrize(
    ("event", "phrase"),
    [
        ("PersonX gets back", "PersonX from getting back"),
        ("PersonX is at school", "PersonX from being at school"),
        ("PersonX makes the purchase", "PersonX from making the purchase"),
        ("PersonX finally gets up", "PersonX from finally getting up"),
        ("PersonX has no money", "PersonX from having no money"),
        ("PersonX is camping in the woods", "PersonX from camping in the woods"),  # a progressive keeps its verb
        ("PersonX is going to school", "PersonX from going to school"),
        ("PersonX never recovers", None),  # no gerund reads right: the template's words stay
        ("PersonX can not find PersonY", None),
        ("PersonX has finished the work", None),
        ("PersonX's car breaks down", None),
    ],
)
def test_what_hindered_takes_a_gerund(event: str, phrase: str | None) -> None:
    assert fluent.hindered_phrase(event) == phrase


def test_distractors_redrawn_after_a_plausibility_veto_pass_the_same_checks() -> None:
    """The model refuses the first draw; what is drawn instead must still pass the build's option
    checks (here the state check, the same-type veto kept as an option: "PersonX is tired" beside
    the feeling gold "PersonX is proud")."""
    from commonsense.scoring.plausibility import PlausibilityCheck

    idx = _hike_graph()
    first: set[str] = set()

    def score(triples):  # type: ignore[no-untyped-def]
        # every candidate of the first draw is "plausible"; later ones are not
        if not first:
            first.update(t for _, _, t in triples)
        return [1.0 if t in first else 0.0 for _, _, t in triples]

    built = 0
    for seed in range(15):
        first.clear()
        check = PlausibilityCheck(score=score, key="first-draw", filter_edges=False)
        p = BuildParams(
            kind="1p",
            count=1,
            seed=seed,
            relations=["xReact"],
            person_names=False,
            near_duplicate=None,
            state_distractors=False,
        )
        for q in build_com2(idx, p, check=check):
            built += 1
            assert "PersonX is tired" not in q.options, q.options
            assert not first & set(q.metadata["distractors_raw"])
    assert built > 0
