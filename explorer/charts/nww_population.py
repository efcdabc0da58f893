"""Pure figure builders for the NWW population analyses (fidelity, feature differences)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from . import LEGEND_TOP, PALETTE, axis_spec, empty_figure, label, make_figure


def fidelity_bars(
    rows: Sequence[tuple[str, float | None, bool]], baseline: tuple[float | None, float | None, float | None] | None
) -> go.Figure:
    """NWW Fig. 4A: one bar per model, Pearson r of its silicon population with the humans
    (``rows``: name, r, significant after Bonferroni), the human split-half r (mean, 95 % CI) as a
    band."""
    pts = [r for r in rows if r[1] is not None]
    if not pts:
        return empty_figure("No statement run with a P(yes) on statements the survey raters answered.")
    bar = go.Bar(
        x=[label(p[0], 40) for p in pts],
        y=[p[1] for p in pts],
        marker_color=[PALETTE[0] if p[2] else "#b9c0cc" for p in pts],
        text=["p < .05 (Bonferroni)" if p[2] else "n.s." for p in pts],
        textposition="none",
        hovertemplate="%{x}: r = %{y:.3f} (%{text})<extra></extra>",
        name="model",
    )
    shapes, notes = [], []
    if baseline is not None and baseline[0] is not None:
        r, lo, hi = baseline
        if lo is not None and hi is not None:
            shapes.append(
                {
                    "type": "rect",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": lo,
                    "y1": hi,
                    "fillcolor": "#d9822b",
                    "opacity": 0.15,
                    "line": {"width": 0},
                }
            )
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": r,
                "y1": r,
                "line": {"color": "#d9822b", "dash": "dash"},
            }
        )
        notes.append(
            {
                "xref": "paper",
                "x": 1,
                "y": r,
                "text": f"human split-half r = {r:.2f}",
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "bottom",
                "font": {"size": 10, "color": "#d9822b"},
            }
        )
    return make_figure(
        [bar],
        showlegend=False,
        shapes=shapes,
        annotations=notes,
        xaxis=axis_spec("model"),
        yaxis=axis_spec("Pearson r with humans", range=[-1, 1]),
    )


def feature_differences(
    rows: Sequence[tuple[str, str, float | None, tuple[float | None, float | None], tuple[float | None, float | None]]],
) -> go.Figure:
    """NWW Fig. 3C: per dichotomy (y) the mean commonsensicality difference pole 1 − pole 0 (x) of
    each population, with a thick 50 % and a thin 95 % bootstrap interval. ``rows``: (population,
    feature, value, ci50, ci95)."""
    pts = [r for r in rows if r[2] is not None]
    if not pts:
        return empty_figure("No feature difference: the statements need feature labels and a P(yes) to (a) and (b).")
    traces = []
    for i, pop in enumerate(dict.fromkeys(p[0] for p in pts)):
        sub = [p for p in pts if p[0] == pop]
        color = PALETTE[i % len(PALETTE)]

        def err(k: int, sub: list = sub) -> dict:
            return {
                "type": "data",
                "symmetric": False,
                "array": [(p[k][1] - p[2]) if p[k][1] is not None else 0 for p in sub],
                "arrayminus": [(p[2] - p[k][0]) if p[k][0] is not None else 0 for p in sub],
            }

        y = [label(p[1]) for p in sub]
        x = [p[2] for p in sub]
        traces.append(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                name=label(pop, 40),
                marker={"color": color, "size": 8},
                error_x={**err(4), "thickness": 1.2, "width": 4, "color": color},
                hovertemplate="%{y}: %{x:+.3f}<extra>" + label(pop, 40) + "</extra>",
            )
        )
        traces.append(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                showlegend=False,
                hoverinfo="skip",
                marker={"color": color, "size": 1},
                error_x={**err(3), "thickness": 6, "width": 0, "color": color},
            )
        )
    return make_figure(
        traces,
        height=360,
        legend=LEGEND_TOP,  # below the plot it ran into the x title once it wrapped to two lines
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        shapes=[
            {
                "type": "line",
                "x0": 0,
                "x1": 0,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#8a93a3", "width": 1},
            }
        ],
        xaxis=axis_spec("mean commonsensicality, pole 1 − pole 0", zeroline=False),
        yaxis=axis_spec("dichotomy (pole 1)", automargin=True),
    )
