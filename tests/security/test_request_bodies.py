"""Issue 17 item 8: anonymous multipart spooling. Bodies are capped before they are read, at most
a couple of files per request are parsed, and file parts are parsed only on upload routes."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import reverse

from cocoweb.uploads import UploadRoutesMiddleware
from knowledge.models import Graph
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
TSV = b"PersonX eats bread\txWant\tto be full\n"


def test_oversized_body_to_login_is_refused_unread(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    big = SimpleUploadedFile("x.bin", b"\0" * 300_000)
    r = Client().post(reverse("login"), {"username": "a", "password": "b", "f": big})
    assert r.status_code == 413
    assert "takes at most 100,000 bytes" in r.content.decode()


def test_file_parts_are_not_spooled_on_other_routes(monkeypatch: pytest.MonkeyPatch) -> None:
    spooled: list[str] = []
    real = TemporaryFileUploadHandler.new_file

    def spy(self: Any, field_name: str, *a: Any, **kw: Any) -> None:
        spooled.append(field_name)
        real(self, field_name, *a, **kw)

    monkeypatch.setattr(TemporaryFileUploadHandler, "new_file", spy)
    body = encode_multipart(BOUNDARY, {"username": "a", "password": "b", "f": SimpleUploadedFile("x.bin", b"1" * 10)})
    request = RequestFactory().generic("POST", "/accounts/login/", body, content_type=MULTIPART_CONTENT)
    seen: dict[str, Any] = {}

    def view(req: Any) -> HttpResponse:
        seen["files"], seen["post"] = dict(req.FILES), dict(req.POST)
        return HttpResponse("ok")

    UploadRoutesMiddleware(view)(request)
    assert seen["files"] == {}
    assert spooled == []
    assert seen["post"] == {"username": ["a"], "password": ["b"]}  # the ordinary fields still arrive


def test_upload_route_still_parses_its_file(world: World) -> None:
    c = world.client("researcher")
    r = c.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "upl-ok", "file": SimpleUploadedFile("a.tsv", TSV)},
    )
    assert r.status_code == 302
    assert Graph.objects.filter(name="upl-ok").exists()


def test_too_many_file_parts_are_refused(world: World) -> None:
    c = world.client("researcher")
    files = {f"f{i}": SimpleUploadedFile(f"{i}.tsv", TSV) for i in range(5)}
    r = c.post(reverse("knowledge:import"), {"kind": "graph:atomic-tsv", "name": "upl-many", **files})
    assert r.status_code == 400
    assert not Graph.objects.filter(name="upl-many").exists()


def test_upload_route_body_cap(world: World, settings: Any) -> None:
    settings.COCOWEB_MAX_UPLOAD_BYTES = 1000
    settings.COCOWEB_MAX_REQUEST_OVERHEAD_BYTES = 10_000
    c = world.client("researcher")
    # Just over the file limit: the form's own message (the body is within the route's cap).
    r = c.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "u1", "file": SimpleUploadedFile("a.tsv", TSV * 40)},
    )
    assert r.status_code == 400
    assert "the limit is 1,000 bytes" in r.content.decode()
    # Far over: refused before the body is read.
    r = c.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "u2", "file": SimpleUploadedFile("a.tsv", TSV * 1000)},
    )
    assert r.status_code == 413


def test_oversized_form_post_without_files_is_refused_unread(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    r = Client().post(reverse("login"), {"username": "a", "password": "b" * 5_000})
    assert r.status_code == 413
    assert "takes at most 1,000 bytes" in r.content.decode()


def test_a_small_form_post_is_not_resolved_before_its_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """An annotator's answer (a small form post) is the same on every route: the middleware does
    not resolve its URL (the handler does, once); a multipart post is still looked at."""
    import cocoweb.uploads

    resolved: list[str] = []
    real = cocoweb.uploads.resolve

    def spy(path: str, *a: Any, **kw: Any) -> Any:
        resolved.append(path)
        return real(path, *a, **kw)

    monkeypatch.setattr(cocoweb.uploads, "resolve", spy)
    form = RequestFactory().post(
        "/accounts/login/", "username=a&password=b", content_type="application/x-www-form-urlencoded"
    )
    UploadRoutesMiddleware(lambda req: HttpResponse("ok"))(form)
    assert resolved == []
    body = encode_multipart(BOUNDARY, {"username": "a"})
    multi = RequestFactory().generic("POST", "/accounts/login/", body, content_type=MULTIPART_CONTENT)
    UploadRoutesMiddleware(lambda req: HttpResponse("ok"))(multi)
    assert resolved == ["/accounts/login/"]
