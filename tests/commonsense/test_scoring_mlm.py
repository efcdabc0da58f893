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


# --- RoBERTa: byte-level BPE ("Ġ" word pieces), <mask>, <s> … </s> ---------------------------------

tiny_roberta = pytest.importorskip("tests.commonsense.tiny_roberta")


@pytest.fixture(scope="module")
def roberta_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_roberta.build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"))


def _roberta_by_hand(folder: Path, pre: str, post: str, word: str) -> tuple[float, list[str]]:
    """log P(word at the masks) with the model, the input built token by token from the vocabulary:
    <s> pre <mask>×k post </s>, the word's pieces as the tokenizer splits ' word'."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForMaskedLM.from_pretrained(str(folder)).eval()
    pieces = tok.tokenize((" " if pre else "") + word)
    ids = [tok.convert_tokens_to_ids("<s>")]
    ids += tok.convert_tokens_to_ids(tok.tokenize(pre)) if pre else []
    ids += [tok.convert_tokens_to_ids("<mask>")] * len(pieces)
    ids += tok.convert_tokens_to_ids(tok.tokenize(post))
    ids += [tok.convert_tokens_to_ids("</s>")]
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], dim=-1)
    start = 1 + (len(tok.tokenize(pre)) if pre else 0)
    score = sum(float(logp[start + i, t]) for i, t in enumerate(tok.convert_tokens_to_ids(pieces)))
    return score, tok.convert_ids_to_tokens(ids)


def test_roberta_mask_filled_with_each_candidate_by_hand(roberta_dir: Path) -> None:
    from commonsense.scoring.mlm import MaskedLMScorer

    s = MaskedLMScorer(roberta_dir)
    assert s.tok.mask_token == "<mask>"
    assert s.describe()["architecture"] == "RobertaForMaskedLM"
    pre, post = "axih is smaller than exdvxr, so axih is", " to put into a box than exdvxr"
    # 'exdvxrly' is three pieces (Ġexdvxr l y): three masks in a row
    item = Item(id="1", question=f"{pre} [MASK]{post}", options=("easier", "harder", "exdvxrly"))
    (res,) = s.score_batch([item])
    want = []
    for word in item.options:
        score, tokens = _roberta_by_hand(roberta_dir, pre, post, word)
        want.append(score)
        assert "Ġ" not in tokens  # no bare space token before a mask
    assert res.scores == pytest.approx(want, abs=1e-4)
    assert res.chosen == max(range(3), key=lambda i: want[i])
    ids, positions, cand = s.encode(item.question, "easier")
    assert s.tok.convert_ids_to_tokens(cand) == ["Ġeasier"]
    assert [s.tok.convert_ids_to_tokens(ids)[p] for p in positions] == ["<mask>"]
    assert s.tok.convert_ids_to_tokens(ids)[0] == "<s>"
    assert s.tok.convert_ids_to_tokens(ids)[-1] == "</s>"
    assert len(s.encode(item.question, "exdvxrly")[1]) == 3
    # the mask first in the sentence: the candidate without a leading space (no "Ġ")
    (first,) = s.score_batch([Item(id="2", question="[MASK] is smaller than exdvxr", options=("axih", "exdvxr"))])
    assert first.scores == pytest.approx(
        [_roberta_by_hand(roberta_dir, "", " is smaller than exdvxr", w)[0] for w in ("axih", "exdvxr")], abs=1e-4
    )
    # batched with a longer probe (padding with <pad>, attention masked) the scores do not move
    longer = Item(
        id="3",
        question="a ball is round and a box is square, so a ball is [MASK] to roll",
        options=("easier", "harder"),
    )
    assert s.score_batch([item, longer])[0].scores == pytest.approx(res.scores, abs=1e-4)
