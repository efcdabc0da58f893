"""Issue 31 item 7: anonymous uploads reached the disk on the upload routes (a 20 MB part landed in
the server's temp folder before the 403). File parts are parsed only for a signed-in session with
the role the route needs; anybody else gets the limit of a route without files (413 unread past
it) and their file parts are skipped, never spooled. Through the whole middleware stack."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler

from tests.security.conftest import World

pytestmark = pytest.mark.django_db
TSV = b"PersonX eats bread\txWant\tto be full\n"


@pytest.fixture
def spooled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file parts a handler that keeps data (memory or a temporary file) was asked to take."""
    seen: list[str] = []
    for handler in (MemoryFileUploadHandler, TemporaryFileUploadHandler):
        real = handler.new_file

        def spy(self: Any, field_name: str, *a: Any, _real: Any = real, **kw: Any) -> None:
            seen.append(field_name)
            _real(self, field_name, *a, **kw)

        monkeypatch.setattr(handler, "new_file", spy)
    return seen


def _routes(w: World) -> list[tuple[str, dict[str, str]]]:
    return [
        ("/knowledge/import/", {"kind": "graph:atomic-tsv", "name": "up-role"}),
        ("/knowledge/build/coco/", {"graph": w.graph.name, "name": "up-coco", "seed": "0"}),
        (f"/annotation/c/{w.plain.name}/import/", {}),
    ]


@pytest.mark.parametrize("role", ["anonymous", "participant", "annotator"])
def test_file_parts_of_people_without_the_role_are_never_spooled(world: World, spooled: list[str], role: str) -> None:
    for url, fields in _routes(world):
        field = "abstract_upload" if "coco" in url else "file"
        # As in production: the browser has a CSRF cookie and sends its token, so the CSRF check
        # reads the form (the test client skips the check otherwise), then the view refuses.
        c = world.client(role, enforce_csrf_checks=True)
        c.get("/accounts/login/")
        token = c.cookies["csrftoken"].value
        body = {**fields, field: SimpleUploadedFile("a.tsv", TSV * 1000), "csrfmiddlewaretoken": token}
        r = c.post(url, body)
        assert r.status_code in (302, 403), (url, r.status_code)
        assert spooled == [], (role, url)


@pytest.mark.parametrize("role", ["anonymous", "annotator"])
def test_a_body_past_the_form_limit_is_refused_unread_without_the_role(world: World, settings: Any, role: str) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000  # an upload route takes 50 MB from a researcher
    for url, fields in _routes(world):
        r = world.client(role).post(url, {**fields, "file": SimpleUploadedFile("a.tsv", TSV * 1000)})
        assert r.status_code == 413, (url, r.status_code)


def test_a_researcher_still_uploads(world: World, spooled: list[str], settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    url, fields = _routes(world)[0]
    r = world.client("researcher").post(url, {**fields, "file": SimpleUploadedFile("a.tsv", TSV * 1000)})
    assert r.status_code == 302
    assert spooled == ["file"]
