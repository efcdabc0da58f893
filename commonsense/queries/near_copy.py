"""Near-copy anchors (issue 26, session 20): an intersection whose events say the same thing twice.

Three fresh readers found loop20's "James grabs Danielle by hair and James grabs Danielle's hair" and
"Christina breaks the news to Allison, ... and Christina breaks the news" unsound (perf/RESULTS.md "The loop
a fifth time"): the question asks what holds given each event, and the events are one. Two anchors are
near-copies when the content words of one (lemmas, lower case; articles, prepositions, possessive
``'s``, pronouns and the subject placeholder left out) are all among the other's. A sampler with
composition rules (every quality build) refuses such a query (``QuerySampler.sample``: the failure
``NEAR_COPY``, which the build funnel's "queries" stage counts as "near-copy anchors").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from lemminflect import getAllLemmas

FUNCTION_WORDS = frozenset(
    "a an the to by of in on at for with from into onto up out off over about as and or "
    "his her their its my your our him them it this that these those personx ___ "
    "be is are was were am been being".split()
)


@lru_cache(maxsize=65536)
def _lemma(word: str) -> str:
    lemmas = getAllLemmas(word)
    for upos in ("VERB", "NOUN", "ADJ", "ADV"):
        if upos in lemmas:
            return str(lemmas[upos][0])
    return word


def content_words(text: str) -> frozenset[str]:
    """The content lemmas of an event's text ("PersonX grabs PersonY's hair" -> grab, persony, hair)."""
    low = re.sub(r"'s\b|’s\b", " ", text.lower())
    return frozenset(_lemma(w) for w in re.findall(r"[a-z_]+", low) if w not in FUNCTION_WORDS)


def near_copy_pair(texts: Sequence[str]) -> tuple[int, int] | None:
    """The first pair (i, j) of ``texts`` where one's content words are all among the other's; None
    when no two are near-copies."""
    words = [content_words(t) for t in texts]
    for i in range(len(words)):
        for j in range(i + 1, len(words)):
            a, b = words[i], words[j]
            if a and b and (a <= b or b <= a):
                return i, j
    return None
