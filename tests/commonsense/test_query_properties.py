"""Property tests on random small graphs: answers satisfy the query (brute force), the sampled
answer is among them, no distractor satisfies it; plus index caching and normalisation."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import normalize_tail
from commonsense.queries import KINDS, QuerySampler
from commonsense.queries.sampling import QAnchor, QInter, QNode, QProj
from commonsense.questions.com2 import make_question

RELS = ["xEffect", "xWant", "xAttr", "HinderedBy", "isBefore"]


def brute_satisfies(edges: set[tuple[str, str, str]], q: QNode, x: str, nodes: list[str], name, rel) -> bool:
    """x satisfies q by definition (exists-quantified, no set algebra): anchors are themselves,
    a projection needs some y satisfying the child with (y, r, x) an edge, an intersection needs
    every branch."""
    if isinstance(q, QAnchor):
        return name(q.node) == x
    if isinstance(q, QProj):
        return any((y, rel(q.rel), x) in edges and brute_satisfies(edges, q.child, y, nodes, name, rel) for y in nodes)
    assert isinstance(q, QInter)
    return all(brute_satisfies(edges, b, x, nodes, name, rel) for b in q.branches)


graphs = st.lists(st.tuples(st.integers(0, 11), st.sampled_from(RELS), st.integers(0, 11)), min_size=5, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs, st.integers(0, 2**32), st.sampled_from(KINDS), st.integers(1, 4))
def test_answers_are_exactly_the_satisfying_nodes(triples, seed, kind, max_degree) -> None:
    recs = [(f"PersonX does thing {h}", r, f"PersonX does thing {t}") for h, r, t in triples]
    index = GraphIndex.build(recs)
    edges = {(h, r, t) for h, r, t in recs if h != t}
    nodes = index.names
    sampler = QuerySampler(index, max_degree=max_degree)
    name, rel = index.names.__getitem__, index.rel_names.__getitem__
    for j in range(8):
        rng = random.Random(seed + j)
        query = sampler.sample(kind, rng)
        if query is None:
            continue
        answers = sampler.answers(query)
        assert query.answer in answers
        truth = {i for i, n in enumerate(nodes) if brute_satisfies(edges, query.root, n, nodes, name, rel)}
        assert answers == truth
        for h, r, t in query.chain():  # the golden chain is made of real edges
            assert (name(h), rel(r), name(t)) in edges
        anchors = query.anchors()
        assert len(set(anchors)) == len(anchors)
        q = make_question(index, sampler, query, rng, qid="x", seed=seed, person_names=False)
        if q is None:
            continue
        assert len(q.options) == 5
        assert len({o.casefold() for o in q.options}) == 5
        assert q.options[q.answer_index] == name(query.answer)
        for i, opt in enumerate(q.options):
            if i != q.answer_index:
                assert opt not in q.answers
                assert index.node(opt) not in truth


def test_top_t_cut_limits_predecessors() -> None:
    recs = [(f"PersonX h{i}", "xEffect", "PersonX goal") for i in range(30)]
    index = GraphIndex.build(recs)
    sampler = QuerySampler(index, max_degree=3)
    anchors = set()
    for s in range(200):
        q = sampler.sample("1p", random.Random(s))
        assert q is not None
        anchors.add(q.anchors()[0])
    assert len(anchors) == 3
    assert len(QuerySampler(index, max_degree=30).answers(q)) == 1


def test_relations_restriction_and_2in_branch() -> None:
    recs = [(f"PersonX a{i}", r, "PersonX is tired") for i, r in enumerate(RELS * 3)]
    index = GraphIndex.build(recs)
    sampler = QuerySampler(index, relations=["xAttr"])
    for s in range(50):
        q = sampler.sample("2i", random.Random(s))
        assert q is not None
        assert {index.rel_names[r] for _, r, _ in q.chain()} == {"xAttr"}
    neg = QuerySampler(index)
    for s in range(50):
        q = neg.sample("2in", random.Random(s))
        assert q is not None
        rels = [index.rel_names[r] for _, r, _ in q.chain()]
        assert rels[1] == "HinderedBy"
        assert rels[0] != "HinderedBy"
        q2 = neg.sample("2i", random.Random(s))
        assert q2 is not None
        assert "HinderedBy" not in {index.rel_names[r] for _, r, _ in q2.chain()}


def test_normalisation_rules_table5() -> None:
    assert normalize_tail("xWant", "to go home") == "PersonX go home"
    assert normalize_tail("oWant", "to thank PersonX") == "PersonY thank PersonX"
    assert normalize_tail("xIntent", "to be helpful") == "PersonX be helpful"
    assert normalize_tail("xAttr", "satisfied") == "PersonX is satisfied"
    assert normalize_tail("oReact", "happy") == "PersonY is happy"
    assert normalize_tail("xEffect", "gets a job") == "PersonX gets a job"
    assert normalize_tail("oEffect", "PersonY feels bad") == "PersonY feels bad"  # has a subject
    assert normalize_tail("xNeed", "Person X buys a ticket.") == "PersonX buys a ticket"
    assert normalize_tail("isBefore", "to go") == "to go"  # event relations have no rule
    # normalisation creates the projection chains of the CoCo 2p example (Table 12)
    index = GraphIndex.build(
        [
            ("PersonX does PersonX's hair and makeup", "xEffect", "looks pretty"),
            ("PersonX looks pretty", "xNeed", "to curl hair"),
        ],
        IndexOptions(normalize=True),
    )
    q = QuerySampler(index).sample("2p", random.Random(0))
    assert q is not None
    assert index.names[q.answer] == "PersonX curl hair"


def test_index_cache_roundtrip(tmp_path) -> None:
    recs = [(f"PersonX e{i}", RELS[i % 5], f"PersonX e{(i * 7) % 13}", 0.3 + (i % 3) * 0.3, 100 + i) for i in range(40)]
    opts = IndexOptions(min_plausibility=0.5)
    calls = []

    def factory():
        calls.append(1)
        return iter(recs)

    a = GraphIndex.cached(tmp_path, "fp", factory, opts)
    b = GraphIndex.cached(tmp_path, "fp", factory, opts)
    assert len(calls) == 1
    assert len(list(tmp_path.glob("index-*.npz"))) == 1
    assert a.names == b.names
    assert a.rel_names == b.rel_names
    assert a.n_edges == b.n_edges
    for n, r in itertools.product(range(a.n_nodes), range(len(a.rel_names))):
        assert a.successors(n, r).tolist() == b.successors(n, r).tolist()
    kept = {(h, r, t) for h, r, t, p, _ in recs if p >= 0.5 and h != t}
    assert a.n_edges == len(kept)
    h, r, t, _, ref = next(x for x in recs if x[3] >= 0.5 and x[0] != x[2])
    assert a.edge_ref(a.node(h), a.rel_ids[r], a.node(t)) == ref
    GraphIndex.cached(tmp_path, "other-graph", factory, opts)
    assert len(calls) == 2
