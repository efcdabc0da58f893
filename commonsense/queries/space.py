"""The query space of a kind: every distinct query the sampler could draw from a graph (issue 27
item 5). A build that falls short of its count after thousands of attempts has usually drawn every
query the graph holds under its rules and filters (on the CSKB slice of ../shared/data: 20 2p and
2 2in queries); the funnel then says so, with the number, instead of "repeated query".

The enumeration walks the same choices as :meth:`QuerySampler._down` (top-T in-edges, the
composition rules, the head's person, usable nodes, no node twice), but takes every choice instead
of one at random, and stops at ``cap`` distinct queries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex

from .rules import CompositionRules
from .sampling import QAnchor, QInter, QNode, QProj, Query, QuerySampler, _need
from .structures import STRUCTURES, Anchor, Proj, Shape, Structure

Used = frozenset[int]


@dataclass(frozen=True)
class Space:
    """``distinct`` queries (by :meth:`Query.signature`), ``usable`` of them with the sampled answer
    among the answers and no anchor among them; ``capped``: the enumeration stopped at the cap."""

    kind: str
    distinct: int
    usable: int
    capped: bool

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "distinct": self.distinct, "usable": self.usable, "capped": self.capped}


def _all(
    s: QuerySampler,
    st: Structure,
    shape: Shape,
    node: int,
    used: Used,
    *,
    top: bool = False,
    outer: int = -1,
    sibling: int = -1,
    negated: bool = False,
) -> Iterator[tuple[QNode, Used]]:
    if isinstance(shape, Anchor):
        yield QAnchor(node), used
        return
    if isinstance(shape, Proj):
        mask = s.negated if negated else s.allowed
        for rel, src in s._preds(node, mask, set(used), _need(shape.child), outer, sibling):
            for child, after in _all(s, st, shape.child, src, used | {src}, outer=rel):
                yield QProj(rel, child, node), after
        return
    order = list(range(len(shape.branches)))
    if top and st.negated_branch is not None and s.rules is not None:
        order.remove(st.negated_branch)
        order.insert(0, st.negated_branch)

    def branches(k: int, got: dict[int, QNode], used: Used, first: int) -> Iterator[tuple[QNode, Used]]:
        if k == len(order):
            yield QInter(tuple(got[i] for i in range(len(shape.branches))), node), used
            return
        i = order[k]
        neg = top and st.negated_branch == i
        for q, after in _all(s, st, shape.branches[i], node, used, outer=outer, sibling=first, negated=neg):
            nxt = q.rel if first < 0 and isinstance(q, QProj) else first
            yield from branches(k + 1, {**got, i: q}, after, nxt)

    yield from branches(0, {}, used, -1)


def query_space(sampler: QuerySampler, kind: str, cap: int = 2000) -> Space:
    """How many distinct ``kind`` queries ``sampler`` can draw (at most ``cap`` counted)."""
    st = STRUCTURES[kind]
    seen: set[tuple[object, ...]] = set()
    usable = 0
    for answer in sampler.candidates(kind).tolist():
        for root, _ in _all(sampler, st, st.shape, answer, frozenset({answer}), top=True):
            q = Query(kind, root)
            sig = q.signature()
            if sig in seen or sampler.near_copies(q):  # what the sampler refuses is not in its space
                continue
            seen.add(sig)
            answers = sampler.answers(q)
            if q.answer in answers and not answers.intersection(q.anchors()):
                usable += 1
            if len(seen) >= cap:
                return Space(kind, len(seen), usable, True)
    return Space(kind, len(seen), usable, False)


def build_space(
    index: GraphIndex,
    kind: str,
    max_degree: int,
    relations: list[str],
    rules: CompositionRules | None,
    node_ok: npt.NDArray[np.bool_] | None,
) -> dict[str, dict[str, object]]:
    """A build's query space under its ``rules`` ("rules") and, when it has rules, under none ("no
    rules"): each ``{"distinct", "usable", "capped"}``, as the build funnel stores it."""
    out: dict[str, dict[str, object]] = {}
    for name, r in (("rules", rules), ("no rules", None)):
        sampler = QuerySampler(index, max_degree=max_degree, relations=relations, rules=r, node_ok=node_ok)
        out[name] = {k: v for k, v in query_space(sampler, kind).as_dict().items() if k != "kind"}
        if r is None:
            break
    return out
