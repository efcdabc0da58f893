"""SQLite bulk import: the full-text trigger replayed in one statement and the triple indexes
rebuilt after a large insert leave the schema and the search index exactly as per-row inserts do."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import IntegrityError, connection, transaction

from explorer.selectors.graph import node_search
from knowledge.models import Graph, Node, Triple
from knowledge.services.imports import graph_import

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
    assert len(zebra) == 300
    assert _fts_rows() == zebra
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
    assert _fts_rows() == zebra
    assert node_search(h, "zebra") == []
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
    import knowledge.db.bulk as bulk

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
    assert _schema() == schema
    assert not Graph.objects.exists()
    assert _fts_rows() == []


def _fk_state() -> tuple[int, list[tuple]]:
    with connection.cursor() as cur:
        on = cur.execute("PRAGMA foreign_keys").fetchone()[0]
        return on, [tuple(r) for r in cur.execute("PRAGMA foreign_key_check").fetchall()]


@pytest.mark.django_db(transaction=True)
def test_import_as_its_own_transaction_skips_fk_checks_and_restores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside any transaction the import writes with SQLite's foreign-key checks off (its ids are
    valid by construction): afterwards they are on again, every stored reference resolves, and a
    deleted node id is never reused. The guard on relation ids (read before the transaction) is
    proven by planting a stale one: refused, nothing stored, checks back on."""
    import knowledge.services.graph_imports as services

    assert _fk_state() == (1, [])
    seen: list[int] = []
    real_insert = services.insert_rows

    def spy(*args: object, **kwargs: object) -> int:
        seen.append(connection.connection.execute("PRAGMA foreign_keys").fetchone()[0])
        return real_insert(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(services, "insert_rows", spy)
    a = _write(tmp_path / "a.tsv", [f"PersonX feeds zebra {i}\txWant\tto rest {i % 7}" for i in range(50)])
    graph_import(a, name="g", fmt="atomic-tsv")
    assert seen == [0, 0]
    assert _fk_state() == (1, [])
    top = Node.objects.order_by("-pk").values_list("pk", flat=True).first()
    Triple.objects.all().delete()
    Node.objects.filter(pk=top).delete()
    b = _write(tmp_path / "b.tsv", ["PersonX feeds zebra 0\txWant\tsomething new"])
    graph_import(b, name="g", fmt="atomic-tsv")
    assert Node.objects.get(text="something new").pk == top + 1  # AUTOINCREMENT: above the deleted id
    assert _fk_state() == (1, [])

    real_ensure = services.relations_ensure
    monkeypatch.setattr(services, "relations_ensure", lambda: {n: 10_000 + i for n, i in real_ensure().items()})
    before = (Graph.objects.count(), Node.objects.count(), Triple.objects.count())
    c = _write(tmp_path / "c.tsv", ["PersonZ\txWant\tanother thing"])
    with pytest.raises(RuntimeError, match="relation was deleted"):
        graph_import(c, name="g", fmt="atomic-tsv")
    assert (Graph.objects.count(), Node.objects.count(), Triple.objects.count()) == before
    assert _fk_state() == (1, [])
