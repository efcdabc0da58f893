"""The oracle of the NWW reproduction tests, written once: Table C.1 of Nguyen, Watts & Whiting,
transcribed from the spec (shared/spec/seeds-rica-nguyen-recoms.md §2.10), computed on the full
4,407-statement corpus. Read by tests/commonsense/test_nww_reproduction.py (the metrics on the
CSV's binary answers) and tests/runs/test_replay_paper.py (the same answers replayed through real
runs)."""

from __future__ import annotations

# Table C.1: model -> (consensus C, awareness A, commonsensicality M), in %.
TABLE_C1: dict[str, tuple[float, float, float]] = {
    "Claude 3 Haiku": (58.8, 64.1, 61.4),
    "Claude 3 Sonnet": (60.9, 62.2, 61.5),
    "Claude 3 Opus": (73.4, 77.4, 75.4),
    "DBRX": (73.7, 79.0, 76.3),
    "Falcon-7B": (66.6, 66.1, 66.3),
    "Falcon-40B": (73.0, 77.2, 75.1),
    "Falcon-180B": (78.6, 81.3, 79.9),
    "Flan-T5-Small": (34.4, 33.9, 34.2),
    "Flan-T5-Base": (56.8, 59.5, 58.1),
    "Flan-T5-Large": (77.3, 76.5, 76.9),
    "Flan-T5-XL": (73.3, 72.7, 73.0),
    "Flan-T5-XXL": (79.9, 80.9, 80.4),
    "Gemma-2B": (65.2, 66.6, 65.9),
    "Gemma-7B": (73.2, 70.9, 72.0),
    "Gemini Pro 1.0": (78.4, 81.1, 79.7),
    "GPT-3.5": (78.3, 75.4, 76.8),
    "GPT-4-0125": (77.6, 79.2, 78.4),
    "GPT-4-0409": (78.0, 83.3, 80.6),
    "GPT-4o": (72.5, 77.9, 75.2),
    "GPT-5": (71.9, 79.6, 75.7),
    "LLaMA-2-7B": (74.0, 76.0, 75.0),
    "LLaMA-2-13B": (48.5, 44.5, 46.5),
    "LLaMA-2-70B": (65.7, 61.4, 63.5),
    "LLaMA-3-8B": (57.2, 66.5, 61.7),
    "LLaMA-3-70B": (72.0, 76.8, 74.4),
    "Mistral-7B": (80.2, 80.7, 80.4),
    "Mixtral-8x7B": (77.8, 75.0, 76.4),
    "Mixtral-8x22B": (80.7, 84.0, 82.3),
    "Mistral-Large": (80.4, 82.2, 81.3),
    "OLMo-7B": (74.3, 71.0, 72.7),
    "Qwen2-0.5B": (67.1, 66.5, 66.8),
    "Qwen2-1.5B": (75.4, 73.8, 74.6),
    "Qwen2-7B": (79.7, 81.1, 80.4),
    "Qwen2-57B": (80.4, 81.4, 80.9),
    "Qwen2-72B": (80.5, 81.8, 81.1),
}
