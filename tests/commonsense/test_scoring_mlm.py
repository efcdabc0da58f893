"""RICA masked-word prediction with a tiny BERT built from a config (locally trained WordPiece
tokenizer): the scores are the candidates' log-probabilities at the mask, computed by hand with the
model beside the scorer."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonsense.scoring.types import Item

torch = pytest.importorskip("torch")
tiny_bert = pytest.importorskip("tests.commonsense.tiny_bert")


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_bert.build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


def test_mask_filled_with_each_candidate_by_hand(bert_dir: Path) -> None:
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from commonsense.scoring.mlm import MaskedLMScorer

    s = MaskedLMScorer(bert_dir)
    text = "axih is smaller than exdvxr, so axih is [MASK] to put into a box than exdvxr"
    item = Item(id="1", question=text, options=("easier", "harder"))
    (res,) = s.score_batch([item])
    tok = AutoTokenizer.from_pretrained(str(bert_dir))
    model = AutoModelForMaskedLM.from_pretrained(str(bert_dir)).eval()
    want = []
    for word in item.options:
        pieces = tok(word, add_special_tokens=False).input_ids
        masked = text.replace("[MASK]", " ".join(["[MASK]"] * len(pieces)))
        enc = tok(masked, return_tensors="pt")
        with torch.no_grad():
            logp = torch.log_softmax(model(**enc).logits[0], dim=-1)
        pos = (enc.input_ids[0] == tok.mask_token_id).nonzero().flatten().tolist()
        want.append(sum(float(logp[p, t]) for p, t in zip(pos, pieces, strict=True)))
    assert res.scores == pytest.approx(want, abs=1e-4)
    assert res.chosen == (0 if want[0] >= want[1] else 1)
    # a batch gives the same scores as one item at a time (padding is masked out)
    longer = Item(id="2", question="a b [MASK] c d e f g h i j k l m n o p", options=("more", "less"))
    both = s.score_batch([item, longer])
    assert both[0].scores == pytest.approx(res.scores, abs=1e-4)
    assert s.describe()["method"] == "rica-mlm"


def test_bad_input_is_refused(bert_dir: Path, tmp_path: Path) -> None:
    from commonsense.scoring.mlm import MaskedLMScorer

    with pytest.raises(ValueError, match="no config.json"):
        MaskedLMScorer(tmp_path)
    with pytest.raises(ValueError, match="needs \\[MASK\\]"):
        MaskedLMScorer(bert_dir).score_batch([Item(id="x", question="no mask here", options=("a", "b"))])
