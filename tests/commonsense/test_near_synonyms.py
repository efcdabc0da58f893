"""The near-synonym guard on hard negatives (issue 25, after the first blind reading): a negative
whose predicate means what an answer's does ("devious" / "mischievous") is refused and redrawn,
and counted in the build report."""

from __future__ import annotations

import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.questions.com2 import BuildParams, BuildReport, build_com2
from commonsense.questions.synonyms import NEAR_SYNONYM, predicate, wordnet_related
from commonsense.questions.wordnet_adj import load


@pytest.mark.parametrize(
    ("text", "pred"),
    [
        ("PersonX is very happy", "happy"),
        ("Holly is devious", "devious"),
        ("PersonX feels sad", "sad"),
        ("Noah yells at William", "yells at William"),
        ("PersonX", "PersonX"),
    ],
)
def test_the_predicate_is_what_the_text_says_of_its_subject(text: str, pred: str) -> None:
    assert predicate(text) == pred


@pytest.mark.skipif(load() is None, reason="WordNet (Debian's wordnet-base) is not installed")
def test_wordnet_relates_adjectives_of_one_cluster_only() -> None:
    assert wordnet_related("mean", "hateful")
    assert wordnet_related("happy", "good")
    assert not wordnet_related("happy", "tired")
    assert not wordnet_related("yells at", "mean")


def _graph() -> GraphIndex:
    """Two events whose common feeling (the gold) is "mischievous"; one branch alone also gives
    "devious" (a near-synonym: the planted fault) and "sleepy" (a fair hard negative)."""
    rows = [
        ("PersonX hides the keys", "xAttr", "mischievous"),
        ("PersonX hides the keys", "xAttr", "devious"),
        ("PersonX hides the keys", "xAttr", "sleepy"),
        ("PersonX plays a prank", "xAttr", "mischievous"),
        ("PersonX plays a prank", "xAttr", "funny"),
    ]
    rows += [(f"PersonX does chore {i}", "xAttr", w) for i, w in enumerate("tidy calm tall loud punctual".split())]
    return GraphIndex.build(rows, IndexOptions(normalize=True))


@pytest.mark.slow  # all-MiniLM-L6-v2 on CPU
def test_a_near_synonym_of_the_answer_is_never_offered_and_the_refusals_are_counted() -> None:
    idx = _graph()
    offered_without = 0
    report = BuildReport()
    for seed in range(8):
        p = BuildParams(kind="2i", count=1, seed=seed, relations=["xAttr"], person_names=False)
        for q in build_com2(idx, p, report=report):
            assert q.answers == ["PersonX is mischievous"]
            assert "PersonX is devious" not in q.options, q.options
        loose = build_com2(idx, BuildParams(**{**p.__dict__, "near_synonym": None}))
        offered_without += bool(loose) and "PersonX is devious" in loose[0].options
    assert offered_without > 0  # the planted synonym is a candidate when the guard is off
    assert report.distractors_rejected[NEAR_SYNONYM] >= 1
    assert report.as_dict()["distractors_rejected"][NEAR_SYNONYM] == report.distractors_rejected[NEAR_SYNONYM]
    assert BuildParams(kind="2i", count=1, seed=0).as_dict()["near_synonym"] == 0.5
    assert BuildParams(kind="2i", count=1, seed=0, near_duplicate=None).as_dict()["near_synonym"] is None
