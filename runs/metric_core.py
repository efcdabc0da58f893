"""Adapter from run records to the metric functions.

The science belongs in ``commonsense.metrics``; this module only shapes the calls. Where that
package does not (yet) offer a function the runs app needs, the small estimator is written here
and says so: means with percentile-bootstrap 95% CIs, the macro mean over groups (groups
resampled within themselves), and NWW's individual scores (Eqs. 9–11) of a model as one respondent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

N_BOOT = 1000


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None
    high: float | None
    n: int


def rate(flags: Sequence[bool]) -> float | None:
    return sum(bool(f) for f in flags) / len(flags) if flags else None


def _pct(samples: np.ndarray) -> tuple[float, float]:
    lo, hi = np.percentile(samples, [2.5, 97.5])
    return float(lo), float(hi)


def mean_ci(flags: Sequence[bool | float], *, seed: int = 0, n_boot: int = N_BOOT) -> Estimate:
    """Mean with a percentile-bootstrap 95% CI (``n_boot`` resamples from ``seed``)."""
    x = np.asarray(flags, dtype=float)
    if x.size == 0:
        return Estimate(None, None, None, 0)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_boot, x.size))
    lo, hi = _pct(x[idx].mean(axis=1))
    return Estimate(float(x.mean()), lo, hi, int(x.size))


def macro_ci(groups: Mapping[str, Sequence[bool | float]], *, seed: int = 0, n_boot: int = N_BOOT) -> Estimate:
    """Unweighted mean of the per-group means; bootstrap resamples items within each group."""
    arrays = [np.asarray(v, dtype=float) for v in groups.values() if len(v)]
    if not arrays:
        return Estimate(None, None, None, 0)
    rng = np.random.default_rng(seed)
    boots = np.zeros(n_boot)
    for a in arrays:
        boots += a[rng.integers(0, a.size, size=(n_boot, a.size))].mean(axis=1)
    boots /= len(arrays)
    lo, hi = _pct(boots)
    return Estimate(float(np.mean([a.mean() for a in arrays])), lo, hi, int(sum(a.size for a in arrays)))


def nww_individual(records: Sequence[Mapping[str, Any]], *, seed: int = 0, n_boot: int = N_BOOT) -> dict[str, Estimate]:
    """NWW Eqs. 9–11 for one respondent (a model): consensus = share of statements where its answer
    to (a) matches the human majority, awareness = the same for (b), commonsensicality = their
    geometric mean. A P(yes) ≥ 0.5 counts as "yes" (NWW's binarisation). Statements without an
    answer to (b) count in consensus only. CIs: bootstrap over statements (paired)."""
    hum = np.asarray([int(r["human"]) for r in records])
    q1 = np.asarray([int(float(r["p_yes_q1"]) >= 0.5) for r in records])
    has2 = np.asarray([r["p_yes_q2"] is not None for r in records])
    q2 = np.asarray([int(float(r["p_yes_q2"]) >= 0.5) if r["p_yes_q2"] is not None else -1 for r in records])
    c_hit = (q1 == hum).astype(float)
    a_hit = (q2 == hum).astype(float)
    n = len(records)
    if n == 0:
        empty = Estimate(None, None, None, 0)
        return {"consensus": empty, "awareness": empty, "commonsensicality": empty}

    with np.errstate(invalid="ignore", divide="ignore"):
        c = float(c_hit.mean())
        a = float(a_hit[has2].mean()) if has2.any() else math.nan
        m = math.sqrt(c * a) if not math.isnan(a) else math.nan
        idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        bc = c_hit[idx].mean(axis=1)
        ba = (a_hit * has2)[idx].sum(axis=1) / has2[idx].sum(axis=1)
        boot = np.stack([bc, ba, np.sqrt(bc * ba)], axis=1)
    out = {}
    for i, (name, v) in enumerate((("consensus", c), ("awareness", a), ("commonsensicality", m))):
        col = boot[:, i][~np.isnan(boot[:, i])]
        lo, hi = _pct(col) if col.size else (None, None)
        out[name] = Estimate(None if math.isnan(v) else v, lo, hi, n if name == "consensus" else int(has2.sum()))
    return out
