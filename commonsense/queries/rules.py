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
    """May ``inner``'s tail be the head of ``outer``? Relations outside the table compose freely
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

    name: str = "com2-examples-v2"

    def composes(self, inner: str, outer: str) -> bool:
        return composes(inner, outer)

    def intersectable(self, rels: Iterable[str]) -> bool:
        rs = list(rels)
        return all(intersectable(rs[0], r) for r in rs[1:]) and same_question(rs)

    def head_ok(self, head: str, relation: str) -> bool:
        return head_names_subject(head, relation)


DEFAULT_RULES = CompositionRules()
