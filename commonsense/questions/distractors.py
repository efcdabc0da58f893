"""Distractors (COM2 §3.2, CoCo A2.1): 2 random and 2 adversarial negatives, never an answer,
deduplicated by text; the correct option's position is drawn from the same seeded rng. Where
each kind is drawn from (the query's branches, the asked relation's tails) is
:mod:`.negatives`'s; without it, the anchors' neighbours and the whole graph."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex

# (candidate node, nodes chosen so far) -> why the candidate may not be a distractor, or None
Reject = Callable[[int, list[int]], str | None]
SMALL_POOL = 256  # a random pool this small is walked through rather than drawn from


def _key(text: str) -> str:
    return " ".join(text.casefold().rstrip(".").split())


def pick(
    index: GraphIndex,
    rng: random.Random,
    *,
    answers: set[int],
    anchors: Iterable[int],
    answer_texts: Iterable[str] = (),
    n_random: int = 2,
    n_adversarial: int = 2,
    max_tries: int = 200,
    reject: Reject | None = None,
    rejections: Counter[str] | None = None,
    prepare: Callable[[list[int]], None] | None = None,
    adversarial_relations: Callable[[int], bool] | None = None,
    random_pool: npt.NDArray[np.int64] | None = None,
    adversarial_pools: Sequence[Sequence[int]] | None = None,
    random_fallback: npt.NDArray[np.int64] | None = None,
) -> list[tuple[int, str]] | None:
    """``n_random + n_adversarial`` distractor nodes with their provenance ("random" or
    "adversarial"); missing adversarial ones are topped up at random. None if the graph is too
    small to supply them. ``reject`` vetoes a candidate with a reason (near-duplicates, a
    plausibility model); every veto is counted in ``rejections`` by reason. ``prepare`` is told the
    candidates about to be tried (a batch at a time), so a check can embed them in one call.
    ``adversarial_relations`` (a relation id -> bool) limits which of the anchors' edges supply
    adversarial candidates (default: all); ``random_pool`` the nodes random ones are drawn from
    (default: every tail of the graph). ``adversarial_pools`` (:func:`.negatives.branch_pools`)
    replaces the anchors' neighbours: each pool is shuffled and they are taken in turn, so that
    the adversarial negatives come from different branches. ``random_fallback`` tops the random
    ones up when ``random_pool`` (the asked relation's tails) runs short."""
    anchors = list(anchors)
    banned = set(answers) | set(anchors)
    taken = {_key(t) for t in answer_texts} | {_key(index.names[a]) for a in answers}
    out: list[tuple[int, str]] = []

    def take(node: int, how: str) -> bool:
        if node in banned:
            return False
        k = _key(index.names[node])
        if k in taken:
            return False
        if reject is not None:
            why = reject(node, [n for n, _ in out])
            if why is not None:
                if rejections is not None:
                    rejections[why] += 1
                taken.add(k)
                banned.add(node)
                return False
        taken.add(k)
        banned.add(node)
        out.append((node, how))
        return True

    if adversarial_pools is None:
        neigh: set[int] = set()
        for a in anchors:
            rels, dsts = index.out_edges(a)
            if adversarial_relations is None:
                neigh.update(dsts.tolist())
            else:
                neigh.update(d for r, d in zip(rels.tolist(), dsts.tolist(), strict=True) if adversarial_relations(r))
        pool = sorted(neigh - banned)
        rng.shuffle(pool)
    else:
        pool = _interleave(rng, [[n for n in p if n not in banned] for p in adversarial_pools])
    if prepare is not None and reject is not None:
        prepare(pool[: 4 * n_adversarial])
    for node in pool:
        if len(out) >= n_adversarial:
            break
        take(node, "adversarial")
    want = n_random + n_adversarial
    pools = [index.tail_nodes if random_pool is None else random_pool]
    if random_fallback is not None:
        pools.append(random_fallback)
    for k, tails in enumerate(pools):
        if k == 0 and random_fallback is not None and 0 < tails.shape[0] <= SMALL_POOL:
            # a small pool (the asked relation's few tails): every candidate once, in a seeded order
            few = [int(n) for n in tails.tolist() if n not in banned]
            rng.shuffle(few)
            if prepare is not None and reject is not None:
                prepare(few[: 2 * want])
            for node in few:
                if len(out) >= want:
                    break
                take(node, "random")
            continue
        tries = 0
        batch: list[int] = []
        while len(out) < want and tries < max_tries and tails.shape[0]:
            if not batch:  # draw candidates 8 at a time so that a check can prepare them together
                batch = [int(tails[rng.randrange(tails.shape[0])]) for _ in range(min(8, max_tries - tries))]
                if prepare is not None and reject is not None:
                    prepare(batch)
                batch.reverse()
            tries += 1
            take(batch.pop(), "random")
    return out if len(out) == want else None


def _interleave(rng: random.Random, pools: list[list[int]]) -> list[int]:
    """The pools shuffled, in a shuffled order, then taken one candidate from each in turn."""
    pools = [list(p) for p in pools if p]
    for p in pools:
        rng.shuffle(p)
    rng.shuffle(pools)
    out: list[int] = []
    seen: set[int] = set()
    for i in range(max((len(p) for p in pools), default=0)):
        for p in pools:
            if i < len(p) and p[i] not in seen:
                seen.add(p[i])
                out.append(p[i])
    return out


def event_tails(index: GraphIndex) -> npt.NDArray[np.int64]:
    """Tails of event relations only: not physical objects ("wood", "scepter") nor ATOMIC blank
    fillers, which read as degenerate options in an event question."""
    from commonsense.kg import relations

    bad = np.array([r == "isFilledBy" or not relations.get(r).tail_is_event for r in index.rel_names], dtype=bool)
    if not bad.any():
        return index.tail_nodes
    keep = ~bad[index.f_rel] if index.f_rel.shape[0] else np.zeros(0, dtype=bool)
    return np.unique(index.f_dst[keep]).astype(np.int64)


def shared_event_tails(index: GraphIndex, min_in: int = 2, min_pool: int = 200) -> npt.NDArray[np.int64]:
    """:func:`event_tails` that are the tail of at least ``min_in`` edges, when the graph has
    ``min_pool`` of them (else all event tails). A tail that several heads share is a phrase
    people wrote more than once ("PersonX goes to the store"); read blind, random options drawn
    from one-off ASER fragments ("Riley does it way", "Joyce has nailed") made items unsound
    that were otherwise fine. The gold of an intersection is a shared tail by construction, so the
    random options no longer stand out by being odd."""
    pool = event_tails(index)
    if not index.f_dst.shape[0]:
        return pool
    indeg = np.bincount(index.f_dst, minlength=len(index.names))
    shared = pool[indeg[pool] >= min_in]
    return shared if shared.shape[0] >= min_pool else pool


def place(rng: random.Random, answer: str, distractors: list[str]) -> tuple[list[str], int]:
    """Options with the answer at a position drawn from ``rng``."""
    opts = list(distractors)
    rng.shuffle(opts)
    pos = rng.randrange(len(opts) + 1)
    opts.insert(pos, answer)
    return opts, pos
