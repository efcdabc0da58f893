"""RICA's two-round pair verification (§3.2, Appendix A.2): two annotators choose which of a pair
(the statement and its comparative flipped) follows commonsense; when they disagree, three more do
and their majority decides; "when annotators prefer a flipped statement over the original, we
replace the statement accordingly". Votes are the stored ``{"valid": 0|1}`` answers in the order
they came (1 = the original preferred). Agreement per round is Fleiss' kappa (the paper: 0.72 in
round 1, 0.52 in round 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ROUND_1 = 2
ROUND_2 = 3


@dataclass(frozen=True, slots=True)
class PairVerdict:
    state: Literal["settled", "needs_round_2", "pending"]
    valid: bool | None  # the original follows commonsense (False: the gold is flipped)
    round: int  # the round that settled it (0: not settled)
    votes_needed: int  # more votes to settle


def verdict(votes: Sequence[int]) -> PairVerdict:
    """The pair's state after ``votes`` (first two: round 1; the next three: round 2; later ones
    are not used)."""
    first = list(votes[:ROUND_1])
    if len(first) < ROUND_1:
        return PairVerdict("pending", None, 0, ROUND_1 - len(first))
    if first[0] == first[1]:
        return PairVerdict("settled", bool(first[0]), 1, 0)
    second = list(votes[ROUND_1 : ROUND_1 + ROUND_2])
    if len(second) < ROUND_2:
        return PairVerdict("needs_round_2", None, 0, ROUND_2 - len(second))
    return PairVerdict("settled", sum(second) * 2 > ROUND_2, 2, 0)


def round_matrices(votes: Sequence[Sequence[int]]) -> tuple[list[list[int]], list[list[int]]]:
    """The rating matrices of each round (items × raters, complete rounds only), for Fleiss' kappa."""
    r1 = [list(v[:ROUND_1]) for v in votes if len(v) >= ROUND_1]
    r2 = [list(v[ROUND_1 : ROUND_1 + ROUND_2]) for v in votes if len(v) >= ROUND_1 + ROUND_2 and v[0] != v[1]]
    return r1, r2
