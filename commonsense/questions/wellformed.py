"""Is a triple fit to be asked about? Its head is a readable event and its tail a readable answer
of the kind its relation's question asks for.

Read blind, default builds on CSKB-Population were 24 % sound: human label 1 says a triple is
plausible, not that its ASER text is a sentence, nor that the tail answers the relation's question.
"What Linda feels after Linda is a camper?" was answered by "Linda feeds up satisfied", "what Sara is
seen as given …" by "Sara does not answer", and distractors such as "Lillian perosny jump up from
coffee" or "it dons t amount to much" made whole items unsound. So a triple is an edge only when

* **both texts read as English** (:func:`unreadable`): every word is in lemminflect's English
  lexicon (the inflection library the display text already uses, its data in the wheel) or is a
  function word, a person placeholder or a name; no stray letters or split clitics ("dons t",
  "n'tneed"), no word twice in a row, no sentence that ends on a preposition, article or
  conjunction ("Linda knows that", "PersonX needs to"), a subject and a verb; no idiom of one's
  own with someone else's possessive and no clipped idiom that the display could not repair
  (:func:`commonsense.questions.fluent.idioms`: "someone loses PersonY's temper", "people get to
  foot");
* **both texts parse** (:mod:`.grammar`, Link Grammar with its English dictionary) with every word
  linked: a check of structure that the lexical one cannot make ("walks to room", "ends up go");
  where the parser is not installed the edge filter's name says ``unparsed``;
* **the tail answers its relation's question** (:func:`misfit`): a feeling (xReact, oReact) is the
  asked-about person *being* or *feeling* an adjective or a participle ("PersonX is relieved",
  "PersonY feels happy"), an attribute (xAttr) the person *being* an adjective; a want, an intent
  or a need (xWant, oWant, xIntent, xNeed) something the person does, not a state ("PersonX is
  happy" is no want); an effect or an event starts with a subject and a verb; the person the
  relation asks about is the tail's subject where the relation's template says so ("what PersonX
  feels": PersonX, "the effect on PersonY": PersonY); a tail that repeats its head is no answer.

The checks read the *display* text (:func:`commonsense.questions.fluent.display`: present tense, so
"PersonX be relieve" is judged as "PersonX is relieved"); the graph's own text stays in provenance.
They are deliberately strict: a dropped triple costs a question, a kept broken one costs the
benchmark's credibility. ``--include-malformed`` (``build_questions``, ``build_coco``, the build
forms) turns them off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from commonsense.kg.edges import EdgeFilter, edge_filter
from commonsense.kg.normalize import clean, normalize_tail

from . import grammar, repairs, wordnet_verbs
from .lexicon import (
    COPULAS,
    FUNCTION_WORDS,
    INTENSIFIERS,
    PERSON,
)
from .node_text import TextVerdict
from .text_rules import unreadable
from .words import (
    is_state,
    participle_only,
    tags,
    tokens,
)

WANT = re.compile(r"^(?:wants?|would like|hopes?|plans?|intends?|tries|try|decides?) to \w+")
NEED = re.compile(r"^(?:needs?|has|have|had) to \w+")

FEELINGS = frozenset({"xReact", "oReact"})
ATTRIBUTES = frozenset({"xAttr"})
WANTS = frozenset({"xWant", "oWant", "xIntent"})
# relations whose tail's subject must be the person the question names (the rest: any subject)
TAIL_SUBJECT = {"xReact": "PersonX", "xAttr": "PersonX", "xWant": "PersonX", "xIntent": "PersonX"}
TAIL_SUBJECT |= {"xNeed": "PersonX", "xEffect": "PersonX", "oReact": "PersonY", "oWant": "PersonY"}
TAIL_SUBJECT |= {"oEffect": "PersonY"}


def _rest_after(subject: str, toks: list[str]) -> list[str] | None:
    """The words after ``subject`` when the sentence starts with it, else None."""
    if toks and toks[0] == subject:
        return toks[1:]
    return None


@lru_cache(maxsize=1 << 20)
def misfit(relation: str, tail: str) -> str | None:
    """Why ``tail`` (display form) does not answer ``relation``'s question, or None. Relations
    without a rule (physical, CSKB "general …") always fit."""
    subject = TAIL_SUBJECT.get(relation)
    if subject is None and relation != "HinderedBy":
        return None
    toks = tokens(tail)
    if subject is not None:
        rest = _rest_after(subject, toks)
        if rest is None:
            return f"not about {subject}"
    else:  # HinderedBy: any subject, then a verb
        rest = toks[1:]
    if not rest:
        return "no predicate"
    joined = " ".join(rest)
    if relation in FEELINGS or relation in ATTRIBUTES:
        if rest[0].lower() not in (COPULAS if relation in FEELINGS else {"is", "are", "am"}):
            return "not a state (no copula)"
        words = rest[1:]
        while words and words[0].lower() in INTENSIFIERS:
            words = words[1:]
        if not words or not is_state(words[0]):
            return "not a feeling or attribute (no adjective)"
        if len(words) > 4:
            return "a state with a long tail"
        return None
    first = rest[0].lower()
    if relation in WANTS or relation == "xNeed":
        if WANT.match(joined) or NEED.match(joined):
            return None
        if first in COPULAS or first in ("was", "were", "'s", "n't"):
            return "a state, not something to do"
        if any(t.lower() in ("not", "n't", "never") for t in rest[:3]):
            return "a negation, not something to do"  # wants after getting dirty: "does not care"
        if first in ("has", "have", "had") and len(rest) > 1:
            nxt = rest[1].lower()
            if nxt in ("not", "never", "been", "already") or participle_only(nxt) or nxt.endswith("ed"):
                return "a perfect, not something to do"  # wants after a shower: "has not eaten"
        if first in ("can", "could", "may", "might", "will", "would", "should", "must") and relation != "xNeed":
            return "a modal, not something to do"  # "PersonX could taste everything"
    if first in ("n't", "'s"):
        return "no verb after the subject"
    if "VERB" not in tags(first) and first not in FUNCTION_WORDS:
        return "no verb after the subject"
    return None


def triple_reason(head: str, relation: str, tail: str) -> str | None:
    """Why the triple (display texts) is not fit to be asked about, or None."""
    why = unreadable(head)
    if why:
        return f"head: {why}"
    why = unreadable(tail)
    if why:
        return f"tail: {why}"
    if repeats(head, tail):
        return "tail repeats the head"
    why = misfit(relation, tail)
    return f"tail: {why}" if why else None


display_form = repairs.display_form  # a graph text as questions show it, which the checks read


def display_reason(head: str, relation: str, tail: str) -> str | None:
    """:func:`triple_reason` for the graph's own text (a record before the index is built). The
    head's and the tail's verdicts are cached apart: a graph repeats both far more than triples."""
    why = _head_reason(head)
    if why:
        return why
    shown_head, (shown_tail, why) = display_form(clean(head)), _tail_reason(relation, tail)
    if why:
        return why
    return "tail repeats the head" if repeats(shown_head, shown_tail) else None


def repeats(head: str, tail: str) -> bool:
    """The tail says nothing the head has not said: the same text, or every content word of the
    tail's predicate is in the head ("PersonX feels happy about something" -> "PersonX feels happy",
    "PersonX looks angry" -> "PersonX is angry"). Read blind, such golds copied the context."""
    if head == tail:
        return True
    content = _content_words(tail)
    return bool(content) and content <= _words(head)


@lru_cache(maxsize=1 << 20)
def _content_words(tail: str) -> frozenset[str]:
    """The content words of a tail's predicate (lower case), for :func:`repeats`."""
    words = [w.lower() for w in tokens(tail)[1:]]
    return frozenset(w for w in words if w not in FUNCTION_WORDS | COPULAS | INTENSIFIERS and not PERSON.match(w))


@lru_cache(maxsize=1 << 20)
def _words(head: str) -> frozenset[str]:
    return frozenset(w.lower() for w in tokens(head))


@lru_cache(maxsize=1 << 20)
def _head_reason(head: str) -> str | None:
    why = unreadable(display_form(clean(head)))
    return f"head: {why}" if why else None


@lru_cache(maxsize=1 << 20)
def _tail_reason(relation: str, tail: str) -> tuple[str, str | None]:
    shown = display_form(normalize_tail(relation, tail))
    why = unreadable(shown)
    if why:
        return shown, f"tail: {why}"
    why = misfit(relation, shown)
    return shown, f"tail: {why}" if why else None


READABLE = "readable"


@lru_cache(maxsize=1)
def rules_version() -> str:
    """Part of the edge filter's name, which keys the graph index cache: derived from the rules'
    source (:func:`commonsense.questions.text_rules.rules_version`), so an index built under other
    rules is never served from disk."""
    from .text_rules import rules_version as version

    return version()


# a node text -> its display and verdict, as stored (commonsense/questions/node_text.py); None: computed here
Texts = Callable[[str], TextVerdict]


def readable_reason(head: str, relation: str, tail: str, texts: Texts | None = None) -> tuple[str, str] | None:
    """:func:`display_reason` as a build funnel's (stage, reason): the reason's kind, not its words
    ("head unreadable", "tail unreadable", "tail does not answer the relation", "tail repeats the head").
    ``texts`` gives the stored display and verdict of a node text (the same as computing them)."""
    if texts is None:
        why = _head_reason(head)
        if why:
            return READABLE, "head unreadable"
        shown_tail, why = _tail_reason(relation, tail)
        if why:
            return READABLE, "tail unreadable" if unreadable(shown_tail) else "tail does not answer the relation"
        shown_head = display_form(clean(head))
    else:
        h = texts(clean(head))
        if h.rule:
            return READABLE, "head unreadable"
        t = texts(normalize_tail(relation, tail))
        if t.rule:
            return READABLE, "tail unreadable"
        shown_head, shown_tail = h.display, t.display
        if misfit(relation, shown_tail):
            return READABLE, "tail does not answer the relation"
    if repeats(shown_head, shown_tail):
        return READABLE, "tail repeats the head"
    return None


def well_formed(base: EdgeFilter, texts: Texts | None = None) -> EdgeFilter:
    """``base``, and only triples :func:`display_reason` finds nothing wrong with (reading the
    nodes' stored verdicts from ``texts`` when given)."""
    base_why = base.why

    def why(head: str, relation: str, tail: str, p: float | None) -> tuple[str, str] | None:
        return base_why(head, relation, tail, p) or readable_reason(head, relation, tail, texts)

    # the name keys the graph index cache and is stored with every set: it says whether the parse ran
    parsed = f"parsed:{grammar.version()}" if grammar.available() else "unparsed"
    # and whether WordNet's verb frames decided (needs-object-at-end): without them fewer texts are refused
    frames = "+verb-frames" if wordnet_verbs.load() is not None else "+no-verb-frames"
    return EdgeFilter(f"{base.name}+well-formed-{rules_version()}+{parsed}{frames}", why, base.drop_origins)


def prejudged(
    records: Callable[[], Iterable[tuple[str, ...]]], base: EdgeFilter, processes: int = 1, chunk: int = 1000
) -> dict[str, TextVerdict]:
    """The display and verdict of every node text the edge filter :func:`well_formed` over ``base``
    will ask for, computed before the index reads the records (``records()`` is read twice here)
    and in ``processes`` workers (:func:`commonsense.questions.node_text.judge_many`): the heads of
    the records ``base`` keeps, then the tails of those whose head reads as English, as the filter
    itself asks. Given as ``texts`` to :func:`build_edges`, the edges and reasons are the same."""
    from .node_text import judge_many

    def kept() -> Iterator[tuple[str, str, str]]:
        drop = base.drop_origins
        for rec in records():
            if drop and len(rec) > 5 and rec[5] in drop:
                continue
            if base.why(rec[0], rec[1], rec[2], rec[3] if len(rec) > 3 else None) is None:  # type: ignore[arg-type]
                yield rec[0], rec[1], rec[2]

    heads = sorted({clean(h) for h, _, _ in kept()})
    out = dict(judge_many(heads, processes, chunk))
    tails = sorted({normalize_tail(r, t) for h, r, t in kept() if out[clean(h)].readable} - out.keys())
    out.update(judge_many(tails, processes, chunk))
    return out


def build_edges(
    include_implausible: bool = False,
    include_malformed: bool = False,
    include_populated: bool = False,
    texts: Texts | None = None,
) -> EdgeFilter:
    """A build's edges: label-1 (or unlabelled) triples unless ``include_implausible``, well-formed
    ones unless ``include_malformed``, the knowledge base's own triples (not CSKB-Population's
    candidates mined from ASER, :data:`commonsense.kg.edges.POPULATED`) unless ``include_populated``.
    ``texts``: the graph's stored node texts (``knowledge.node_texts``), read instead of computed."""
    base = edge_filter(include_implausible, include_populated)
    return base if include_malformed else well_formed(base, texts)
