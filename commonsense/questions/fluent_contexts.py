"""Fluent contexts (COM2 §3.3, issue 11 item 5): a generative model rewrites a question's two
anchor events into a short narrative with COM2's Table 6 instructions, marking the events with
``<E1></E1>`` and ``<E2></E2>``; an answer of ``NA`` (the events make no sense together) drops
the item, as the paper filters them. The rule-based context stays in the question's metadata.

COM2 gives prompts for 2i, ip and pi (two anchors) and for 2i-neg (our ``2in``, event 2 negated);
other kinds (one anchor, or 3i's three) keep their rule-based context. The paper's six annotated
exemplars are not published: :data:`EXEMPLARS` are cocoweb's own, written for this prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from commonsense.scoring.types import Backend, Message

from .record import BuiltQuestion

PROMPT_VERSION = "com2-table6-v1"
# COM2 Table 6, verbatim (typos included).
INSTRUCTIONS = (
    "Given two events, come up with concise and necessary context to make the a coherent and understandable "
    "narrative. No more than 2 additional piece of context should be added. If the one of the given events itself "
    "is ambiguous and hardly make sense even with extra context, return NA. If the two events are totally "
    "irrelevant even with additional context, then simply return NA. If the given two events can be directly "
    "composed to a narrative with simple a discourse connective without additional context, then there's not need "
    "to add additional context.\nMark the location of both events with <E1></E1> for event 1 and <E2></E2> for "
    "event 2 in the generated narrative."
)
INSTRUCTIONS_NEG = (
    "Given two events, create a cohesive narrative by incorporating event 1 (E1) and negated event 2 (E2) to make "
    "the a coherent and understandable narrative. No more than 2 additional piece of context should be added. If "
    "the one of the given events itself is ambiguous and hardly make sense even with extra context, return NA. If "
    "the two events are totally irrelevant even with additional context, then simply return NA. If the given two "
    "events can be directly composed to a narrative with simple a discourse connective without additional context, "
    "then there's not need to add additional context.\nMark the location of both events with <E1></E1> for event 1 "
    "and <E2></E2> for event 2 in the generated narrative.\nDon't explain the reasons why E2 didn't happen!!\n"
    'Remember that negating an event means stating that it did not occur. For instance, if event 2 is "PersonX '
    'goes shopping," the negated form would be "PersonX didn\'t go shopping".'
)
TWO_ANCHOR_KINDS = ("2i", "ip", "pi")
NEGATED_KINDS = ("2in",)
# cocoweb's exemplars (the paper's six are not published): (event 1, event 2, narrative or NA).
EXEMPLARS: tuple[tuple[str, str, str], ...] = (
    ("Liam plays the piano", "the sky be purple", "NA"),
    (
        "Emma gets a new job",
        "Emma buys a car",
        "<E1>Emma got a new job</E1> across town, so <E2>she bought a car</E2> to get there.",
    ),
    (
        "Mia studies all night",
        "Mia passes the exam",
        "<E1>Mia studied all night</E1>, and the next morning <E2>she passed the exam</E2>.",
    ),
)
EXEMPLARS_NEG: tuple[tuple[str, str, str], ...] = (
    (
        "Noah goes to the beach",
        "Noah swims",
        "<E1>Noah went to the beach</E1>, but the water was cold and <E2>he didn't swim</E2>.",
    ),
)
_SPAN = re.compile(r"</?E[12]>")
_NA = re.compile(r"^\W*N/?A\b", re.IGNORECASE)


def _event_message(e1: str, e2: str) -> str:
    return f"Event 1: {e1}\nEvent 2: {e2}"


def prompt(kind: str, e1: str, e2: str) -> list[Message]:
    """The chat conversation for one item: instructions, exemplars as turns, then the events."""
    neg = kind in NEGATED_KINDS
    msgs: list[Message] = [{"role": "system", "content": INSTRUCTIONS_NEG if neg else INSTRUCTIONS}]
    for a, b, out in EXEMPLARS_NEG if neg else EXEMPLARS:
        msgs.append({"role": "user", "content": _event_message(a, b)})
        msgs.append({"role": "assistant", "content": out})
    msgs.append({"role": "user", "content": _event_message(e1, e2)})
    return msgs


@dataclass(frozen=True)
class Reading:
    """What one model answer says: ``status`` ``ok`` (both events marked; ``context`` is the
    narrative without the marks), ``na`` (the model says not answerable), ``unmarked`` (no
    usable narrative) or ``unfaithful`` (marked, but not about the given events): with the last
    two the rule-based context is kept."""

    status: str
    context: str = ""


_WORD = re.compile(r"[A-Za-z']+")
_EXEMPLAR_NAMES = frozenset(
    w for a, b, _ in EXEMPLARS + EXEMPLARS_NEG for w in _WORD.findall(f"{a} {b}") if w[:1].isupper()
)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text) if len(w) > 3}


def read_answer(text: str, e1: str = "", e2: str = "") -> Reading:
    """Read one answer. Given the events, a narrative is ``unfaithful`` (the rule-based context is
    kept) when a marked span shares no word of four letters or more with its event, or when it
    names a person from the exemplars who is not in the events (a small model copying them)."""
    body = (text or "").strip().split("\n\n", 1)[0].strip()
    if not body or _NA.match(body):
        return Reading("na" if body else "unmarked")
    spans = {k: re.search(rf"<{k}>(.*?)</{k}>", body, re.S) for k in ("E1", "E2")}
    if not all(spans.values()):
        return Reading("unmarked")
    context = " ".join(_SPAN.sub("", body).split())
    if e1 or e2:
        for k, event in (("E1", e1), ("E2", e2)):
            m = spans[k]
            if m is not None and not _words(m.group(1)) & _words(event):
                return Reading("unfaithful", context)
        events = set(_WORD.findall(f"{e1} {e2}"))
        if any(w in _EXEMPLAR_NAMES and w not in events for w in _WORD.findall(context)):
            return Reading("unfaithful", context)
    return Reading("ok", context)


@dataclass
class FluentContexts:
    """The builders' hook: a generative backend that rewrites contexts (greedy, so reproducible
    for a given model). ``counts`` says what happened to the items of the last call."""

    backend: Backend
    model: str = ""
    max_new_tokens: int = 96
    batch_size: int = 8
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "generate" not in self.backend.capabilities:
            raise ValueError(f"backend {self.backend.name} cannot generate text")
        if not self.model:
            d = getattr(self.backend, "describe", None)
            self.model = str((d() if callable(d) else {}).get("model", self.backend.name))

    def rewrite(self, questions: Sequence[BuiltQuestion]) -> list[BuiltQuestion]:
        """The questions to keep: NA items dropped, the others with the model's context where it
        gave a marked narrative. Each keeps ``metadata["fluent"]`` (rule-based context, raw answer,
        status)."""
        todo = [q for q in questions if q.kind in TWO_ANCHOR_KINDS + NEGATED_KINDS and len(q.anchors) == 2]
        answers: dict[str, str] = {}
        for i in range(0, len(todo), self.batch_size):
            chunk = todo[i : i + self.batch_size]
            gens = self.backend.generate(
                [prompt(q.kind, q.anchors[0], q.anchors[1]) for q in chunk], max_new_tokens=self.max_new_tokens
            )
            answers.update((q.id, g.text) for q, g in zip(chunk, gens, strict=True))
        self.counts = {"ok": 0, "na": 0, "unmarked": 0, "unfaithful": 0, "no_prompt": 0}
        kept: list[BuiltQuestion] = []
        for q in questions:
            if q.id not in answers:
                self.counts["no_prompt"] += 1
                kept.append(q)
                continue
            r = read_answer(answers[q.id], q.anchors[0], q.anchors[1])
            self.counts[r.status] += 1
            if r.status == "na":
                continue
            q.metadata["fluent"] = {"rule_context": q.context, "answer": answers[q.id], "status": r.status}
            if r.status == "ok":
                q.context = r.context
            kept.append(q)
        return kept

    def as_params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "prompt_version": PROMPT_VERSION,
            "max_new_tokens": self.max_new_tokens,
            "counts": dict(self.counts),
        }
