"""The nodes' full-text index moved from an explorer migration to knowledge (0005_house_node_search):
on a database that still has explorer's index, migrating removes it and installs knowledge's,
which indexes the nodes already there."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from knowledge.db import node_search as ns
from tests.knowledge.factories import NodeFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the FTS5 table is the SQLite path"),
]

LEGACY = [sql.replace(ns.FTS_TABLE, "explorer_node_fts") for sql in ns.SQLITE_FORWARD]


def _objects() -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT name FROM sqlite_master WHERE name LIKE '%node_fts%'")
        return {r[0] for r in cur.fetchall()}


def _migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


@pytest.fixture
def back_to_the_latest_schema():  # type: ignore[no-untyped-def]
    """Whatever the test leaves, the database ends at every app's latest migration again (later
    migrations of knowledge, such as the set quality report, were rolled back with 0005)."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_migration_replaces_the_explorer_index_with_knowledges(back_to_the_latest_schema) -> None:  # type: ignore[no-untyped-def]
    _migrate(("knowledge", "0004_node_degree_index"))
    assert not {n for n in _objects() if n.startswith("knowledge_")}
    with connection.cursor() as cur:  # a database migrated before the move: explorer's index
        for sql in LEGACY:
            cur.execute(sql)
    node = NodeFactory(text="PersonX feeds a zebra")
    _migrate(("knowledge", "0005_house_node_search"))
    names = _objects()
    assert not {n for n in names if n.startswith("explorer_")}, names
    assert {f"{ns.FTS_TABLE}_ai", f"{ns.FTS_TABLE}_ad", f"{ns.FTS_TABLE}_au", ns.FTS_TABLE} <= names
    with connection.cursor() as cur:
        cur.execute(f"SELECT rowid FROM {ns.FTS_TABLE} WHERE {ns.FTS_TABLE} MATCH 'zebra'")
        assert [r[0] for r in cur.fetchall()] == [node.pk]
