"""Issue 14 bug 14: the rough edges outside the apps. Anonymous /api/docs/ says how to log in; a
signed-in annotator at /admin/ is told they have no access (not a blank log-in form); the favicon
exists; a 403 is logged as one line without a traceback; seed_demo names the credentials file it
really wrote (under COCOWEB_VAR_DIR)."""

from __future__ import annotations

import importlib
import io
import logging
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role

pytestmark = pytest.mark.django_db
PASSWORD = "pw-long-enough-123"


def _signed_in(role: str) -> Client:
    role_groups_sync()
    user_create_with_role(f"u-{role}", role, PASSWORD)
    c = Client()
    assert c.login(username=f"u-{role}", password=PASSWORD)
    return c


def test_anonymous_api_docs_page_has_a_login_link() -> None:
    r = Client().get("/api/docs/", headers={"Accept": "text/html"})
    body = r.content.decode()
    assert r.status_code == 401
    assert "<html" in body
    assert 'href="/accounts/login/?next=/api/docs/"' in body
    assert _signed_in("annotator").get("/api/docs/").status_code == 200  # Swagger UI once signed in
    assert Client().get("/api/schema/").status_code == 401  # the schema itself stays JSON-only


def test_signed_in_annotator_at_admin_is_told_there_is_no_access() -> None:
    c = _signed_in("annotator")
    r = c.get("/admin/", follow=True)
    body = r.content.decode()
    assert r.status_code == 403
    assert "No access to the admin" in body
    assert "u-annotator" in body
    assert 'name="password"' not in body  # not a log-in form
    assert Client().get("/admin/login/").status_code == 200  # anonymous people still get the form
    assert _signed_in("admin").get("/admin/").status_code == 200


def test_favicon_is_served_from_static_files() -> None:
    r = Client().get("/favicon.ico")
    assert r.status_code == 302
    assert r["Location"].endswith("cocoweb/favicon.svg")
    assert finders.find("cocoweb/favicon.svg")
    page = _signed_in("annotator").get(reverse("annotation:index")).content.decode()
    assert 'rel="icon"' in page
    assert "favicon.svg" in page


def test_a_403_is_logged_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    from cocoweb import settings as production

    c = _signed_in("annotator")
    url = reverse("runs:index")  # researchers only
    request_log = logging.getLogger("django.request")
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert c.get(url).status_code == 403
    plain = [r for r in caplog.records if r.name == "django.request"]
    assert plain
    assert plain[-1].exc_info is not None
    caplog.clear()
    conf = production.LOGGING
    names = conf["loggers"]["django.request"]["filters"]
    filters = [_build(conf["filters"][n]) for n in names]
    for f in filters:
        request_log.addFilter(f)
    try:
        with caplog.at_level(logging.WARNING, logger="django.request"):
            assert c.get(url).status_code == 403
    finally:
        for f in filters:
            request_log.removeFilter(f)
    (rec,) = [r for r in caplog.records if r.name == "django.request"]
    assert rec.exc_info is None
    assert "Forbidden" in rec.getMessage()
    assert "Traceback" not in logging.Formatter().format(rec)


def _build(spec: dict[str, str]) -> logging.Filter:
    module, _, name = spec["()"].rpartition(".")
    return getattr(importlib.import_module(module), name)()  # type: ignore[no-any-return]


def test_seed_demo_prints_the_credentials_path_it_wrote(tmp_path: Path, settings) -> None:  # type: ignore[no-untyped-def]
    settings.VAR_DIR = tmp_path / "elsewhere"
    settings.VAR_DIR.mkdir()
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    wanted = settings.VAR_DIR / "demo-credentials.txt"
    assert f"stored in {wanted}" in out.getvalue()
    assert wanted.exists()
    assert "var/demo-credentials.txt" not in out.getvalue()
