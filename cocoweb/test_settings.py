"""Test settings: the production module with test-only overrides. ``DATABASE_URL`` and
``CELERY_BROKER_URL`` still select PostgreSQL / Redis for the production-path test pass."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-secret")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("DJANGO_SECURE_COOKIES", "false")
os.environ.setdefault("DJANGO_HSTS_SECONDS", "0")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,testserver")

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "WARNING"}}

# A file, not pytest-django's in-memory SQLite: tests that start a real Celery worker subprocess
# (runs: resume after a killed worker) must see the same test database. One file per test process,
# so concurrent test runs on one machine do not clobber each other.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")  # noqa: F405

# Tests render templates without running collectstatic: no manifest storage.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# The test suite's own data files (e.g. tests/commonsense/recoms_paths_demo.jsonl) may be replayed.
COCOWEB_RUN_FILES_DIRS = [*COCOWEB_RUN_FILES_DIRS, BASE_DIR / "tests", BASE_DIR / "fixtures"]  # noqa: F405

# No automatic refit of annotator models while tests answer (no worker consumes the queue; the test
# of the trigger sets its own cadence).
COCOWEB_QUALITY_REFIT_EVERY = 0

# No option-only audit job after every set a test stores (tests that want one configure a tiny model).
COCOWEB_OPTION_ONLY_MODEL = ""
