"""A panel's table rows (Panel.table_html) escape every cell as before the numeric fast path: the
former implementation, which escaped each formatted cell of Panel.table(), is the reference."""

from __future__ import annotations

import html

import numpy as np

from explorer import charts
from explorer.views.panels import Panel


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
