"""CoCo construction details (issue 28 item 6): comprehension heads in Eq. 9's order (A2.2 step 1)
with at least 3 valid conceptualisations, and the option-level check of application items."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from commonsense.io.abstract import AbstractRecord
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.questions.coco import comprehension, one_right_option
from commonsense.questions.diverse import EmbeddingCache, vote_k_scored
from commonsense.questions.record import BuiltQuestion


def _q(options: list[str], answers: list[str]) -> BuiltQuestion:
    return BuiltQuestion(id="q", kind="2p", context="", question="?", options=options, answer_index=0, answers=answers)


def test_option_level_check() -> None:
    assert one_right_option(_q(["PersonX eats", "PersonX runs", "PersonX naps"], ["PersonX eats", "PersonX hums"]))
    assert not one_right_option(_q(["PersonX eats", "PersonX hums", "PersonX naps"], ["PersonX eats", "PersonX hums"]))
    assert not one_right_option(_q(["PersonX runs", "PersonX naps"], ["PersonX eats"]))
    assert one_right_option(_q(["personx Eats", "PersonX runs"], ["PersonX eats"]))  # case does not hide a second


def _graph() -> GraphIndex:
    rows = []
    for i, verb in enumerate(["bakes bread", "paints a fence", "fixes a bike", "sings a song", "plants a tree"]):
        rows += [(f"PersonX {verb}", "xEffect", t) for t in ("gets tired", "feels proud", "gets paid", "is happy")]
        rows += [(f"PersonX {verb}", "xWant", f"to rest {i}")]
    return GraphIndex.build(rows, IndexOptions(normalize=False))


def _abstract(n_per_head: dict[str, int]) -> list[AbstractRecord]:
    out = []
    for head, n in n_per_head.items():
        out += [AbstractRecord(head, "work", f"PersonX does work {head[-4:]} {k}", k) for k in range(n)]
    return out


def test_heads_need_three_valid_and_follow_eq9(tmp_path: Path) -> None:
    idx = _graph()
    heads = {
        "PersonX bakes bread": 3,
        "PersonX paints a fence": 2,
        "PersonX fixes a bike": 4,
        "PersonX sings a song": 3,
    }
    built = comprehension(idx, _abstract(heads), 5, min_valid=3)
    groups = {q.metadata["original_head"] for q in built if "original_head" in q.metadata}
    assert "PersonX paints a fence" not in groups
    assert len(groups) == 3
    # every kept set has exactly 3 conceptualisation questions (Eq. 5's m)
    for g in {q.group for q in built}:
        assert sum(q.role.startswith("conceptualization_") for q in built if q.group == g) == 3

    # Eq. 9 with k = 1 on hand-placed embeddings (worked in the comment): picks 1, 2, 3, 0, 4 — not
    # the file's order. NN: 0->1, 1->2, 2->1, 3->2, 4->3; first 1 and 2 (two voters each, the lower
    # index on the tie), then 3 (voter 4 undiscounted), then 0 and 4 (no voters).
    names = ["PersonX bakes bread", "PersonX fixes a bike", "PersonX sings a song", "PersonX plants a tree"]
    heads5 = {names[0]: 3, names[1]: 4, names[2]: 3, names[3]: 3, "PersonX paints a fence": 2}
    pts = [[1, 0], [0.99, 0.1], [0.98, 0.2], [0, 1], [-1, 0]]
    vec = dict(zip(heads5, np.asarray(pts, dtype=float), strict=True))
    cache = EmbeddingCache(tmp_path, lambda texts: np.stack([vec[t] for t in texts]))
    picks, _ = vote_k_scored(cache.get(list(heads5)), 5, k=1)
    assert picks == [1, 2, 3, 0, 4]
    ordered = comprehension(idx, _abstract(heads5), 5, min_valid=3, diverse_cache=cache, k=1)
    seen: list[str] = []
    for q in ordered:
        h = q.metadata.get("original_head")
        if h and h not in seen:
            seen.append(h)
    assert seen == [names[1], names[2], names[3], names[0]]  # the 2-concept head is not kept
    ranks = {q.metadata["original_head"]: q.metadata["eq9_rank"] for q in ordered if "original_head" in q.metadata}
    assert ranks == {names[1]: 0, names[2]: 1, names[3]: 2, names[0]: 3}
