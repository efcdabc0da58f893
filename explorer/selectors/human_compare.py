"""Models against the humans of a survey campaign on the same statement set (NWW):

- :func:`model_standings`: a model's percentile among the campaign's humans (Fig. 2E, SI C.4):
  for each human j, the model's commonsensicality recomputed on j's statements Φ_j, compared with
  M_j (Eqs. 9–11, own vote in the majority); "rated above X % of humans" = the share of humans with
  M_model − M_j > 0.
- the per-statement human rates d^a and d^b (Eqs. 3, 5) of the campaign, and with them the
  silicon-population fidelity of each run (Fig. 3/4A: Pearson r of the model's P(yes) with d^a, and
  of the silicon m_i with the human m_i).

The science is in :mod:`commonsense.metrics.nww_compare`; this module only reads the rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from django.apps import apps

from commonsense.metrics.nww_compare import respondent_percentiles, silicon_fidelity
from runs.models import Prediction, Run

from ..charts import empty_figure, make_figure
from . import sources


def latest_survey(statement_set: Any, reads: sources.SurveyReads | None = None) -> Any:
    """The rater × statement matrix of the latest survey campaign with answers on this set (of the
    last ``sources.SURVEY_CAMPAIGNS_READ``). ``reads``: the page's survey reads, if it has them."""
    if statement_set is None or not apps.is_installed("annotation"):
        return None
    from annotation.selectors.agreement import survey_matrix

    reads = reads if reads is not None else sources.SurveyReads(statement_set)
    for campaign in reads.campaigns:
        sm = survey_matrix(campaign, reads.matrices(campaign))
        if sm is not None:
            return sm
    return None


def _p_yes(extra: dict[str, Any], q: str) -> float:
    """P(yes) to question ``q`` from a prediction's extra, as the scorers store it:
    ``{"q1": {"p_yes": …}}`` (or only the binary ``chosen``, e.g. the random baseline)."""
    v = None
    if isinstance(extra.get(q), dict):
        v = extra[q].get("p_yes", extra[q].get("chosen"))
    return math.nan if v is None else float(v)


def run_answers(
    run: Run, statement_ids: Sequence[int], extras: Mapping[int, Any] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The run's P(yes) to (a) and (b) aligned with ``statement_ids`` (NaN where not answered).
    ``extras``: the run's {statement id: prediction extra} when read already."""
    col = {s: i for i, s in enumerate(statement_ids)}
    qa, qb = np.full(len(col), np.nan), np.full(len(col), np.nan)
    rows = (
        [(sid, extra) for sid, extra in extras.items() if sid in col]
        if extras is not None
        else Prediction.objects.filter(run=run, statement_id__in=list(col)).values_list("statement_id", "extra")
    )
    for sid, extra in rows:
        qa[col[sid]], qb[col[sid]] = _p_yes(extra or {}, "q1"), _p_yes(extra or {}, "q2")
    return qa, qb


@dataclass(frozen=True, slots=True)
class Standing:
    run: Run
    above: float | None  # share of humans the model is rated above (Fig. 2E "model wins")
    ties: float | None
    n_humans: int
    r_agree: float | None  # Pearson r of P(yes) to (a) with the human d^a
    r_m: float | None  # Pearson r of the silicon m_i with the human m_i

    def sentence(self, label: str) -> str:
        if self.above is None:
            return f"{label}: no human in the campaign shares a statement with this run's (a) and (b) answers."
        return f"{label} rated above {self.above * 100:.0f} % of humans ({self.n_humans} compared)."


def _finite(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def model_standings(
    runs: Sequence[Run],
    sm: Any,
    *,
    leave_one_out: bool = False,
    extras: Mapping[int, Mapping[int, Any]] | None = None,
) -> list[Standing]:
    """Every run's Fig. 2E percentile among the campaign's humans and its silicon fidelity.
    ``leave_one_out`` scores each human against the other humans' majority (not the paper's).
    ``extras``: {run id: {statement id: prediction extra}} of runs read already; others are read here."""
    rates = sm.rates()
    answers = [run_answers(run, sm.statement_ids, (extras or {}).get(run.pk)) for run in runs]
    percentiles = respondent_percentiles(answers, sm.agree, sm.predict, leave_one_out=leave_one_out)
    out = []
    for run, (qa, qb), p in zip(runs, answers, percentiles, strict=True):
        ok = [i for i, s in enumerate(sm.statement_ids) if s in rates and np.isfinite(qa[i]) and np.isfinite(qb[i])]
        r_agree = r_m = None
        if len(ok) >= 3:
            da = [rates[sm.statement_ids[i]][0] for i in ok]
            db = [rates[sm.statement_ids[i]][1] for i in ok]
            fid = silicon_fidelity(qa[ok], da, qb[ok], db, n_boot=200, seed=0)
            r_agree = fid.agree.r
            r_m = fid.commonsensicality.r if fid.commonsensicality is not None else None
        out.append(Standing(run, _finite(p.wins) if p.n_raters else None, _finite(p.ties), p.n_raters, r_agree, r_m))
    return out


def standings_figure(labels: Sequence[str], standings: Sequence[Standing]) -> go.Figure:
    pts = [(lab, s.above) for lab, s in zip(labels, standings, strict=True) if s.above is not None]
    if not pts:
        return empty_figure("No yes/no run shares statements with the survey's raters.")
    return make_figure(
        [
            go.Bar(
                x=[p[0] for p in pts],
                y=[p[1] * 100 for p in pts],
                marker_color="#2f7d4f",
                name="rated above",
                hovertemplate="%{x}: rated above %{y:.1f} % of the humans<extra></extra>",
            )
        ],
        title="Share of the campaign's humans each model is rated above (NWW Fig. 2E)",
        yaxis={"title": "% of humans", "range": [0, 100]},
    )
