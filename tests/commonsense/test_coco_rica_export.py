"""CoCo set linking, vote-k diversity with the embedding cache, RICA novel entities, exporters."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from commonsense.io.abstract import read_abstract_triples
from commonsense.io.questions import read_rica_axioms_jsonl
from commonsense.io.triples import read_atomic_tsv
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.questions.coco import CocoParams, build_coco
from commonsense.questions.coco_text import option_form
from commonsense.questions.com2 import BuildParams, build_com2
from commonsense.questions.diverse import EmbeddingCache, vote_k
from commonsense.questions.export import write_csv, write_jsonl, write_lm_eval
from commonsense.questions.rica import novel_probes
from tests.conftest import FIXTURES, shared_file


@pytest.fixture(scope="module")
def demo_records() -> list[tuple[str, str, str]]:
    return [(r.head, r.relation, r.tail) for r in read_atomic_tsv(FIXTURES / "atomic2020_demo.tsv")]


def test_coco_sets_are_linked(demo_records) -> None:
    abstract = list(read_abstract_triples(FIXTURES / "abstract_demo.tsv"))
    qs = build_coco(demo_records, CocoParams(seed=1, per_relation=5, per_kind=5), abstract=abstract)
    groups: dict[str, list] = defaultdict(list)
    for q in qs:
        groups[q.group].append(q)
        assert len(q.options) == 5
        assert q.options[q.answer_index] in q.answers
    mem = [g for g in groups.values() if g[0].metadata["task"] == "memorization"]
    com = [g for g in groups.values() if g[0].metadata["task"] == "comprehension"]
    app = [g for g in groups.values() if g[0].metadata["task"] == "application"]
    assert len(mem) == 9 * 5
    assert all([q.role for q in g] == ["memorization"] for g in mem)
    assert com
    assert all(g[0].role == "memorization" for g in com)
    for g in com:
        assert [q.role for q in g[1:]] == [f"conceptualization_{k}" for k in range(1, len(g))]
        assert len(g) <= 4
        base = g[0]
        for q in g[1:]:  # same relation, same answer, abstract head in the question
            assert q.relations == base.relations
            assert q.answer == base.answer
            assert q.anchors[0] != base.anchors[0]
    assert {g[-1].kind for g in app} <= {"2i", "2p", "ip", "pi"}
    assert app
    for g in app:
        reasoning = g[-1]
        assert reasoning.role == "reasoning"
        atomics = g[:-1]
        assert [q.role for q in atomics] == [f"atomic_{k}" for k in range(1, len(reasoning.chain) + 1)]
        for aq, triple in zip(atomics, reasoning.chain, strict=True):  # each atomic question asks one chain triple
            assert aq.chain == [triple]
            # the option shows the tail as questions show events (issue 27 item 7); the chain keeps the graph's text
            assert aq.answer == option_form(triple[1], triple[2])
    ids = [q.id for q in qs]
    assert len(ids) == len(set(ids))
    again = build_coco(demo_records, CocoParams(seed=1, per_relation=5, per_kind=5), abstract=abstract)
    assert [q.to_dict() for q in again] == [q.to_dict() for q in qs]


def test_vote_k_prefers_spread_out_points() -> None:
    rng = np.random.default_rng(0)
    centres = np.eye(4, 16, dtype=np.float32) * 10
    pts = np.vstack([c + rng.normal(0, 0.1, (25, 16)).astype(np.float32) for c in centres])
    chosen = vote_k(pts, 4, k=10, rho=10)
    assert sorted(c // 25 for c in chosen) == [0, 1, 2, 3]  # one per cluster
    assert vote_k(pts, 4, k=10) == chosen


def _fake_encoder(calls: list[int]):
    def enc(texts):
        calls.append(len(texts))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, hash(w) % 64] += 1.0
        return out

    return enc


@pytest.mark.slow  # two diverse COM2 builds (~15 s)
def test_diverse_build_caches_embeddings(tmp_path: Path, demo_records) -> None:
    index = GraphIndex.build(demo_records, IndexOptions(normalize=True))
    calls: list[int] = []
    cache = EmbeddingCache(tmp_path, _fake_encoder(calls))
    p = BuildParams(kind="2i", count=10, seed=2, diverse=True)
    first = build_com2(index, p, diverse_cache=cache)
    assert len(first) == 10
    assert sum(calls) > 10
    n = sum(calls)
    cache2 = EmbeddingCache(tmp_path, _fake_encoder(calls))
    second = build_com2(index, p, diverse_cache=cache2)
    assert sum(calls) == n
    assert cache2.encoded == 0
    assert [q.to_dict() for q in first] == [q.to_dict() for q in second]


@pytest.mark.slow
def test_minilm_loads_offline() -> None:
    from commonsense.kg.normalize import merge_similar, minilm_encoder

    enc = minilm_encoder()
    v = enc(["PersonX buys a ticket", "PersonX buys a ticket.", "the volcano erupts"])
    assert v.shape == (3, 384)
    assert float(v[0] @ v[1]) > 0.95 > float(v[0] @ v[2])
    assert merge_similar(["PersonX buys a ticket", "PersonX buys a ticket.", "the volcano erupts"], enc) == {
        "PersonX buys a ticket.": "PersonX buys a ticket"
    }


def test_rica_novel_entities_keep_groups_and_perturbations() -> None:
    recs = list(read_rica_axioms_jsonl(shared_file("rica/RICA_10k_axiom2set.jsonl")))[:120]
    out = novel_probes(recs, seed=4, variants=2)
    assert len(out) >= 2 * len(recs) - 10
    by_group: dict[tuple[str, str], set] = defaultdict(set)
    for q in out:
        ents = q.metadata["entities"]
        assert set(ents) == {"A", "B"}
        for e in ents.values():
            assert 3 <= len(e) <= 12
            assert e.isalpha()
            assert e in q.question
        assert q.options[q.answer_index] in (
            "more",
            "less",
            "better",
            "worse",
            "easier",
            "harder",
            "higher",
            "lower",
            "larger",
            "smaller",
            "faster",
            "slower",
        )
        assert "[MASK]" in q.question
        assert " A " not in f" {q.question} "
        by_group[(q.group, q.id[-2:])].add(tuple(ents.values()))
    assert all(len(v) == 1 for v in by_group.values())  # one entity pair per axiom and variant
    src_perts = {(r.group, r.metadata["perturbation"]) for r in recs}
    assert {(q.group, q.role) for q in out} == src_perts
    assert [q.to_dict() for q in novel_probes(recs, seed=4, variants=2)] == [q.to_dict() for q in out]
    assert novel_probes(recs, seed=5)[0].question != out[0].question


def test_exports(tmp_path: Path, demo_records) -> None:
    index = GraphIndex.build(demo_records, IndexOptions(normalize=True))
    qs = build_com2(index, BuildParams(kind="2i", count=6, seed=0))
    write_jsonl(qs, tmp_path / "a.jsonl", "demo")
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert len(rows) == 6
    for key in (
        "id",
        "set",
        "kind",
        "context",
        "question",
        "options",
        "answer_index",
        "answers",
        "anchors",
        "relations",
        "chain",
        "group",
        "seed",
    ):
        assert key in rows[0]
    assert rows[0]["set"] == "demo"
    assert len(rows[0]["options"]) == 5
    write_csv(qs, tmp_path / "a.csv", "demo")
    assert (tmp_path / "a.csv").read_text().count("\n") == 7
    yaml_path = write_lm_eval(qs, tmp_path / "lm", "demo set")
    from tests.lm_eval_cli import task_yaml

    cfg = task_yaml(yaml_path)
    assert cfg["task"] == "cocoweb_demo_set"
    assert cfg["output_type"] == "multiple_choice"
    # the data is found beside the loader, never by a path of the machine that wrote it
    assert cfg["custom_dataset"] == "!function cocoweb_demo_set_data.load"
    assert str(tmp_path) not in yaml_path.read_text() + (tmp_path / "lm" / "cocoweb_demo_set_data.py").read_text()
    assert len((tmp_path / "lm" / "cocoweb_demo_set.jsonl").read_text().splitlines()) == 6


# --- CoCo Eq. 9 over the whole relation -------------------------------------------------------


def _eq9_by_the_formula(emb: np.ndarray, n_select: int, k: int, rho: float) -> tuple[list[int], list[float]]:
    """Eq. 9 read literally, every score recomputed from scratch at every step (slow, obvious)."""
    from commonsense.questions.diverse import knn

    nbrs = [set(map(int, row)) for row in knn(emb, k)]
    chosen: list[int] = []
    scores: list[float] = []
    for _ in range(n_select):
        s = {v: rho ** -len(nbrs[v] & set(chosen)) for v in range(len(emb)) if v not in chosen}
        score = {u: sum(s[v] for v in s if u in nbrs[v]) for u in range(len(emb)) if u not in chosen}
        best = max(round(sc, 9) for sc in score.values())
        u = min(x for x, sc in score.items() if round(sc, 9) == best)
        chosen.append(u)
        scores.append(best)
    return chosen, scores


def test_eq9_by_hand_and_against_the_formula() -> None:
    from commonsense.questions.diverse import knn, vote_k_scored

    # six points on the unit circle at 0, 10, 25, 45, 90 and 100 degrees; k = 2:
    # kNN(0)={1,2} kNN(1)={0,2} kNN(2)={1,3} kNN(3)={2,1} kNN(4)={5,3} kNN(5)={4,3}
    deg = np.radians([0, 10, 25, 45, 90, 100])
    pts = np.stack([np.cos(deg), np.sin(deg)], axis=1).astype(np.float32)
    assert [sorted(r) for r in knn(pts, 2).tolist()] == [[1, 2], [0, 2], [1, 3], [1, 2], [3, 5], [3, 4]]
    # step 1: score(u) = how many kNN lists hold u: 1, 3, 3, 3, 1, 1 -> point 1 (lowest of the tied 3s)
    # step 2: s(v) = 10^-|kNN(v) ∩ {1}|: s0 = s2 = s3 = 0.1, s4 = s5 = 1; score(3) = s2 + s4 + s5 = 2.1,
    #         score(2) = s0 + s3 = 0.2, score(4) = s5 = 1, score(5) = s4 = 1, score(0) = 0 (only 1 lists it)
    order, scores = vote_k_scored(pts, 2, k=2, rho=10)
    assert order == [1, 3]
    assert scores == pytest.approx([3.0, 2.1])
    rng = np.random.default_rng(3)
    emb = rng.normal(size=(60, 8)).astype(np.float32)
    fast = vote_k_scored(emb, 25, k=7, rho=10)
    slow = _eq9_by_the_formula(emb, 25, k=7, rho=10)
    assert fast[0] == slow[0]
    assert fast[1] == pytest.approx(slow[1])


def test_memorization_diverse_considers_every_triple_of_the_relation(tmp_path: Path, demo_records) -> None:
    """A triple every other triple of a tight cluster has as its nearest neighbour is Eq. 9's first
    pick. It is planted outside the 5x random pool the builder used to take (seeded), so only a
    selection over the whole relation finds it."""
    import hashlib
    import random

    from commonsense.kg import relations as registry
    from commonsense.questions.coco import _edge_heads, memorization
    from commonsense.questions.record import derive_seed

    index = GraphIndex.build(demo_records, IndexOptions(normalize=False))  # as build_coco's memorization
    name, seed, per_relation = "xWant", 4, 3
    edges = np.flatnonzero(index.f_rel == index.rel_ids[name])
    heads = _edge_heads(index)
    texts = [
        f"{index.names[int(heads[e])]} {registry.get(name).statement} {index.names[int(index.f_dst[e])]}" for e in edges
    ]
    old_pool = set(random.Random(derive_seed(seed, "memorization", name)).sample(range(len(edges)), 5 * per_relation))
    outside = [i for i in range(len(edges)) if i not in old_pool]
    hub, satellites = outside[len(outside) // 2], set(outside[:24])
    assert hub not in old_pool
    assert hub not in satellites
    dim = 32
    centre = np.eye(dim, dtype=np.float32)[0]

    def encoder(batch: list[str]) -> np.ndarray:
        out = []
        for t in batch:
            g = np.random.default_rng(int(hashlib.sha1(t.encode()).hexdigest()[:8], 16))
            i = texts.index(t)
            if i == hub:
                out.append(centre)
            elif i in satellites:
                out.append(centre + 0.05 * g.normal(size=dim).astype(np.float32))
            else:
                out.append(g.normal(size=dim).astype(np.float32))
        return np.asarray(out, dtype=np.float32)

    cache = EmbeddingCache(tmp_path, encoder)
    qs = memorization(index, per_relation, seed, relations=(name,), diverse_cache=cache, k=3)
    assert cache.encoded == len(edges)  # every triple of the relation was embedded
    assert [q.metadata["eq9_rank"] for q in qs] == sorted(q.metadata["eq9_rank"] for q in qs)
    first = qs[0]
    hub_tail = index.names[int(index.f_dst[edges[hub]])]
    assert first.metadata["eq9_rank"] == 0
    # the option shows the tail as the event it stands for (issue 27 item 7)
    assert first.answer == option_form(name, hub_tail)
    assert first.chain[0][2] == hub_tail
    assert first.anchors[0] == index.names[int(heads[edges[hub]])]
    assert first.metadata["eq9_score"] >= len(satellites)  # every satellite lists it among its 3 nearest
    assert len(qs) == per_relation
    again = memorization(index, per_relation, seed, relations=(name,), diverse_cache=cache, k=3)
    assert [q.to_dict() for q in again] == [q.to_dict() for q in qs]


def test_top_t_neighbours_ranked_by_eq9(tmp_path: Path, demo_records) -> None:
    """A node with six predecessors and T = 2: its in-edges come in Eq. 9's greedy order over the
    embeddings of those six triples, so the sampler's top 2 are Eq. 9's first two picks; a node with
    at most T predecessors keeps its order; build_coco --diverse ranks the application graph so."""
    from commonsense.kg import relations as registry
    from commonsense.queries import QuerySampler
    from commonsense.questions.diverse import eq9_neighbour_order

    heads = [f"PersonX does thing {i}" for i in range(6)]
    records = [(h, "xEffect", "PersonX is tired") for h in heads]
    records += [("PersonX runs", "xEffect", "PersonX sweats"), ("PersonX swims", "xEffect", "PersonX sweats")]
    index = GraphIndex.build(records, IndexOptions(normalize=False))
    tired = index.node_ids["PersonX is tired"]
    rels, srcs = index.in_edges(tired)
    before = [index.names[int(s)] for s in srcs]
    # the six triples on the unit circle at 0, 10, 25, 45, 90, 100 degrees (by head, in the index's order)
    deg = dict(zip(heads, [0, 10, 25, 45, 90, 100], strict=True))
    phrase = registry.get("xEffect").statement

    def encoder(batch: list[str]) -> np.ndarray:
        out = []
        for t in batch:
            h = t.split(f" {phrase} ")[0]
            a = np.radians(deg.get(h, 200))
            out.append([np.cos(a), np.sin(a)])
        return np.asarray(out, dtype=np.float32)

    cache = EmbeddingCache(tmp_path, encoder)
    ranked = eq9_neighbour_order(index, cache, 2, k=2)
    emb = encoder([f"{h} {phrase} PersonX is tired" for h in before])
    want, _ = _eq9_by_the_formula(emb, 6, k=2, rho=10)
    after = [ranked.names[int(s)] for s in ranked.in_edges(tired)[1]]
    first_two = [before[i] for i in want[:2]]  # Eq. 9's first two picks, then the rest as they were
    assert after == first_two + [h for h in before if h not in first_two]
    assert after != before
    assert [index.names[int(s)] for s in index.in_edges(tired)[1]] == before  # the input index is untouched
    sweats = index.node_ids["PersonX sweats"]
    assert list(ranked.in_edges(sweats)[1]) == list(index.in_edges(sweats)[1])  # 2 <= T: as it was
    top = QuerySampler(ranked, max_degree=2)._preds(tired, np.ones(len(ranked.rel_names), dtype=bool), set(), 0)
    assert [ranked.names[h] for _, h in top] == first_two
    # only the sampled relations compete: an oEffect in-edge stays out of the picks and of the kNN graph
    mixed = GraphIndex.build(
        [*records, ("PersonY waves", "oEffect", "PersonX is tired")], IndexOptions(normalize=False)
    )
    xonly = eq9_neighbour_order(mixed, cache, 2, relations=("xEffect",), k=2)
    x_tired = mixed.node_ids["PersonX is tired"]
    rel_x = mixed.rel_ids["xEffect"]
    pairs = list(zip(*xonly.in_edges(x_tired), strict=True))
    assert [mixed.names[int(h)] for r, h in pairs if r == rel_x][:2] == first_two
    assert [mixed.names[int(h)] for _, h in pairs[:2]] == first_two

    calls: list[int] = []
    coco_cache = EmbeddingCache(tmp_path / "coco", _fake_encoder(calls))
    build_coco(demo_records, CocoParams(seed=1, per_relation=2, per_kind=2, max_degree=3), diverse_cache=coco_cache)
    norm = GraphIndex.build(demo_records, IndexOptions(normalize=True, max_degree=3))
    busy = int(np.argmax(np.diff(norm.b_off)))
    r, h = norm.in_edges(busy)
    text = f"{norm.names[int(h[0])]} {registry.get(norm.rel_names[int(r[0])]).statement} {norm.names[busy]}"
    assert coco_cache.lookup([text])  # the busiest node's in-edges were embedded for the ranking
