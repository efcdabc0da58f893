"""Model side of cocoweb: backends behind one Protocol, scoring methods, answer extraction.

Import-light: torch, transformers, httpx and sentence-transformers load inside the clients.
Entry points: :func:`build_scorer`, :class:`Item`, :class:`ItemResult`, ``Scorer.score_batch``.
"""

from .factory import BACKENDS, SCORINGS, build_backend, build_scorer, score_in_chunks, scorer_for
from .types import Backend, ContinuationScore, Generation, Item, ItemResult, LoglikRequest, Scorer, Unsupported

__all__ = [
    "BACKENDS",
    "SCORINGS",
    "Backend",
    "ContinuationScore",
    "Generation",
    "Item",
    "ItemResult",
    "LoglikRequest",
    "Scorer",
    "Unsupported",
    "build_backend",
    "build_scorer",
    "score_in_chunks",
    "scorer_for",
]
