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
