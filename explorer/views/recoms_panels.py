"""ReComSBench windows in the explorer by the same definition as the run's metrics table
(commonsense.metrics.recoms.window_bounds: the questions with a difficulty and a known answer,
failed items left out, sorted by d(Q) with ties in item order, window N // 3, step window // 3,
plus a last window ending at N), and Fig. 4: KBA against accuracy per window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django.db.models.fields.json import KT

from commonsense.metrics.recoms import window_bounds
from runs.models import Prediction, Run

from .. import charts
from .panels import Panel


def core_windows(runs: Sequence[Run]) -> dict[int, list[dict[str, Any]]]:
    """Per run: [{window, start, stop, d_min, d_max, mean_d, n, accuracy, kba}]. One query."""
    rows = (
        Prediction.objects.filter(
            run__in=runs, item_difficulty__isnull=False, question__answer_index__isnull=False, error=""
        )
        .annotate(kba=KT("extra__kba__correct"))
        .order_by("run_id", "item_difficulty", "position")
        .values_list("run_id", "item_difficulty", "correct", "kba")
    )
    per: dict[int, list[tuple[int, bool, bool | None]]] = {}
    for rid, d, ok, kba in rows:
        per.setdefault(rid, []).append(
            (int(cast(int, d)), bool(ok), None if kba is None else kba in (True, "true", "True", 1))
        )
    out: dict[int, list[dict[str, Any]]] = {}
    for rid, items in per.items():
        wins = []
        for i, (a, b) in enumerate(window_bounds(len(items))):
            part = items[a:b]
            ds = [d for d, _, _ in part]
            kb = [k for _, _, k in part if k is not None]
            wins.append(
                {
                    "window": i,
                    "start": a,
                    "stop": b,
                    "d_min": min(ds),
                    "d_max": max(ds),
                    "mean_d": sum(ds) / len(ds),
                    "n": len(part),
                    "accuracy": sum(ok for _, ok, _ in part) / len(part),
                    "kba": sum(kb) / len(kb) if kb else None,
                }
            )
        out[rid] = wins
    return out


def kba_accuracy_panel(runs: Sequence[Run], wins: dict[int, list[dict[str, Any]]], label: Any) -> Panel | None:
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
    from runs.models import RunMetric

    got = RunMetric.objects.filter(run__in=runs, name__in=("krr_correct", "krr_incorrect"), scope="overall")
    vals = {(rid, n): (v, k) for rid, n, v, k in got.values_list("run_id", "name", "value", "n")}
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
