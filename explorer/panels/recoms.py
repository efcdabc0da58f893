"""ReComSBench panels: Fig. 4, KBA against accuracy per difficulty window (the windows of
:func:`explorer.selectors.difficulty.core_windows`, by the run metrics' definition), and Fig. 6, the
knowledge redundancy ratio of correct and incorrect paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer import charts
from explorer.panels.base import Panel
from explorer.selectors.difficulty import CoreWindow
from runs.models import Run
from runs.selectors.runs import metric_values


def kba_accuracy_panel(runs: Sequence[Run], wins: dict[int, list[CoreWindow]], label: Any) -> Panel | None:
    """Fig. 4: per window, KBA (y) against accuracy (x), one line per run from Easy to Hard."""
    pts = [(r, [w for w in wins.get(r.pk, []) if w["kba"] is not None]) for r in runs]
    pts = [(r, ws) for r, ws in pts if ws]
    if not pts:
        return None
    series: list[tuple[str, list[float], list[float | None], list[str]]] = [
        (label(r), [w["accuracy"] for w in ws], [w["kba"] for w in ws], []) for r, ws in pts
    ]
    rows = [(label(r), w["window"] + 1, w["mean_d"], w["accuracy"], w["kba"], w["n"]) for r, ws in pts for w in ws]
    return Panel(
        "kba-accuracy",
        "ReComSBench Fig. 4: knowledge-based accuracy (KBA) against accuracy per difficulty window",
        charts.line_series(series, x_title="accuracy in the window", y_title="KBA in the window"),
        ["run", "window", "mean d", "accuracy", "KBA", "n"],
        rows,
        click="",
        note="Each point is one window (Easy → Hard), by the same windows as the run's metrics table.",
    )


def redundancy_panel(runs: Sequence[Run], label: Any) -> Panel | None:
    """Fig. 6: mean knowledge redundancy ratio of correct and of incorrect reasoning paths."""
    got = metric_values(runs, ("krr_correct", "krr_incorrect"), scope="overall")
    vals = {(m.run, m.name): (m.value, m.n) for m in got}
    have = [
        r for r in runs if any(vals.get((r.pk, n), (None, 0))[0] is not None for n in ("krr_correct", "krr_incorrect"))
    ]
    if not have:
        return None
    names = ("krr_correct", "krr_incorrect")
    series = [
        charts.Series(
            label(r),
            [vals.get((r.pk, n), (None, 0))[0] for n in names],
            [vals.get((r.pk, n), (None, 0))[1] for n in names],
        )
        for r in have
    ]
    rows = [(label(r), n.removeprefix("krr_"), *vals.get((r.pk, n), (None, 0))) for r in have for n in names]
    return Panel(
        "redundancy",
        "ReComSBench Fig. 6: knowledge redundancy ratio of correct vs incorrect paths",
        charts.grouped_bars(
            ["correct paths", "incorrect paths"],
            series,
            axis="paths",
            value="mean |K(S) \\ K_prior| / |K_prior|",
            percent=False,
        ),
        ["run", "paths", "mean redundancy ratio", "paths counted"],
        rows,
        click="",
    )
