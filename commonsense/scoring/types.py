"""Data passed into and out of the scorers, and the one Protocol every model backend implements.

The ``runs`` app builds :class:`Item` objects, calls ``scorer.score_batch(chunk)`` on chunks of
them and stores each :class:`ItemResult` before asking for the next chunk (so a run resumes by
skipping the ids already stored). Nothing here imports torch or an HTTP library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

LETTERS = "ABCDEFGHIJ"


class Message(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


# A prompt is raw text (completion-style) or a chat conversation (the backend applies its template).
Prompt = str | Sequence[Message]


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to score. ``question`` is the question stem (for ``yesno`` the statement, for
    ``rica`` the sentence with ``[MASK]``); ``fields`` holds optional prompt parts (e.g. ``head``,
    ``relation`` for COMET replay)."""

    id: str
    question: str
    options: tuple[str, ...] = ()
    context: str = ""
    fields: Mapping[str, str] = field(default_factory=dict)
    gold: int | None = None  # the correct option's index; read only by ReComSBench's rejection sampling


@dataclass(slots=True)
class ItemResult:
    """What a scorer says about one item.

    ``chosen`` is the index of the chosen option (``None``: no answer could be extracted);
    ``scores`` are per-option scores (log-likelihood sums for ``loglik``, probabilities for
    ``yesno``/``embedding``), ``norm_scores``/``chosen_norm`` the length-normalised variant
    (``acc_norm``) where the method has one. ``extra`` carries method-specific values, e.g. the
    second NWW question for ``yesno`` (``extra["q2"]``)."""

    item_id: str
    chosen: int | None
    scores: list[float] = field(default_factory=list)
    norm_scores: list[float] | None = None
    chosen_norm: int | None = None
    raw_output: str = ""
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class LoglikRequest:
    """Score each continuation given the context (lm-eval ``loglikelihood`` requests sharing one context)."""

    context: str
    continuations: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContinuationScore:
    logprob: float  # sum of the continuation tokens' log-probabilities
    n_tokens: int
    is_greedy: bool = False


@dataclass(slots=True)
class Generation:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


@runtime_checkable
class Backend(Protocol):
    """A language model. Methods a backend cannot provide raise :class:`Unsupported`;
    ``capabilities`` lists the ones it can (``loglik``, ``generate``, ``word_probs``)."""

    name: str
    capabilities: frozenset[str]

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> list[list[ContinuationScore]]: ...

    def generate(
        self, prompts: Sequence[Prompt], *, max_new_tokens: int = 32, temperature: float = 0.0, seed: int | None = None
    ) -> list[Generation]:
        """Greedy at ``temperature`` 0; above 0, sampled at that temperature (no top-k / top-p cut),
        reproducibly from ``seed`` where the backend allows (prompt i gets ``seed + i``)."""
        ...

    def word_probs(self, prompts: Sequence[Prompt], words: Sequence[str]) -> list[dict[str, float]]:
        """Next-token probability of each word, summed over its token variants (``Yes``, `` yes``,
        ``"yes`` …), plus ``"other"`` = 1 - the rest. Not renormalised."""
        ...


@runtime_checkable
class Scorer(Protocol):
    """Turns items into results. ``method`` names the scoring method, ``describe()`` gives the
    settings to store on the run (model, prompt version, dtype, seed …)."""

    method: str

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]: ...

    def describe(self) -> dict[str, Any]: ...


class Unsupported(NotImplementedError):
    """The backend cannot do what the scoring method needs (e.g. loglik over a chat-only API)."""
