"""Issue 11: what default builds take from the graph. COM2 chains over CSKB-Population use only its
label-1 knowledge-base triples and follow the composition rules (the bare sampler breaks them);
2in questions read "what hindered someone from doing". The options and text: test_build_quality.py."""

from __future__ import annotations

import random

import pytest

from commonsense.kg.edges import POPULATED
from commonsense.kg.normalize import clean, normalize_tail
from commonsense.kg.relations import COM2_RELATIONS
from commonsense.queries.rules import ANSWER_CLASS, DEFAULT_RULES, O_RELATIONS, composes
from commonsense.queries.sampling import QInter, QProj, QuerySampler
from commonsense.questions import fluent
from commonsense.questions.com2 import BuildParams, build_com2
from commonsense.questions.quality import PLACEHOLDER
from tests.commonsense.build_graphs import ckbp_default, ckbp_index, ckbp_rows, texts, triple_origins


@pytest.mark.slow  # the CKBP graph with and without its implausible triples (~40 s in all)
@pytest.mark.parametrize("kind", ["2i", "2p", "3i", "2in"])
def test_ckbp_default_chains_use_only_label1_triples(kind: str) -> None:
    labels: dict[tuple[str, str, str], set[float | None]] = {}
    for h, r, t, p, _, _ in ckbp_rows():
        labels.setdefault((clean(h), r, normalize_tail(r, t)), set()).add(p)
    qs = ckbp_default(kind)
    # CSKB holds few distinct 2in queries among its well-formed label-1 knowledge-base triples (2 of
    # 40 asked at seed 11: 249 HinderedBy rows, few of whose tails an action reaches)
    # and few distinct 2p queries once rules v3 leave out the chains read as nonsense (19 of 40 asked;
    # ~20 distinct in the graph under v3, ~28 under v2: rules.NONSENSE_COMPOSITIONS)
    assert len(qs) >= (1 if kind == "2in" else 15 if kind == "2p" else 20), kind
    # with the populated candidates too (more 2in queries), the label filter still holds
    wide = build_com2(ckbp_index(include_populated=True), BuildParams(kind=kind, count=40, seed=11))
    assert len(wide) >= (8 if kind == "2in" else 20), kind
    for q in [*qs, *wide]:
        for h, r, t in q.chain:
            assert 1.0 in labels[(h, r, t)], (q.id, h, r, t)
    # the fault the default removes: with implausible triples allowed, label-0 edges reach chains
    loose = build_com2(ckbp_index(True), BuildParams(kind=kind, count=40, seed=11))
    assert any(1.0 not in labels[(h, r, t)] for q in loose for h, r, t in q.chain)


@pytest.mark.slow  # the CKBP graph with and without its populated candidates
@pytest.mark.parametrize("kind", ["2i", "2p", "3i"])
def test_ckbp_default_chains_use_only_knowledge_base_triples(kind: str) -> None:
    by_triple = triple_origins()
    qs = ckbp_default(kind)
    assert len(qs) >= (15 if kind == "2p" else 20), kind  # 2p: see above (rules v3)
    for q in qs:
        for h, r, t in q.chain:
            assert "test_set" in by_triple[(h, r, t)], (q.id, h, r, t, by_triple[(h, r, t)])
    # the fault the default removes: with the candidates CSKB-Population mined from ASER, they reach chains
    loose = build_com2(ckbp_index(include_populated=True), BuildParams(kind=kind, count=40, seed=11))
    assert any(not (by_triple[(h, r, t)] - POPULATED) for q in loose for h, r, t in q.chain)


@pytest.mark.slow  # the CKBP evaluation graph (~20 s for its first build)
@pytest.mark.parametrize("kind", ["2i", "2p", "3i", "2in"])
def test_ckbp_default_text_has_no_placeholder_or_raw_lemma(kind: str) -> None:
    for q in ckbp_default(kind):
        for text in texts(q):
            assert not PLACEHOLDER.search(text), (q.id, text)
            assert "PeopleX" not in text
            assert "PeopleY" not in text
            assert not fluent.has_lemma_form(text), (q.id, text)
        # the graph's own text stays in the provenance
        assert all(len(c) == 3 for c in q.chain)


@pytest.mark.slow  # the CKBP evaluation graph (~20 s for its first build)
def test_ckbp_chains_follow_the_composition_rules() -> None:
    for kind in ("2p", "3i", "2i", "2in"):
        for q in ckbp_default(kind):
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
    idx = ckbp_index()
    hops = [r for r in COM2_RELATIONS if r != "HinderedBy"]
    ruled = QuerySampler(idx, relations=hops, rules=DEFAULT_RULES)
    bare = QuerySampler(idx, relations=hops)
    for kind in ("2p", "2i"):
        assert _violations(ruled, kind, 400) == 0
        assert _violations(bare, kind, 400) > 0
    # an o-relation's tail (about PersonY) is never the head of a further hop
    assert not any(composes(r, o) for r in O_RELATIONS for o in COM2_RELATIONS)


@pytest.mark.slow  # the CKBP graph with its populated candidates (more 2in queries)
def test_ckbp_2in_questions_read_what_hindered_someone_from_doing() -> None:
    qs = build_com2(ckbp_index(include_populated=True), BuildParams(kind="2in", count=12, seed=11))
    assert qs
    rewritten = [q for q in qs if " from " in q.question.split("what hindered", 1)[1]]
    assert rewritten, [q.question for q in qs]
    for q in qs:
        tail = q.question.split("what hindered ", 1)[1]
        name, verb = tail.split()[:2]
        # never COM2's "what hindered Joel gets back": a finite verb right after the person
        assert verb == "from" or verb.lower() in ("never", "can", "could", "would", "has", "does", "is"), q.question
