"""A page of panels: rendered, or, with ``?csv=<key>`` on its own URL, the CSV of one panel."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from explorer.panels.base import Panel


def render_with_panels(
    request: HttpRequest, template: str, context: dict[str, Any], panels: Sequence[Panel], *, stem: str
) -> HttpResponse:
    """Render the page, or, with ``?csv=<key>``, the CSV of that panel (404 for an unknown key)."""
    wanted = request.GET.get("csv")
    if wanted:
        for p in panels:
            if p.key == wanted:
                return p.csv_response(stem)
        return HttpResponse(f"no chart {wanted!r} on this page", status=404, content_type="text/plain")
    return render(request, template, {**context, "panels": panels})
