"""Near-synonyms of an answer (issue 25, after the first blind reading of COM2's hard negatives):
no distractor may say nearly what an answer says in other words.

Read blind (perf/soundness/ab16/mix, 101 items with hard negatives), 41 items were unsound because
"a distractor is also right", and the distractor was mostly a same-type tail that means what the
gold means: "Holly is devious" / "Holly is mischievous", "Joseph is mean" / "Joseph is cruel",
"Keith is competent" / "Keith is skillful", "Noah yells at William" / "Noah pushes William". The
whole-text MiniLM check (:mod:`.neardup`, cosine 0.9) misses them: the shared name and copula make
every pair of states look alike and no such pair reaches 0.9. This check compares the
*predicates*: the words after the person and the copula ("devious", "yells at William"), by

* all-MiniLM-L6-v2 cosine at or above ``threshold`` (default 0.5: on that reading it flagged a
  distractor in 20 of the 41 items, and in 9 of the 42 items read as sound), and
* WordNet 3.0 (Debian's ``wordnet-base``, :mod:`.wordnet_adj`, when installed): two one-word
  adjectives in one synset or one cluster (a satellite and its head, two satellites of one head:
  "mean" / "hateful", "happy" / "good").

Embeddings come from the build's :class:`~.neardup.NearDuplicates` (its memo and disk store).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .lexicon import COPULAS, INTENSIFIERS
from .neardup import NearDuplicates
from .wordnet_adj import AdjectiveLexicon, load
from .words import tokens

DEFAULT_SYNONYM_THRESHOLD = 0.5
NEAR_SYNONYM = "near-synonym of an answer"
_SKIP = COPULAS | INTENSIFIERS | {"also", "very"}


@lru_cache(maxsize=1 << 16)
def predicate(text: str) -> str:
    """What ``text`` says of its subject: the words after the first (the person) and any copula or
    intensifier ("PersonX is very happy" -> "happy", "PersonX yells at PersonY" -> "yells at
    PersonY"); the whole text when nothing is left."""
    words = tokens(text)[1:]
    while words and words[0].lower() in _SKIP:
        words = words[1:]
    return " ".join(words) or text


@lru_cache(maxsize=1)
def _lexicon() -> AdjectiveLexicon | None:
    return load()


@lru_cache(maxsize=1 << 16)
def _clusters(word: str) -> frozenset[str]:
    lex = _lexicon()
    if lex is None:
        return frozenset()
    out: set[str] = set()
    for off in lex.by_word.get(word.lower(), []):
        out.add(off)
        out.update(lex.synsets[off].heads)
    return frozenset(out)


def wordnet_related(a: str, b: str) -> bool:
    """Two one-word adjectives in one WordNet synset or cluster (False without WordNet)."""
    if " " in a or " " in b or a.lower() == b.lower():
        return a.lower() == b.lower()
    return bool(_clusters(a) & _clusters(b))


class NearSynonyms:
    """Why a candidate says nearly what an answer says (:data:`NEAR_SYNONYM`), or None."""

    def __init__(self, nd: NearDuplicates, threshold: float = DEFAULT_SYNONYM_THRESHOLD) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"near-synonym threshold must be in (0, 1], got {threshold}")
        self.nd = nd
        self.threshold = threshold

    def reason(self, candidate: str, answers: Sequence[str]) -> str | None:
        if not answers:
            return None
        mine = predicate(candidate)
        theirs = [predicate(a) for a in answers]
        if any(wordnet_related(mine, t) for t in theirs):
            return NEAR_SYNONYM
        vecs = self.nd.vectors([mine, *theirs])
        if float(np.max(vecs[1:] @ vecs[0])) >= self.threshold:
            return NEAR_SYNONYM
        return None

    def prefetch(self, texts: Sequence[str]) -> None:
        self.nd.vectors([predicate(t) for t in texts])
