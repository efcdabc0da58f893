"""Pure figure builders for a graph's overview page: its relations, its degree distribution and its
best-connected nodes."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.charts import PALETTE, axis_spec, empty_figure, label, make_figure


def relation_distribution(rows: Sequence[tuple[str, int]]) -> go.Figure:
    if not rows:
        return empty_figure("This graph has no triples yet.")
    rows = sorted(rows, key=lambda r: r[1])
    bar = go.Bar(
        x=[n for _, n in rows],
        y=[label(r) for r, _ in rows],
        orientation="h",
        marker_color=PALETTE[0],
        hovertemplate="%{y}: %{x:,} triples<extra></extra>",
    )
    return make_figure([bar], height=max(220, 22 * len(rows) + 60), xaxis=axis_spec("triples"))


def degree_distribution(rows: Sequence[tuple[int, int]]) -> go.Figure:
    """Number of nodes per degree, both axes logarithmic (degree 0 cannot be drawn and is left out)."""
    pts = [(d, n) for d, n in rows if d > 0 and n > 0]
    if not pts:
        return empty_figure("No edges: the degree distribution is empty.")
    dots = go.Scatter(
        x=[d for d, _ in pts],
        y=[n for _, n in pts],
        mode="markers",
        marker={"color": PALETTE[0], "size": 6},
        hovertemplate="degree %{x:,}: %{y:,} nodes<extra></extra>",
    )
    return make_figure([dots], xaxis=axis_spec("degree (in + out)", type="log"), yaxis=axis_spec("nodes", type="log"))


def top_nodes(rows: Sequence[tuple[str, int, str]]) -> go.Figure:
    """(text, degree, href) of the most connected nodes; a click opens the node page."""
    if not rows:
        return empty_figure("No nodes yet.")
    rows = list(reversed(rows))
    bar = go.Bar(
        x=[d for _, d, _ in rows],
        y=[label(t, 48) for t, _, _ in rows],
        orientation="h",
        customdata=[h for _, _, h in rows],
        hovertext=[label(t) for t, _, _ in rows],
        marker_color=PALETTE[1],
        hovertemplate="%{hovertext}<br>degree %{x:,}<extra></extra>",
    )
    return make_figure(
        [bar], height=max(240, 22 * len(rows) + 60), xaxis=axis_spec("degree"), yaxis=axis_spec(automargin=True)
    )


# -- model errors -------------------------------------------------------------------------------
