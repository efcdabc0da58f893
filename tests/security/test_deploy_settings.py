"""Production settings: ``manage.py check --deploy`` is clean with the production environment (and
does warn when it is weakened, so the clean result means something); the settings refuse to start
without DJANGO_SECRET_KEY when DEBUG is off; no secret lives in the tree."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Variables the test process sets for itself (cocoweb/test_settings.py) or may inherit from CI.
_STRIP = re.compile(r"^(DJANGO_|CACHE_URL$|DATABASE_URL$|CELERY_|COCOWEB_PROXY_HOPS$)")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _STRIP.match(k)}
    env.update(
        {"DJANGO_SETTINGS_MODULE": "cocoweb.settings", "COCOWEB_VAR_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    )
    env.update(extra)
    return env


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """What the README asks production to set: no DEBUG, a generated key, the host name, a shared cache."""
    prod = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "cocoweb.example.org",
        "CACHE_URL": "redis://127.0.0.1:6379/1",
        "DATABASE_URL": "postgres://cocoweb@127.0.0.1:5432/cocoweb",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    }
    return _env(tmp_path, **{**prod, **extra})


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_under_production_settings(tmp_path: Path) -> None:
    r = _manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "System check identified no issues (0 silenced)." in r.stdout + r.stderr


def test_check_deploy_flags_a_weakened_production(tmp_path: Path) -> None:
    env = production_env(
        tmp_path,
        DJANGO_SECRET_KEY="short",
        DJANGO_SECURE_COOKIES="false",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_HSTS_SECONDS="0",
    )
    del env["CACHE_URL"]
    r = _manage(env, "check", "--deploy", "--tag", "security", "--fail-level", "WARNING")
    out = r.stdout + r.stderr
    assert r.returncode != 0
    for check_id in (
        "security.W009",
        "security.W012",
        "security.W016",
        "security.W008",
        "security.W004",
        "accounts.W001",
    ):
        assert check_id in out, (check_id, out)


@pytest.mark.parametrize("key", [None, ""])
def test_settings_refuse_to_start_without_a_secret_key_when_debug_is_off(tmp_path: Path, key: str | None) -> None:
    env = _env(tmp_path, DJANGO_DEBUG="false")
    if key is not None:
        env["DJANGO_SECRET_KEY"] = key
    r = _manage(env, "check")
    assert r.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false" in r.stderr
    # DEBUG is off unless asked for: the same without DJANGO_DEBUG at all.
    env.pop("DJANGO_DEBUG")
    assert "DJANGO_SECRET_KEY must be set" in _manage(env, "check").stderr


def test_the_key_comes_from_the_environment(tmp_path: Path) -> None:
    key = secrets.token_urlsafe(50)
    code = "import django; django.setup(); from django.conf import settings as s; print(s.SECRET_KEY, s.DEBUG)"
    r = subprocess.run(
        [sys.executable, "-c", code],
        env=production_env(tmp_path, DJANGO_SECRET_KEY=key),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [key, "False"]


# Shapes of real credentials. A hit in a tracked file is a leaked secret (test-only placeholders such
# as "test-only-not-secret" do not match).
_SECRET_SHAPES = {
    "private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "AWS access key": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "OpenAI-style key": re.compile(r"\bsk-[A-Za-z0-9_-]{32,}\b"),
    "Slack token": re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"),
    # user:password@ in a connection URL; documentation placeholders (pass, password, ${VAR}, <...>) are fine
    "password in a URL": re.compile(
        r"\b(?:postgres(?:ql)?|redis|rediss|amqp|mysql)://[^\s/:@'\"]+:"
        r"(?!(?:pass|password|secret|changeme)@|\$|\{|<|…|\*)[^\s@'\"]{3,}@"
    ),
    "literal Django key": re.compile(r"""^\s*SECRET_KEY\s*=\s*['"]""", re.M),
}
_SKIP_DIRS = {".git", ".venv", "var", "node_modules", "__pycache__", "fixtures"}
_TEXT_SUFFIXES = {
    ".py",
    ".sh",
    ".md",
    ".txt",
    ".toml",
    ".cfg",
    ".ini",
    ".yml",
    ".yaml",
    ".json",
    ".html",
    ".js",
    ".env",
    ".in",
    "",
}


def _tree_files() -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".venv")]
        for name in filenames:
            p = Path(dirpath) / name
            if p.suffix in _TEXT_SUFFIXES and p.stat().st_size < 2_000_000:
                out.append(p)
    return out


def test_no_secret_in_the_tree() -> None:
    hits = []
    files = _tree_files()
    for p in files:
        text = p.read_text(errors="replace")
        for what, rx in _SECRET_SHAPES.items():
            for m in rx.finditer(text):
                hits.append(f"{p.relative_to(ROOT)}: {what}: {m.group(0)[:40]!r}")
    assert len(files) > 100
    assert not hits, "\n".join(hits)


def test_the_secret_shapes_catch_real_looking_secrets() -> None:
    # Assembled at run time, so that this file does not hold them itself.
    samples = [
        "-----BEGIN RSA " + "PRIVATE KEY-----",
        "AKIA" + "ABCDEFGHIJKLMNOP",
        "ghp_" + "a" * 36,
        "sk-" + "A1b2" * 10,
        "postgres://cocoweb:" + "hunter22@db:5432/cocoweb",
        "SECRET_KEY" + ' = "abc"',
    ]
    for s in samples:
        assert any(rx.search(s) for rx in _SECRET_SHAPES.values()), s
    for fine in [
        "postgres://cocoweb@127.0.0.1:5432/cocoweb",
        "redis://127.0.0.1:6379/0",
        "DJANGO_SECRET_KEY=...",
        'SECRET_KEY = env.str("DJANGO_SECRET_KEY")',
        "postgres://user:${PGPASSWORD}@host/db",
        "postgres://user:pass@host/db",
    ]:
        assert not any(rx.search(fine) for rx in _SECRET_SHAPES.values()), fine
