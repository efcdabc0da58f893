"""Fixtures for the fault tests: the demo statement set, child processes stopped after each test,
and the environment of those processes (the demo statement set is tests/conftest.py's) (the test database, the pass-2 Redis, short run leases)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.runs.workers import child_env

from .processes import Proc, require_services

# Short leases so that a dead worker's run is taken over within seconds (production: 60 s).
STALE_S, HEARTBEAT_S = "3", "0.5"


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in reversed(started):
        p.stop()


@pytest.fixture
def env() -> dict[str, str]:
    """What every child process gets: the topology of prod_check.sh pointed at the test database."""
    require_services()
    return child_env(
        os.environ["CELERY_BROKER_URL"], COCOWEB_RUN_STALE_SECONDS=STALE_S, COCOWEB_RUN_HEARTBEAT_SECONDS=HEARTBEAT_S
    )
