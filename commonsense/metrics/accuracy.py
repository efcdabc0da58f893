"""Accuracy, micro and macro, overall and by any grouping key, with bootstrap intervals.

``correct`` is one entry per scored item: ``True``/``False`` (or 1/0), and ``None``/NaN where the
model gave no usable answer. ``missing="wrong"`` (the default, as the papers count "No Answer" as
an error) scores those as incorrect; ``missing="drop"`` leaves them out.

Micro = pooled over items. Macro = unweighted mean of the per-group accuracies (each group counts
once, however large); its interval resamples items within each group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from .bootstrap import LEVEL, N_BOOT, Estimate, FloatArray, Keys, group_indices, macro_ci, mean_ci

Missing = Literal["wrong", "drop"]


def correctness(correct: Sequence[bool | float | None] | npt.ArrayLike, missing: Missing = "wrong") -> FloatArray:
    """As floats 1.0 / 0.0, with missing answers 0.0 (``wrong``) or NaN (``drop``)."""
    if missing not in ("wrong", "drop"):
        raise ValueError(f"missing must be 'wrong' or 'drop', got {missing!r}")
    raw = [np.nan if v is None else v for v in np.asarray(correct, dtype=object).ravel().tolist()]
    a = np.asarray(raw, dtype=float)
    bad = np.isfinite(a) & (a != 0.0) & (a != 1.0)
    if bad.any():
        raise ValueError(f"correctness must be boolean (0/1) or missing; found {a[bad][0]!r} at {int(np.argmax(bad))}")
    if missing == "wrong":
        a = np.where(np.isnan(a), 0.0, a)
    return a


def accuracy(
    correct: Sequence[bool | float | None] | npt.ArrayLike,
    *,
    missing: Missing = "wrong",
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> Estimate:
    """Share correct (micro), with a bootstrap interval over items."""
    return mean_ci(correctness(correct, missing), n_boot=n_boot, seed=seed, level=level)


def _split(x: FloatArray, keys: Keys) -> dict[str, tuple[FloatArray, FloatArray]]:
    if len(keys) != x.size:
        raise ValueError(f"{len(keys)} keys for {x.size} items")
    out = {}
    for k, idx in group_indices(keys).items():
        v = x[idx]
        v = v[np.isfinite(v)]
        out[k] = (v, np.ones_like(v))
    return out


def accuracy_by(
    correct: Sequence[bool | float | None] | npt.ArrayLike,
    keys: Keys,
    *,
    missing: Missing = "wrong",
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> dict[str, Estimate]:
    """Accuracy per group (keys as ``str``, sorted); items with an empty/``None`` key are left out."""
    x = correctness(correct, missing)
    return {k: mean_ci(v, n_boot=n_boot, seed=seed, level=level) for k, (v, _) in _split(x, keys).items()}


def macro_accuracy(
    correct: Sequence[bool | float | None] | npt.ArrayLike,
    keys: Keys,
    *,
    missing: Missing = "wrong",
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> Estimate:
    """Unweighted mean of the per-group accuracies (``n`` = items in the groups)."""
    x = correctness(correct, missing)
    return macro_ci(_split(x, keys), n_boot=n_boot, seed=seed, level=level)


@dataclass(frozen=True, slots=True)
class GroupedAccuracy:
    groups: dict[str, Estimate]
    macro: Estimate


@dataclass(frozen=True, slots=True)
class AccuracyReport:
    """``overall`` (micro) plus, per grouping name (``relation``, ``structure``, ``feature:opinion``…),
    the per-group accuracies and their macro mean."""

    overall: Estimate
    by: dict[str, GroupedAccuracy] = field(default_factory=dict)


def accuracy_report(
    correct: Sequence[bool | float | None] | npt.ArrayLike,
    groupings: Mapping[str, Keys] | None = None,
    *,
    missing: Missing = "wrong",
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> AccuracyReport:
    """Micro accuracy and, for each named grouping, per-group and macro accuracy."""
    by = {
        name: GroupedAccuracy(
            accuracy_by(correct, keys, missing=missing, n_boot=n_boot, seed=seed, level=level),
            macro_accuracy(correct, keys, missing=missing, n_boot=n_boot, seed=seed, level=level),
        )
        for name, keys in (groupings or {}).items()
    }
    return AccuracyReport(accuracy(correct, missing=missing, n_boot=n_boot, seed=seed, level=level), by)
