"""Issue 25 item 1: COM2's hard negatives. Two adversarial negatives are answers of one branch of
the query but not of the whole query, two random ones are tails of the asked relation; none is an
answer of the whole query, and on the shared data every item offers at least two distractors of
the form its question asks for."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.sampling import QAnchor, QInter, QProj, Query, QuerySampler
from commonsense.questions import negatives
from commonsense.questions.audit import audit_item, fitting_distractors, shortcut_audit
from commonsense.questions.coco import application
from commonsense.questions.com2 import OLD_VETO, BuildParams, BuildReport, build_com2
from commonsense.questions.negatives import NegativeSpec, RelationTails
from commonsense.scoring.plausibility import PlausibilityCheck

from .build_graphs import atomic_index, ckbp_index

DEFAULT_SETS = (("CSKB", "2i"), ("CSKB", "3i"), ("CSKB", "2p"), ("CSKB", "2in"), ("ATOMIC", "2i"), ("ATOMIC", "3i"))


def _index(graph: str) -> GraphIndex:
    return ckbp_index() if graph == "CSKB" else atomic_index()


@lru_cache(maxsize=16)
def _build(graph: str, kind: str, old: bool) -> tuple:
    params = BuildParams(kind=kind, count=40, seed=101, **(OLD_VETO if old else {}))  # type: ignore[arg-type]
    return tuple(build_com2(_index(graph), params))


def _audit_items(qs) -> list:  # type: ignore[no-untyped-def]
    return [
        audit_item(q.options, q.answer_index, {**q.metadata, "chain": q.chain}, kind=q.kind, answers=q.answers)
        for q in qs
    ]


def _party_graph() -> GraphIndex:
    """Two events with feelings in common (the gold), and feelings of one of them only."""
    rows = [
        ("PersonX wins the race", "xReact", "proud"),
        ("PersonX wins the race", "xReact", "tired"),  # one branch only: an adversarial negative
        ("PersonX wins the race", "xReact", "happy"),  # both branches: a second answer
        ("PersonX gets a prize", "xReact", "proud"),
        ("PersonX gets a prize", "xReact", "happy"),
        ("PersonX gets a prize", "xReact", "grateful"),  # one branch only
        ("PersonX gets a prize", "xWant", "to thank everyone"),  # a neighbour, but not a feeling
    ]
    rows += [(f"PersonX does chore {i}", "xReact", w) for i, w in enumerate("bored calm sleepy annoyed".split())]
    rows += [(f"PersonX reads book {i}", "xWant", f"to {w}") for i, w in enumerate("sleep call travel".split())]
    return GraphIndex.build(rows, IndexOptions(normalize=True))


def _two_i(idx: GraphIndex) -> Query:
    n, r = idx.node, idx.rel_ids["xReact"]
    a, b, gold = n("PersonX wins the race"), n("PersonX gets a prize"), n("PersonX is proud")
    assert a is not None
    assert b is not None
    assert gold is not None
    return Query("2i", QInter((QProj(r, QAnchor(a), gold), QProj(r, QAnchor(b), gold)), gold))


def test_adversarial_negatives_answer_one_branch_but_not_the_whole_query() -> None:
    idx = _party_graph()
    sampler = QuerySampler(idx)
    q = _two_i(idx)
    answers = sampler.answers(q)
    assert {idx.names[a] for a in answers} == {"PersonX is proud", "PersonX is happy"}
    pools = negatives.branch_pools(idx, sampler, q, answers)
    assert [{idx.names[x] for x in p} for p in pools] == [{"PersonX is tired"}, {"PersonX is grateful"}]
    # the random ones: the asked relation's tails anywhere in the graph, never a want
    tails = {idx.names[int(x)] for x in RelationTails(idx, min_pool=1000)(negatives.asked_relations(q))}
    assert "PersonX is bored" in tails
    assert not tails & {"PersonX thank everyone", "PersonX sleep"}


def test_the_two_adversarial_negatives_come_from_different_branches() -> None:
    from commonsense.questions import distractors

    idx = _party_graph()
    sampler = QuerySampler(idx)
    q = _two_i(idx)
    answers = sampler.answers(q)
    pools = negatives.branch_pools(idx, sampler, q, answers)
    for seed in range(10):
        got = distractors.pick(
            idx, random.Random(seed), answers=answers, anchors=q.anchors(), n_random=0, adversarial_pools=pools
        )
        assert got is not None
        assert {idx.names[n] for n, _ in got} == {"PersonX is tired", "PersonX is grateful"}


def test_2p_adversarial_negatives_are_the_asked_relations_tails_from_the_anchors_other_neighbours() -> None:
    rows = [
        ("PersonX takes a hike", "xEffect", "PersonX gets hungry"),  # the hidden middle step
        ("PersonX gets hungry", "xWant", "to eat a sandwich"),  # the gold
        ("PersonX takes a hike", "xEffect", "PersonX gets thirsty"),  # a sibling: its wants are answers
        ("PersonX gets thirsty", "xWant", "to drink water"),
        ("PersonX takes a hike", "xIntent", "PersonX enjoys nature"),  # another neighbour of the anchor
        ("PersonX enjoys nature", "xWant", "to take photos"),  # -> adversarial
        ("PersonX takes a hike", "xWant", "to rest"),  # the asked relation from the anchor itself
    ]
    idx = GraphIndex.build(rows, IndexOptions(normalize=True))
    n, rel = idx.node, idx.rel_ids
    anchor, mid, gold = n("PersonX takes a hike"), n("PersonX gets hungry"), n("PersonX eat a sandwich")
    assert anchor is not None
    assert mid is not None
    assert gold is not None
    q = Query("2p", QProj(rel["xWant"], QProj(rel["xEffect"], QAnchor(anchor), mid), gold))
    sampler = QuerySampler(idx)
    answers = sampler.answers(q)
    assert {idx.names[a] for a in answers} == {"PersonX eat a sandwich", "PersonX drink water"}
    pools = negatives.branch_pools(idx, sampler, q, answers)
    # fewer than two from the other neighbours: the asked relation from the anchor tops them up
    assert [{idx.names[x] for x in p} for p in pools] == [{"PersonX take photos"}, {"PersonX rest"}]


def test_a_planted_answer_in_the_pools_is_never_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard: whatever the pools hold, an answer of the whole query is banned. The planted
    pools offer the second answer ("PersonX is happy") first."""
    idx = _party_graph()
    happy = idx.node("PersonX is happy")
    assert happy is not None
    real = negatives.branch_pools
    planted: list[int] = []

    def with_an_answer(*a, **k):  # type: ignore[no-untyped-def]
        pools = real(*a, **k)
        planted.append(happy)
        return [[happy, *p] for p in pools]

    monkeypatch.setattr(negatives, "branch_pools", with_an_answer)
    built = 0
    for seed in range(12):
        p = BuildParams(kind="2i", count=1, seed=seed, relations=["xReact"], person_names=False, near_duplicate=None)
        for q in build_com2(idx, p):
            built += 1
            assert "PersonX is happy" in q.answers
            assert not [o for i, o in enumerate(q.options) if i != q.answer_index and o in q.answers], q.options
    assert built
    assert planted


def test_the_audit_catches_a_distractor_from_the_answer_set() -> None:
    qs = [q for q in (*_build("ATOMIC", "2i", False), *_build("ATOMIC", "3i", False)) if len(q.answers) > 1]
    assert qs, "the ATOMIC sample has intersections with several answers"
    assert shortcut_audit(_audit_items(qs))["answer_members"] == 0
    q = qs[0]
    other = next(a for a in q.answers if a != q.answer)
    bad = list(q.options)
    bad[(q.answer_index + 1) % len(bad)] = other  # the fault: another answer as a distractor
    planted = audit_item(bad, q.answer_index, {**q.metadata, "chain": q.chain}, kind=q.kind, answers=q.answers)
    assert shortcut_audit([planted])["answer_members"] == 1


@pytest.mark.slow  # the CSKB and ATOMIC graphs, six default builds of 40 (~1 min)
@pytest.mark.parametrize(("graph", "kind"), DEFAULT_SETS)
def test_default_builds_offer_two_distractors_of_the_asked_form(graph: str, kind: str) -> None:
    qs = _build(graph, kind, False)
    assert qs
    idx = _index(graph)
    tails = RelationTails(idx, min_pool=10**9)  # every tail of the relation: what the graph has
    short = []
    for q, it in zip(qs, _audit_items(qs), strict=True):
        n = fitting_distractors(it)
        assert n is not None
        rels = [idx.rel_ids[r] for r in it["relations"] if r != "HinderedBy"]
        have = len(
            {idx.names[int(x)] for x in tails(rels)} - set(q.metadata.get("distractors_raw", [])) - {q.chain[-1][2]}
        )
        if n < min(2, have):
            short.append((q.question, q.options))
    assert not short, short[:3]
    assert all(len(q.metadata["distractors"]) == 4 for q in qs)
    assert {"adversarial", "random"} >= {h for q in qs for h in q.metadata["distractors"]}


@pytest.mark.slow  # twelve builds on the shared data (~2 min)
def test_answer_type_baseline_at_most_35_percent_and_above_it_with_the_old_veto() -> None:
    flagged_old = 0
    for graph, kind in DEFAULT_SETS:
        new = shortcut_audit(_audit_items(_build(graph, kind, False)))["answer_type"]
        assert new["value"] <= 0.35, (graph, kind, new)
        assert not new["flagged"]
        old = shortcut_audit(_audit_items(_build(graph, kind, True)))["answer_type"]
        if old["n"] >= 10:  # CSKB 2in builds two items
            assert old["value"] > 0.35, (graph, kind, old)
            assert old["flagged"], (graph, kind, old)
            flagged_old += 1
    assert flagged_old >= 4


def test_the_judge_vets_adversarial_negatives_and_the_report_counts_its_vetoes() -> None:
    idx = _party_graph()
    judged: list[str] = []

    def score(triples):  # type: ignore[no-untyped-def]
        # the judge finds "tired" a plausible answer to the whole query (both branches)
        judged.extend(t for _, _, t in triples)
        return [1.0 if t == "PersonX is tired" else 0.0 for _, _, t in triples]

    report = BuildReport()
    offered = 0
    for seed in range(8):
        check = PlausibilityCheck(score=score, key="tired-is-plausible", filter_edges=False)
        p = BuildParams(kind="2i", count=1, seed=seed, relations=["xReact"], person_names=False, near_duplicate=None)
        for q in build_com2(idx, p, check=check, report=report):
            assert "PersonX is tired" not in q.options
            offered += "PersonX is grateful" in q.options
    assert "PersonX is tired" in judged
    assert report.judge_vetoed["adversarial"] >= 1
    assert report.as_dict()["judge_vetoed"]["adversarial"] == report.judge_vetoed["adversarial"]
    assert offered  # the other branch's negative is still offered


def test_the_set_parameters_record_where_the_negatives_come_from() -> None:
    d = BuildParams(kind="2i", count=1, seed=0).as_dict()
    assert d["adversarial_negatives"] == "branch"
    assert d["random_negatives"] == "relation"
    assert d["state_distractors"] is True
    assert d["adversarial_other_kind"] is False
    with pytest.raises(ValueError, match="random negatives"):
        NegativeSpec(random="somewhere")


def test_coco_application_questions_get_branch_negatives() -> None:
    idx = _party_graph()
    qs = application(idx, 4, seed=1, kinds=("2i",), relations=("xReact",), rules=None)
    reasoning = [q for q in qs if q.role == "reasoning"]
    assert reasoning
    for q in reasoning:
        adv = [
            o
            for o, how in zip(q.metadata["distractors_raw"], q.metadata["distractors"], strict=True)
            if how == "adversarial"
        ]
        assert adv
        assert set(adv) <= {"PersonX is tired", "PersonX is grateful"}
        assert not set(q.options) & (set(q.answers) - {q.answer})
    # without them (the bare procedure), any neighbour of an anchor: a want beside a feeling gold
    bare = [
        q
        for seed in range(6)
        for q in application(idx, 1, seed=seed, kinds=("2i",), relations=("xReact",), rules=None, negatives=None)
        if q.role == "reasoning"
    ]
    assert any("PersonX thank everyone" in q.metadata["distractors_raw"] for q in bare)


def test_each_option_carries_its_provenance_and_spares_are_kept_apart() -> None:
    idx = _party_graph()
    seen_adv = 0
    for seed in range(6):
        p = BuildParams(kind="2i", count=1, seed=seed, relations=["xReact"], person_names=False, near_duplicate=None)
        for q in build_com2(idx, p):
            prov = q.metadata["option_provenance"]
            assert len(prov) == len(q.options)
            assert prov[q.answer_index] == "gold"
            assert prov.count("gold") == 1
            for o, how in zip(q.options, prov, strict=True):
                if how == "adversarial":
                    seen_adv += 1
                    assert o in {"PersonX is tired", "PersonX is grateful"}, (o, q.options)
            pool = q.metadata["distractor_pool"]
            assert 0 < len(pool) <= 3
            assert len(q.metadata["distractor_pool_provenance"]) == len(pool)
            assert not set(pool) & set(q.options)
            assert not set(pool) & set(q.answers)
    assert seen_adv
