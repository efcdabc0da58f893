"""Pure Plotly figure builders for the campaign dashboard: plain data in, figure dict out (the
page draws it with ``static/cocoweb/charts.js`` from ``json_script``). User text is HTML-escaped:
Plotly renders a few tags in labels."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

BLUE, ORANGE, GREEN = "#2f5fd0", "#d9822b", "#1f7a3a"
# hover text at three decimals, as the run pages show numbers (runs/templatetags/run_numbers.py), not
# Plotly's full-precision floats; a histogram's %{x} is its bin's range, formatted by xhoverformat
DECIMALS = ".3f"


def _bins_hover(what: str, count: str) -> dict[str, str]:
    return {"hovertemplate": f"{what} %{{x}}<br>%{{y}} {count}<extra></extra>", "xhoverformat": DECIMALS}


def _finite(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def _layout(fig: go.Figure, title: str, xtitle: str, ytitle: str, height: int = 320) -> dict[str, Any]:
    fig.update_layout(
        title={"text": html.escape(title), "x": 0, "font": {"size": 14}},
        height=height,
        margin={"l": 55, "r": 15, "t": 40, "b": 45},
        plot_bgcolor="#fff",
        paper_bgcolor="#fff",
        font={"family": "system-ui, sans-serif", "size": 12},
        xaxis_title=xtitle,
        yaxis_title=ytitle,
    )
    return json.loads(pio.to_json(fig, validate=False))


def _empty(title: str, message: str) -> dict[str, Any]:
    """No bars to draw: the title and a note saying why, and no axes (Plotly's default -1..6 ranges
    for an empty histogram read as data)."""
    fig = go.Figure()
    fig.update_layout(
        xaxis={"visible": False},
        yaxis={"visible": False},
        annotations=[
            {
                "text": html.escape(message),
                "showarrow": False,
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
                "font": {"size": 13, "color": "#5b6474"},
            }
        ],
    )
    return _layout(fig, title, "", "", height=200)


def agreement_histogram(per_item: Sequence[float | None], threshold: float) -> dict[str, Any]:
    """Distribution of per-item agreement with the adjudication threshold marked."""
    values = _finite(per_item)
    if not values:
        return _empty(
            "Per-item agreement (n = 0 items)", "No item has two answers yet: agreement needs at least two per item."
        )
    fig = go.Figure(
        go.Histogram(
            x=values,
            xbins={"start": 0, "end": 1.0001, "size": 0.05},
            marker_color=BLUE,
            name="items",
            **_bins_hover("agreement", "items"),
        )
    )
    fig.add_vline(x=threshold, line_dash="dash", line_color=ORANGE, annotation_text="adjudicate below")
    left_out = len(per_item) - len(values)  # agreement needs two answers
    title = f"Per-item agreement (n = {len(values)} items" + (
        f"; {left_out} with a single answer left out)" if left_out else ")"
    )
    return _layout(fig, title, "pairwise agreement", "items")


def answers_per_item(counts: Sequence[int], redundancy: int) -> dict[str, Any]:
    if not counts:
        return _empty("Answers per item (n = 0 items)", "No answers yet.")
    fig = go.Figure(
        go.Histogram(
            x=list(counts),
            marker_color=GREEN,
            name="items",
            hovertemplate="%{x} answers: %{y} items<extra></extra>",  # whole numbers
        )
    )
    fig.add_vline(x=redundancy, line_dash="dash", line_color=ORANGE, annotation_text="redundancy")
    return _layout(fig, f"Answers per item (n = {len(counts)} items)", "accepted answers", "items")


def annotator_scatter(
    consensus: Sequence[float | None], awareness: Sequence[float | None], names: Sequence[str]
) -> dict[str, Any]:
    """NWW annotators: consensus C against awareness A (the diagonal is C = A)."""
    pts = [
        (c, a, html.escape(n))
        for c, a, n in zip(consensus, awareness, names, strict=True)
        if c is not None and a is not None and math.isfinite(c) and math.isfinite(a)
    ]
    fig = go.Figure(
        [
            go.Scatter(
                x=[p[0] for p in pts],
                y=[p[1] for p in pts],
                text=[p[2] for p in pts],
                mode="markers",
                marker={"color": BLUE, "size": 8, "opacity": 0.7},
                name="annotators",
                hovertemplate=f"%{{text}}<br>C=%{{x:{DECIMALS}}}<br>A=%{{y:{DECIMALS}}}<extra></extra>",
            ),
            go.Scatter(
                x=[0, 1],
                y=[0, 1],
                mode="lines",
                line={"dash": "dot", "color": "#999"},
                name="C = A",
                hoverinfo="skip",  # the diagonal is a guide, not data
            ),
        ]
    )
    fig.update_xaxes(range=[0, 1.02])
    fig.update_yaxes(range=[0, 1.02])
    return _layout(fig, "Annotators: consensus vs awareness", "consensus C", "awareness A", height=360)


def commonsensicality_histogram(values: Sequence[float | None], title: str, unit: str = "count") -> dict[str, Any]:
    """Distribution of commonsensicality (NWW Fig. 2B / A.2)."""
    finite = _finite(values)
    fig = go.Figure(
        go.Histogram(
            x=finite,
            xbins={"start": 0, "end": 1.0001, "size": 0.05},
            marker_color=GREEN,
            **_bins_hover("commonsensicality", unit),
        )
    )
    return _layout(fig, f"{title} (n = {len(finite)})", "commonsensicality", unit)


def option_ticks(ticks_by_position: Sequence[int], labels: Sequence[str]) -> dict[str, Any]:
    fig = go.Figure(
        go.Bar(
            x=[html.escape(x) for x in labels],
            y=list(ticks_by_position),
            marker_color=BLUE,
            hovertemplate="option %{x}: %{y} ticks<extra></extra>",  # whole numbers
        )
    )
    return _layout(fig, "Options ticked as plausible, by position", "option", "ticks")
