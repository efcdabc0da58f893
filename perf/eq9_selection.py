"""CoCo Eq. 9 (vote-k, k=150, ρ=10) over a whole relation vs the former 5x random pool (issue 13).

The selection cost is the exact k-nearest-neighbour graph over the relation's triples (every pair
compared, in row chunks: n² · d multiply-adds) plus the greedy picks. Embeddings here are random
384-d vectors (MiniLM's width): their cost does not depend on the values; embedding the texts is
separate and cached per graph (commonsense/questions/diverse.EmbeddingCache). Prints the load
average, the seconds for each n, and the ratio to the 5x pool of 2,000 picks (n = 10,000).

    .venv/bin/python perf/eq9_selection.py [--sizes 10000,25000,50000] [--select 2000]

``--graph N`` also times the top-T neighbour ranking (eq9_neighbour_order, T = 10, CoCo's nine
relations as build_coco samples them) on the
N-triple synthetic graph of perf/synth_graph.py, with random embeddings (the MiniLM cost is apart).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from commonsense.questions.diverse import knn, vote_k_scored  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,25000,50000")
    ap.add_argument("--select", type=int, default=2000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--graph", type=int, default=0, help="also time the top-T ranking on an N-triple synthetic graph")
    a = ap.parse_args()
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rng = np.random.default_rng(0)
    base = None
    for n in [int(x) for x in a.sizes.split(",")]:
        emb = rng.normal(size=(n, a.dim)).astype(np.float32)
        t0 = time.perf_counter()
        knn(emb, 150)
        t_knn = time.perf_counter() - t0
        t0 = time.perf_counter()
        vote_k_scored(emb, a.select, k=150, rho=10.0)
        t_all = time.perf_counter() - t0
        base = base or t_all
        print(
            f"n={n:>7,}  kNN graph {t_knn:7.2f} s   kNN + {a.select:,} greedy picks {t_all:7.2f} s   "
            f"ratio to n={int(a.sizes.split(',')[0]):,}: {t_all / base:5.2f}x"
        )
    if a.graph:
        _neighbours(a.graph, a.dim)
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _neighbours(n_triples: int, dim: int) -> None:
    import tempfile

    from commonsense.io.triples import read_atomic_tsv
    from commonsense.kg.index import GraphIndex, IndexOptions
    from commonsense.kg.relations import COCO_RELATIONS
    from commonsense.questions.diverse import EmbeddingCache, eq9_neighbour_order
    from perf.synth_graph import synthesize

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.tsv"
        synthesize(path, n_triples)
        records = [(r.head, r.relation, r.tail) for r in read_atomic_tsv(path)]
        index = GraphIndex.build(records, IndexOptions(normalize=True))
        ok = np.isin(index.b_rel, [index.rel_ids[r] for r in COCO_RELATIONS if r in index.rel_ids])
        csum = np.r_[0, np.cumsum(ok)]
        deg = csum[index.b_off[1:]] - csum[index.b_off[:-1]]
        busy = deg[deg > 10]
        rng = np.random.default_rng(1)
        cache = EmbeddingCache(tmp, lambda texts: rng.normal(size=(len(texts), dim)).astype(np.float32))
        t0 = time.perf_counter()
        eq9_neighbour_order(index, cache, 10, relations=COCO_RELATIONS)  # as build_coco --diverse
        took = time.perf_counter() - t0
        print(
            f"graph {n_triples:,} triples, {index.n_nodes:,} nodes: {busy.shape[0]:,} nodes with more than 10 "
            f"CoCo-relation in-edges ({int(busy.sum()):,} in-edges, largest {int(busy.max(initial=0)):,}) ranked by Eq. 9 in "
            f"{took:.2f} s (random embeddings: cache writes included, MiniLM not)"
        )


if __name__ == "__main__":
    main()
