"""Baselines without a language model: a seeded random chooser and the all-MiniLM-L6-v2
embedding baseline (the option closest to context + question)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .types import Item, ItemResult


class RandomScorer:
    """Uniform choice, seeded per item (``seed`` and the item id), so chunking and resuming do
    not change any answer. Two-option yes/no items also get a random ``q2`` answer."""

    method = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            rng = random.Random(f"{self.seed}:{it.id}")
            n = max(1, len(it.options))
            chosen = rng.randrange(n)
            scores = [1.0 / n] * n
            res = ItemResult(item_id=it.id, chosen=chosen, scores=scores)
            if it.options == ("no", "yes"):
                res.extra = {"q1": {"chosen": chosen}, "q2": {"chosen": rng.randrange(2)}}
            out.append(res)
        return out

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "backend": "random", "seed": self.seed}


class EmbeddingScorer:
    """Cosine similarity between the embedding of ``context + question`` and each option's;
    the closest option wins (ties to the lowest index)."""

    method = "embedding"

    def __init__(self, model_dir: str | Path | None = None, *, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        from .locate import minilm_dir

        self.model_dir = Path(model_dir) if model_dir else minilm_dir()
        self.model = SentenceTransformer(str(self.model_dir), device="cpu", local_files_only=True)
        self.batch_size = batch_size

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        if not items:
            return []
        queries = [f"{it.context} {it.question}".strip() for it in items]
        options = [o for it in items for o in it.options]
        t0 = time.perf_counter()
        q = self.model.encode(queries, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True)
        o = self.model.encode(options, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True)
        per_item = (time.perf_counter() - t0) / len(items)
        out, k = [], 0
        for i, it in enumerate(items):
            sims = [float(q[i] @ o[k + j]) for j in range(len(it.options))]
            k += len(it.options)
            best = max(range(len(sims)), key=lambda j: (sims[j], -j)) if sims else None
            out.append(ItemResult(item_id=it.id, chosen=best, scores=sims, latency_s=per_item))
        return out

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "backend": "embedding", "model": str(self.model_dir)}
