"""COM2's graph steps as build options (issue 27 item 6): node merging joins nodes whose embeddings
are near (and so makes chains that pass through them), and a plausibility model ranks the top-T
neighbours the sampler draws from."""

from __future__ import annotations

import random

import numpy as np
import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.sampling import QuerySampler
from commonsense.questions.graph_steps import model_neighbour_order, node_merger

ROWS = [
    ("PersonX gets paid", "xEffect", "buys a new car"),  # tail: "PersonX buys a new car"
    ("PersonX purchases a new car", "xWant", "to drive to the beach"),  # the same event in other words
    ("PersonX wins the lottery", "xEffect", "PersonX is rich"),
]
SAME = {"PersonX buys a new car", "PersonX purchases a new car"}


def encoder(texts):  # type: ignore[no-untyped-def]
    """Planted embeddings: the two wordings of one event point the same way, every other text its own way."""
    out = np.zeros((len(texts), len(texts) + 1), dtype=np.float32)
    for i, t in enumerate(texts):
        out[i, 0 if t in SAME else i + 1] = 1.0
    return out


def test_merging_joins_near_nodes_and_makes_their_chain() -> None:
    plain = GraphIndex.build(ROWS, IndexOptions(normalize=True))
    merged = GraphIndex.build(ROWS, IndexOptions(normalize=True, merge=0.95), node_merger(encoder, 0.95))
    assert merged.n_nodes == plain.n_nodes - 1
    assert merged.n_edges == plain.n_edges
    assert len(SAME & set(merged.names)) == 1
    assert SAME <= set(plain.names)

    def chains(index: GraphIndex) -> int:
        s = QuerySampler(index)
        return sum(s.sample("2p", random.Random(i)) is not None for i in range(50))

    assert chains(plain) == 0
    assert chains(merged) > 0
    assert IndexOptions(merge=0.95).key() != IndexOptions().key()  # the cache keeps them apart
    with pytest.raises(ValueError, match="needs a merger"):
        GraphIndex.build(ROWS, IndexOptions(merge=0.95))


def test_a_merge_that_makes_an_edge_a_loop_drops_it() -> None:
    rows = [("PersonX purchases a new car", "xEffect", "buys a new car")]  # normalised: two wordings of one event
    index = GraphIndex.build(rows, IndexOptions(normalize=True, merge=0.95), node_merger(encoder, 0.95))
    assert index.n_edges == 0


def test_the_model_ranks_the_top_t_neighbours() -> None:
    heads = [f"PersonX tries {w}" for w in "abcdefghijklmno"]
    rows = [(h, "xEffect", "is tired") for h in heads]
    index = GraphIndex.build(rows, IndexOptions(normalize=True, max_degree=10))
    tired = index.node("PersonX is tired")
    assert tired is not None
    liked = set(heads[::2])  # the model finds every other head plausible

    def score(triples):  # type: ignore[no-untyped-def]
        return [1.0 if h in liked else 0.1 for h, _, _ in triples]

    before = [index.names[int(s)] for s in index.in_edges(tired)[1][:10]]
    assert set(before) != liked  # the stored order (no labels: a fixed shuffle) is not the model's
    ranked = model_neighbour_order(index, score, 10, relations=["xEffect"])
    top = [ranked.names[int(s)] for s in ranked.in_edges(tired)[1][:10]]
    assert set(top[: len(liked)]) == liked
    assert sorted(ranked.in_edges(tired)[1]) == sorted(index.in_edges(tired)[1])
    # the sampler's predecessors are the top-T: the first T in-edges
    sampler = QuerySampler(ranked, max_degree=len(liked))
    drawn = {ranked.names[q.chain()[0][0]] for q in (sampler.sample("1p", random.Random(i)) for i in range(200)) if q}
    assert drawn <= liked
    assert drawn
