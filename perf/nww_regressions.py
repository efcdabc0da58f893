"""NWW's regressions and figures replayed on the shipped data (issue 28 item 4), each beside the
paper's number. The shipped slice (../shared/data/commonsense_statements, 3,026 of the 4,407
statements) holds the 35 models' binarised answers and the human *majority* only — no per-rater
ratings — so the statement commonsensicality m_i^h the paper regresses on (Figs. 4B/4C, D.1, B.2/B.3)
cannot be computed from it; those analyses run in the app on a survey campaign's ratings. What the
data allows:

- Fig. 2C, Eq. 19: the size model on our M (replayed C.1) and on the paper's printed M.
- Fig. 2D, Eq. 20: Elo correlation on our M and on the printed M.
- Fig. 4C analogue: the 35-model ensemble (70 binary answers) predicting the human majority,
  50-fold CV R² (a different outcome from the paper's m_i^h; stated as such), and the six statement
  features predicting it (Fig. 4B's single-predictor fit, per model, on the same outcome).

    .venv/bin/python -m perf.nww_regressions
"""

from __future__ import annotations

import time

import numpy as np

from commonsense.io.statements import FEATURES, read_statements_csv
from commonsense.metrics import respondent_scores
from commonsense.metrics.nww_paper import PAPER, SIZE_FAMILIES, TABLE_C1
from commonsense.metrics.nww_regress import cv_r2, elo_correlation, size_model
from tests.conftest import shared_file

CSV = "commonsense_statements/statements_human_and_model_binary.csv"


def main() -> None:
    t0 = time.perf_counter()
    records = list(read_statements_csv(shared_file(CSV)))
    majority = np.asarray([np.nan if r.human_majority is None else r.human_majority for r in records], dtype=float)
    models = sorted({m for r in records for m in r.model_answers})
    answers = {
        m: {
            q: np.asarray([r.model_answers.get(m, {}).get(q, np.nan) for r in records], dtype=float)
            for q in ("q1", "q2")
        }
        for m in models
    }
    ours = {
        m: 100 * (respondent_scores(a["q1"], a["q2"], majority, n_boot=0).commonsensicality.value or 0)
        for m, a in answers.items()
    }
    printed = {r.model: r.M for r in TABLE_C1}
    print(f"{len(records)} statements, {len(models)} models")

    rows = [r for r in TABLE_C1 if r.model in SIZE_FAMILIES]
    fam = [SIZE_FAMILIES[r.model] for r in rows]
    sizes = [float(r.size or 0) for r in rows]
    paper = PAPER["size_slope"]
    for label, scores in (
        ("printed M", [printed[r.model] for r in rows]),
        ("replayed M", [ours[r.model] for r in rows]),
    ):
        f = size_model(scores, sizes, fam)
        print(
            f"Fig. 2C size model ({label}): +{f.slope:.2f} per 10x [{f.low:.2f}, {f.high:.2f}], p = {f.p_value:.4f}; paper +{paper[0]} [{paper[1]}, {paper[2]}], p = {paper[3]}"
        )
    elo = [r.elo for r in TABLE_C1]
    paper_r = PAPER["elo_r"]
    for label, scores in (("printed M", [r.M for r in TABLE_C1]), ("replayed M", [ours[r.model] for r in TABLE_C1])):
        c = elo_correlation(scores, elo)
        print(
            f"Fig. 2D Elo ({label}): r({c.n - 2}) = {c.r:.3f} [{c.low:.2f}, {c.high:.2f}], p = {c.p_value:.3f}; paper r(22) = {paper_r[0]} [{paper_r[1]}, {paper_r[2]}], p = {paper_r[3]}"
        )

    x = np.column_stack([answers[m][q] for m in models for q in ("q1", "q2")])
    ens = cv_r2(x, majority, folds=50, seed=0)
    print(
        f"Fig. 4C analogue: 35 models' 70 binary answers -> human majority, 50-fold CV R² = {ens.mean:.3f} (SD {ens.sd:.3f}, n = {ens.n}); paper (outcome m_i^h, model P(yes)) R² = {PAPER['ensemble_r2']}"
    )
    best = sorted(
        ((cv_r2(np.column_stack([answers[m]["q1"], answers[m]["q2"]]), majority, seed=0).mean, m) for m in models),
        reverse=True,
    )[:3]
    print(
        "Fig. 4B analogue, best single models (q1, q2 -> majority): "
        + ", ".join(f"{m} {v:.3f}" for v, m in best)
        + f"; paper best (m_i^m -> m_i^h) {PAPER['best_single_r2']}"
    )
    feats = np.asarray([[r.features[f] for f in FEATURES] for r in records], dtype=float)
    fr = cv_r2(feats, majority, folds=50, seed=0)
    print(f"six statement features -> human majority, 50-fold CV R² = {fr.mean:.3f} (SD {fr.sd:.3f})")
    print(f"wall {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
