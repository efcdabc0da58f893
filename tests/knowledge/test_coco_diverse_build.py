"""build_coco --diverse through the builder: memorization picked by Eq. 9 over each whole
relation (every triple embedded, rank and score stored per question) and the application graph's
top-T neighbours ranked by Eq. 9 (the busiest tail's in-edges embedded)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from commonsense.kg import relations as registry
from commonsense.kg.index import IndexOptions
from commonsense.kg.relations import COCO_RELATIONS
from commonsense.questions.diverse import EmbeddingCache
from knowledge.services import builds as builders
from knowledge.services import coco_builds
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def _encoder(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, sum(map(ord, w)) % 64] += 1.0
    return out


def test_coco_build_diverse_ranks_by_eq9(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builders, "minilm_encoder", lambda: _encoder)
    monkeypatch.setattr(coco_builds, "minilm_encoder", lambda: _encoder)
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv")
    qset = coco_build(graph="demo", seed=3, name="coco-div", per_relation=3, per_kind=2, diverse=True)
    mem = [q for q in qset.questions.all() if (q.metadata or {}).get("task") == "memorization"]
    assert mem
    assert all("eq9_rank" in q.metadata and "eq9_score" in q.metadata for q in mem)
    by_rel: dict[str, list[int]] = {}
    for q in sorted(mem, key=lambda q: q.position):
        by_rel.setdefault(q.metadata["relations"][0], []).append(q.metadata["eq9_rank"])
    assert all(r == sorted(r) for r in by_rel.values())  # questions in pick order within a relation
    g = builders._graph("demo")
    cache = EmbeddingCache(builders._cache_dir(g), _encoder)
    raw = builders.graph_index(g, IndexOptions(normalize=False))  # the builder's own memorization index
    xwant = raw.rel_ids["xWant"]
    heads = np.repeat(np.arange(raw.n_nodes), np.diff(raw.f_off))
    texts = [
        f"{raw.names[int(heads[e])]} {registry.get('xWant').statement} {raw.names[int(raw.f_dst[e])]}"
        for e in np.flatnonzero(raw.f_rel == xwant)
    ]
    assert len(cache.lookup(texts)) == len(set(texts))  # every xWant triple was embedded
    norm = builders.graph_index(g, IndexOptions(normalize=True, max_degree=10))
    busy = int(np.argmax(np.diff(norm.b_off)))  # the busiest tail
    assert np.diff(norm.b_off)[busy] > 10
    r, h = norm.in_edges(busy)
    ins = [
        f"{norm.names[int(x)]} {registry.get(norm.rel_names[int(y)]).statement} {norm.names[busy]}"
        for y, x in zip(r, h, strict=True)
        if norm.rel_names[int(y)] in COCO_RELATIONS  # the relations CoCo's application samples
    ]
    assert ins
    assert len(cache.lookup(ins)) == len(set(ins))  # its in-edges were embedded for the top-T ranking
