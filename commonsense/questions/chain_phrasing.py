"""Readable two-hop (2p) questions (issue 27 item 5): the hidden middle step told in the context,
one question about it.

COM2 and CoCo verbalise 2p by stacking the two relation prompts ("What event or state is what
PersonX wants to do after the effect on PersonX after PersonX starts working again?", CoCo Table
12, COM2 Appendix D). Read by the annotators of the session-18 loop, 17 of 19 such CSKB items were
"not well formed", and none was verified. The papers' own 2p has one context event (the anchor) and
one question; here the context tells, after the anchor, that a middle step exists without naming it,
and the question asks the outer relation of that step:

    step:    "Stephanie starts working again. This has an effect on Stephanie."
             "What does Stephanie want to do after that effect?"

The reasoning stays two hops (the reader must still infer the middle step). ``named`` names the
middle event instead (the chain's own middle node), which leaves one hop to infer:

    named:   "Stephanie starts working again. As a result, Stephanie earns money."
             "What does Stephanie want to do after Stephanie earns money?"

``stacked`` is the papers' wording (:func:`commonsense.questions.verbalize.question`). A pair of
relations without a step sentence (the o-relations, which the composition rules never chain)
keeps the stacked wording. Texts use the PersonX / PersonY placeholders; names are drawn after.
"""

from __future__ import annotations

from collections.abc import Callable

from ..queries.sampling import QAnchor, QProj, Query
from . import verbalize

CHAIN_PHRASINGS: tuple[str, ...] = ("step", "named", "stacked")
DEFAULT_CHAIN_PHRASING = "step"

# inner relation -> (the sentence that tells a middle step exists, how the question refers to it)
STEPS: dict[str, tuple[str, str]] = {
    "xEffect": ("This has an effect on PersonX.", "that effect"),
    "xNeed": ("Before this, PersonX needed to do something.", "that"),
    "xIntent": ("PersonX has an intention in doing this.", "that intention"),
    "xWant": ("After this, PersonX wants to do something.", "doing that"),
    "xReact": ("This makes PersonX feel a certain way.", "feeling that way"),
    "xAttr": ("For this, PersonX is seen as a certain kind of person.", "being seen that way"),
    "isAfter": ("Something happened before this.", "that"),
    "isBefore": ("Something happens after this.", "that"),
    "Causes": ("This causes something.", "that"),
}

# inner relation -> the sentence that names the middle event (``named``)
NAMED: dict[str, str] = {
    "xEffect": "As a result, {}.",
    "xNeed": "Before this, {}.",
    "xIntent": "With this, {}.",
    "xWant": "After this, {}.",
    "xReact": "As a result, {}.",
    "xAttr": "So {}.",
    "isAfter": "Before this, {}.",
    "isBefore": "After this, {}.",
    "Causes": "As a result, {}.",
}

# outer relation -> the question about the step ("{}": the step's reference); the subject of each is
# PersonX or an event, never PersonY (o-relations are never the outer hop of a chained PersonX step)
QUESTIONS: dict[str, str] = {
    "xWant": "What does PersonX want to do after {}?",
    "xReact": "What does PersonX feel after {}?",
    "xAttr": "What is PersonX seen as after {}?",
    "xEffect": "What is the effect on PersonX after {}?",
    "xNeed": "What did PersonX need to do before {}?",
    "xIntent": "What was the intention of PersonX behind {}?",
    "isAfter": "What happened before {}?",
    "isBefore": "What happens after {}?",
}

Text = Callable[[int], str]
RelName = Callable[[int], str]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _sentence(s: str) -> str:
    s = s.strip()
    return _cap(s) + ("" if s.endswith((".", "!", "?")) else ".")


def two_hop(query: Query, text: Text, rel: RelName, phrasing: str = DEFAULT_CHAIN_PHRASING) -> tuple[str, str] | None:
    """(context, question) of a 2p query in ``phrasing``, or None to keep the stacked wording (another
    kind, ``stacked``, or a pair of relations without a step sentence)."""
    if phrasing not in CHAIN_PHRASINGS:
        raise ValueError(f"unknown chain phrasing {phrasing!r}; choose one of {', '.join(CHAIN_PHRASINGS)}")
    root = query.root
    if phrasing == "stacked" or query.kind != "2p":
        return None
    if not (isinstance(root, QProj) and isinstance(root.child, QProj) and isinstance(root.child.child, QAnchor)):
        return None
    inner, outer = rel(root.child.rel), rel(root.rel)
    if inner not in STEPS or outer not in QUESTIONS:
        return None
    anchor = _sentence(text(root.child.child.node))
    if phrasing == "named":
        middle = text(root.child.target)
        return f"{anchor} {NAMED[inner].format(middle)}", verbalize.one_hop_question(outer, middle)
    sentence, ref = STEPS[inner]
    return f"{anchor} {sentence}", QUESTIONS[outer].format(ref)


# words after which "not" goes (a copula or a modal keeps its verb: "is not", "cannot")
_KEEP_VERB = frozenset({"is", "are", "am", "was", "were"})
_NEGATIVE = frozenset({"not", "n't", "never", "no", "cannot", "nobody", "nothing"})


def negated(text: str) -> str | None:
    """A present-tense event of a person, negated as COM2's 2i-neg prompt asks ("PersonX goes
    shopping" -> "PersonX does not go shopping", "PersonX is at school" -> "PersonX is not at
    school", "PersonX can swim" -> "PersonX cannot swim"); None where the text is no person's plain
    event or is negative already (the caller keeps "it did not happen that ...")."""
    from .fluent import _adverb  # the fluent text's own pre-verbal adverbs ("finally gets up")
    from .lemma_tables import verb_lemma
    from .lexicon import MODALS, PEOPLE_SLOT, PERSON_SLOT

    toks = text.split()
    if len(toks) < 2 or not (PERSON_SLOT.match(toks[0]) or PEOPLE_SLOT.match(toks[0])):
        return None
    if any(t.lower() in _NEGATIVE for t in toks):
        return None
    k = 1
    while k < len(toks) - 1 and _adverb(toks[k]):
        k += 1
    verb = toks[k].lower()
    subject, adverbs, rest = toks[0], toks[1:k], toks[k + 1 :]
    if verb in _KEEP_VERB:
        return " ".join([subject, *adverbs, toks[k], "not", *rest])
    if verb == "can":
        return " ".join([subject, *adverbs, "cannot", *rest])
    if verb in MODALS:
        return " ".join([subject, *adverbs, toks[k], "not", *rest])
    if verb in ("has", "have"):
        if rest and (rest[0].lower().endswith("ed") or rest[0].lower() in ("been", "had", "done", "gone")):
            return None  # a perfect ("has finished"): no plain negation by "does not"
        return " ".join([subject, "does not", *adverbs, "have", *rest])
    if not verb.endswith("s") or verb in ("does", "did", "had"):
        return None  # no present-tense verb of the third person
    lemma = verb_lemma(verb)
    if lemma is None or lemma == verb:
        return None
    return " ".join([subject, "does not", *adverbs, lemma, *rest])
