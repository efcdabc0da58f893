"""Issue 31 item 11: a Content-Security-Policy with ``script-src 'self'`` on every response, which
holds only because no template has an inline script, an event-handler attribute or a
``javascript:`` URL (read here, each rule tried on a planted sample first); Swagger UI starts from a
script file. ``SECURE_PROXY_SSL_HEADER`` is trusted only behind ``COCOWEB_PROXY_HOPS`` proxies."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.security.conftest import World
from tests.security.test_deploy_settings import ROOT, production_env

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I)
HANDLER = re.compile(r"""\son[a-z]+\s*=\s*["']""", re.I)
JS_URL = re.compile(r"""(?:href|src|action)\s*=\s*["']\s*javascript:""", re.I)
RULES = {"inline script": INLINE_SCRIPT, "event handler": HANDLER, "javascript: URL": JS_URL}


def _templates() -> list[Path]:
    dirs = [Path(d) for t in settings.TEMPLATES for d in t["DIRS"]]
    dirs += [ROOT / app / "templates" for app in ("accounts", "annotation", "explorer", "knowledge", "runs")]
    return [p for d in dirs if d.exists() for p in d.rglob("*.html")]


def test_the_rules_catch_what_they_guard() -> None:
    planted = {
        "inline script": '<script>alert(1)</script> <script type="module">x()</script>',
        "event handler": '<button onclick="go()">',
        "javascript: URL": '<a href="javascript:go()">',
    }
    for what, sample in planted.items():
        assert RULES[what].search(sample), what
    fine = '<script src="/static/x.js" defer></script> <button data-on="x" class="one"> <a href="/js:x">'
    assert not any(rx.search(fine) for rx in RULES.values())


def test_no_template_has_inline_script() -> None:
    found = _templates()
    assert len(found) > 50
    hits = [f"{p.relative_to(ROOT)}: {what}" for p in found for what, rx in RULES.items() if rx.search(p.read_text())]
    assert not hits, "\n".join(hits)


def test_every_response_carries_the_policy(world: World) -> None:
    for role, url in [
        ("researcher", "/"),
        ("annotator", f"/annotation/c/{world.plain.name}/"),
        ("participant", f"/join/{world.survey.name}/items/"),
        ("anonymous", "/accounts/login/"),
        ("researcher", "/api/runs/"),
        ("admin", "/admin/"),
    ]:
        r = world.client(role).get(url)
        policy = r["Content-Security-Policy"]
        assert "script-src 'self';" in policy, (url, policy)
        assert "unsafe-inline'; img" in policy, (url, policy)
        assert "'unsafe-eval'" not in policy
        assert "script-src 'self' 'unsafe-inline'" not in policy


def test_swagger_ui_starts_from_a_script_file(world: World) -> None:
    c = world.client("researcher")
    page = c.get("/api/docs/").content.decode()
    assert not INLINE_SCRIPT.search(page)
    src = re.search(r'<script src="([^"]*\?script=[^"]*)"', page)
    assert src, page[:500]
    script = c.get(src.group(1).replace("&amp;", "&"))
    assert script.status_code == 200
    assert "SwaggerUIBundle" in script.content.decode()


def _proxy_header(tmp_path: Path, **extra: str) -> str:
    code = "import django; django.setup(); from django.conf import settings as s; print(s.SECURE_PROXY_SSL_HEADER)"
    r = subprocess.run(
        [sys.executable, "-c", code],
        env=production_env(tmp_path, **extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_forwarded_proto_is_trusted_only_behind_a_proxy(tmp_path: Path) -> None:
    assert _proxy_header(tmp_path) == "None"  # a client's own X-Forwarded-Proto: https changes nothing
    assert _proxy_header(tmp_path, COCOWEB_PROXY_HOPS="1") == "('HTTP_X_FORWARDED_PROTO', 'https')"
