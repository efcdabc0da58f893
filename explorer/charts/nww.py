"""Pure figure builders for the commonsensicality views (Nguyen, Watts & Whiting)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from . import LEGEND_TOP, PALETTE, axis_spec, empty_figure, label, make_figure, pearson

LEVELS = (0.25, 0.5, 0.75)
STORED_COLOUR = "#8a93a3"  # the answers that came with the statements: grey, no run's colour
RUN_SYMBOLS = ("circle", "square", "triangle-up")  # after the palette's 8 colours, another shape


def level_curve(m: float, n: int = 60) -> tuple[list[float], list[float]]:
    """Points (C, A) with sqrt(C·A) = m inside the unit square: A = m²/C for C in [m², 1]."""
    lo = m * m
    xs = [lo + (1 - lo) * i / (n - 1) for i in range(n)]
    return xs, [m * m / x for x in xs]


def consensus_awareness(
    points: Sequence[tuple[str, float | None, float | None, str, str]], levels: Sequence[float] = LEVELS
) -> go.Figure:
    """NWW Fig. 2B: one point per model (name, consensus, awareness, href, group) with the
    iso-commonsensicality curves sqrt(C·A) = level. ``group`` separates runs (``"runs"``: each its
    own trace, colour and legend entry) from stored answers (one grey trace per group)."""
    pts = [(n, c, a, h, g) for n, c, a, h, g in points if c is not None and a is not None]
    if not pts:
        return empty_figure("No statement runs (or stored model answers) with consensus and awareness.")
    lo = max(min(min(p[1] for p in pts), min(p[2] for p in pts), 0.5) - 0.05, 0)
    traces, notes = [], []
    for m in levels:
        xs, ys = level_curve(m)
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"dash": "dot", "color": "#b9c0cc", "width": 1},
                name=f"M = {m:.0%}",
                hoverinfo="skip",
                showlegend=False,
            )
        )
        if m >= lo:  # the label sits where the curve crosses the diagonal, inside the plot
            notes.append(
                {
                    "x": m,
                    "y": m,
                    "text": f"M={m:.0%}",
                    "showarrow": False,
                    "xanchor": "left",
                    "yanchor": "bottom",
                    "font": {"size": 10, "color": "#8a93a3"},
                }
            )
    # stored answers first, as large open diamonds; the runs last, on top: a run that replays
    # stored answers sits exactly on its diamond and must stay visible (issue 14, bug 5). Each run
    # is its own trace, colour and legend entry (#29 item 13: all runs were one blue trace)
    stored = [p for p in pts if p[4] != "runs"]
    for g in dict.fromkeys(p[4] for p in stored):
        sub = [p for p in stored if p[4] == g]
        traces.append(
            go.Scatter(
                x=[p[1] for p in sub],
                y=[p[2] for p in sub],
                mode="markers",
                name=label(g),
                text=[label(p[0], 40) for p in sub],
                customdata=[p[3] for p in sub],
                marker={"size": 15, "color": STORED_COLOUR, "symbol": "diamond-open", "line": {"width": 2}},
                hovertemplate="%{text}<br>consensus %{x:.1%}<br>awareness %{y:.1%}<extra>" + label(g) + "</extra>",
            )
        )
    for i, p in enumerate(p for p in pts if p[4] == "runs"):
        traces.append(
            go.Scatter(
                x=[p[1]],
                y=[p[2]],
                mode="markers",
                name=label(p[0], 40),
                text=[label(p[0], 40)],
                customdata=[p[3]],
                marker={
                    "size": 10,
                    "color": PALETTE[i % len(PALETTE)],
                    "symbol": RUN_SYMBOLS[(i // len(PALETTE)) % len(RUN_SYMBOLS)],
                    "line": {"width": 1, "color": "#fff"},
                },
                hovertemplate="%{text}<br>consensus %{x:.1%}<br>awareness %{y:.1%}<extra>run</extra>",
            )
        )
    return make_figure(
        traces,
        legend=LEGEND_TOP,
        height=440,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        annotations=notes,
        xaxis=axis_spec("consensus C", range=[lo, 1.02], tickformat=".0%"),
        yaxis=axis_spec("awareness A", range=[lo, 1.02], tickformat=".0%"),
    )


def model_in_human_distribution(human: Sequence[float], models: Sequence[tuple[str, float]]) -> go.Figure:
    """NWW Fig. 2E (one-dimensional form): the histogram of human raters' commonsensicality M_j with
    each model's M as a vertical line, labelled with the share of humans it beats."""
    if not human:
        return empty_figure("No human rater scores yet: they come from a survey campaign's answers.")
    hist = go.Histogram(
        x=list(human),
        nbinsx=30,
        marker_color="#c5ccd8",
        name="human raters",
        hovertemplate="M %{x}: %{y} raters<extra></extra>",
    )
    fig = make_figure(
        [hist],
        showlegend=False,
        xaxis=axis_spec("commonsensicality M", range=[0, 1], tickformat=".0%"),
        yaxis=axis_spec("human raters"),
    )
    for i, (name, m) in enumerate(models):
        wins = sum(1 for h in human if m > h) / len(human)
        fig.add_vline(
            x=m,
            line={"color": PALETTE[i % len(PALETTE)], "width": 2},
            annotation_text=f"{label(name, 24)} beats {wins:.0%}",
            annotation_textangle=-90,
            annotation_font_size=10,
            annotation_position="top right",
            annotation_yanchor="top",  # the turned label runs down into the plot, not up out of it
        )
    return fig


def silicon_vs_human(points: Sequence[tuple[float, float, str]], *, human_axis: str) -> go.Figure:
    """NWW Fig. 3-style: per statement, the model's P(yes) to "do you agree" (x) against the
    humans' agree rate (or majority 0/1 when only that is stored) (y), with Pearson r."""
    if not points:
        return empty_figure("No statement predictions with a P(yes) and a human label.")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    r = pearson(xs, ys)
    dots = {  # thousands of points: a plain trace, not validated element by element (test_charts pins it)
        "type": "scatter",  # SVG: WebGL's shader compiler needs eval, which the CSP refuses
        "x": xs,
        "y": ys,
        "mode": "markers",
        "customdata": [p[2] for p in points],
        "marker": {"size": 5, "color": PALETTE[0], "opacity": 0.45},
        "hovertemplate": "P(yes) %{x:.2f}<br>" + label(human_axis) + " %{y:.2f}<extra></extra>",
    }
    return make_figure(
        [dots],
        title=(f"r = {r:.3f}" if r is not None else "r undefined") + f" (n = {len(points)})",
        xaxis=axis_spec("model P(yes), question (a)", range=[-0.02, 1.02]),
        yaxis=axis_spec(label(human_axis), range=[-0.05, 1.05]),
        validate=False,
    )
