"""Composition rules: which hops may be chained or intersected so that the question can be asked.

Read blind, 77 of 240 default-built items were nonsense questions such as "What event or state is
what Alexis feels after what Noah feels after Alexis meets a friend?": a feeling used as the event
of another feeling, and a person who appears nowhere in the context. The papers' worked examples
(COM2 Appendix D and its 8-shot exemplars, CoCo Figures 1/8 and Table 12) only chain and intersect
hops that keep one protagonist and one kind of answer:

* 2p / 3p / ip / pi (a tail used as the head of the next hop): xEffect∘xEffect, xNeed∘xNeed,
  xIntent∘xIntent (COM2 D, exemplars), xEffect then xWant (CoCo Fig. 1), xEffect then xAttr (pi),
  xNeed / xAttr then xEffect (ip), xWant then xNeed (ip). Written as :data:`COMPOSES`: the tail of
  an *action* of PersonX (effect, want, intent, need) or of an event relation can be the head of any
  PersonX or event relation; a *feeling* (xReact) only of what PersonX then wants or does; an
  *attribute* (xAttr) only of what PersonX then does or wants; the tails of PersonY's relations
  (oEffect, oReact, oWant) are about someone else and are never heads (the next hop's "PersonX"
  would be a different person).
* 2i / 3i / 2in (one answer satisfying every branch): the branches' relations answer the same kind
  of thing (:data:`ANSWER_CLASS`): actions and events (COM2's common-effect, common-cause, "script"
  xWant + xNeed, abduction xWant + xIntent, xEffect/xNeed + HinderedBy), or feelings of the same
  person, or attributes. "What Nathan feels after A and also what Nathan needed to do before B"
  has no answer a reader can defend.
* Of those chains, the default rules leave out :data:`NONSENSE_COMPOSITIONS` (v3): pairs that
  read blind had no defensible answer far more often than the average item (an effect of an
  effect, anything after an attribute, what PersonX wants / the effect after "what happens before
  / after"). :data:`PAPER_RULES` keeps every chain of the papers.
* Every hop's head names the person its prompt asks about: an x-relation ("what PersonX feels
  after …") needs PersonX in the head, an o-relation ("the effect on PersonY after …") needs PersonY
  there (else the question asks about someone the context never mentions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

X_ACTIONS = frozenset({"xEffect", "xWant", "xIntent", "xNeed"})
EVENTS = frozenset({"isAfter", "isBefore", "HinderedBy", "Causes", "HasSubEvent", "xReason"})
X_RELATIONS = X_ACTIONS | {"xReact", "xAttr"}
O_RELATIONS = frozenset({"oEffect", "oReact", "oWant"})

# inner relation -> outer relations whose head may be the inner relation's tail
COMPOSES: dict[str, frozenset[str]] = {
    # v2: only the chains of the papers' worked examples (and a feeling after an effect), where v1
    # let any action feed any PersonX relation. Read blind, "what Aria needed to do before what
    # happens before Aria does much better?" and "what Jesse wants to do after the intention of
    # Jesse before …" had no defensible answer (CSKB 2p: 0 of 40 sound under v1).
    "xEffect": frozenset({"xEffect", "xWant", "xAttr", "xReact"}),
    "xNeed": frozenset({"xNeed", "xEffect"}),
    "xIntent": frozenset({"xIntent"}),
    "xWant": frozenset({"xNeed"}),
    **{r: frozenset({r, "xEffect", "xReact", "xWant"}) for r in EVENTS},
    "xReact": frozenset({"xWant", "xEffect"}),
    "xAttr": frozenset({"xWant", "xEffect"}),
    "oEffect": frozenset(),
    "oReact": frozenset(),
    "oWant": frozenset(),
}

# (inner, outer) pairs of COMPOSES that the default rules leave out: read blind, the chained question
# had no answer a reader could defend ("the effect on Ian after the effect on Ian after Ian always
# wins?", "what Erica wants to do after what happens before Erica finally gets around?"). Evidence:
# perf/soundness_compositions.py over the 1,205 items of perf/soundness/ (r6, r7, ab13, ab13b; all
# built under com2-examples-v2, one reader each); sound / read, 95 % Wilson interval, "no defensible
# answer" among the unsound; the average judged item is 44.6 % sound, every 2p item 29.6 % (61 / 206).
# A pair is listed when its interval lies wholly below the average item; isAfter and isBefore ("what
# happens after / before …") are pooled. PAPER_RULES keeps them (COM2 Appendix D chains xEffect∘xEffect).
NONSENSE_COMPOSITIONS: frozenset[tuple[str, str]] = frozenset(
    {
        # 9 / 47 sound (19 %, [10, 33]), 19 distinct chains, 25 no defensible answer: the paper's own
        # example, but an effect of an effect is mostly unguessable from five options
        ("xEffect", "xEffect"),
        # 0 / 6 ([0, 39]), 5 no defensible answer: "what Derek wants to do after what Derek is seen as
        # given Derek makes contact?"
        ("xAttr", "xWant"),
        # 0 / 5 ([0, 43]), 5 no defensible answer: "the effect on Austin after what Austin is seen as given …"
        ("xAttr", "xEffect"),
        # 0 / 5 ([0, 43]), 3 no defensible answer: "what Cameron needed to do before what Cameron wants to
        # do after Cameron invites Amy?"
        ("xWant", "xNeed"),
        # event -> xEffect / xWant pooled: 1 / 12 sound ([1, 35]), 5 distinct chains, 10 no defensible
        # answer: "the effect on Brian after what happens before Brian is quite surprised?"
        # (isAfter -> xEffect 0 / 3, isAfter -> xWant 0 / 3, isBefore -> xEffect 0 / 1, isBefore -> xWant 1 / 5)
        ("isAfter", "xEffect"),
        ("isAfter", "xWant"),
        ("isBefore", "xEffect"),
        ("isBefore", "xWant"),
    }
)
# Kept though weak (interval reaches the average item): xEffect -> xAttr 2 / 10, xReact -> xWant 4 / 14,
# xNeed -> xNeed 9 / 27, xEffect -> xWant 5 / 15, xNeed -> xEffect 5 / 14; the best are xEffect -> xReact
# 15 / 30 and isBefore -> xReact 6 / 7.

# relation -> the kind of answer its tails are; intersected branches must agree
ANSWER_CLASS: dict[str, str] = {
    **{r: "action" for r in X_ACTIONS | EVENTS},
    "xReact": "feeling of PersonX",
    "xAttr": "attribute of PersonX",
    "oEffect": "action of PersonY",
    "oWant": "action of PersonY",
    "oReact": "feeling of PersonY",
}

_HAS_X = re.compile(r"\bPersonX\b")
_HAS_Y = re.compile(r"\bPersonY\b")


def composes(inner: str, outer: str) -> bool:
    """May ``inner``'s tail be the head of ``outer`` in the papers' examples (:data:`COMPOSES`;
    ``DEFAULT_RULES.composes`` also leaves out :data:`NONSENSE_COMPOSITIONS`)? Relations outside the table compose freely
    (physical or CSKB "general" relations are not in COM2's set; a --relations choice of them is
    the researcher's)."""
    allowed = COMPOSES.get(inner)
    return True if allowed is None else outer in allowed


def intersectable(a: str, b: str) -> bool:
    ca, cb = ANSWER_CLASS.get(a), ANSWER_CLASS.get(b)
    return ca is None or cb is None or ca == cb


def head_names_subject(head: str, relation: str) -> bool:
    """The head mentions the person the relation's prompt asks about."""
    if relation in X_RELATIONS:
        return bool(_HAS_X.search(head))
    if relation in O_RELATIONS:
        return bool(_HAS_Y.search(head))
    return True


# Intersections of different relations that COM2 asks (its worked examples): common effect ("what
# happens after A and the effect of B"), common cause, the script (what PersonX wants after A and
# needed before B) and abduction (wants after A, intended before B). Read blind, other mixes ("the
# effect on Denise after A and also the intention of Denise before B") had no defensible answer.
MIXED_INTERSECTIONS = frozenset(
    frozenset(p)
    for p in (
        ("xEffect", "isAfter"),
        ("xEffect", "Causes"),
        ("xNeed", "isBefore"),
        ("xWant", "xNeed"),
        ("xWant", "xIntent"),
    )
)


def same_question(rels: Iterable[str]) -> bool:
    """Do intersected branches ask one question: one relation, a COM2 pair, or a negated HinderedBy
    branch (2in) beside an action?"""
    rs = {r for r in rels if r != "HinderedBy"}
    return len(rs) <= 1 or frozenset(rs) in MIXED_INTERSECTIONS


@dataclass(frozen=True)
class CompositionRules:
    """The rules as the sampler applies them (relation names in, booleans out). ``name`` goes
    into the set's parameters."""

    name: str = "com2-examples-v3"
    # (inner, outer) pairs of COMPOSES not chained: by default the ones read as nonsense
    excluded: frozenset[tuple[str, str]] = NONSENSE_COMPOSITIONS

    def composes(self, inner: str, outer: str) -> bool:
        return composes(inner, outer) and (inner, outer) not in self.excluded

    def intersectable(self, rels: Iterable[str]) -> bool:
        rs = list(rels)
        return all(intersectable(rs[0], r) for r in rs[1:]) and same_question(rs)

    def head_ok(self, head: str, relation: str) -> bool:
        return head_names_subject(head, relation)


DEFAULT_RULES = CompositionRules()
# the papers' worked examples as they are (v2): every pair of COMPOSES, NONSENSE_COMPOSITIONS included;
# pass it as ``rules=`` (sample_questions, QuerySampler, coco.application) to build as the papers do
PAPER_RULES = CompositionRules(name="com2-examples-v2", excluded=frozenset())
