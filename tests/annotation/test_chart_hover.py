"""The campaign and crowd dashboards' Plotly hover shows numbers at three decimals, as the run pages
do, not Plotly's full-precision floats (0.35000000000000003): every trace that is data has a
hovertemplate, and each float axis it names is formatted (``%{x:.3f}`` or the trace's
``xhoverformat``)."""

from __future__ import annotations

import re
from typing import Any

from annotation import charts

PLACEHOLDER = re.compile(r"%\{([xy])(:[^}]*)?\}")


def unformatted(fig: dict[str, Any]) -> list[str]:
    """``trace: axis`` for each float axis whose hover shows the number as it is."""
    out = []
    for i, trace in enumerate(fig["data"]):
        if trace.get("hoverinfo") == "skip":
            continue
        template = trace.get("hovertemplate")
        if template is None:
            out.append(f"{i}: no hovertemplate")
            continue
        for axis, fmt in PLACEHOLDER.findall(template):
            floats = any(isinstance(v, float) and not v.is_integer() for v in trace.get(axis) or [])
            if floats and fmt != ":.3f" and trace.get(f"{axis}hoverformat") != ".3f":
                out.append(f"{i}: {axis}")
    return out


def figures() -> dict[str, dict[str, Any]]:
    spread = [0.35000000000000003, 0.123456789, 2 / 3, None, 0.9]
    return {
        "agreement": charts.agreement_histogram(spread, 0.6),
        "answers": charts.answers_per_item([1, 3, 3, 2], 3),
        "annotators": charts.annotator_scatter([0.7123456, 0.5], [1 / 3, 0.25], ["<ann>", "bob"]),
        "m": charts.commonsensicality_histogram(spread, "Statements' commonsensicality m", "statements"),
        "ticks": charts.option_ticks([3, 0, 1], ["A", "B", "C"]),
    }


def test_every_dashboard_chart_hovers_at_three_decimals() -> None:
    made = figures()
    assert {name: unformatted(fig) for name, fig in made.items()} == dict.fromkeys(made, [])
    assert "%{x}" in made["agreement"]["data"][0]["hovertemplate"]  # the bin's range, formatted
    assert made["m"]["data"][0]["hovertemplate"] == "commonsensicality %{x}<br>%{y} statements<extra></extra>"
    planted = {"data": [{"type": "scatter", "x": [0.123456789], "y": [1.0], "hovertemplate": "%{x}, %{y}"}]}
    assert unformatted(planted) == ["0: x"]  # full precision: caught
    assert unformatted({"data": [{"type": "histogram", "x": [0.5, 0.25]}]}) == ["0: no hovertemplate"]
