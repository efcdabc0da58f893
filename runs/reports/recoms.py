"""ReComSBench Fig. 6: the knowledge redundancy ratio |K(S) \\ K_prior| / |K_prior| of each sampled
path (stored by the scorer as ``paths[i]["krr"]``), averaged over correct and over incorrect paths."""

from __future__ import annotations

from typing import Any

import commonsense.metrics as M

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def krr_rows(records: list[dict[str, Any]], seed: int) -> list[Row]:
    good: list[float] = []
    bad: list[float] = []
    for r in records:
        if r.get("error"):
            continue
        for ok, krr in zip(r.get("path_correct") or (), r.get("path_krr") or (), strict=False):
            if ok is not None and krr is not None:
                (good if ok else bad).append(float(krr))
    rows: list[Row] = []
    for name, vals in (("krr_correct", good), ("krr_incorrect", bad)):
        e = M.mean_ci(vals, seed=seed)
        rows.append((name, "overall", e.value, e.low, e.high, e.n, {"paths": len(vals)}))
    return rows
