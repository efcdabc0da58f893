"""COM2 generative metrics: hand-computed small cases and agreement with the reference libraries
(rouge-score, sacrebleu, pycocoevalcap, bert-score) on hand-made pairs. COM2's Table 3 values need
the authors' generations, which are not published: these pairs stand in for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonsense.metrics import generation as G

CANDS = ["he goes to the store", "personx feels happy", "to buy some food", ""]
REFS = [
    ["he walks to the store", "he buys food"],
    ["personx is happy", "glad", "personx feels relieved"],
    ["to eat", "buy food"],
    ["anything"],
]


def test_rouge_l_by_hand_and_against_rouge_score() -> None:
    from rouge_score import rouge_scorer

    # LCS("the cat sat", "the cat sat on the mat") = 3: P = 1, R = 1/2, F = 2/3; the best reference wins
    assert G.rouge_l(["the cat sat"], [["dog", "the cat sat on the mat"]]) == pytest.approx([2 / 3])
    sc = rouge_scorer.RougeScorer(["rougeL"])
    want = [max(sc.score(r, c)["rougeL"].fmeasure for r in rs) for c, rs in zip(CANDS[:3], REFS[:3], strict=True)]
    assert G.rouge_l(CANDS, REFS) == pytest.approx([*want, 0.0])


def test_bleu_2_by_hand_and_against_sacrebleu() -> None:
    from nltk.translate.bleu_score import corpus_bleu

    # "a b c d" vs "a b c e": p1 = 3/4, p2 = 2/3, BP = 1 -> sqrt(1/2)
    corpus, per = G.bleu_2(["a b c d"], [["a b c e"]])
    assert corpus == pytest.approx(0.5**0.5)
    assert per == pytest.approx([0.5**0.5])
    # a second implementation (NLTK, closest reference length, no smoothing) on the same pairs
    corpus, per = G.bleu_2(CANDS[:3], REFS[:3])
    want = corpus_bleu([[r.split() for r in rs] for rs in REFS[:3]], [c.split() for c in CANDS[:3]], weights=(0.5, 0.5))
    assert corpus == pytest.approx(want)
    assert G.bleu_2(CANDS, REFS)[1][3] == 0.0  # an empty generation


def test_cider_by_hand_and_against_pycocoevalcap() -> None:
    from pycocoevalcap.cider.cider import Cider

    # an exact match of 3 words: cosine 1 for n = 1..3, no 4-gram -> 10 · (1 + 1 + 1 + 0) / 4
    mean, per = G.cider(["a b c", "d e f"], [["a b c"], ["d e f"]])
    assert per == pytest.approx([7.5, 7.5])
    assert mean == pytest.approx(7.5)
    mean, per = G.cider(CANDS, REFS)
    gts = {i: [G.coco_tokens(x) for x in r] for i, r in enumerate(REFS)}
    ref_mean, ref_per = Cider().compute_score(gts, {i: [G.coco_tokens(c)] for i, c in enumerate(CANDS)})
    assert per[:3] == pytest.approx(list(ref_per[:3]))
    assert per[3] == 0.0
    assert G.coco_tokens("PersonX's dog, barks!") == "personx ' s dog , barks !"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.commonsense.tiny_bert import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_bertscore_against_bert_score_with_a_local_tiny_bert(tiny_bert: Path) -> None:
    import bert_score

    model = G.bertscore_model(tiny_bert)
    assert model.num_layers == 2
    got = G.bertscore_f1(CANDS, REFS, model)
    _p, _r, f1 = bert_score.score(CANDS[:3], REFS[:3], model_type=str(tiny_bert), num_layers=2, device="cpu")
    assert got[:3] == pytest.approx(f1.tolist(), abs=1e-6)
    assert got[3] == 0.0
    # identical texts match token for token: F1 = 1; the best of several references counts
    same = G.bertscore_f1(["a cat sat"], [["something else entirely", "a cat sat"]], model)
    assert same == pytest.approx([1.0], abs=1e-5)
    with pytest.raises(ValueError, match="no config.json"):
        G.bertscore_model(tiny_bert / "nope")


def test_generation_scores_and_bad_input(tiny_bert: Path) -> None:
    s = G.generation_scores(CANDS, REFS, bert=G.bertscore_model(tiny_bert))
    assert set(s.item(0)) == set(G.METRICS)
    assert s.bertscore_f1 is not None
    assert G.generation_scores(CANDS, REFS).bertscore_f1 is None
    with pytest.raises(ValueError, match="item 1: no reference answer"):
        G.generation_scores(["a", "b"], [["x"], ["", " "]])
    with pytest.raises(ValueError, match="2 generations for 1 reference"):
        G.rouge_l(["a", "b"], [["x"]])
