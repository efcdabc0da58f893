"""Pure figure builders for graph-shaped pictures: a node's neighbourhood and a query's structure.
Layouts and label placement are computed here (deterministically) so the figures need no layout
engine in the page."""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go


def _esc(text: object, limit: int | None = None) -> str:
    s = "" if text is None else str(text)
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return html.escape(s, quote=False)


def _frame(
    traces: Sequence[go.Scatter],
    height: int,
    *,
    equal_aspect: bool = True,
    annotations: Sequence[dict[str, object]] = (),
    x_range: list[float] | None = None,
    y_range: list[float] | None = None,
) -> go.Figure:
    """The figure in one constructor call (plotly's update_* methods are slow: ~10 ms each)."""
    xaxis: dict[str, object] = {"visible": False}
    yaxis: dict[str, object] = {"visible": False}
    if equal_aspect:
        yaxis["scaleanchor"] = "x"
    if x_range is not None:
        xaxis["range"] = x_range
    if y_range is not None:
        yaxis["range"] = y_range
    return go.Figure(
        data=list(traces),
        layout={
            "height": height,
            "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
            "showlegend": False,
            "plot_bgcolor": "#fff",
            "paper_bgcolor": "#fff",
            "hovermode": "closest",
            "font": {"family": "system-ui, sans-serif", "size": 11},
            "annotations": list(annotations),
            "xaxis": xaxis,
            "yaxis": yaxis,
        },
    )


@dataclass(frozen=True)
class GraphNode:
    id: int
    text: str
    hop: int  # 0 = the centre, 1, 2
    href: str = ""
    parent: int | None = None  # the hop-1 node a hop-2 node was reached from


@dataclass(frozen=True)
class GraphEdge:
    head: int
    tail: int
    relation: str


def radial_layout(nodes: Sequence[GraphNode]) -> dict[int, tuple[float, float]]:
    """Centre at the origin, hop-1 nodes evenly on the unit circle, each hop-2 node on the circle of
    radius 2 inside its parent's angular sector."""
    pos: dict[int, tuple[float, float]] = {}
    hop1 = [n for n in nodes if n.hop == 1]
    angle: dict[int, float] = {}
    k = max(len(hop1), 1)
    for i, n in enumerate(hop1):
        a = 2 * math.pi * i / k
        angle[n.id] = a
        pos[n.id] = (math.cos(a), math.sin(a))
    children: dict[int | None, list[GraphNode]] = defaultdict(list)
    for n in nodes:
        if n.hop == 2:
            children[n.parent].append(n)
    sector = 2 * math.pi / k
    for parent, kids in children.items():
        base = angle.get(parent, 0.0) if parent is not None else 0.0
        for j, n in enumerate(kids):
            a = base + sector * 0.8 * ((j + 0.5) / len(kids) - 0.5)
            pos[n.id] = (2 * math.cos(a), 2 * math.sin(a))
    for n in nodes:
        if n.hop == 0:
            pos[n.id] = (0.0, 0.0)
    return pos


PLOT_PX = 500  # the figure's 520 px height less its margins: the y range's length on screen
CHAR_PX, LINE_PX = 6.2, 14  # 11 px system-ui text


class Labels:
    """Greedy label placement: a label is drawn only where its box (estimated in data units, the
    axes having equal scales) overlaps no label drawn before it; the rest keep their hover text."""

    def __init__(self, px_per_unit: float, x_bounds: tuple[float, float] | None = None) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []
        self.unit = px_per_unit
        self.x_bounds = x_bounds  # a label must lie within them (a narrow chart clips what passes its edge)

    def place(self, x: float, y: float, text: str, anchor: str) -> bool:
        w = (len(text) * CHAR_PX + 4) / self.unit
        h = LINE_PX / self.unit
        dx = dy = 8 / self.unit  # the marker's radius and a gap
        x0 = {"left": x + dx, "right": x - dx - w}.get(anchor, x - w / 2)
        y0 = {"top": y + dy, "bottom": y - dy - h}.get(anchor, y - h / 2)
        box = (x0, y0, x0 + w, y0 + h)
        if self.x_bounds is not None and not self.x_bounds[0] <= box[0] <= box[2] <= self.x_bounds[1]:
            return False
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.boxes):
            return False
        self.boxes.append(box)
        return True


def _outward(x: float, y: float) -> tuple[str, str]:
    """Where a node's label goes so that it points away from the centre: (Plotly textposition,
    the side of the point the box lies on for :class:`Labels`)."""
    if abs(x) < 1e-9 and abs(y) < 1e-9:
        return "top center", "top"
    a = math.atan2(y, x)
    if abs(math.cos(a)) >= 0.5:
        return ("middle right", "left") if x > 0 else ("middle left", "right")
    return ("top center", "top") if y > 0 else ("bottom center", "bottom")


def _edge_labels(edges: Sequence[GraphEdge], pos: dict[int, tuple[float, float]], centre: int | None) -> list:
    """Each edge's relation with the places it may be written, best first: (relation, [(x, y)]).
    An edge from the centre is labelled nearer its neighbour (the centre is crowded), others at the
    middle; the edges from the centre come first."""
    out = []
    for e in edges:
        if e.head not in pos or e.tail not in pos:
            continue
        (x0, y0), (x1, y1) = pos[e.head], pos[e.tail]
        if centre in (e.head, e.tail):
            if e.tail == centre:
                (x0, y0), (x1, y1) = (x1, y1), (x0, y0)
            spots = [(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t) for t in (0.6, 0.45, 0.75)]
            out.append((0, e.relation, spots))
        else:
            spots = [(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t) for t in (0.5, 0.35, 0.65)]
            out.append((1, e.relation, spots))
    return [(rel, spots) for _, rel, spots in sorted(out, key=lambda r: r[0])]


NARROW_PX = 340  # a phone's chart (390 px screen less the page's padding): charts.js picks it below 700 px


def neighbourhood_figure(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], width_px: int | None = None
) -> go.Figure:
    """The node and its 1–2 hop neighbours; a click on a neighbour opens its page. Every relation
    is written on its edges (once per fan of edges from the centre), node labels point outward, and
    a label that would overlap one drawn before it is left to the hover (#29 item 13).

    The labels are placed for the scale the chart is drawn at: a desktop's 500 px high plot, or
    with ``width_px`` a chart that narrow (a phone), whose equal axes then fit the width: its
    labels are shorter, fewer fit, and the figure is only as high as the picture."""
    if not nodes:
        return _frame(
            [],
            200,
            annotations=[
                {"text": "No node.", "showarrow": False, "x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper"}
            ],
        )
    pos = radial_layout(nodes)
    text = {n.id: n.text for n in nodes}
    ex: list[float | None] = []
    ey: list[float | None] = []
    mx, my, mtext = [], [], []
    for e in edges:
        if e.head not in pos or e.tail not in pos:
            continue
        (x0, y0), (x1, y1) = pos[e.head], pos[e.tail]
        ex += [x0, x1, None]
        ey += [y0, y1, None]
        mx.append((x0 + x1) / 2)
        my.append((y0 + y1) / 2)
        mtext.append(f"{_esc(text[e.head], 60)}<br>—{_esc(e.relation)}→<br>{_esc(text[e.tail], 60)}")
    traces = [
        go.Scatter(x=ex, y=ey, mode="lines", line={"color": "#c5ccd8", "width": 1}, hoverinfo="skip", name="edges"),
        go.Scatter(
            x=mx,
            y=my,
            mode="markers",
            marker={"size": 6, "color": "#c5ccd8", "symbol": "diamond"},
            hovertext=mtext,
            hoverinfo="text",
            name="relations",
        ),
    ]
    colours = {0: "#b42318", 1: "#2f5fd0", 2: "#8fa6dd"}
    sizes = {0: 18, 1: 12, 2: 8}
    reach = max(max(abs(y) for _, y in pos.values()), 0.5) + 0.35  # the y range binds the scale
    width = max(max(abs(x) for x, _ in pos.values()), 0.5) + 1.2  # room for labels left and right
    height, unit, limits = 520, PLOT_PX / (2 * reach), (28, 20)
    if width_px is not None:  # the width binds: equal axes over 2 * width units
        unit = (width_px - 20) / (2 * width)
        height, limits = min(520, round(unit * 2 * reach) + 20), (22, 16)
    placed = Labels(unit, (-width, width) if width_px is not None else None)

    def fit(x: float, y: float, text: str, limit: int, side: str) -> str | None:
        """The label as long as it fits (a narrow chart shortens it down to 8 characters)."""
        for n in range(limit, 7, -3) if width_px is not None else (limit,):
            short = _esc(text, n)
            if placed.place(x, y, html.unescape(short), side):
                return short
        return None

    shown: dict[int, str] = {}
    where: dict[int, str] = {}
    for n in sorted(nodes, key=lambda n: n.hop):  # the centre's label first, then hop 1, then hop 2
        x, y = pos[n.id]
        where[n.id], side = _outward(x, y)
        if n.hop < 2 and (short := fit(x, y, n.text, 28 if n.hop == 0 else limits[0], side)) is not None:
            shown[n.id] = short
    notes: list[dict[str, object]] = []
    centre = next((n.id for n in nodes if n.hop == 0), None)
    for rel, spots in _edge_labels(edges, pos, centre):
        for x, y in spots:
            if placed.place(x, y, rel, "middle"):
                notes.append(
                    {
                        "x": x,
                        "y": y,
                        "text": _esc(rel),
                        "showarrow": False,
                        "font": {"size": 10, "color": "#2f5fd0"},
                        "bgcolor": "rgba(255,255,255,0.85)",
                    }
                )
                break
    for n in nodes:  # hop-2 labels last, where room is left
        if n.hop == 2:
            x, y = pos[n.id]
            if (short := fit(x, y, n.text, limits[1], _outward(x, y)[1])) is not None:
                shown[n.id] = short
    ordered = sorted(nodes, key=lambda n: -n.hop)  # the centre is drawn last, on top
    traces.append(
        go.Scatter(
            x=[pos[n.id][0] for n in ordered],
            y=[pos[n.id][1] for n in ordered],
            mode="markers+text",
            text=[shown.get(n.id, "") for n in ordered],
            textposition=[where[n.id] for n in ordered],
            hovertext=[_esc(n.text) for n in ordered],
            hoverinfo="text",
            customdata=[n.href for n in ordered],
            marker={"size": [sizes[n.hop] for n in ordered], "color": [colours[n.hop] for n in ordered]},
            name="nodes",
        )
    )
    return _frame(traces, height, annotations=notes, x_range=[-width, width], y_range=[-reach, reach])


def query_structure_figure(
    chain: Sequence[tuple[str, str, str]], answers: Sequence[str] = (), anchors: Sequence[str] = ()
) -> go.Figure:
    """The golden chain as a left-to-right DAG: anchors on the left, the answer on the right, each
    edge labelled with its relation. Nodes are laid out by longest path from a source."""
    if not chain:
        return _frame(
            [],
            160,
            equal_aspect=False,
            annotations=[
                {
                    "text": "No golden chain stored for this question.",
                    "showarrow": False,
                    "x": 0.5,
                    "y": 0.5,
                    "xref": "paper",
                    "yref": "paper",
                    "font": {"color": "#5b6474"},
                }
            ],
        )
    nodes: list[str] = []
    for h, _, t in chain:
        for x in (h, t):
            if x not in nodes:
                nodes.append(x)
    depth = {n: 0 for n in nodes}
    for _ in range(len(nodes)):  # longest path (the chain is tiny and acyclic in practice)
        for h, _, t in chain:
            depth[t] = max(depth[t], depth[h] + 1)
    by_depth: dict[int, list[str]] = defaultdict(list)
    for n in nodes:
        by_depth[depth[n]].append(n)
    pos = {}
    for d, ns in by_depth.items():
        for i, n in enumerate(ns):
            pos[n] = (2.0 * d, (len(ns) - 1) / 2 - i)
    answer_set = set(answers)
    notes: list[dict[str, object]] = []
    for h, r, t in chain:
        (x0, y0), (x1, y1) = pos[h], pos[t]
        notes.append(
            {
                "x": x1,
                "y": y1,
                "ax": x0,
                "ay": y0,
                "xref": "x",
                "yref": "y",
                "axref": "x",
                "ayref": "y",
                "showarrow": True,
                "arrowhead": 2,
                "arrowsize": 1.2,
                "arrowcolor": "#8a93a3",
                "standoff": 10,
                "startstandoff": 10,
                "text": "",
            }
        )
        notes.append(
            {
                "x": (x0 + x1) / 2,
                "y": (y0 + y1) / 2,
                "text": _esc(r),
                "showarrow": False,
                "font": {"size": 11, "color": "#2f5fd0"},
                "bgcolor": "#fff",
                "yshift": 8,
            }
        )

    def role(n: str) -> str:
        if n in answer_set or depth[n] == max(depth.values()):
            return "answer"
        if n in anchors or depth[n] == 0:
            return "anchor"
        return "variable"

    colours = {"anchor": "#1d2330", "variable": "#d9822b", "answer": "#1f7a3a"}
    pts = go.Scatter(
        x=[pos[n][0] for n in nodes],
        y=[pos[n][1] for n in nodes],
        mode="markers+text",
        text=[_esc(n, 36) for n in nodes],
        textposition="bottom center",
        hovertext=[_esc(n) for n in nodes],
        hoverinfo="text",
        marker={"size": 14, "color": [colours[role(n)] for n in nodes]},
        customdata=[role(n) for n in nodes],
    )
    widest = max(len(v) for v in by_depth.values())
    return _frame(
        [pts],
        120 + 70 * widest,
        equal_aspect=False,
        annotations=notes,
        x_range=[-1.2, 2.0 * max(depth.values()) + 1.2],
        y_range=[-0.5 - widest / 2, 0.8 + widest / 2],
    )
