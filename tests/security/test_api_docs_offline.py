"""The API docs page loads Swagger UI from cocoweb's own static files (drf-spectacular-sidecar):
no machine here reaches a CDN, and a page that pulls scripts from one would run foreign code."""

from __future__ import annotations

import re

from django.contrib.staticfiles import finders

from tests.security.conftest import World


def test_swagger_ui_is_served_from_our_static_files(world: World) -> None:
    page = world.client("researcher").get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(r'"(/static/[^"]+\.(?:js|css))"', html)
    assert any("swagger-ui" in s for s in sources), sources
    assert not [s for s in sources if s.startswith(("http://", "https://", "//"))], sources
    for s in sources:
        if s.startswith("/static/"):
            assert finders.find(s.removeprefix("/static/")), f"{s} is not among the static files"
