"""Pure Plotly figure builders for the explorer: plain data in, ``go.Figure`` out.

No database, no request, no URL reversing: whatever a point links to arrives as an ``href`` in the
data. The page draws the figure with ``static/cocoweb/charts.js``; a click on a point with a
``customdata`` href opens it (in the side drawer when the chart asks for it).

Every user-supplied string (node text, run labels, relation names) goes through :func:`label`,
which HTML-escapes it: Plotly interprets a few tags (``<b>``, ``<a>``, ``<br>``) in text and
hover labels, and decodes entities, so escaped text shows literally and stays inert.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from commonsense.metrics.consistency import LABELS as COCO_LABELS
from commonsense.metrics.consistency import category as coco_category

from .graph import neighbourhood_figure, query_structure_figure  # noqa: F401  (re-exported)

PALETTE = ["#2f5fd0", "#d9822b", "#1f7a3a", "#b42318", "#7a4cc2", "#0f8a8a", "#8a6d0f", "#5b6474"]


def label(text: Any, limit: int | None = None) -> str:
    s = "" if text is None else str(text)
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s, quote=False)


def axis_spec(title: str | None = None, **props: Any) -> dict[str, Any]:
    """An axis dict (None values left out); ``title`` is used as given (escape it with label())."""
    out = {k: v for k, v in props.items() if v is not None}
    if title is not None:
        out["title"] = {"text": title}
    return out


def make_figure(
    traces: Sequence[Any] = (),
    *,
    title: str = "",
    height: int = 360,
    xaxis: dict[str, Any] | None = None,
    yaxis: dict[str, Any] | None = None,
    validate: bool = True,
    **layout: Any,
) -> go.Figure:
    """The house style in one constructor call. Plotly's update_layout / update_xaxes cost ~10 ms of
    property-path parsing each, the constructor with the whole layout a fraction of that, and a
    page draws up to eight figures. ``validate=False`` (with plain-dict traces) skips plotly's
    per-element checks: for traces of thousands of points whose properties a test pins down."""
    base: dict[str, Any] = {
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 40 if title else 16, "b": 50},
        "font": {"family": "system-ui, sans-serif", "size": 12},
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
        "hovermode": "closest",
        "xaxis": {"gridcolor": "#eef1f5", "zeroline": False, **(xaxis or {})},
        "yaxis": {"gridcolor": "#eef1f5", "zeroline": False, **(yaxis or {})},
    }
    if title:
        base["title"] = {"text": label(title), "x": 0, "font": {"size": 14}}
    return go.Figure(data=list(traces), layout={**base, **layout}, _validate=validate)


def empty_figure(message: str, *, height: int = 220) -> go.Figure:
    """A figure with no traces and one centred note: what the chart needs to show something."""
    # Plotly does not wrap annotation text: break it into lines that fit a half-width panel
    text = "<br>".join(label(line) for line in textwrap.wrap(message, 52)) or label(message)
    note = {
        "text": text,
        "showarrow": False,
        "x": 0.5,
        "y": 0.5,
        "xref": "paper",
        "yref": "paper",
        "font": {"size": 13, "color": "#5b6474"},
    }
    return make_figure(height=height, xaxis={"visible": False}, yaxis={"visible": False}, annotations=[note])


def is_empty(fig: go.Figure) -> bool:
    return len(fig.data) == 0


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson r, or None with fewer than 3 pairs or no variance."""
    n = len(xs)
    if n < 3 or n != len(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


# -- graph overview -----------------------------------------------------------------------------


@dataclass
class Series:
    """One run's values over a shared list of groups: accuracy (0–1 or None), item count, the
    href listing the group's items (for the drawer) and, where the data allows, the 95% interval
    of each value (``ci``: (low, high) per group, None where there is none)."""

    name: str
    values: list[float | None]
    counts: list[int] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    ci: list[tuple[float, float] | None] = field(default_factory=list)


LEGEND_TOP = {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "xanchor": "left"}  # never over x labels


def grouped_bars(
    groups: Sequence[str],
    series: Sequence[Series],
    *,
    axis: str,
    value: str = "accuracy",
    empty: str = "No predictions to group.",
    percent: bool = True,
) -> go.Figure:
    """Side-by-side bars: one colour per series (run), one cluster per group. Every group's n is
    drawn under its label (a range when the series differ; each bar's own n in its hover) and each
    bar carries its 95% interval as an error bar when the series has one: n labels above the bars
    collided with the error bars, each other and the x labels (#29 item 13). A 0 value still shows
    (an outlined stub at the axis); every group's label is drawn (slanted when there are many
    or they would not fit side by side), and the legend sits above the plot."""
    if not groups or not series:
        return empty_figure(empty)
    names = [label(g) for g in groups]
    ticks = [f"{name} {n_text(group_counts(series, i))}" for i, name in enumerate(names)]
    # one line per label (a second line overlaps the next label once turned); turned when the
    # labels would not fit side by side in a half-width panel's plot
    slanted = len(groups) > 6 or sum(tick_width(g) for g in groups) > PLOT_WIDTH
    bars = []
    for i, s in enumerate(series):
        counts = s.counts or [0] * len(groups)
        colour = PALETTE[i % len(PALETTE)]
        ci = list(s.ci) + [None] * (len(groups) - len(s.ci))
        has_ci = any(c is not None for c in ci)
        error_y = None
        if has_ci:
            error_y = {  # in go.Bar's key order (alphabetical), so that the page's JSON is the same text
                "array": [
                    (c[1] - v) if c is not None and v is not None else None for c, v in zip(ci, s.values, strict=True)
                ],
                "arrayminus": [
                    (v - c[0]) if c is not None and v is not None else None for c, v in zip(ci, s.values, strict=True)
                ],
                "color": "#5b6474",
                "symmetric": False,
                "thickness": 1,
                "type": "data",
                "width": 3,
            }
        fmt = ".1%" if percent else ".3f"
        ci_note = "<br>95% interval shown as the error bar" if has_ci else ""
        bar = {
            "type": "bar",
            "name": label(s.name, 40),
            "x": names,
            "y": s.values,
            "customdata": s.hrefs or None,
            "marker": {"color": colour, "line": {"color": colour, "width": 1.5}},  # a 0 bar stays visible
            "error_y": error_y,
            "text": [f"n={c}" for c in counts],
            "textposition": "none",  # the n is under the group's label; the bar's own in the hover
            "hovertemplate": f"%{{x}}: %{{y:{fmt}}} (%{{text}}){ci_note}<extra>{label(s.name, 40)}</extra>",
        }
        bars.append({k: v for k, v in bar.items() if v is not None})  # as go.Bar leaves out a None property
    # plain traces, not validated element by element: a 12-run compare's two bar charts took ~40 ms of
    # plotly's property validation (tests/explorer/test_charts.py compares the JSON with go.Bar's)
    return make_figure(
        bars,
        validate=False,
        barmode="group",
        height=420 if slanted else 360,
        legend=LEGEND_TOP,
        showlegend=len(series) > 1,
        margin={"l": 60, "r": 20, "t": 60 if len(series) > 1 else 24, "b": 50},
        xaxis=axis_spec(
            axis,
            tickmode="array",
            tickvals=names,
            ticktext=ticks,
            tickangle=-45 if slanted else 0,
            automargin=True,
        ),
        yaxis=axis_spec(
            value,
            range=[0, 1.04] if percent else None,  # a 100 % bar's error bar stays inside
            tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0] if percent else None,
            tickformat=".0%" if percent else None,
        ),
    )


PLOT_WIDTH = 300  # px: the plot area of a half-width panel on a laptop, less on a phone (a bound)
CHAR_WIDTH = 7  # px: a 12 px system-ui character, a little wide


def tick_width(group: str) -> int:
    """About how wide a group's label and its n are drawn side by side (px), with a gap."""
    return CHAR_WIDTH * (len(group) + 6) + 16


def group_counts(series: Sequence[Series], i: int) -> list[int]:
    """The n of group ``i`` in each series that has a value there."""
    return [s.counts[i] for s in series if len(s.counts) > i and i < len(s.values) and s.values[i] is not None]


def n_text(counts: Sequence[int]) -> str:
    """A group's n under its label: ``n=12``, or ``n=10–12`` when the series (runs) differ."""
    lo, hi = (min(counts), max(counts)) if counts else (0, 0)
    return f'<span style="font-size:10px;color:#5b6474">n={lo}{"" if lo == hi else f"–{hi}"}</span>'


def position_bias(n_options: int, cells: Sequence[tuple[int, int, int, str]]) -> go.Figure:
    """Heatmap of (answer position, chosen position) counts. ``cells``: (answer, chosen, n, href);
    chosen == -1 is "no answer". Row-normalised colour, raw counts in the cell text."""
    if not cells or n_options <= 0:
        return empty_figure("No answered multiple-choice predictions.")
    cols = list(range(n_options)) + ([-1] if any(c == -1 for _, c, _, _ in cells) else [])
    col_names = [chr(65 + c) if c >= 0 else "none" for c in cols]
    row_names = [chr(65 + a) for a in range(n_options)]
    z = [[0.0] * len(cols) for _ in range(n_options)]
    counts = [[0] * len(cols) for _ in range(n_options)]
    links = [[""] * len(cols) for _ in range(n_options)]
    for a, c, n, href in cells:
        if 0 <= a < n_options and c in cols:
            j = cols.index(c)
            counts[a][j] += n
            links[a][j] = href
    for i, row in enumerate(counts):
        total = sum(row)
        z[i] = [v / total if total else 0.0 for v in row]
    heat = go.Heatmap(
        z=z,
        x=col_names,
        y=row_names,
        text=counts,
        texttemplate="%{text}",
        customdata=links,
        colorscale="Blues",
        zmin=0,
        zmax=1,
        colorbar={"title": {"text": "share of row"}},
        hovertemplate="answer %{y}, chosen %{x}: %{text} (%{z:.0%} of the row)<extra></extra>",
    )
    return make_figure(
        [heat],
        height=320,
        xaxis=axis_spec("chosen option", side="bottom"),
        yaxis=axis_spec("correct option", autorange="reversed"),
    )


COCO_CELLS = {(k, s): COCO_LABELS[coco_category(k, s)] for k in (True, False) for s in (True, False)}
COCO_CELL_LINE = 20


def coco_quadrants(counts: dict[tuple[bool, bool], int], hrefs: dict[tuple[bool, bool], str]) -> go.Figure:
    """CoCo's 2×2: rows = all atomic facts answered correctly (yes/no), columns = composed
    question answered correctly (yes/no). Keys are (knows_atoms, solves_composed)."""
    total = sum(counts.values())
    if not total:
        return empty_figure("No CoCo application sets with a reasoning question and its atomic questions.")
    keys_rows = [True, False]
    keys_cols = [True, False]
    z = [[counts.get((r, c), 0) for c in keys_cols] for r in keys_rows]
    # Plotly neither wraps nor shrinks heatmap text: break the labels so that a cell of a half-width
    # panel (about 200 px) holds them (COCO_CELL_LINE characters of 14 px text)
    text = [
        [
            "<br>".join(textwrap.wrap(COCO_CELLS[(r, c)], COCO_CELL_LINE))
            + f"<br>{counts.get((r, c), 0)} ({counts.get((r, c), 0) / total:.0%})"
            for c in keys_cols
        ]
        for r in keys_rows
    ]
    links = [[hrefs.get((r, c), "") for c in keys_cols] for r in keys_rows]
    heat = go.Heatmap(
        z=z,
        x=["solves composed", "fails composed"],
        y=["knows all atoms", "misses an atom"],
        text=text,
        texttemplate="%{text}",
        customdata=links,
        textfont={"size": 14},  # readable, and 20 characters fit a cell
        colorscale="Oranges",
        showscale=False,
        hovertemplate="%{text}<extra></extra>",
    )
    return make_figure([heat], height=300, yaxis=axis_spec(autorange="reversed"))


def labelled_scatter(
    points: Sequence[tuple[str, float | None, float | None, str]],
    *,
    x_title: str,
    y_title: str,
    fit: bool = True,
    unit_square: bool = True,
    empty: str = "Not enough runs.",
) -> go.Figure:
    """One labelled point per run (name, x, y, href), with a least-squares line and Pearson r in the
    title when there are at least three points."""
    pts = [(n, x, y, h) for n, x, y, h in points if x is not None and y is not None]
    if not pts:
        return empty_figure(empty)
    xs, ys = [p[1] for p in pts], [p[2] for p in pts]
    traces = [
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers+text",
            text=[label(p[0], 24) for p in pts],
            textposition="top center",
            customdata=[p[3] for p in pts],
            marker={"size": 10, "color": PALETTE[0]},
            hovertemplate="%{text}<br>"
            + label(x_title)
            + " %{x:.3f}<br>"
            + label(y_title)
            + " %{y:.3f}<extra></extra>",
            name="runs",
        )
    ]
    r = pearson(xs, ys)
    if fit and r is not None:
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
        lo, hi = min(xs), max(xs)
        traces.append(
            go.Scatter(
                x=[lo, hi],
                y=[my + slope * (lo - mx), my + slope * (hi - mx)],
                mode="lines",
                line={"dash": "dash", "color": "#5b6474"},
                name="least squares",
                hoverinfo="skip",
            )
        )
    unit = [0, 1.05] if unit_square else None
    return make_figure(
        traces,
        title=f"r = {r:.3f} (n = {len(pts)})" if r is not None else f"n = {len(pts)}",
        showlegend=False,
        xaxis=axis_spec(label(x_title), range=unit),
        yaxis=axis_spec(label(y_title), range=unit),
    )


def line_series(
    series: Sequence[tuple[str, list[float], list[float | None], list[str]]],
    *,
    x_title: str,
    y_title: str = "accuracy",
    empty: str = "No data.",
) -> go.Figure:
    """Lines with markers: (name, xs, ys, hrefs) per series (ReComSBench windows)."""
    series = [s for s in series if s[1]]
    if not series:
        return empty_figure(empty)
    lines = [
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=label(name, 40),
            customdata=hrefs or None,
            line={"color": PALETTE[i % len(PALETTE)]},
            hovertemplate="%{x:.2f}: %{y:.1%}<extra>" + label(name, 40) + "</extra>",
        )
        for i, (name, xs, ys, hrefs) in enumerate(series)
    ]
    return make_figure(
        lines,
        legend=LEGEND_TOP,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        xaxis=axis_spec(label(x_title)),
        yaxis=axis_spec(label(y_title), range=[0, 1], tickformat=".0%"),
    )
