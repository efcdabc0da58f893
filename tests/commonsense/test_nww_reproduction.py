"""Must reproduce (issue 5): replaying the 35 models' binary answers in the statements slice gives
each model's consensus, awareness and commonsensicality within 3 points of NWW Table C.1.

The published Table C.1 numbers below are transcribed from the spec (shared/spec/
seeds-rica-nguyen-recoms.md §2.10); they are computed on the full 4,407-statement corpus, our slice
holds 3,026 of them. Print the comparison table (docs/reproduction.md) with
``.venv/bin/python -m tests.commonsense.test_nww_reproduction``.
"""

from __future__ import annotations

import numpy as np
import pytest

from commonsense.io.statements import read_statements_csv
from commonsense.metrics import RespondentScores, respondent_scores
from tests.conftest import shared_file

CSV = "commonsense_statements/statements_human_and_model_binary.csv"
TOLERANCE = 3.0  # points

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
# The CSV's column prefixes are the table's names except where listed here.
CSV_TO_TABLE: dict[str, str] = {}


def replay_scores(n_boot: int = 0) -> tuple[int, dict[str, RespondentScores]]:
    records = list(read_statements_csv(shared_file(CSV)))
    majority = np.asarray([np.nan if r.human_majority is None else r.human_majority for r in records], dtype=float)
    models = sorted({m for r in records for m in r.model_answers})
    out = {}
    for model in models:
        qa = np.asarray([r.model_answers.get(model, {}).get("q1", np.nan) for r in records], dtype=float)
        qb = np.asarray([r.model_answers.get(model, {}).get("q2", np.nan) for r in records], dtype=float)
        out[CSV_TO_TABLE.get(model, model)] = respondent_scores(qa, qb, majority, n_boot=n_boot, seed=0)
    return len(records), out


@pytest.fixture(scope="module")
def replayed() -> tuple[int, dict[str, RespondentScores]]:
    return replay_scores()


def test_slice_holds_all_35_models(replayed: tuple[int, dict[str, RespondentScores]]) -> None:
    n, scores = replayed
    assert n == 3026
    assert set(scores) == set(TABLE_C1)


@pytest.mark.parametrize("model", sorted(TABLE_C1))
def test_model_within_three_points_of_table_c1(model: str, replayed: tuple[int, dict[str, RespondentScores]]) -> None:
    _, scores = replayed
    s = scores[model]
    assert s.consensus.n == s.awareness.n == 3026
    ours = [100 * float(e.value) for e in (s.consensus, s.awareness, s.commonsensicality)]  # type: ignore[arg-type]
    for name, got, want in zip(("consensus", "awareness", "commonsensicality"), ours, TABLE_C1[model], strict=True):
        assert abs(got - want) <= TOLERANCE, f"{model} {name}: ours {got:.1f}, Table C.1 {want:.1f}"


def markdown() -> str:
    n, scores = replay_scores(n_boot=1000)
    lines = [
        f"Replayed on {n} statements (the developer slice of the 4,407); Table C.1 is the full corpus.",
        "95% bootstrap CI (1,000 resamples of statements, seed 0) for M.",
        "",
        "| Model | C ours | C paper | A ours | A paper | M ours | M paper | M 95% CI | max abs diff |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model in sorted(TABLE_C1, key=lambda m: -TABLE_C1[m][2]):
        s = scores[model]
        ours = [100 * float(e.value) for e in (s.consensus, s.awareness, s.commonsensicality)]  # type: ignore[arg-type]
        paper = TABLE_C1[model]
        diff = max(abs(a - b) for a, b in zip(ours, paper, strict=True))
        lo, hi = 100 * float(s.commonsensicality.low or 0), 100 * float(s.commonsensicality.high or 0)
        lines.append(
            f"| {model} | {ours[0]:.1f} | {paper[0]:.1f} | {ours[1]:.1f} | {paper[1]:.1f} | {ours[2]:.1f} "
            f"| {paper[2]:.1f} | [{lo:.1f}, {hi:.1f}] | {diff:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
