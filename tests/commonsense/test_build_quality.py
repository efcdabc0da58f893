"""Issue 11: what default builds put in front of a reader. Faithful defaults (label-1 edges, COM2's
twelve / CoCo's nine relations, composition rules, no ``none`` options), readable text (no
placeholders, no raw lemmas, no ``___``), and no distractor that is a near-copy of an answer."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import pytest

from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
from commonsense.kg.edges import ORIGIN_FIELD, POPULATED, plausible_only
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import clean, is_none, normalize_tail
from commonsense.kg.relations import COCO_RELATIONS, COM2_RELATIONS
from commonsense.queries.rules import ANSWER_CLASS, DEFAULT_RULES, O_RELATIONS, composes
from commonsense.queries.sampling import QInter, QProj, QuerySampler
from commonsense.questions import fluent
from commonsense.questions.coco import application
from commonsense.questions.com2 import BuildParams, BuildReport, build_com2
from commonsense.questions.neardup import NEAR_ANSWER
from commonsense.questions.quality import PLACEHOLDER
from commonsense.questions.wellformed import build_edges
from tests.conftest import shared_file


@lru_cache(maxsize=1)
def _ckbp_rows() -> list[tuple[str, str, str, float | None, None, str | None]]:
    """The records as a stored graph gives them to the index: the sixth field is the row's origin
    (CSKB-Population's ``class``, kept in the triple's ``extra`` on import)."""
    path = shared_file("ckbp_eval/evaluation_set.csv")
    return [
        (r.head, r.relation, r.tail, r.plausibility, None, dict(r.extra).get(ORIGIN_FIELD)) for r in read_cskb_csv(path)
    ]


@lru_cache(maxsize=4)
def _ckbp_index(include_implausible: bool = False, include_populated: bool = False) -> GraphIndex:
    f = build_edges(include_implausible, include_populated=include_populated)  # the builders' default
    return GraphIndex.build(f(_ckbp_rows()), IndexOptions(normalize=True))


def _origins() -> dict[tuple[str, str, str], set[str | None]]:
    got: dict[tuple[str, str, str], set[str | None]] = {}
    for h, r, t, _, _, origin in _ckbp_rows():
        got.setdefault((clean(h), r, normalize_tail(r, t)), set()).add(origin)
    return got


@lru_cache(maxsize=2)
def _atomic_index(well_formed_only: bool = True) -> GraphIndex:
    path = shared_file("atomic2020_sample/atomic2020_triples.tsv")
    rows = [(r.head, r.relation, r.tail) for r in read_atomic_tsv(path)]
    f = build_edges() if well_formed_only else plausible_only()
    return GraphIndex.build(f(rows), IndexOptions(normalize=True))


@lru_cache(maxsize=8)
def _ckbp_default(kind: str) -> tuple:
    return tuple(build_com2(_ckbp_index(), BuildParams(kind=kind, count=40, seed=11)))


def _texts(q) -> list[str]:
    return [q.context, q.question, *q.options, *q.answers]


@pytest.mark.slow  # the CKBP graph with and without its implausible triples (~40 s in all)
@pytest.mark.parametrize("kind", ["2i", "2p", "3i", "2in"])
def test_ckbp_default_chains_use_only_label1_triples(kind: str) -> None:
    labels: dict[tuple[str, str, str], set[float | None]] = {}
    for h, r, t, p, _, _ in _ckbp_rows():
        labels.setdefault((clean(h), r, normalize_tail(r, t)), set()).add(p)
    qs = _ckbp_default(kind)
    # CSKB holds few distinct 2in queries among its well-formed label-1 knowledge-base triples (2 of
    # 40 asked at seed 11: 249 HinderedBy rows, few of whose tails an action reaches)
    # and few distinct 2p queries once rules v3 leave out the chains read as nonsense (19 of 40 asked;
    # ~20 distinct in the graph under v3, ~28 under v2: rules.NONSENSE_COMPOSITIONS)
    assert len(qs) >= (1 if kind == "2in" else 15 if kind == "2p" else 20), kind
    # with the populated candidates too (more 2in queries), the label filter still holds
    wide = build_com2(_ckbp_index(include_populated=True), BuildParams(kind=kind, count=40, seed=11))
    assert len(wide) >= (8 if kind == "2in" else 20), kind
    for q in [*qs, *wide]:
        for h, r, t in q.chain:
            assert 1.0 in labels[(h, r, t)], (q.id, h, r, t)
    # the fault the default removes: with implausible triples allowed, label-0 edges reach chains
    loose = build_com2(_ckbp_index(True), BuildParams(kind=kind, count=40, seed=11))
    assert any(1.0 not in labels[(h, r, t)] for q in loose for h, r, t in q.chain)


@pytest.mark.slow  # the CKBP graph with and without its populated candidates
@pytest.mark.parametrize("kind", ["2i", "2p", "3i"])
def test_ckbp_default_chains_use_only_knowledge_base_triples(kind: str) -> None:
    origins = _origins()
    qs = _ckbp_default(kind)
    assert len(qs) >= (15 if kind == "2p" else 20), kind  # 2p: see above (rules v3)
    for q in qs:
        for h, r, t in q.chain:
            assert "test_set" in origins[(h, r, t)], (q.id, h, r, t, origins[(h, r, t)])
    # the fault the default removes: with the candidates CSKB-Population mined from ASER, they reach chains
    loose = build_com2(_ckbp_index(include_populated=True), BuildParams(kind=kind, count=40, seed=11))
    assert any(not (origins[(h, r, t)] - POPULATED) for q in loose for h, r, t in q.chain)


@pytest.mark.slow  # the CKBP evaluation graph (~20 s for its first build)
@pytest.mark.parametrize("kind", ["2i", "2p", "3i", "2in"])
def test_ckbp_default_text_has_no_placeholder_or_raw_lemma(kind: str) -> None:
    for q in _ckbp_default(kind):
        for text in _texts(q):
            assert not PLACEHOLDER.search(text), (q.id, text)
            assert "PeopleX" not in text
            assert "PeopleY" not in text
            assert not fluent.has_lemma_form(text), (q.id, text)
        # the graph's own text stays in the provenance
        assert all(len(c) == 3 for c in q.chain)


@pytest.mark.slow  # the CKBP evaluation graph (~20 s for its first build)
def test_ckbp_chains_follow_the_composition_rules() -> None:
    for kind in ("2p", "3i", "2i", "2in"):
        for q in _ckbp_default(kind):
            rels = q.relations
            assert set(rels) <= set(COM2_RELATIONS), (q.id, rels)
            if kind in ("2i", "3i", "2in"):
                assert len({ANSWER_CLASS[r] for r in rels}) == 1, (q.id, rels)
            if kind == "2p":
                assert composes(rels[0], rels[1]), (q.id, rels)


def _violations(sampler: QuerySampler, kind: str, n: int) -> int:
    idx, bad = sampler.index, 0
    rng = random.Random(3)
    for _ in range(n):
        q = sampler.sample(kind, rng)
        if q is None:
            continue
        root = q.root
        if isinstance(root, QProj) and isinstance(root.child, QProj):
            inner, outer = idx.rel_names[root.child.rel], idx.rel_names[root.rel]
            head = idx.names[root.child.target]
            bad += (not composes(inner, outer)) or not DEFAULT_RULES.head_ok(head, outer)
        if isinstance(root, QInter):
            rels = [idx.rel_names[b.rel] for b in root.branches if isinstance(b, QProj)]
            bad += not DEFAULT_RULES.intersectable(rels)
    return bad


@pytest.mark.slow  # the CKBP evaluation graph (~20 s for its first build)
def test_sampler_rules_hold_and_the_bare_sampler_breaks_them() -> None:
    idx = _ckbp_index()
    hops = [r for r in COM2_RELATIONS if r != "HinderedBy"]
    ruled = QuerySampler(idx, relations=hops, rules=DEFAULT_RULES)
    bare = QuerySampler(idx, relations=hops)
    for kind in ("2p", "2i"):
        assert _violations(ruled, kind, 400) == 0
        assert _violations(bare, kind, 400) > 0
    # an o-relation's tail (about PersonY) is never the head of a further hop
    assert not any(composes(r, o) for r in O_RELATIONS for o in COM2_RELATIONS)


@pytest.mark.parametrize("kind", ["2i", "3i"])
def test_atomic_default_relations_and_options(kind: str) -> None:
    idx = _atomic_index()
    qs = build_com2(idx, BuildParams(kind=kind, count=20, seed=1))
    assert len(qs) >= 10
    for q in qs:
        assert set(q.relations) <= set(COM2_RELATIONS), q.relations
        assert not any(is_none(o) or o.strip().lower() == "none" for o in q.options)
        assert all("___" not in t for t in _texts(q)), q.id
    # random distractors are events, not physical objects ("wood") or blank fillers
    from commonsense.questions.distractors import event_tails

    # (on the label-filtered graph: the well-formed filter already drops most subject-less objects)
    loose = _atomic_index(well_formed_only=False)
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


def test_atomic_none_tails_are_never_nodes() -> None:
    idx = _atomic_index()
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
            assert all("___" not in t for t in _texts(q)), q.question
            kinds["filled" if "the baby" in q.question else "other"] += 1
            assert "divides" not in q.question  # no filler in the graph: never an anchor
    assert kinds["filled"] > 0


def test_adversarial_distractors_answer_another_kind_of_thing() -> None:
    from commonsense.queries.sampling import QAnchor, QInter, QProj, Query
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


@pytest.mark.slow  # the CKBP graph with its populated candidates (more 2in queries)
def test_ckbp_2in_questions_read_what_hindered_someone_from_doing() -> None:
    qs = build_com2(_ckbp_index(include_populated=True), BuildParams(kind="2in", count=12, seed=11))
    assert qs
    rewritten = [q for q in qs if " from " in q.question.split("what hindered", 1)[1]]
    assert rewritten, [q.question for q in qs]
    for q in qs:
        tail = q.question.split("what hindered ", 1)[1]
        name, verb = tail.split()[:2]
        # never COM2's "what hindered Joel gets back": a finite verb right after the person
        assert verb == "from" or verb.lower() in ("never", "can", "could", "would", "has", "does", "is"), q.question


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
