"""Accuracy panels shared by every model-error page: accuracy by a dimension (relation, query kind,
perturbation) with Wilson intervals, a small-group filter, and the links of each bar to its items."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from urllib.parse import quote_plus, urlencode

from django.urls import get_script_prefix, reverse

from explorer import charts
from explorer.panels.base import Panel, run_label
from explorer.selectors import errors as es
from explorer.selectors.rows import GroupAccuracy
from runs.models import Run


def items_href(run: Run, **params: object) -> str:
    return _items_base(run.pk, get_script_prefix()) + "?" + urlencode({k: v for k, v in params.items() if v != ""})


def items_hrefs(run: Run, key: str, values: Sequence[object]) -> list[str]:
    """``items_href(run, key=v)`` for many values (a statement run links each of 4,000 points)."""
    base = _items_base(run.pk, get_script_prefix()) + "?" + quote_plus(key) + "="
    return [base + quote_plus(str(v)) for v in values]


@lru_cache(maxsize=1024)
def _items_base(run_id: int, script_prefix: str) -> str:
    """The drawer URL of a run, resolved once (a statement run links each of thousands of points)."""
    return reverse("explorer:run_items", args=[run_id])


def series_for(runs: Sequence[Run], rows: Sequence[GroupAccuracy], param: str) -> tuple[list[str], list[charts.Series]]:
    """Turn [{run, group, n, ok}] into the shared group axis and one Series per run, each bar
    with its 95% Wilson interval."""
    from runs.selectors.samples import wilson_many

    groups = sorted({str(r["group"]) for r in rows})
    by_run: dict[int, dict[str, GroupAccuracy]] = {}
    for r in rows:
        by_run.setdefault(r["run"], {})[str(r["group"])] = r
    mine_of = [by_run.get(run.pk, {}) for run in runs]
    # every bar's interval in one call: (0, 0) where a run has no item in a group gives None
    cis = iter(
        wilson_many(
            [(int(mine[g]["ok"]), int(mine[g]["n"])) if g in mine else (0, 0) for mine in mine_of for g in groups]
        )
    )
    series = []
    for run, mine in zip(runs, mine_of, strict=True):
        series.append(
            charts.Series(
                run_label(run),
                [(mine[g]["ok"] / mine[g]["n"]) if g in mine and mine[g]["n"] else None for g in groups],
                [int(mine[g]["n"]) if g in mine else 0 for g in groups],
                [items_href(run, **{param: g}) for g in groups],
                [next(cis) for _ in groups],
            )
        )
    return groups, series


def min_n_filter(rows: Sequence[GroupAccuracy], min_n: int) -> tuple[list[GroupAccuracy], int]:
    """The breakdown rows with at least ``min_n`` items, and how many groups fell out entirely."""
    if min_n <= 1:
        return list(rows), 0
    kept = [r for r in rows if int(r["n"]) >= min_n]
    hidden = {str(r["group"]) for r in rows} - {str(r["group"]) for r in kept}
    return kept, len(hidden)


def accuracy_panel(
    key: str,
    title: str,
    runs: Sequence[Run],
    rows: Sequence[GroupAccuracy],
    param: str,
    axis: str,
    min_n: int = 0,
) -> Panel:
    kept, hidden = min_n_filter(rows, min_n)
    groups, series = series_for(runs, kept, param)
    # each run's rows in group order (a 12-run compare: one pass over the rows, not runs x groups x rows)
    ordered = [(run, g, r) for run, mine in _rows_by_run(runs, kept) for g in groups for r in mine.get(g, ())]
    table = [
        (run_label(run), g, int(r["n"]), int(r["ok"]), r["ok"] / r["n"] if r["n"] else None) for run, g, r in ordered
    ]
    links = [items_href(run, **{param: g}) for run, g, _ in ordered]
    note = "Bars: accuracy with its 95% Wilson interval; n = items in the group."
    if min_n > 1:
        note += f" Groups under {min_n} items hidden" + (
            f" ({hidden} {axis} group{'s' if hidden != 1 else ''})." if hidden else "."
        )
    empty = f"No {axis} group has {min_n} items or more." if min_n > 1 else "No predictions to group."
    return Panel(
        key,
        title,
        charts.grouped_bars(groups, series, axis=axis, empty=empty),
        ["run", axis, "n", "correct", "accuracy"],
        table,
        links=links,
        note=note,
    )


def _rows_by_run(
    runs: Sequence[Run], rows: Sequence[GroupAccuracy]
) -> list[tuple[Run, dict[str, list[GroupAccuracy]]]]:
    """Per run (in ``runs``' order): group -> its rows, in the rows' order."""
    by_run: dict[int, dict[str, list[GroupAccuracy]]] = {}
    for r in rows:
        by_run.setdefault(r["run"], {}).setdefault(str(r["group"]), []).append(r)
    return [(run, by_run.get(run.pk, {})) for run in runs]


# dimension -> (panel key, title, shown without any group): the accuracy breakdowns of es.DIMENSIONS
DIMENSION_PANELS = {
    "relation": ("by-relation", "Accuracy by relation", True),
    "kind": ("by-kind", "Accuracy by query kind", True),
    "perturbation": ("rica", "RICA: accuracy by perturbation", False),  # only on a RICA set
}


def dimension_panels(
    runs: Sequence[Run],
    want: Callable[..., bool],
    min_n: int,
    *dimensions: str,
    acc: Mapping[str, Sequence[GroupAccuracy]] | None = None,
) -> list[Panel]:
    """The accuracy-by-group panels of ``dimensions`` that are wanted (``acc``: rows read already by
    :func:`accuracy_rows`; else one query each, cached)."""
    out = []
    for dim in dimensions:
        key, title, keep_empty = DIMENSION_PANELS[dim]
        if not want(key):
            continue
        rows = acc[dim] if acc is not None and dim in acc else es.accuracy_by(runs, dim)
        if rows or keep_empty:
            out.append(accuracy_panel(key, title, runs, rows, dim, dim, min_n))
    return out


def accuracy_rows(runs: Sequence[Run], want: Callable[..., bool]) -> dict[str, list[GroupAccuracy]]:
    """The wanted dimensions' accuracy rows in one statement (:func:`es.accuracy_by_dims`)."""
    dims = tuple(d for d, (key, _, _) in DIMENSION_PANELS.items() if want(key))
    return es.accuracy_by_dims(runs, dims) if dims else {}


def panels_wanted(only: str) -> Callable[..., bool]:
    """``only``: the one panel a CSV download asks for ("" = all): the others are not computed."""
    return lambda *keys: not only or only in keys
