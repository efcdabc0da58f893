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
        assert len(q.options) == 5 and q.options[q.answer_index] in q.answers
    mem = [g for g in groups.values() if g[0].metadata["task"] == "memorization"]
    com = [g for g in groups.values() if g[0].metadata["task"] == "comprehension"]
    app = [g for g in groups.values() if g[0].metadata["task"] == "application"]
    assert len(mem) == 9 * 5 and all([q.role for q in g] == ["memorization"] for g in mem)
    assert com and all(g[0].role == "memorization" for g in com)
    for g in com:
        assert [q.role for q in g[1:]] == [f"conceptualization_{k}" for k in range(1, len(g))] and len(g) <= 4
        base = g[0]
        for q in g[1:]:  # same relation, same answer, abstract head in the question
            assert q.relations == base.relations and q.answer == base.answer and q.anchors[0] != base.anchors[0]
    assert {g[-1].kind for g in app} <= {"2i", "2p", "ip", "pi"} and app
    for g in app:
        reasoning = g[-1]
        assert reasoning.role == "reasoning"
        atomics = g[:-1]
        assert [q.role for q in atomics] == [f"atomic_{k}" for k in range(1, len(reasoning.chain) + 1)]
        for aq, triple in zip(atomics, reasoning.chain, strict=True):  # each atomic question asks one chain triple
            assert aq.chain == [triple] and aq.answer == triple[2]
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
    assert len(first) == 10 and sum(calls) > 10
    n = sum(calls)
    cache2 = EmbeddingCache(tmp_path, _fake_encoder(calls))
    second = build_com2(index, p, diverse_cache=cache2)
    assert sum(calls) == n and cache2.encoded == 0  # the second build did not re-embed
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
            assert 3 <= len(e) <= 12 and e.isalpha()
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
        assert "[MASK]" in q.question and " A " not in f" {q.question} "
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
    assert rows[0]["set"] == "demo" and len(rows[0]["options"]) == 5
    write_csv(qs, tmp_path / "a.csv", "demo")
    assert (tmp_path / "a.csv").read_text().count("\n") == 7
    yaml_path = write_lm_eval(qs, tmp_path / "lm", "demo set")
    import yaml

    cfg = yaml.safe_load(yaml_path.read_text())
    assert cfg["task"] == "cocoweb_demo_set" and cfg["output_type"] == "multiple_choice"
    data = Path(cfg["dataset_kwargs"]["data_files"]["test"])
    assert data.exists() and len(data.read_text().splitlines()) == 6
