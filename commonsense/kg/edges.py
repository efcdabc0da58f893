"""Which triples become edges of a query graph: a named predicate over triples, applied to the
records before the index is built (so answer sets, distractors and chains all see the same graph).

The default is :func:`plausible_only`: on a graph with plausibility labels (CSKB-Population's
0/1 human labels) a triple labelled implausible is not an edge; unlabelled triples (ATOMIC) are.
Read blind, label-0 triples were in 19 of 40 default 2i chains, 27 of 40 2p and 39 of 40 2in.
A model-based scorer plugs in as another :class:`EdgeFilter` (its ``name`` keys the index cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .index import Record
from .normalize import is_none

# (head, relation, tail, plausibility or None) -> keep the triple as an edge
EdgePredicate = Callable[[str, str, str, float | None], bool]

PLAUSIBLE = 0.5  # CSKB label 1 (and Vera's threshold in COM2)


@dataclass(frozen=True)
class EdgeFilter:
    name: str  # stored with the set's parameters and part of the index cache key
    keep: EdgePredicate

    def __call__(self, records: Iterable[Record]) -> Iterator[Record]:
        keep = self.keep
        for rec in records:
            p = rec[3] if len(rec) > 3 else None
            if keep(rec[0], rec[1], rec[2], p):
                yield rec


def _not_none(tail: str) -> bool:
    return not is_none(tail)


def plausible_only(threshold: float = PLAUSIBLE) -> EdgeFilter:
    """Labelled triples below ``threshold`` are dropped, unlabelled ones kept; ``none`` tails never
    become edges."""

    def keep(head: str, relation: str, tail: str, p: float | None) -> bool:
        return (p is None or p >= threshold) and _not_none(tail)

    return EdgeFilter(f"plausible>={threshold:g}", keep)


def all_triples() -> EdgeFilter:
    """Every triple, implausible ones too (the researcher asked for it); ``none`` tails still out."""
    return EdgeFilter("all", lambda h, r, t, p: _not_none(t))


def edge_filter(include_implausible: bool) -> EdgeFilter:
    return all_triples() if include_implausible else plausible_only()
