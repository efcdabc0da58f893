"""Fixtures for the build-job tests: the ATOMIC-2020 demo graph (index cache in a temporary
directory), abstract files in a temporary folder, and a client per role."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client, override_settings

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import Graph
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

PASSWORD = "pw-long-enough-123"


@pytest.fixture
def build_dirs(tmp_path: Path) -> Iterator[Path]:
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache", COCOWEB_ABSTRACT_DIR=tmp_path / "abstract"):
        yield tmp_path


@pytest.fixture
def demo_graph(db: None, build_dirs: Path) -> Graph:
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv")
    return Graph.objects.get(name="demo")


@pytest.fixture
def role_clients(db: None) -> dict[str, Client]:
    role_groups_sync()
    out = {"anonymous": Client()}
    for role in ("annotator", "researcher", "admin"):
        user_create_with_role(f"b-{role}", role, PASSWORD)
        c = Client()
        assert c.login(username=f"b-{role}", password=PASSWORD)
        out[role] = c
    return out


@pytest.fixture
def researcher(role_clients: dict[str, Client]) -> Client:
    return role_clients["researcher"]
