"""Which triples become edges of a query graph: a named predicate over triples, applied to the
records before the index is built (so answer sets, distractors and chains all see the same graph).

The default is :func:`plausible_only`: on a graph with plausibility labels (CSKB-Population's
0/1 human labels) a triple labelled implausible is not an edge; unlabelled triples (ATOMIC) are.
Read blind, label-0 triples were in 19 of 40 default 2i chains, 27 of 40 2p and 39 of 40 2in.
A model-based scorer plugs in as another :class:`EdgeFilter` (its ``name`` keys the index cache).

A record may carry its *origin* as a sixth field (``(head, relation, tail, plausibility, ref,
origin)``): CSKB-Population's ``class`` column. Its ``test_set`` rows are the knowledge base's own
triples (ATOMIC-2020, human-written); ``cs_head`` and ``all_head`` rows are *candidates* the
CSKB-Population authors mined from ASER for its benchmark to judge (:data:`POPULATED`). COM2 samples
its queries from ATOMIC, not from populated candidates, so by default candidates are not edges,
label 1 or not (``--include-populated`` adds them). Read blind (perf/RESULTS.md, round 6), CSKB
items whose every hop was a knowledge-base triple were sound in 32 of 68 cases, those with a
populated hop in 16 of 63.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .index import Record
from .normalize import is_none

# (head, relation, tail, plausibility or None) -> keep the triple as an edge
EdgePredicate = Callable[[str, str, str, float | None], bool]
# the same, but says why a triple is no edge: (stage, reason), or None to keep it. The stages are the
# build funnel's (commonsense/questions/funnel.py): "labels" (a label, an origin, a "none" tail),
# "readable" (the text rules); every filter of a build names its reasons this way
EdgeReason = Callable[[str, str, str, float | None], tuple[str, str] | None]
# (relation, stage, reason) -> triples; stage "kept" (reason "") for the edges
EdgeTally = Counter[tuple[str, str, str]]

PLAUSIBLE = 0.5  # CSKB label 1 (and Vera's threshold in COM2)
# CSKB-Population's classes of candidate triples populated from ASER (not the knowledge base's own)
POPULATED = frozenset({"cs_head", "all_head"})
ORIGIN_FIELD = "class"  # the key of a triple's stored ``extra`` that holds its origin
KEPT = ("kept", "")
LABELS = "labels"
NONE_TAIL = (LABELS, "a 'none' tail")
IMPLAUSIBLE = (LABELS, "labelled implausible")
POPULATED_REASON = (LABELS, "a candidate populated from ASER")


@dataclass(frozen=True)
class EdgeFilter:
    name: str  # stored with the set's parameters and part of the index cache key
    why: EdgeReason  # why a triple is no edge, or None
    drop_origins: frozenset[str] = frozenset()  # records whose origin (sixth field) is here are no edges

    def keep(self, head: str, relation: str, tail: str, p: float | None) -> bool:
        return self.why(head, relation, tail, p) is None

    def __call__(self, records: Iterable[Record], tally: EdgeTally | None = None) -> Iterator[Record]:
        """The records that are edges; ``tally`` (when given) counts every record by relation and
        by the stage and reason that dropped it (the build funnel's first stages)."""
        why, drop = self.why, self.drop_origins
        for rec in records:
            n = len(rec)
            if drop and n > 5 and rec[5] in drop:
                if tally is not None:
                    tally[(rec[1], *POPULATED_REASON)] += 1
                continue
            p = rec[3] if n > 3 else None
            got = why(rec[0], rec[1], rec[2], p)
            if tally is not None:
                tally[(rec[1], *(got or KEPT))] += 1
            if got is None:
                yield rec


def plausible_only(threshold: float = PLAUSIBLE, *, include_populated: bool = False) -> EdgeFilter:
    """Labelled triples below ``threshold`` are dropped, unlabelled ones kept; ``none`` tails never
    become edges; populated candidates (:data:`POPULATED`) only with ``include_populated``."""

    def why(head: str, relation: str, tail: str, p: float | None) -> tuple[str, str] | None:
        if p is not None and p < threshold:
            return IMPLAUSIBLE
        return NONE_TAIL if is_none(tail) else None

    return _origins(EdgeFilter(f"plausible>={threshold:g}", why), include_populated)


def all_triples(*, include_populated: bool = False) -> EdgeFilter:
    """Every triple, implausible ones too (the researcher asked for it); ``none`` tails still out."""
    return _origins(EdgeFilter("all", lambda h, r, t, p: NONE_TAIL if is_none(t) else None), include_populated)


def _origins(f: EdgeFilter, include_populated: bool) -> EdgeFilter:
    if include_populated:
        return f
    return EdgeFilter(f"{f.name}+kb-only", f.why, POPULATED)


def edge_filter(include_implausible: bool, include_populated: bool = False) -> EdgeFilter:
    if include_implausible:
        return all_triples(include_populated=include_populated)
    return plausible_only(include_populated=include_populated)
