"""NWW regressions held to the paper's printed numbers (Table C.1 as input): Eq. 19's size model
(Fig. 2C: +8.6 per 10x), Eq. 20 and the Elo correlation (Fig. 2D: r(22) = .22, [-.21, .57], p = .31),
and hand-made cases for the cross-validated R², MAE/RMSE and the calibration bins."""

from __future__ import annotations

import numpy as np
import pytest

from commonsense.metrics.nww_paper import PAPER, SIZE_FAMILIES, TABLE_C1
from commonsense.metrics.nww_regress import calibration, cv_r2, elo_correlation, elo_win, errors, size_model


def test_size_model_eq19_on_table_c1() -> None:
    rows = [r for r in TABLE_C1 if r.model in SIZE_FAMILIES]
    assert len(rows) == 23
    assert len(set(SIZE_FAMILIES.values())) == 6
    fit = size_model([r.M for r in rows], [r.size or 0 for r in rows], [SIZE_FAMILIES[r.model] for r in rows])
    slope, low, high, p = PAPER["size_slope"]  # type: ignore[misc]
    assert fit.slope == pytest.approx(slope, abs=0.05)  # 8.56 by REML
    # Wald interval (statsmodels) vs R's profile confint: within 0.2 at either end
    assert fit.low == pytest.approx(low, abs=0.2)
    assert fit.high == pytest.approx(high, abs=0.2)
    assert fit.p_value < 0.01
    assert (fit.n_models, fit.n_families) == (23, 6)
    with pytest.raises(ValueError, match="positive"):
        size_model([1.0, 2.0], [0.0, 1.0], ["a", "b"])


def test_elo_eq20_and_fig_2d() -> None:
    # "GPT-3.5 (1,224) vs GPT-4-0125 (1,314), ≈ 0.37"
    assert elo_win(1224, 1314) == pytest.approx(0.37, abs=0.005)  # 0.3733
    assert elo_win(1314, 1224) == pytest.approx(1 - elo_win(1224, 1314))
    c = elo_correlation([r.M for r in TABLE_C1], [r.elo for r in TABLE_C1])
    r, low, high, p = PAPER["elo_r"]  # type: ignore[misc]
    assert c.n == 24
    assert c.r == pytest.approx(r, abs=0.005)
    assert c.low == pytest.approx(low, abs=0.01)
    assert c.high == pytest.approx(high, abs=0.01)
    assert c.p_value == pytest.approx(p, abs=0.01)


def test_cv_r2_recovers_a_known_fit() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 3))
    y = x @ np.array([1.0, -2.0, 0.5]) + rng.normal(scale=np.sqrt(5.25), size=2000)  # true R² = 0.5
    got = cv_r2(x, y, folds=50, seed=1)
    assert got.mean == pytest.approx(0.5, abs=0.05)
    assert got.sd > 0
    assert got.n == 2000
    assert np.isfinite(got.predicted).all()
    noise = cv_r2(rng.normal(size=2000), rng.normal(size=2000))
    assert noise.mean < 0.01  # out of sample, an unrelated predictor explains nothing
    y2 = y.copy()
    y2[:5] = np.nan
    assert cv_r2(x, y2).n == 1995
    assert np.isnan(cv_r2(x, y2).predicted[:5]).all()
    with pytest.raises(ValueError, match="too few"):
        cv_r2([1, 2, 3], [1, 2, 3])


def test_errors_and_calibration_by_hand() -> None:
    e = errors([0.9, 0.1, 0.5, np.nan], [0.6, 0.5, 0.5, 0.2])
    assert e.n == 3
    assert e.mae == pytest.approx((0.3 + 0.4 + 0) / 3)
    assert e.rmse == pytest.approx(np.sqrt((0.09 + 0.16) / 3))
    cal = calibration([0.9, 0.8, 0.2, 0.4, 1.0], [0.95, 1.0, 0.05, 0.12, 0.91], bins=10)
    assert [b.n for b in cal.bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 3]
    assert cal.bins[9].mean == pytest.approx(0.9)
    assert cal.bins[9].median == pytest.approx(0.9)
    assert cal.bins[2].mean is None
    assert cal.r is not None
    assert cal.r > 0.9
    assert cal.rmse == pytest.approx(np.sqrt(np.mean(np.square([0.05, 0.2, 0.15, 0.28, 0.09]))))
