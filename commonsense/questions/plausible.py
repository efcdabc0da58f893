"""Distractors checked by a plausibility model (issue 11 item 3b): a distractor that the model
finds a plausible answer to the query's last hop is refused and another one drawn, so that an
item keeps exactly one defensible answer. Without a check nothing here runs and the builders'
output is unchanged."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from commonsense.kg.index import GraphIndex
from commonsense.queries.sampling import Query
from commonsense.scoring.plausibility import PlausibilityCheck

from . import distractors

MAX_ROUNDS = 4


def last_hop(index: GraphIndex, query: Query) -> list[tuple[str, str]]:
    """``(head text, relation)`` of every golden edge into the answer (one per intersection branch)."""
    return [(index.names[h], index.rel_names[r]) for h, r, t in query.chain() if t == query.answer]


def pick_checked(
    index: GraphIndex,
    rng: random.Random,
    query: Query,
    picked: list[tuple[int, str]],
    check: PlausibilityCheck,
    *,
    answers: set[int],
    anchors: Iterable[int],
    **pick_options: Any,
) -> tuple[list[tuple[int, str]] | None, list[tuple[str, str]]]:
    """``picked`` with every model-plausible distractor replaced (redrawn from ``rng`` with the
    refused nodes banned like answers, with the build's ``pick_options``: its option checks,
    adversarial pools and random pool), and the refused texts with their provenance (adversarial /
    random). None when ``MAX_ROUNDS`` draws still leave a plausible distractor or the graph runs out
    of candidates: the item is dropped."""
    hop = last_hop(index, query)
    anchors = list(anchors)
    refused: list[tuple[int, str]] = []
    current: list[tuple[int, str]] | None = picked
    for _ in range(MAX_ROUNDS):
        if current is None:
            break
        bad = check.plausible_distractors(hop, [index.names[n] for n, _ in current])
        if not bad:
            break
        refused.extend(current[i] for i in sorted(bad))
        current = distractors.pick(
            index, rng, answers=answers | {n for n, _ in refused}, anchors=anchors, **pick_options
        )
    else:
        current = None
    return current, [(index.names[n], how) for n, how in refused]
