"""The browser import: same validation and messages as the commands; size and type limits."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import Graph, Triple
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher() -> Client:
    role_groups_sync()
    user_create_with_role("r", "researcher", "pw-long-enough-123")
    c = Client()
    c.login(username="r", password="pw-long-enough-123")
    return c


def test_upload_imports_a_graph(researcher: Client) -> None:
    data = (FIXTURES / "atomic2020_demo.tsv").read_bytes()
    r = researcher.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "up", "file": SimpleUploadedFile("my.tsv", data)},
        follow=True,
    )
    assert r.status_code == 200
    assert "5,751 triples" in r.content.decode()
    g = Graph.objects.get(name="up")
    assert g.sources.get().filename == "my.tsv"
    assert g.triple_count == 5751


def test_upload_error_names_the_uploaded_file_and_line(researcher: Client) -> None:
    bad = b"a\txWant\tb\nc\tLikes\td\n"
    r = researcher.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "up", "file": SimpleUploadedFile("mine.tsv", bad)},
    )
    assert r.status_code == 400
    text = r.content.decode()
    assert "mine.tsv, line 2, field &#x27;relation&#x27;: unknown relation &#x27;Likes&#x27;" in text
    assert not Graph.objects.filter(name="up").exists()
    assert Triple.objects.count() == 0


def test_upload_limits(researcher: Client, settings: object) -> None:
    settings.COCOWEB_MAX_UPLOAD_BYTES = 10  # type: ignore[attr-defined]
    r = researcher.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "up", "file": SimpleUploadedFile("x.tsv", b"a\txWant\tbbbbbbbbbbb\n")},
    )
    assert r.status_code == 400
    assert "the limit is 10 bytes" in r.content.decode()
    settings.COCOWEB_MAX_UPLOAD_BYTES = 10_000  # type: ignore[attr-defined]
    r = researcher.post(
        reverse("knowledge:import"),
        {"kind": "graph:atomic-tsv", "name": "up", "file": SimpleUploadedFile("x.exe", b"MZ")},
    )
    assert r.status_code == 400
    assert "unsupported file type .exe" in r.content.decode()
