"""A panel = one chart plus its numbers: the figure (drawn by charts.js from ``json_script``), the
same numbers as a table, and a CSV download of that table (``?csv=<key>`` on the page's own URL,
so the download carries the page's filters)."""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.io as pio
from _plotly_utils.basevalidators import is_homogeneous_array
from _plotly_utils.utils import is_skipped_key, to_typed_array_spec
from django.http import HttpResponse
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from plotly.io.json import to_json_plotly

from commonsense.io import csv_safe
from runs.models import Run

# what django.utils.html.json_script escapes inside <script>
_JSON_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@dataclass
class Panel:
    key: str
    title: str
    figure: Any  # plotly.graph_objects.Figure
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    links: Sequence[str] = field(default_factory=list)  # per row: the items behind it (drawer), or ""
    click: str = "drawer"  # what a click on a point does: "drawer", "navigate" or ""
    note: str = ""
    warning: str = ""  # what makes the chart's points not comparable (shown above it)
    narrow: Any = None  # the figure for a narrow chart (a phone), when its layout depends on the width

    @property
    def narrow_id(self) -> str:
        return f"{self.dom_id}-narrow" if self.narrow is not None else ""

    @property
    def dom_id(self) -> str:
        return f"fig-{self.key}"

    def payload(self) -> dict[str, Any]:
        return json.loads(pio.to_json(self.figure, validate=False))  # plain lists and dicts only

    def script_tag(self) -> SafeString:
        """The figure as ``json_script`` writes it (``<``, ``>``, ``&`` escaped), from plotly's JSON
        text directly: no load-and-dump round trip of a figure with thousands of points."""
        tags = [(self.dom_id, self.figure)] + ([(self.narrow_id, self.narrow)] if self.narrow is not None else [])
        return format_html_join(
            "\n",
            '<script id="{}" type="application/json">{}</script>',
            ((dom_id, mark_safe(figure_json(fig).translate(_JSON_SCRIPT_ESCAPES))) for dom_id, fig in tags),
        )

    def table(self) -> list[dict[str, Any]]:
        links = list(self.links) + [""] * (len(self.rows) - len(self.links))
        return [{"cells": [_fmt(c) for c in row], "link": link} for row, link in zip(self.rows, links, strict=True)]

    def table_html(self) -> SafeString:
        """The table body's rows (:meth:`table`, escaped), built here rather than in a template loop:
        a statement run's panel has thousands of rows, and the template engine spends ~0.1 ms per cell."""
        links = list(self.links) + [""] * (len(self.rows) - len(self.links))
        rows = []
        for row, raw_link in zip(self.rows, links, strict=True):
            cells = "".join([f"<td>{_cell(c)}</td>" for c in row])
            link, action = html.escape(raw_link), ""
            if link and self.click == "navigate":
                action = f'<a href="{link}">open</a>'
            elif link:
                action = f'<a href="{link}" hx-get="{link}" hx-target="#drawer">items</a>'
            rows.append(f"<tr>{cells}<td>{action}</td></tr>")
        if not rows:
            rows.append(f'<tr><td colspan="{len(self.columns) + 1}">No data.</td></tr>')
        return mark_safe("\n".join(rows))  # every cell and link is escaped

    def csv_response(self, stem: str) -> HttpResponse:
        buf = io.StringIO()
        w = csv_safe.writer(buf)
        w.writerow(self.columns)
        w.writerows([["" if c is None else c for c in row] for row in self.rows])
        resp = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="{slugify(stem)}-{self.key}.csv"'
        return resp


def figure_json(fig: Any) -> str:
    """``plotly.io.to_json(fig, validate=False)``, character for character, without its deep copy
    of the figure. ``to_json`` copies the figure's data and layout (plotly's template included) to
    replace numpy arrays by plotly.js typed arrays and drop trace uids in the copy; here only the
    containers on the way to such a value are rebuilt, the rest is encoded where it lies (half the
    time for a statement run's figure of 4,000 points, a quarter of a millisecond per small one).
    Reads the figure's ``_data``, ``_layout`` and ``_frame_objs``, what ``Figure.to_dict`` reads:
    tests/explorer compare both on every panel of a statement run's page."""
    out: dict[str, Any] = {
        "data": [_typed({k: v for k, v in t.items() if k != "uid"}) for t in fig._data],
        "layout": _typed(fig._layout),
    }
    frames = [frame._props for frame in fig._frame_objs]
    if frames:
        out["frames"] = _typed(frames)
    return to_json_plotly(out)


_ATOMS = frozenset({str, float, int, bool, type(None)})
_PLAIN = _ATOMS | {dict, list, tuple}  # never a homogeneous array


def _typed(obj: Any) -> Any:
    """``obj`` as plotly's ``convert_to_base64`` leaves a copy of it, ``obj`` itself where that
    changes nothing (figure_json)."""
    if isinstance(obj, dict):
        new: dict[str, Any] | None = None
        for key, value in obj.items():
            if is_skipped_key(key):
                continue
            if type(value) not in _PLAIN and is_homogeneous_array(value):
                conv = to_typed_array_spec(value)
            elif isinstance(value, (dict, list, tuple)):
                conv = _typed(value)
            else:
                continue
            if conv is not value:
                if new is None:
                    new = dict(obj)
                new[key] = conv
        return obj if new is None else new
    if isinstance(obj, (list, tuple)):
        if _ATOMS.issuperset(map(type, obj)):  # a list of numbers or strings: nothing inside to convert
            return obj
        items: list[Any] | None = None
        for i, value in enumerate(obj):
            if isinstance(value, (dict, list, tuple)):
                conv = _typed(value)
                if conv is not value:
                    if items is None:
                        items = list(obj)
                    items[i] = conv
        if items is None:
            return obj
        return tuple(items) if isinstance(obj, tuple) else items
    return obj


def _cell(value: Any) -> str:
    """``html.escape(_fmt(value))`` (Django's escape), without escaping what cannot need it: a
    formatted number is digits, signs, a point, an exponent, inf or nan."""
    if value is None or type(value) in (float, int):
        return _fmt(value)
    return html.escape(_fmt(value))


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1 or value == 0 else f"{value:.3f}"
    return str(value)


def run_label(run: Run) -> str:
    """How a run is named in every panel: ``#<id> <label> <scoring>``."""
    return f"#{run.pk} {run.label} {run.scoring}".strip()
