"""COM2's hard negatives (B2.3): where a question's distractors come from.

COM2 samples four distractors per query: two "from the neighbors of the anchor entities that are
not the answers to the whole query" (Figure 5: "tails of one of the head, but not both") and two
"randomly sampled across the whole CSKG". The post-order traversal
(:meth:`~commonsense.queries.sampling.QuerySampler.answers`) keeps every answer of the whole query
out. This module says which nodes each kind of negative is drawn from.

**Adversarial** (``"branch"``, the default): answers of a part of the query but not of the whole.

* 2i / 3i / 2in / pi (an intersection at the top): the answers of each branch alone, minus the
  whole query's answers. 2in's positive branch gives what follows the first event but did not
  hinder the second; its HinderedBy branch what hindered the second but does not follow the first
  (COM2 Fig. 5's "2i-neg").
* ip (a projection of an intersection): the asked relation's tails from the answers of each inner
  branch alone, minus the whole query's answers.
* 2p / 3p (a chain): the asked relation's tails from the anchor's *other* neighbours, the nodes it
  reaches by a relation other than the chain's first hop (every tail of the asked relation from a
  sibling of the hidden middle node under the first hop is an answer of the whole query, so those
  siblings supply none). When those give fewer than two, the asked relation applied to the anchor
  itself (the hidden step skipped) tops them up.
* 1p: the anchor's other neighbours (any relation), as CoCo's memorization does.

The two adversarial negatives come from different branches where there are several (round robin
over the pools). ``"neighbours"`` keeps the former draw: any tail of any anchor.

**Random** (``"relation"``, the default): tails of the asked relation (the relations of the edges
into the answer; for 2in the positive branch's) anywhere in the graph, so that every option has
the form the question asks for (topped up from the graph's shared event tails where the relation
has too few). ``"whole-graph"`` is COM2's literal "randomly sampled across the whole CSKG": any
tail; ``"shared"`` the event tails that several heads share
(:func:`~commonsense.questions.distractors.shared_event_tails`, the pool before issue 25).

Neither ever offers an answer of the whole query, an anchor or the chain's hidden middle node
(:func:`commonsense.questions.distractors.pick` bans them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex

from ..queries.sampling import QAnchor, QInter, QProj, Query, QuerySampler
from ..queries.structures import STRUCTURES

ADVERSARIAL_MODES = ("branch", "neighbours")
RANDOM_MODES = ("relation", "shared", "whole-graph")
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class NegativeSpec:
    """Where the negatives of a build come from (stored with the set's parameters)."""

    adversarial: str = "branch"
    random: str = "relation"

    def __post_init__(self) -> None:
        if self.adversarial not in ADVERSARIAL_MODES:
            raise ValueError(
                f"adversarial negatives: {self.adversarial!r} is not one of {', '.join(ADVERSARIAL_MODES)}"
            )
        if self.random not in RANDOM_MODES:
            raise ValueError(f"random negatives: {self.random!r} is not one of {', '.join(RANDOM_MODES)}")


def _top_projections(query: Query) -> list[tuple[int, QProj]]:
    """(branch index, projection) of every edge into the answer: the root itself or the top
    intersection's branches (-1: not under an intersection)."""
    root = query.root
    if isinstance(root, QProj):
        return [(-1, root)]
    if isinstance(root, QInter):
        return [(i, b) for i, b in enumerate(root.branches) if isinstance(b, QProj)]
    return []


def asked_relations(query: Query, *, positive_only: bool = True) -> list[int]:
    """Relation ids the question asks for: those of the edges into the answer (2i xWant + xNeed:
    both), without 2in's negated HinderedBy branch unless ``positive_only`` is False."""
    negated = STRUCTURES[query.kind].negated_branch
    out = [p.rel for i, p in _top_projections(query) if not (positive_only and negated is not None and i == negated)]
    return list(dict.fromkeys(out))


def _other_neighbours(index: GraphIndex, heads: Iterable[int], rel: int) -> set[int]:
    """Nodes the ``heads`` reach by any relation but ``rel``, minus those ``rel`` reaches."""
    out: set[int] = set()
    own: set[int] = set()
    for h in heads:
        rels, dsts = index.out_edges(h)
        for r, d in zip(rels.tolist(), dsts.tolist(), strict=True):
            (own if r == rel else out).add(d)
    return out - own


def branch_pools(index: GraphIndex, sampler: QuerySampler, query: Query, answers: set[int]) -> list[list[int]]:
    """The adversarial candidates of ``query`` (module doc), one sorted list per branch or
    relaxation; answers excluded (the caller bans anchors and middle nodes)."""
    root = query.root
    pools: list[set[int]] = []
    if isinstance(root, QInter):
        pools = [sampler.evaluate(b) for b in root.branches]
    elif isinstance(root, QProj) and isinstance(root.child, QInter):
        pools = [index.successor_set(sampler.evaluate(b), root.rel) for b in root.child.branches]
    elif isinstance(root, QProj) and isinstance(root.child, QProj):
        inner = root.child
        heads = sampler.evaluate(inner.child)
        pools = [index.successor_set(_other_neighbours(index, heads, inner.rel), root.rel)]
        if len(pools[0] - answers) < 2:  # top up with the asked relation from the anchor itself
            pools.append(index.successor_set(heads, root.rel))
    elif isinstance(root, QProj) and isinstance(root.child, QAnchor):
        pools = [set(index.out_edges(root.child.node)[1].tolist())]
    return [sorted(p - answers) for p in pools]


class RelationTails:
    """Per set of relations, the nodes that are a tail of one of them: the random negatives'
    pool. Tails that several heads share (in-degree ``min_in``) are preferred when there are
    ``min_pool`` of them (the reason :func:`~commonsense.questions.distractors.shared_event_tails`
    gives: one-off fragments stand out beside a gold that several heads share). Cached per
    relation set for the build."""

    def __init__(self, index: GraphIndex, *, min_in: int = 2, min_pool: int = 50) -> None:
        self.index = index
        self.min_in = min_in
        self.min_pool = min_pool
        self._memo: dict[tuple[int, ...], IntArray] = {}
        self._indeg: IntArray | None = None

    def __call__(self, rels: Sequence[int]) -> IntArray:
        key = tuple(sorted(set(rels)))
        got = self._memo.get(key)
        if got is None:
            idx = self.index
            if not key or not idx.f_rel.shape[0]:
                got = np.zeros(0, dtype=np.int64)
            else:
                pool = np.unique(idx.f_dst[np.isin(idx.f_rel, np.array(key, dtype=np.int64))]).astype(np.int64)
                if self._indeg is None:
                    self._indeg = np.bincount(idx.f_dst, minlength=idx.n_nodes).astype(np.int64)
                shared = pool[self._indeg[pool] >= self.min_in]
                got = shared if shared.shape[0] >= self.min_pool else pool
            self._memo[key] = got
        return got
