"""Metrics of a COM2 generative run (``--scoring generate-answer``): each stored generation
against every reference answer of its question (``Question.answers``) with ROUGE-L, BLEU-2, CIDEr
and BERTScore F1 (commonsense.metrics.generation), overall and per query kind; the per-item scores
are stored on the predictions as ``extra["generation_scores"]``.

BERTScore's model is the run parameter ``bertscore_model`` (a local folder; ``--param
bertscore_model=/path``, ``bertscore_layers`` to pick the layer), else the packaged
all-MiniLM-L6-v2 folder; without either the metric is left out and said so in the row's data.
"""

from __future__ import annotations

from typing import Any

import commonsense.metrics as M
from commonsense.metrics import generation as G
from runs.models import Prediction, Run

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def bert_model_for(run: Run) -> tuple[G.BertScoreModel | None, str]:
    """The run's BERTScore model and, when there is none, why."""
    path = (run.params or {}).get("bertscore_model")
    layers = (run.params or {}).get("bertscore_layers")
    if not path:
        try:
            from commonsense.scoring.locate import minilm_dir

            path = str(minilm_dir())
        except (ImportError, FileNotFoundError, OSError) as exc:
            return None, f"no BERTScore model: set the run parameter bertscore_model ({exc})"
    return G.bertscore_model(path, int(layers) if layers else None), ""


def generation_rows(run: Run, seed: int) -> list[Row]:
    preds = list(Prediction.objects.filter(run=run).select_related("question").order_by("position"))
    scored = [p for p in preds if not p.error and p.question is not None and [a for a in p.question.answers if a]]
    rows: list[Row] = []
    n_all = len(preds)
    empty = sum(1 for p in preds if p.error or not (p.extra or {}).get("generation"))
    rows.append(("no_answer_rate", "overall", empty / n_all if n_all else None, None, None, n_all, {}))
    if not scored:
        return rows
    cands = [str((p.extra or {}).get("generation") or "") for p in scored]
    refs = [[str(a) for a in p.question.answers if a] for p in scored]  # type: ignore[union-attr]
    bert, why = bert_model_for(run)
    s = G.generation_scores(cands, refs, bert=bert)
    for i, p in enumerate(scored):
        p.extra = {**(p.extra or {}), "generation_scores": s.item(i)}
    Prediction.objects.bulk_update(scored, ["extra"], batch_size=1000)
    info: dict[str, Any] = {
        "bertscore_model": bert.path if bert else None,
        "bertscore_layers": bert.num_layers if bert else None,
    }
    kinds = [p.question.structure or "" for p in scored]  # type: ignore[union-attr]

    def emit(scope: str, idx: list[int]) -> None:
        for name in ("rouge_l", "cider", "bertscore_f1"):
            per = getattr(s, name)
            if per is None:
                if scope == "overall":
                    rows.append((name, scope, None, None, None, 0, {"note": why}))
                continue
            e = M.mean_ci([per[i] for i in idx], seed=seed)
            rows.append((name, scope, e.value, e.low, e.high, e.n, info if name == "bertscore_f1" else {}))
        corpus = s.corpus_bleu_2 if scope == "overall" else G.bleu_2([cands[i] for i in idx], [refs[i] for i in idx])[0]
        sent = M.mean_ci([s.bleu_2[i] for i in idx], seed=seed)
        rows.append(("bleu_2", scope, corpus, None, None, len(idx), {"sentence_mean": sent.value, "corpus": True}))

    emit("overall", list(range(len(scored))))
    for k in sorted(set(kinds) - {""}):
        emit(f"structure={k}", [i for i, x in enumerate(kinds) if x == k])
    return rows
