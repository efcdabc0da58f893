"""Seeded query sampling backwards from an answer, and the full answer set forwards.

Sampling is the pre-order traversal of COM2 §3.2 / CoCo A.3: pick an answer node, then for every
projection pick a predecessor uniformly over the (relation, entity) pairs among the node's top-T
in-neighbours (COM2's degree cut), recursing until anchors are reached. The answer set is the
post-order traversal from the anchors: projection = union of successors, intersection = set
intersection (Query2box semantics), so every answer satisfies the whole query.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex

from .near_copy import near_copy_pair
from .rules import CompositionRules
from .structures import NEGATION_RELATION, STRUCTURES, Anchor, Inter, Proj, Shape, Structure


@dataclass(frozen=True)
class QAnchor:
    node: int


@dataclass(frozen=True)
class QProj:
    rel: int
    child: QNode
    target: int


@dataclass(frozen=True)
class QInter:
    branches: tuple[QNode, ...]
    target: int


QNode = QAnchor | QProj | QInter


def target(q: QNode) -> int:
    return q.node if isinstance(q, QAnchor) else q.target


@dataclass(frozen=True)
class Query:
    kind: str
    root: QNode

    @property
    def answer(self) -> int:
        return target(self.root)

    def anchors(self) -> list[int]:
        """Anchor nodes left to right (V1, V2, …)."""
        out: list[int] = []
        _walk(self.root, anchors=out)
        return out

    def chain(self) -> list[tuple[int, int, int]]:
        """The golden reasoning path: every sampled edge (head, relation, tail), post-order."""
        out: list[tuple[int, int, int]] = []
        _walk(self.root, edges=out)
        return out

    def signature(self) -> tuple[object, ...]:
        """What the question asks (anchors and relations in their places). The branches of an
        intersection without negation are a set: "A and B" is the question "B and A" (read blind,
        4 of 40 default 3i items repeated another item with its branches shuffled)."""
        if STRUCTURES[self.kind].negated_branch is None and isinstance(self.root, QInter):
            return (self.kind, frozenset(_sig(b) for b in self.root.branches))
        return (self.kind, _sig(self.root))


def _walk(q: QNode, anchors: list[int] | None = None, edges: list[tuple[int, int, int]] | None = None) -> None:
    if isinstance(q, QAnchor):
        if anchors is not None:
            anchors.append(q.node)
    elif isinstance(q, QProj):
        _walk(q.child, anchors, edges)
        if edges is not None:
            edges.append((target(q.child), q.rel, q.target))
    else:
        for b in q.branches:
            _walk(b, anchors, edges)


def _sig(q: QNode) -> object:
    if isinstance(q, QAnchor):
        return q.node
    if isinstance(q, QProj):
        return (q.rel, _sig(q.child))
    return tuple(_sig(b) for b in q.branches)


BoolArray = npt.NDArray[np.bool_]

# Why a sampling attempt found no query (QuerySampler.failures): the stage at which the last
# candidate predecessor of some node was lost. The build funnel reports them per kind.
NO_CANDIDATE = "no node can answer this structure"
NO_IN_EDGE = "no in-edge of the hop relations"
HEAD_SUBJECT = "no head names the person its relation asks about"
COMPOSITION = "refused by the composition rules"
UNUSABLE = "only nodes left out of queries (unfilled blanks)"
STRUCTURE = "no chain long enough, or only nodes already used"
NEAR_COPY = "near-copy anchors"  # with rules: one event asked twice (commonsense.queries.near_copy)


class QuerySampler:
    """Samples queries of any kind from one index. ``relations`` restricts every hop (default:
    all relations of the graph except HinderedBy, which is kept for 2in's negated branch).
    ``rules`` (:mod:`commonsense.queries.rules`) restricts which hops may be chained and
    intersected and requires each hop's head to name the person its prompt asks about;
    ``node_ok`` (a boolean per node) leaves nodes out of every query (e.g. ATOMIC heads with an
    unfilled ``___`` blank)."""

    def __init__(
        self,
        index: GraphIndex,
        *,
        max_degree: int | None = None,
        relations: Iterable[str] | None = None,
        rules: CompositionRules | None = None,
        node_ok: npt.NDArray[np.bool_] | None = None,
    ) -> None:
        self.index = index
        self.rules = rules
        self.node_ok = node_ok
        self.max_degree = max_degree if max_degree is not None else index.options.max_degree
        if self.max_degree < 1:
            raise ValueError("max_degree must be at least 1")
        nr = len(index.rel_names)
        neg = index.rel_ids.get(NEGATION_RELATION)
        self.allowed: BoolArray = np.zeros(nr, dtype=bool)
        if relations is None:
            self.allowed[:] = True
            if neg is not None:
                self.allowed[neg] = False
        else:
            for name in relations:
                if name in index.rel_ids:
                    self.allowed[index.rel_ids[name]] = True
        self.negated: BoolArray = np.zeros(nr, dtype=bool)
        if neg is not None:
            self.negated[neg] = True
        self._cands: dict[str, npt.NDArray[np.int64]] = {}
        # attempts that found no query, by the stage that lost the last candidate (the funnel)
        self.failures: Counter[str] = Counter()
        self.last_failure = ""  # why the last sample() found no query
        self._lost = ""
        self._depth: npt.NDArray[np.int64] | None = None
        self._rule_tables: tuple[BoolArray, BoolArray, tuple[BoolArray, BoolArray, npt.NDArray[np.int64]]] | None = None

    @property
    def rule_tables(self) -> tuple[BoolArray, BoolArray, tuple[BoolArray, BoolArray, npt.NDArray[np.int64]]]:
        """(composes[inner, outer], intersectable[a, b], head tables) as arrays."""
        if self._rule_tables is None:
            assert self.rules is not None
            rn = self.index.rel_names
            comp = np.array([[self.rules.composes(a, b) for b in rn] for a in rn], dtype=bool).reshape(len(rn), len(rn))
            inter = np.array([[self.rules.intersectable((a, b)) for b in rn] for a in rn], dtype=bool).reshape(
                len(rn), len(rn)
            )
            names = self.index.names
            # head[0] / head[1]: per node, does the text name PersonX / PersonY; head[2][rel]:
            # which of them the relation needs (0 none, 1 PersonX, 2 PersonY)
            has_x = np.fromiter(("PersonX" in t for t in names), dtype=bool, count=len(names))
            has_y = np.fromiter(("PersonY" in t for t in names), dtype=bool, count=len(names))
            need = np.array(
                [0 if self.rules.head_ok("", r) else 1 if self.rules.head_ok("PersonX", r) else 2 for r in rn],
                dtype=np.int64,
            )
            head = (has_x, has_y, need)
            self._rule_tables = (comp, inter, head)
        return self._rule_tables

    @property
    def depth(self) -> npt.NDArray[np.int64]:
        """Per node, the longest backward chain (capped at 3) over allowed top-T in-edges; used
        to pick only predecessors from which the rest of the structure can still be sampled."""
        if self._depth is None:
            idx = self.index
            n = idx.n_nodes
            ok = self.allowed[idx.b_rel] if idx.b_rel.shape[0] else np.zeros(0, dtype=bool)
            csum = np.r_[0, np.cumsum(ok)]
            dstb = np.repeat(np.arange(n, dtype=np.int64), np.diff(idx.b_off))
            rank = csum[:-1] - csum[idx.b_off[dstb]]
            top = ok & (rank < self.max_degree)
            src, dst = idx.b_src[top], dstb[top]
            depth = np.zeros(n, dtype=np.int64)
            for _ in range(3):
                new = np.zeros(n, dtype=np.int64)
                np.maximum.at(new, dst, np.minimum(depth[src] + 1, 3))
                depth = new
            self._depth = depth
        return self._depth

    def _in_counts(self, mask: BoolArray) -> npt.NDArray[np.int64]:
        idx = self.index
        ok = mask[idx.b_rel] if idx.b_rel.shape[0] else np.zeros(0, dtype=bool)
        csum = np.r_[0, np.cumsum(ok)]
        return np.asarray(csum[idx.b_off[1:]] - csum[idx.b_off[:-1]], dtype=np.int64)

    def candidates(self, kind: str) -> npt.NDArray[np.int64]:
        """Nodes that can be the answer of ``kind`` on their own in-degree (a cheap pre-filter)."""
        if kind not in self._cands:
            st = STRUCTURES[kind]
            counts = np.minimum(self._in_counts(self.allowed), self.max_degree)
            if isinstance(st.shape, Inter):
                need = len(st.shape.branches)
                if st.negated_branch is not None:
                    neg = self._in_counts(self.negated)
                    ok = (counts >= need - 1) & (neg >= 1)
                else:
                    ok = counts >= need
            else:
                ok = counts >= 1
            ok &= self.depth >= _need(st.shape)
            if self.node_ok is not None:
                ok &= self.node_ok
            self._cands[kind] = np.flatnonzero(ok).astype(np.int64)
        return self._cands[kind]

    # ------------------------------------------------------------------ sampling
    def sample(self, kind: str, rng: random.Random) -> Query | None:
        """One attempt: a query whose sampled answer is drawn from ``rng``, or None if this
        answer has no valid predecessors for the structure."""
        st = STRUCTURES[kind]
        cands = self.candidates(kind)
        if cands.shape[0] == 0:
            self.last_failure = NO_CANDIDATE
            self.failures[NO_CANDIDATE] += 1
            return None
        answer = int(cands[rng.randrange(cands.shape[0])])
        used = {answer}
        self._lost = ""
        root = self._down(st, st.shape, answer, rng, used, top=True)
        query = None if root is None else Query(kind, root)
        if query is not None and self.near_copies(query):
            query, self._lost = None, NEAR_COPY  # "X grabs Y by hair and X grabs Y's hair"
        if query is None:
            self.last_failure = self._lost or STRUCTURE
            self.failures[self.last_failure] += 1
        return query

    def near_copies(self, query: Query) -> bool:
        """With rules: two of the query's anchors say the same thing (:mod:`.near_copy`); refused."""
        return self.rules is not None and near_copy_pair([self.index.names[a] for a in query.anchors()]) is not None

    def _preds(
        self, node: int, mask: BoolArray, used: set[int], need: int, outer: int = -1, sibling: int = -1
    ) -> list[tuple[int, int]]:
        """Top-T (relation, head) pairs into ``node``. With rules: the relation composes with
        ``outer`` (the hop this node is the head of), is intersectable with ``sibling`` (the first
        branch's relation), and the head names the relation's subject."""
        rels, srcs = self.index.in_edges(node)
        sel = mask[rels]
        rl = rels[sel][: self.max_degree]
        sl = srcs[sel][: self.max_degree]
        if not rl.shape[0]:
            self._lost = NO_IN_EDGE
            return []
        if self.rules is not None:
            comp, inter, (has_x, has_y, subject) = self.rule_tables
            nr = subject[rl]
            keep = np.where(nr == 1, has_x[sl], np.where(nr == 2, has_y[sl], True))
            if not keep.any():
                self._lost = HEAD_SUBJECT
                return []
            if outer >= 0:
                keep &= comp[rl, outer]
            if sibling >= 0:
                keep &= inter[rl, sibling]
            if not keep.any():
                self._lost = COMPOSITION
                return []
            rl, sl = rl[keep], sl[keep]
        if self.node_ok is not None:
            keep = self.node_ok[sl]
            if not keep.any():
                self._lost = UNUSABLE
                return []
            rl, sl = rl[keep], sl[keep]
        pairs = zip(rl.tolist(), sl.tolist(), strict=True)
        if need == 0:
            got = [(r, s) for r, s in pairs if s not in used]
        else:
            depth = self.depth
            got = [(r, s) for r, s in pairs if s not in used and depth[s] >= need]
        if not got:
            self._lost = STRUCTURE
        return got

    def _down(
        self,
        st: Structure,
        shape: Shape,
        node: int,
        rng: random.Random,
        used: set[int],
        mask: BoolArray | None = None,
        top: bool = False,
        outer: int = -1,
        sibling: int = -1,
    ) -> QNode | None:
        if isinstance(shape, Anchor):
            return QAnchor(node)
        if isinstance(shape, Proj):
            m = self.allowed if mask is None else mask
            preds = self._preds(node, m, used, _need(shape.child), outer, sibling)
            if not preds:
                return None
            rel, src = preds[rng.randrange(len(preds))]
            used.add(src)
            child = self._down(st, shape.child, src, rng, used, outer=rel)
            return None if child is None else QProj(rel, child, node)
        # With rules, 2in's negated branch is sampled first: its relation (HinderedBy) is fixed, so
        # the positive branch can then be drawn among compatible relations instead of failing after.
        order = list(range(len(shape.branches)))
        if top and st.negated_branch is not None and self.rules is not None:
            order.remove(st.negated_branch)
            order.insert(0, st.negated_branch)
        got: dict[int, QNode] = {}
        first = -1
        for i in order:
            bmask = self.negated if (top and st.negated_branch == i) else None
            q = self._down(st, shape.branches[i], node, rng, used, bmask, outer=outer, sibling=first)
            if q is None:
                return None
            if first < 0 and isinstance(q, QProj):
                first = q.rel
            got[i] = q
        return QInter(tuple(got[i] for i in range(len(shape.branches))), node)

    # ------------------------------------------------------------------ answers
    def answers(self, query: Query) -> set[int]:
        return self.evaluate(query.root)

    def evaluate(self, q: QNode) -> set[int]:
        if isinstance(q, QAnchor):
            return {q.node}
        if isinstance(q, QProj):
            return self.index.successor_set(self.evaluate(q.child), q.rel)
        sets = sorted((self.evaluate(b) for b in q.branches), key=len)
        out = set(sets[0])
        for s in sets[1:]:
            out &= s
        return out


def _need(shape: Shape) -> int:
    """Backward chain length a node must have to be the target of ``shape``."""
    if isinstance(shape, Anchor):
        return 0
    if isinstance(shape, Proj):
        return 1 + _need(shape.child)
    return max(_need(b) for b in shape.branches)


def structure(kind: str) -> Structure:
    try:
        return STRUCTURES[kind]
    except KeyError:
        raise ValueError(f"unknown query kind {kind!r}; choose one of {', '.join(STRUCTURES)}") from None
