"""SQLite bulk import: the full-text trigger replayed in one statement and the triple indexes
rebuilt after a large insert leave the schema and the search index exactly as per-row inserts do."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import IntegrityError, connection, transaction

from explorer.selectors.graph import node_search
from knowledge.models import Graph, Node, Triple
from knowledge.services import graph_import

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite trigger/index handling"),
]


def _schema() -> list[tuple[str, str, str]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('knowledge_node', 'knowledge_triple') "
            "AND sql IS NOT NULL ORDER BY name"
        )
        return [tuple(r) for r in cur.fetchall()]


def _fts_rows() -> list[tuple[int, str]]:
    with connection.cursor() as cur:  # integrity-check: the FTS index agrees with its content table
        cur.execute("INSERT INTO knowledge_node_fts(knowledge_node_fts, rank) VALUES ('integrity-check', 1)")
        cur.execute("SELECT rowid, text FROM knowledge_node_fts WHERE knowledge_node_fts MATCH 'zebra' ORDER BY rowid")
        return [tuple(r) for r in cur.fetchall()]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_bulk_import_keeps_search_index_and_schema_in_sync(tmp_path: Path) -> None:
    schema = _schema()
    assert any(name == "knowledge_node_fts_ai" for _, name, _ in schema)
    first = _write(tmp_path / "a.tsv", [f"PersonX feeds zebra {i}\txWant\tto rest {i % 7}" for i in range(300)])
    graph_import(first, name="g", fmt="atomic-tsv")  # empty table: indexes rebuilt, trigger replayed
    assert _schema() == schema
    g = Graph.objects.get(name="g")
    zebra = list(Node.objects.filter(graph=g, text__contains="zebra").order_by("pk").values_list("pk", "text"))
    assert len(zebra) == 300 and _fts_rows() == zebra
    assert {r["text"] for r in node_search(g, "zebra 123")} == {"PersonX feeds zebra 123"}
    # a smaller second import (indexes kept, trigger still replayed) into another graph
    second = _write(tmp_path / "b.tsv", ["PersonY sees a zebra\txWant\tto rest 1", "PersonY runs\toEffect\tzebra run"])
    graph_import(second, name="h", fmt="atomic-tsv")
    assert _schema() == schema
    h = Graph.objects.get(name="h")
    assert {r["text"] for r in node_search(h, "zebra")} == {"PersonY sees a zebra", "zebra run"}
    assert len(_fts_rows()) == 302
    # the delete trigger still works: deleting the graph removes its nodes from the index
    Triple.objects.filter(graph=h).delete()
    Node.objects.filter(graph=h).delete()
    assert _fts_rows() == zebra and node_search(h, "zebra") == []
    # CHECK constraints, skipped for the importer's own values, are enforced again afterwards
    with connection.cursor() as cur:
        cur.execute("PRAGMA ignore_check_constraints")
        assert cur.fetchone()[0] == 0
    t = Triple.objects.filter(graph=g).first()
    assert t is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        Triple.objects.filter(pk=t.pk).update(source_line=-1)
    # the rebuilt indexes are used by the queries that need them
    with connection.cursor() as cur:
        cur.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM knowledge_triple WHERE head_id = 1 AND relation_id = 2 "
            "ORDER BY plausibility DESC"
        )
        assert "knowledge_triple_head_edge_order" in " ".join(str(r) for r in cur.fetchall())


def test_failed_bulk_import_restores_trigger_and_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure after the trigger and the indexes were dropped rolls the DDL back too."""
    import knowledge.bulk as bulk

    schema = _schema()
    real = bulk._droppable_indexes

    def drop_then_fail(raw: object, table: str) -> list[tuple[str, str]]:
        out = real(raw, table)  # the last index is dropped, and its re-creation after the insert fails
        out[-1] = (out[-1][0], f"CREATE INDEX {out[-1][0]} ON {table} (no_such_column)")
        return out

    monkeypatch.setattr(bulk, "_droppable_indexes", drop_then_fail)
    path = _write(tmp_path / "a.tsv", ["PersonX feeds zebra\txWant\tto rest"])
    with pytest.raises(Exception, match="no_such_column"):
        graph_import(path, name="g", fmt="atomic-tsv")
    assert _schema() == schema and not Graph.objects.exists() and _fts_rows() == []
