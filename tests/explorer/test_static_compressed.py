"""Static files as the demo and production serve them (issue 29 item 16): collected by WhiteNoise's
compressed manifest storage and served gzipped under hashed names with far-future caching, so a
chart page's Plotly costs about a third of a megabyte on the wire."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.templatetags.static import static
from django.test import Client, override_settings

COMPRESSED = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


@pytest.mark.django_db
def test_plotly_bundle_served_gzipped_under_a_hashed_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with override_settings(
        STATIC_ROOT=str(tmp_path), STORAGES=COMPRESSED, WHITENOISE_USE_FINDERS=False, WHITENOISE_AUTOREFRESH=False
    ):
        call_command("collectstatic", "--noinput", "-v0")
        url = static("vendor/plotly-cocoweb.min.js")
        assert url != "/static/vendor/plotly-cocoweb.min.js"  # content-hashed
        resp = Client().get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
        assert resp.status_code == 200
        assert resp["Content-Encoding"] == "gzip"
        assert int(resp["Content-Length"]) < 400_000
        assert "immutable" in resp["Cache-Control"]


def test_the_demo_serves_static_files_the_same_way() -> None:
    """`make run` (scripts/run.sh) collects the compressed files and leaves static files to WhiteNoise:
    runserver's own static view serves them uncompressed."""
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "scripts" / "run.sh").read_text(encoding="utf-8")
    assert "COCOWEB_STATIC_COMPRESSED:-true" in script
    assert "manage.py collectstatic --noinput" in script
    assert "runserver $STATIC_FLAG" in script
    assert 'STATIC_FLAG="--nostatic"' in script
