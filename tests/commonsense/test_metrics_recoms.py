"""ReComSBench: MSG golden values from Table 6, K_prior selection with a deterministic embedding,
KCR, and the Easy/Hard sliding windows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from commonsense.metrics import (
    ReasoningPath,
    easy_hard,
    knowledge_coverage_ratio,
    knowledge_redundancy_ratio,
    marginal_sampling_gain,
    pass_at_k,
    sampling_budget,
    select_prior_knowledge,
    sliding_windows,
)

# Table 6: pass@1..5 and MSG2..5 (%), per (dataset, model).
TABLE6: dict[tuple[str, str], tuple[tuple[float, ...], tuple[float, ...]]] = {
    ("CSQA", "llama2"): ((52.8, 66.2, 72.7, 77.4, 80.4), (13.4, 6.5, 4.7, 3.0)),
    ("CSQA", "llama3.1"): ((71.0, 80.4, 84.4, 86.8, 88.7), (9.4, 4.0, 2.4, 1.9)),
    ("CSQA", "gemma"): ((65.4, 70.8, 73.9, 75.8, 76.7), (5.4, 3.1, 1.9, 0.9)),
    ("CSQA", "gemma2"): ((75.4, 81.2, 84.2, 85.3, 86.4), (5.8, 3.0, 1.1, 1.1)),
    ("OBQA", "llama2"): ((53.4, 64.6, 72.6, 76.8, 79.2), (11.2, 8.0, 4.2, 2.4)),
    ("OBQA", "llama3.1"): ((79.8, 88.4, 91.8, 94.6, 95.2), (8.6, 3.4, 2.8, 0.6)),
    ("OBQA", "gemma"): ((61.6, 68.0, 71.8, 74.0, 77.4), (6.4, 3.8, 2.2, 3.4)),
    ("OBQA", "gemma2"): ((80.0, 87.8, 90.4, 91.8, 92.6), (7.8, 2.6, 1.4, 0.8)),
    ("ARC", "llama2"): ((50.2, 62.2, 71.5, 76.6, 82.6), (12.0, 9.3, 5.1, 6.0)),
    ("ARC", "llama3.1"): ((82.9, 90.6, 93.0, 94.3, 95.0), (7.7, 2.4, 1.3, 0.7)),
    ("ARC", "gemma"): ((65.9, 72.6, 74.2, 75.9, 77.9), (6.7, 1.6, 1.7, 2.0)),
    ("ARC", "gemma2"): ((83.6, 90.0, 93.0, 94.0, 95.0), (6.4, 3.0, 1.0, 1.0)),
    ("QASC", "llama2"): ((43.1, 55.7, 62.4, 66.5, 70.8), (12.6, 6.7, 4.1, 4.3)),
    ("QASC", "llama3.1"): ((69.9, 84.6, 89.1, 91.4, 92.4), (14.7, 4.5, 2.3, 1.0)),
    ("QASC", "gemma"): ((61.4, 67.6, 71.0, 72.7, 74.3), (6.2, 3.4, 1.7, 1.6)),
    ("QASC", "gemma2"): ((66.8, 76.7, 81.6, 83.2, 84.6), (9.9, 4.9, 1.6, 1.4)),
}
TABLE6_SUM = {("CSQA", "llama2"): 27.6, ("OBQA", "llama3.1"): 15.4, ("ARC", "llama2"): 32.4, ("QASC", "gemma2"): 17.8}


def _sample_matrix(pass_k: Sequence[float], n: int = 1000) -> np.ndarray:
    """A question × sample correctness matrix whose pass@K is the table's: questions first solved
    at sample k are right from k on (and wrong before); the rest are never solved."""
    first = np.diff(np.round(np.asarray([0.0, *pass_k]) / 100 * n)).astype(int)
    rows = []
    for k, count in enumerate(first):
        rows += [[False] * k + [True] * (len(pass_k) - k)] * count
    rows += [[False] * len(pass_k)] * (n - sum(first))
    return np.asarray(rows, dtype=bool)


@pytest.mark.parametrize("key", sorted(TABLE6))
def test_msg_reproduces_table6(key: tuple[str, str]) -> None:
    pass_k, msg = TABLE6[key]
    c = _sample_matrix(pass_k)
    got_pass = 100 * pass_at_k(c)
    assert got_pass == pytest.approx(pass_k, abs=1e-9)
    gains = marginal_sampling_gain(got_pass)
    assert list(gains) == [2, 3, 4, 5]
    for k, want in zip(gains, msg, strict=True):
        assert gains[k] == pytest.approx(want, abs=0.1 + 1e-9), f"{key} MSG({k})"
    if key in TABLE6_SUM:
        assert sum(gains.values()) == pytest.approx(TABLE6_SUM[key], abs=1e-9)


def test_pass_at_k_counts_any_of_the_first_k_samples() -> None:
    c = [[False, True, False], [True, False, False], [False, False, False], [False, False, True]]
    assert pass_at_k(c).tolist() == pytest.approx([0.25, 0.5, 0.75])
    assert marginal_sampling_gain([0.5, 0.6, 0.605]) == pytest.approx({2: 0.1, 3: 0.005})
    assert sampling_budget([0.5, 0.6, 0.605], tau=0.01) == 3
    assert sampling_budget([0.5, 0.6, 0.7], tau=0.01) == 3  # never below tau: the last K


# A deterministic "embedding": bag of words, one dimension per word seen, so cosine is known.
VOCAB: dict[str, int] = {}


def embed(texts: Sequence[str]) -> np.ndarray:
    out = np.zeros((len(texts), 64))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, VOCAB.setdefault(w, len(VOCAB))] += 1
    return out


def test_prior_knowledge_from_the_smallest_correct_path() -> None:
    question = [("dog", "is", "animal")]
    paths = [
        ReasoningPath(False, (("dog", "lives", "house"),)),  # wrong: ignored even though smallest
        ReasoningPath(True, (("dog", "is", "animal"), ("animal", "needs", "food"), ("food", "in", "bowl"))),
        ReasoningPath(True, (("dog", "is", "animal"), ("animals", "need", "water"), ("dog", "is", "animal"))),
    ]
    pk = select_prior_knowledge(paths, question, embed, threshold=0.75)
    # Path 2 deduplicates to 2 triples (< 3 of path 1); minus the question's triple -> 1.
    assert pk.path_index == 2
    assert pk.k_prior == [("animals", "need", "water")]
    assert pk.difficulty == 1
    none = select_prior_knowledge([ReasoningPath(False, ())], question, embed)
    assert none.path_index is None
    assert none.difficulty is None


def test_minimise_new_knowledge_variant() -> None:
    question = [("a", "b", "c")]
    paths = [ReasoningPath(True, (("a", "b", "c"), ("a", "b", "c d"))), ReasoningPath(True, (("x", "y", "z"),))]
    # cos("a b c", "a b c d") = 3/sqrt(12) = 0.866 -> duplicates: path 0 has |K| = 1 and K_new = 0;
    # path 1 has |K| = 1 and K_new = 1. Eq. 1 ties on |K| -> the first path; "new" prefers path 0 too.
    assert select_prior_knowledge(paths, question, embed).path_index == 0
    assert select_prior_knowledge(paths, question, embed, minimise="new").difficulty == 0
    # At a stricter threshold the two triples of path 0 are distinct: |K| = 2 > 1, so Eq. 1 picks path 1.
    strict = select_prior_knowledge(paths, question, embed, threshold=0.9)
    assert strict.path_index == 1
    assert strict.k_prior == [("x", "y", "z")]
    assert select_prior_knowledge(paths, question, embed, threshold=0.9, minimise="new").path_index == 0


def test_coverage_and_redundancy() -> None:
    prior = [("animal", "needs", "food"), ("food", "in", "bowl")]
    path = [("animal", "needs", "food"), ("sky", "is", "blue"), ("grass", "is", "green")]
    assert knowledge_coverage_ratio(path, prior, embed) == pytest.approx(0.5)
    assert knowledge_redundancy_ratio(path, prior, embed) == pytest.approx(1.0)
    assert knowledge_coverage_ratio(path, [], embed) is None


def test_sliding_windows_easy_to_hard() -> None:
    d = [3, 0, 1, 2, 5, 4, 1, 0, 2]
    c = [0, 1, 1, 1, 0, 0, 1, 1, 0]
    ws = sliding_windows(d, c)  # N = 9: window 3, step 1 -> 7 windows
    assert len(ws) == 7
    assert (ws[0].start, ws[-1].stop) == (0, 9)
    assert ws[0].accuracy == pytest.approx(1.0)
    assert ws[0].mean_difficulty == pytest.approx(1 / 3)
    eh = easy_hard(d, c)
    assert eh is not None
    assert eh.easy == 1.0
    assert eh.hard == 0.0
    assert eh.delta == 1.0
    assert len(sliding_windows(list(range(10)), [1] * 10)) == 7  # always the paper's seven windows
    with pytest.raises(ValueError):
        sliding_windows([1, np.nan], [1, 0])
