"""A panel's table rows (Panel.table_html) escape every cell as before the numeric fast path: the
former implementation, which escaped each formatted cell of Panel.table(), is the reference."""

from __future__ import annotations

import html

import numpy as np

from explorer import charts
from explorer.panels.base import Panel


def _former_table_html(panel: Panel) -> str:
    rows = []
    for row in panel.table():
        cells = "".join(f"<td>{html.escape(c)}</td>" for c in row["cells"])
        link, action = html.escape(row["link"]), ""
        if link and panel.click == "navigate":
            action = f'<a href="{link}">open</a>'
        elif link:
            action = f'<a href="{link}" hx-get="{link}" hx-target="#drawer">items</a>'
        rows.append(f"<tr>{cells}<td>{action}</td></tr>")
    if not rows:
        rows.append(f'<tr><td colspan="{len(panel.columns) + 1}">No data.</td></tr>')
    return "\n".join(rows)


def test_table_html_is_the_former_escaping() -> None:
    rows = [
        ("<b>run</b> & co", 0.123456, 3, None),
        ("'quoted' \"x\"", 12345.678, -2, True),
        (np.float64(0.5), float("nan"), float("inf"), False),
        (7, -0.0004, 0.0, "a > b"),
    ]
    for click in ("drawer", "navigate", ""):
        for links in ([], ["/explorer/runs/1/items/?a=1&b=<2>", "", "/x"], ["/y"] * 4):
            panel = Panel("k", "t", charts.empty_figure("x"), ["a", "b", "c", "d"], rows, links=links, click=click)
            assert str(panel.table_html()) == _former_table_html(panel)
    empty = Panel("k", "t", charts.empty_figure("x"), ["a"], [])
    assert str(empty.table_html()) == _former_table_html(empty)


def test_figure_json_converts_what_plotly_converts() -> None:
    """figure_json equals plotly's to_json on what its copy converts or drops: numpy arrays (typed
    arrays, int64 narrowed; kept as lists under skipped keys like ``range``; inside lists and
    tuples of dicts), numpy scalars, trace uids, frames; and changes nothing in the figure."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from explorer.panels.base import figure_json

    xs = np.arange(6, dtype=np.int64)
    fig = go.Figure(
        data=[
            go.Scatter(x=xs, y=np.linspace(0, 1, 6), uid="a", customdata=["<a>&", "b", None, 1, 2.5, True]),
            {"type": "bar", "x": ["p", "q"], "y": [np.float64(0.25), 3], "uid": "b"},
        ],
        layout={"xaxis": {"range": np.array([0.0, 5.0])}, "annotations": [{"x": np.int64(3), "text": "t"}]},
        frames=[go.Frame(data=[go.Scatter(x=xs * 1000, y=xs.astype(np.float32))], name="f")],
        _validate=False,
    )
    fig.layout.meta = ({"v": np.array([1, 2])}, "s")  # a tuple holding a dict with an array
    before = fig.to_dict()
    assert figure_json(fig) == pio.to_json(fig, validate=False)
    assert '"bdata"' in figure_json(fig)
    assert '"uid"' not in figure_json(fig)
    np.testing.assert_equal(fig.to_dict(), before)
    assert figure_json(charts.empty_figure("x")) == pio.to_json(charts.empty_figure("x"), validate=False)
