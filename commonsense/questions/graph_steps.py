"""COM2's graph steps (issue 27 item 6), as build options.

* **Node merging** (COM2 §3.1): after Table 5's normalisation gives tails their subject, nodes
  whose all-MiniLM-L6-v2 embeddings have cosine above a threshold (0.95 in COM2) are one node, so
  that "PersonX gets a new job" and "PersonX gets a new job." meet and chains pass through them.
  ``IndexOptions.merge`` holds the threshold (it keys the index cache); :func:`node_merger` is the
  merge the index build applies (:func:`commonsense.kg.normalize.merge_similar`).
* **Top-T neighbours by a plausibility model** (COM2: "we rank the neighbours by Vera's score and
  keep the top T"): :func:`model_neighbour_order` puts, for every node with more than T in-edges
  of the sampled relations, the model's most plausible in-edges first, so that the sampler's top-T
  are the model's choice rather than the stored labels' order.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np

from commonsense.kg.index import GraphIndex
from commonsense.kg.normalize import Encoder, merge_similar
from commonsense.questions.diverse import busy_nodes

# (head, relation, tail) texts -> P(plausible), as a PlausibilityCheck scores them
ScoreFn = Callable[[Sequence[tuple[str, str, str]]], list[float]]
COM2_MERGE = 0.95


def node_merger(encoder: Encoder, threshold: float = COM2_MERGE) -> Callable[[list[str]], dict[str, str]]:
    """The node texts -> {text: the text it merges into} of COM2's embedding merge."""

    def merge(texts: list[str]) -> dict[str, str]:
        return merge_similar(texts, encoder, threshold)

    return merge


def model_neighbour_order(
    index: GraphIndex, score: ScoreFn, top: int, *, relations: Sequence[str] | None = None
) -> GraphIndex:
    """A copy of ``index`` whose every node with more than ``top`` in-edges of ``relations`` (None:
    all) lists those in-edges by the model's score, highest first (ties keep their former order),
    the other in-edges after them as before. Nodes with at most ``top`` such in-edges are used
    whole by the sampler and keep their order."""
    ok, busy = busy_nodes(index, relations, top)
    if busy.shape[0] == 0:
        return index
    spans = [(int(index.b_off[v]), int(index.b_off[v + 1])) for v in busy]
    cands = [a + np.flatnonzero(ok[a:b]) for a, b in spans]
    triples = [
        (index.names[int(index.b_src[j])], index.rel_names[int(index.b_rel[j])], index.names[int(v)])
        for v, js in zip(busy, cands, strict=True)
        for j in js
    ]
    scores = np.asarray(score(triples), dtype=np.float64)
    b_rel, b_src = index.b_rel.copy(), index.b_src.copy()
    at = 0
    for (a, b), js in zip(spans, cands, strict=True):
        d = js.shape[0]
        ranked = js[np.argsort(-scores[at : at + d], kind="stable")]
        rest = np.setdiff1d(np.arange(a, b), ranked, assume_unique=True)
        order = np.r_[ranked, rest]
        b_rel[a:b], b_src[a:b] = index.b_rel[order], index.b_src[order]
        at += d
    out = copy.copy(index)
    out.b_rel, out.b_src = b_rel, b_src
    return out
