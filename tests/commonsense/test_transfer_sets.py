"""COM2 Table 2's transfer sets (issue 28 item 3): readers of αNLI, PIQA, Social IQa and WinoGrande
in their official formats, on fixtures written by hand in those formats (transfer_fixtures/); each
refusal names the file, the line and the field; the Eq. 2 pseudo-loss scorer on a tiny BERT."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from commonsense.io import DataFormatError
from commonsense.io.questions import read_questions
from commonsense.io.transfer import LICENCES, TRANSFER_FORMATS, read_transfer
from commonsense.scoring.types import Item

HERE = Path(__file__).with_name("transfer_fixtures")
FILES = {
    "anli": "anli-dev.jsonl",
    "piqa": "piqa-valid.jsonl",
    "siqa": "siqa-dev.jsonl",
    "winogrande": "winogrande-dev.jsonl",
}


@pytest.mark.parametrize("fmt", TRANSFER_FORMATS)
def test_each_reader_makes_an_evaluable_set(fmt: str) -> None:
    recs = list(read_questions(HERE / FILES[fmt], fmt))
    assert len(recs) == 2
    assert all(r.structure == fmt for r in recs)
    assert [r.answer_index for r in recs] == ([0, 1])
    assert fmt in LICENCES
    n_opts = {"anli": 2, "piqa": 2, "siqa": 3, "winogrande": 2}[fmt]
    assert all(len(r.options) == n_opts and r.stem for r in recs)


def test_fields_land_where_a_scorer_reads_them() -> None:
    (a, _) = read_transfer(HERE / FILES["anli"], "anli")
    assert a.context == "Maya left her umbrella at home. … She arrived at work soaking wet."
    assert a.options[0] == "It rained on her walk to the office."
    assert a.external_id == "hand-1"
    (s, _) = read_transfer(HERE / FILES["siqa"], "siqa")
    assert s.context.startswith("Jordan held")
    assert s.stem == "How would the others feel as a result?"
    (w, _) = read_transfer(HERE / FILES["winogrande"], "winogrande")
    assert w.stem.count("_") == 1
    assert w.metadata["blank"] is True
    assert w.options == ["vase", "tiles"]


def test_no_labels_file_is_a_test_split(tmp_path: Path) -> None:
    shutil.copy(HERE / FILES["piqa"], tmp_path / "test.jsonl")
    assert [r.answer_index for r in read_transfer(tmp_path / "test.jsonl", "piqa")] == [None, None]


def _copy(tmp_path: Path, fmt: str, body: str, labels: str | None = None) -> Path:
    p = tmp_path / "dev.jsonl"
    p.write_text(body)
    if labels is not None:
        (tmp_path / "dev-labels.lst").write_text(labels)
    return p


def test_malformed_lines_are_refused_with_file_line_and_field(tmp_path: Path) -> None:
    good = (HERE / FILES["piqa"]).read_text().splitlines()
    p = _copy(tmp_path, "piqa", good[0] + "\n" + good[1].replace('"sol2"', '"solution2"') + "\n", "0\n1\n")
    with pytest.raises(DataFormatError, match=r"dev.jsonl, line 2, field 'sol2': missing or not a string") as e:
        list(read_transfer(p, "piqa"))
    assert (e.value.line, e.value.field) == (2, "sol2")
    p = _copy(tmp_path, "piqa", "\n".join(good) + "\n", "0\n7\n")
    with pytest.raises(DataFormatError, match=r"dev-labels.lst, line 2, field 'label': must be one of 0, 1"):
        list(read_transfer(p, "piqa"))
    p = _copy(tmp_path, "piqa", "\n".join(good) + "\n", "0\n")
    with pytest.raises(DataFormatError, match=r"dev-labels.lst, field 'label': has 1 labels, fewer"):
        list(read_transfer(p, "piqa"))
    p = _copy(tmp_path, "piqa", "\n".join(good) + "\n", "0\n1\n1\n")
    with pytest.raises(DataFormatError, match=r"dev-labels.lst, line 3, field 'label': 3 labels for 2 questions"):
        list(read_transfer(p, "piqa"))
    w = (HERE / FILES["winogrande"]).read_text().splitlines()
    p = _copy(tmp_path, "winogrande", w[0].replace('"answer": "1"', '"answer": "3"') + "\n")
    with pytest.raises(DataFormatError, match=r"line 1, field 'answer': must be '1' or '2'"):
        list(read_transfer(p, "winogrande"))
    p = _copy(tmp_path, "winogrande", w[0].replace("the _ was", "the was") + "\n")
    with pytest.raises(DataFormatError, match=r"line 1, field 'sentence': must hold exactly one blank"):
        list(read_transfer(p, "winogrande"))
    a = (HERE / FILES["anli"]).read_text().splitlines()
    p = _copy(tmp_path, "anli", a[0] + "\n{not json\n", "1\n2\n")
    with pytest.raises(DataFormatError, match=r"dev.jsonl, line 2"):
        list(read_transfer(p, "anli"))
    s = (HERE / FILES["siqa"]).read_text().splitlines()
    p = _copy(tmp_path, "siqa", s[0].replace('"answerC": "sleepy"', '"answerC": 3') + "\n", "1\n")
    with pytest.raises(DataFormatError, match=r"line 1, field 'answerC'"):
        list(read_transfer(p, "siqa"))


def test_pseudo_loss_is_eq2(tmp_path: Path) -> None:
    """S(T) = −(1/n) Σ log P(t_i | T without t_i): recomputed here token by token with the model."""
    tiny_bert = pytest.importorskip("tests.commonsense.tiny_bert")
    torch = pytest.importorskip("torch")
    from commonsense.scoring.mlm import PseudoLossScorer

    model = tiny_bert.build_tiny_bert(tmp_path / "bert")
    sc = PseudoLossScorer(model)
    item = Item(id="w", question="The vase broke because the _ was fragile.", options=("vase", "tiles"))
    ids, pos = sc.sequence(item, "vase")
    assert sc.tok.decode(ids[pos[0] : pos[-1] + 1]).replace(" ", "") == "thevasebrokebecausethevasewasfragile."
    want = 0.0
    for p in pos:
        x = list(ids)
        x[p] = sc.tok.mask_token_id
        with torch.no_grad():
            logp = torch.log_softmax(sc.model(input_ids=torch.tensor([x])).logits[0, p], -1)
        want -= float(logp[ids[p]])
    want /= len(pos)
    assert sc.pseudo_loss(ids, pos) == pytest.approx(want, rel=1e-5)
    (r,) = sc.score_batch([item])
    assert r.extra["pseudo_loss"][0] == pytest.approx(want, rel=1e-5)
    assert r.chosen == min(range(2), key=lambda i: r.extra["pseudo_loss"][i])  # the lowest S wins
    answer_only = PseudoLossScorer(model, span="answer")
    ids2, pos2 = answer_only.sequence(item, "vase")
    assert ids2 == ids
    assert len(pos2) < len(pos)
    assert math.isfinite(answer_only.pseudo_loss(ids2, pos2))
    plain = sc.sequence(Item(id="p", question="Cool a drink?", options=("ice", "oven"), context="Hot day."), "ice")
    assert sc.tok.decode(plain[0][plain[1][0] : plain[1][-1] + 1]).replace(" ", "") == "hotday.cooladrink?ice"
    with pytest.raises(ValueError, match="span"):
        PseudoLossScorer(model, span="question")
