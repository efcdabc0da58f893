"""COM2 generative setting (§4, Tables 3, 4, 12): a generated answer scored against every reference
answer of its query with the well-kept implementations, no hand-written metric:

- ROUGE-L: ``rouge-score`` (F-measure of the longest common subsequence), the best reference.
- BLEU-2: ``sacrebleu`` with ``max_ngram_order=2``; corpus BLEU over the items (references may differ
  in number per item), and per item the sentence BLEU (``effective_order``).
- CIDEr: ``pycocoevalcap``'s CIDEr-D (TF-IDF n-grams 1–4, σ = 6, ×10, IDF from the references of the
  items scored together); per item and their mean (the paper prints 107.2 for 1.072).
- BERTScore F1: ``bert-score`` with a model from a local folder (never a download), the best
  reference, no baseline rescaling (the rescale files are a download).

All values are fractions except CIDEr (its own scale); the paper prints them ×100. Texts are
lower-cased and split into words and punctuation before CIDEr (pycocoevalcap's PTB tokenizer needs
Java); ROUGE-L, BLEU and BERTScore tokenize as their libraries do. An empty generation scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

METRICS = ("rouge_l", "bleu_2", "cider", "bertscore_f1")
_WORD = re.compile(r"\w+|[^\w\s]")


def _check(cands: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
    if len(cands) != len(refs):
        raise ValueError(f"{len(cands)} generations for {len(refs)} reference lists")
    for i, r in enumerate(refs):
        if not [x for x in r if x and x.strip()]:
            raise ValueError(f"item {i}: no reference answer")


def coco_tokens(text: str) -> str:
    """Lower-cased words and punctuation, space-joined (the form pycocoevalcap's scorers take)."""
    return " ".join(_WORD.findall(text.lower()))


def rouge_l(cands: Sequence[str], refs: Sequence[Sequence[str]]) -> list[float]:
    """Per item, the best ROUGE-L F-measure over its references (rouge-score, stemming off)."""
    from rouge_score import rouge_scorer

    _check(cands, refs)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return [
        float(scorer.score_multi(list(r), c)["rougeL"].fmeasure) if c.strip() else 0.0
        for c, r in zip(cands, refs, strict=True)
    ]


def bleu_2(cands: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[float, list[float]]:
    """(corpus BLEU-2, per-item sentence BLEU-2), as fractions (sacrebleu prints ×100)."""
    from sacrebleu.metrics.bleu import BLEU

    _check(cands, refs)
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    corpus = BLEU(max_ngram_order=2).corpus_score(list(cands), streams).score / 100.0  # type: ignore[arg-type]
    sent = BLEU(max_ngram_order=2, effective_order=True)
    per = [
        sent.sentence_score(c, list(r)).score / 100.0 if c.strip() else 0.0 for c, r in zip(cands, refs, strict=True)
    ]
    return corpus, per


def cider(cands: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[float, list[float]]:
    """(mean, per-item) CIDEr-D of pycocoevalcap; the IDF comes from these items' references."""
    from pycocoevalcap.cider.cider import Cider

    _check(cands, refs)
    gts = {i: [coco_tokens(x) for x in r if x.strip()] for i, r in enumerate(refs)}
    res = {i: [coco_tokens(c)] for i, c in enumerate(cands)}
    _mean, per = Cider().compute_score(gts, res)
    scores = [float(s) if cands[i].strip() else 0.0 for i, s in enumerate(per)]
    return (sum(scores) / len(scores) if scores else 0.0), scores


@dataclass(frozen=True, slots=True)
class BertScoreModel:
    """A BERT-style encoder in a local folder and the layer whose embeddings are matched."""

    path: str
    num_layers: int


def bertscore_model(path: str | Path, num_layers: int | None = None) -> BertScoreModel:
    """The folder's model with its last layer unless told (read from its config.json)."""
    import json

    p = Path(path)
    cfg = p / "config.json"
    if not cfg.exists():
        raise ValueError(f"{p}: not a model folder (no config.json); BERTScore needs a local model")
    layers = num_layers or int(json.loads(cfg.read_text()).get("num_hidden_layers", 0))
    if layers < 1:
        raise ValueError(f"{cfg}: no num_hidden_layers; give num_layers")
    return BertScoreModel(str(p), layers)


def bertscore_f1(
    cands: Sequence[str], refs: Sequence[Sequence[str]], model: BertScoreModel, *, batch_size: int = 32
) -> list[float]:
    """Per item, the best BERTScore F1 over its references (bert-score, CPU, no rescaling)."""
    import bert_score

    _check(cands, refs)
    idx = [i for i, c in enumerate(cands) if c.strip()]
    out = [0.0] * len(cands)
    if not idx:
        return out
    _p, _r, f1 = bert_score.score(
        [cands[i] for i in idx],
        [[x for x in refs[i] if x.strip()] for i in idx],
        model_type=model.path,
        num_layers=model.num_layers,
        batch_size=batch_size,
        device="cpu",
        lang="en",
    )
    for i, v in zip(idx, f1.tolist(), strict=True):
        out[i] = float(v)
    return out


@dataclass(frozen=True, slots=True)
class GenerationScores:
    """Per-item scores (parallel lists) and the corpus BLEU-2 (the others are per-item means)."""

    rouge_l: list[float]
    bleu_2: list[float]
    cider: list[float]
    bertscore_f1: list[float] | None
    corpus_bleu_2: float

    def item(self, i: int) -> dict[str, float | None]:
        return {
            "rouge_l": self.rouge_l[i],
            "bleu_2": self.bleu_2[i],
            "cider": self.cider[i],
            "bertscore_f1": None if self.bertscore_f1 is None else self.bertscore_f1[i],
        }


def generation_scores(
    cands: Sequence[str], refs: Sequence[Sequence[str]], *, bert: BertScoreModel | None = None
) -> GenerationScores:
    """Every metric for every item (BERTScore only with a model)."""
    _check(cands, refs)
    corpus, per_bleu = bleu_2(cands, refs)
    _, per_cider = cider(cands, refs)
    return GenerationScores(
        rouge_l(cands, refs),
        per_bleu,
        per_cider,
        bertscore_f1(cands, refs, bert) if bert is not None else None,
        corpus,
    )
