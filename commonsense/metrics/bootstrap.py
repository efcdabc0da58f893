"""Point estimates with seeded, vectorised percentile-bootstrap confidence intervals.

Every interval here resamples *units* (items, statements, question sets) with replacement,
``n_boot`` times, from ``numpy.random.default_rng(seed)``: the same inputs and seed give the same
interval. Replicates are drawn in chunks so that memory stays bounded (about ``_CHUNK_CELLS``
indices at a time) however many units there are. Replicates whose statistic is undefined (e.g. a
ratio whose denominator resampled to zero) are left out of the percentiles.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

N_BOOT = 1000
LEVEL = 0.95
_CHUNK_CELLS = 2_000_000

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
# A statistic of resampled data: given a (b, n) matrix of unit indices, one value per replicate.
Statistic = Callable[[IntArray], FloatArray]
# Group keys: one per unit (str, int, …); ``None`` or "" leaves the unit out of every group.
Keys = Sequence[Hashable] | npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A value with its bootstrap interval; ``None`` when undefined (e.g. no units)."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


EMPTY = Estimate(None, None, None, 0)


def _check(n_boot: int, level: float) -> None:
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")


def index_chunks(n: int, n_boot: int, seed: int) -> Iterator[IntArray]:
    """Yield (b, n) index matrices whose b's sum to ``n_boot``; deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    per = max(1, _CHUNK_CELLS // max(n, 1))
    done = 0
    while done < n_boot:
        b = min(per, n_boot - done)
        yield rng.integers(0, n, size=(b, n), dtype=np.int64)
        done += b


def interval(samples: FloatArray, level: float = LEVEL) -> tuple[float | None, float | None]:
    """Percentile interval of the finite replicates (``(None, None)`` if there are none)."""
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(finite, [tail, 100.0 - tail])
    return float(lo), float(hi)


def replicate(stat: Statistic, n: int, *, n_boot: int = N_BOOT, seed: int = 0) -> FloatArray:
    """``stat`` evaluated on ``n_boot`` resamples of ``n`` units."""
    if n == 0 or n_boot == 0:
        return np.empty(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.concatenate([np.asarray(stat(idx), dtype=float) for idx in index_chunks(n, n_boot, seed)])


def _finite_or_none(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def estimate(
    value: float, stat: Statistic, n: int, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL
) -> Estimate:
    """Wrap a point value with the percentile interval of ``stat`` over ``n`` resampled units."""
    _check(n_boot, level)
    v = _finite_or_none(value)
    if v is None or n == 0:
        return Estimate(v, None, None, n)
    lo, hi = interval(replicate(stat, n, n_boot=n_boot, seed=seed), level)
    return Estimate(v, lo, hi, n)


def as_float_vector(values: npt.ArrayLike, name: str = "values") -> FloatArray:
    a = np.asarray(values, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    return a


def mean_ci(values: npt.ArrayLike, *, n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> Estimate:
    """Mean of the finite values (NaN = missing, left out) with a bootstrap interval."""
    x = as_float_vector(values)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return EMPTY
    return estimate(
        float(x.mean()), lambda idx: x[idx].mean(axis=1), int(x.size), n_boot=n_boot, seed=seed, level=level
    )


def ratio_ci(
    numerator: npt.ArrayLike,
    denominator: npt.ArrayLike,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> Estimate:
    """``sum(numerator) / sum(denominator)`` over paired units (e.g. CoCo's conditional scores);
    ``n`` is the number of units with a non-zero denominator."""
    num, den = as_float_vector(numerator, "numerator"), as_float_vector(denominator, "denominator")
    if num.shape != den.shape:
        raise ValueError(f"numerator and denominator differ in length: {num.size} vs {den.size}")
    total = float(den.sum())
    value = float(num.sum()) / total if total else float("nan")
    est = estimate(value, _ratio_stat(num, den), int(num.size), n_boot=n_boot, seed=seed, level=level)
    return Estimate(est.value, est.low, est.high, int(np.count_nonzero(den)))


def stratified_replicates(
    strata: Sequence[tuple[FloatArray, FloatArray]], *, n_boot: int, seed: int
) -> list[FloatArray]:
    """Per stratum, ``n_boot`` replicate values of sum(num)/sum(den), resampling within the stratum
    (one child seed per stratum, so adding a stratum does not change the others' draws)."""
    children = np.random.SeedSequence(seed).spawn(len(strata))
    out = []
    for (num, den), child in zip(strata, children, strict=True):
        out.append(replicate(_ratio_stat(num, den), num.size, n_boot=n_boot, seed=int(child.generate_state(1)[0])))
    return out


def _ratio_stat(num: FloatArray, den: FloatArray) -> Statistic:
    def stat(idx: IntArray) -> FloatArray:
        return np.asarray(num[idx].sum(axis=1) / den[idx].sum(axis=1))

    return stat


def group_indices(keys: Keys) -> dict[str, IntArray]:
    """Positions of each key (as ``str``), keys sorted; ``None``/empty keys are left out."""
    groups: dict[str, list[int]] = {}
    for i, k in enumerate(list(keys)):
        if k is None or k == "" or (isinstance(k, float) and np.isnan(k)):
            continue
        groups.setdefault(str(k), []).append(i)
    return {k: np.asarray(v, dtype=np.int64) for k, v in sorted(groups.items())}


def macro_ci(
    per_group: Mapping[str, tuple[FloatArray, FloatArray]],
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = LEVEL,
) -> Estimate:
    """Unweighted mean over groups of each group's sum(num)/sum(den); the interval resamples
    units within each group. Groups with a zero denominator are left out."""
    _check(n_boot, level)
    strata = [(n, d) for n, d in per_group.values() if d.size and d.sum() > 0]
    if not strata:
        return EMPTY
    value = float(np.mean([n.sum() / d.sum() for n, d in strata]))
    n_units = int(sum(int(np.count_nonzero(d)) for _, d in strata))
    if n_boot == 0:
        return Estimate(value, None, None, n_units)
    reps = stratified_replicates(strata, n_boot=n_boot, seed=seed)
    stacked = np.vstack(reps)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = np.isfinite(stacked)
        boot = np.where(ok, stacked, 0.0).sum(axis=0) / ok.sum(axis=0)
    lo, hi = interval(boot, level)
    return Estimate(value, lo, hi, n_units)
