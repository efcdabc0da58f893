"""Shared fixtures. ``SHARED_DATA`` is ``../shared/data`` beside the clone; tests that need it
skip with a visible reason when it is absent (a fresh clone without ``../shared``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED_DATA = Path(os.environ.get("COCOWEB_SHARED_DATA", ROOT.parent / "shared" / "data"))


def shared_file(rel: str) -> Path:
    p = SHARED_DATA / rel
    if not p.exists():
        pytest.skip(f"../shared/data/{rel} is absent (fresh clone without ../shared)")
    return p


@pytest.fixture
def shared() -> type:
    class _S:
        path = staticmethod(shared_file)

    return _S


def _db_vendor() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    on_pg = _db_vendor() == "postgresql"
    on_redis = os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
    chromium = Path("/usr/bin/chromium").exists()
    for item in items:
        if "postgres" in item.keywords and not on_pg:
            item.add_marker(
                pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://… (pass 2 of make test)")
            )
        if "redis" in item.keywords and not on_redis:
            item.add_marker(
                pytest.mark.skip(reason="needs Redis: set CELERY_BROKER_URL=redis://… (pass 2 of make test)")
            )
        if "browser" in item.keywords and not chromium:
            item.add_marker(pytest.mark.skip(reason="needs Debian's chromium at /usr/bin/chromium"))
