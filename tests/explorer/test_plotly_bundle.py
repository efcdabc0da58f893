"""The partial Plotly bundle (issue 29 item 16): every trace type a figure builder makes is in
static/vendor/plotly-cocoweb.min.js (a type it lacks draws nothing in the browser), the bundle stays
under 1 MB, and no page references the full 4.8 MB bundle any more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "static" / "vendor" / "plotly-cocoweb.min.js"
TRACE_TYPES = {  # plotly's trace classes (graph_objects loads them lazily: go.__all__ names them)
    name.lower() for name in go.__all__ if isinstance(cls := getattr(go, name), type) and issubclass(cls, BaseTraceType)
}


def _builder_sources() -> list[Path]:
    return sorted([*(ROOT / "explorer" / "charts").glob("*.py"), ROOT / "annotation" / "charts.py"])


def _trace_types_made(source: str) -> set[str]:
    """go.<Trace>(...) calls and {"type": "<trace>"} literals of one module."""
    made: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.lower() in TRACE_TYPES and node.attr[0].isupper():
            made.add(node.attr.lower())
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(k, ast.Constant)
                    and k.value == "type"
                    and isinstance(v, ast.Constant)
                    and v.value in TRACE_TYPES
                ):
                    made.add(v.value)
    return made


def _bundled() -> set[str]:
    return set(re.findall(r'moduleType:"trace",name:"(\w+)"', BUNDLE.read_text(encoding="utf-8")))


def test_every_trace_type_the_figure_builders_make_is_in_the_bundle() -> None:
    made = {t for p in _builder_sources() for t in _trace_types_made(p.read_text(encoding="utf-8"))}
    assert made >= {"scatter", "bar", "heatmap", "histogram"}  # the scan finds what the builders make
    missing = made - _bundled()
    assert not missing, f"trace types missing from {BUNDLE.name}: {sorted(missing)} (scripts/plotly_bundle/)"


def test_the_scan_sees_a_trace_type_the_bundle_lacks() -> None:
    """The guard above, planted: a builder drawing a pie or WebGL scatter would fail it."""
    planted = 'import plotly.graph_objects as go\ngo.Pie(values=[1])\nd = {"type": "scattergl", "x": []}\n'
    assert _trace_types_made(planted) - _bundled() == {"pie", "scattergl"}


def test_bundle_under_one_megabyte_and_the_full_bundle_gone() -> None:
    assert BUNDLE.stat().st_size < 1_000_000
    assert not (ROOT / "static" / "vendor" / "plotly.min.js").exists()
    for tpl in (ROOT / "templates").rglob("*.html"):
        assert "plotly.min.js" not in tpl.read_text(encoding="utf-8"), tpl
