"""The printed numbers of NWW's Table C.1 (per model: consensus C, awareness A, commonsensicality M
in %, size in billions, LMArena Elo, OpenBookQA accuracy) and the families of Eq. 19's size model:
the paper's side of every comparison in docs/papers.md and perf/RESULTS.md, and golden test data.
Model names are the column names of the public ``all_models_binarythresh.csv``."""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    model: str
    C: float
    A: float
    M: float
    size: float | None  # billions of parameters; None = not disclosed
    elo: int | None
    obqa: float | None


TABLE_C1 = (
    Row("Claude 3 Haiku", 58.8, 64.1, 61.4, None, 1262, 85.4),
    Row("Claude 3 Sonnet", 60.9, 62.2, 61.5, None, 1282, 91.8),
    Row("Claude 3 Opus", 73.4, 77.4, 75.4, None, 1322, 95.6),
    Row("DBRX", 73.7, 79.0, 76.3, 132, 1198, 91.0),
    Row("Falcon-7B", 66.6, 66.1, 66.3, 7, None, 26.0),
    Row("Falcon-40B", 73.0, 77.2, 75.1, 40, None, 66.2),
    Row("Falcon-180B", 78.6, 81.3, 79.9, 180, 1148, None),
    Row("Flan-T5-Small", 34.4, 33.9, 34.2, 0.08, None, None),
    Row("Flan-T5-Base", 56.8, 59.5, 58.1, 0.25, None, None),
    Row("Flan-T5-Large", 77.3, 76.5, 76.9, 0.78, None, None),
    Row("Flan-T5-XL", 73.3, 72.7, 73.0, 3, None, None),
    Row("Flan-T5-XXL", 79.9, 80.9, 80.4, 11, None, None),
    Row("Gemma-2B", 65.2, 66.6, 65.9, 2, 1093, None),
    Row("Gemma-7B", 73.2, 70.9, 72.0, 7, 1136, 80.8),
    Row("Gemini Pro 1.0", 78.4, 81.1, 79.7, None, 1221, 78.8),
    Row("GPT-3.5", 78.3, 75.4, 76.8, 175, 1224, 83.8),
    Row("GPT-4-0125", 77.6, 79.2, 78.4, None, 1314, None),
    Row("GPT-4-0409", 78.0, 83.3, 80.6, None, 1324, 97.0),
    Row("GPT-4o", 72.5, 77.9, 75.2, None, 1441, 96.6),
    Row("GPT-5", 71.9, 79.6, 75.7, None, 1461, None),
    Row("LLaMA-2-7B", 74.0, 76.0, 75.0, 7, 1113, 54.4),
    Row("LLaMA-2-13B", 48.5, 44.5, 46.5, 13, 1147, 63.4),
    Row("LLaMA-2-70B", 65.7, 61.4, 63.5, 70, 1175, 83.8),
    Row("LLaMA-3-8B", 57.2, 66.5, 61.7, 8, 1225, 76.6),
    Row("LLaMA-3-70B", 72.0, 76.8, 74.4, 70, 1276, 93.4),
    Row("Mistral-7B", 80.2, 80.7, 80.4, 7, 1155, 77.6),
    Row("Mixtral-8x7B", 77.8, 75.0, 76.4, 47, 1201, 86.8),
    Row("Mixtral-8x22B", 80.7, 84.0, 82.3, 141, 1232, 88.2),
    Row("Mistral-Large", 80.4, 82.2, 81.3, None, 1244, 89.4),
    Row("OLMo-7B", 74.3, 71.0, 72.7, 7, 1080, 22.2),
    Row("Qwen2-0.5B", 67.1, 66.5, 66.8, 0.5, None, None),
    Row("Qwen2-1.5B", 75.4, 73.8, 74.6, 1.5, None, None),
    Row("Qwen2-7B", 79.7, 81.1, 80.4, 7, None, None),
    Row("Qwen2-57B", 80.4, 81.4, 80.9, 57, None, None),
    Row("Qwen2-72B", 80.5, 81.8, 81.1, 72, 1264, 95.4),
)

# Eq. 19: 23 open models of 6 families (LLaMA-2 and -3 one family; Mistral without Mistral-Large).
SIZE_FAMILIES = {
    **{m: "Falcon" for m in ("Falcon-7B", "Falcon-40B", "Falcon-180B")},
    **{m: "Flan-T5" for m in ("Flan-T5-Small", "Flan-T5-Base", "Flan-T5-Large", "Flan-T5-XL", "Flan-T5-XXL")},
    **{m: "Gemma" for m in ("Gemma-2B", "Gemma-7B")},
    **{m: "LLaMA" for m in ("LLaMA-2-7B", "LLaMA-2-13B", "LLaMA-2-70B", "LLaMA-3-8B", "LLaMA-3-70B")},
    **{m: "Mistral" for m in ("Mistral-7B", "Mixtral-8x7B", "Mixtral-8x22B")},
    **{m: "Qwen2" for m in ("Qwen2-0.5B", "Qwen2-1.5B", "Qwen2-7B", "Qwen2-57B", "Qwen2-72B")},
}

# The paper's results the regressions are compared with (main text and SI).
PAPER = {
    "size_slope": (8.6, 3.4, 13.4, 0.002),  # β per 10× size, 95 % CI, p (Fig. 2C)
    "elo_r": (0.22, -0.21, 0.57, 0.31),  # r(22), 95 % CI, p (Fig. 2D)
    "ensemble_r2": 0.36,  # 35 models, 50-fold CV (Fig. 4C)
    "best_single_r2": 0.17,  # Falcon-180B and Flan-T5-XXL (Fig. 4B)
    "best_mae": ("Flan-T5-XXL", 21.41),  # Fig. D.1
    "worst_mae": ("Falcon-40B", 52.69),
}
