"""Full-text search over graph nodes, owned by ``knowledge`` (the app of the ``knowledge_node``
table) and kept in sync by the database itself. Installed by migration
``knowledge/0005_house_node_search`` (which also removes the copy an ``explorer`` migration used to
install); read by ``explorer/selectors/graph.py``; the bulk importer (``knowledge/db/bulk.py``) defers
the SQLite insert trigger with :data:`SQLITE_DEFERRED_TRIGGERS`.

- SQLite: an FTS5 table ``knowledge_node_fts`` over ``knowledge_node`` (external content, so the
  text is stored once) with two indexed columns, ``text`` and ``graph_id`` (the graph id as a
  token, so a search is scoped to one graph inside the index), maintained by triggers. Triggers
  fire for the importer's raw multi-row inserts and for cascaded deletes alike, so no code
  path can forget to update the index.
- PostgreSQL: a pg_trgm GIN index on ``knowledge_node.text`` (``ILIKE '%word%'`` uses it); the
  index is maintained by PostgreSQL.
Other vendors get nothing (search falls back to a plain ``icontains`` scan).
"""

from __future__ import annotations

FTS_TABLE = "knowledge_node_fts"
TRGM_INDEX = "knowledge_node_text_trgm"
_INSERT_TRIGGER = f"{FTS_TABLE}_ai"
_INSERT_TRIGGER_SQL = f"""CREATE TRIGGER {_INSERT_TRIGGER} AFTER INSERT ON knowledge_node BEGIN
        INSERT INTO {FTS_TABLE}(rowid, text, graph_id) VALUES (new.id, new.text, new.graph_id);
    END"""

SQLITE_FORWARD = [
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(text, graph_id, content='knowledge_node', content_rowid='id', "
    "tokenize = 'unicode61 remove_diacritics 2')",
    _INSERT_TRIGGER_SQL,
    f"""CREATE TRIGGER {FTS_TABLE}_ad AFTER DELETE ON knowledge_node BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text, graph_id) VALUES ('delete', old.id, old.text, old.graph_id);
    END""",
    f"""CREATE TRIGGER {FTS_TABLE}_au AFTER UPDATE OF text, graph_id ON knowledge_node BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text, graph_id) VALUES ('delete', old.id, old.text, old.graph_id);
        INSERT INTO {FTS_TABLE}(rowid, text, graph_id) VALUES (new.id, new.text, new.graph_id);
    END""",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",  # index the nodes that already exist
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_ai",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_ad",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_au",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]
PG_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE INDEX IF NOT EXISTS {TRGM_INDEX} ON knowledge_node USING gin (text gin_trgm_ops)",
]
PG_BACKWARD = [f"DROP INDEX IF EXISTS {TRGM_INDEX}"]

# What the explorer migration 0001_node_search installed before the index moved here.
LEGACY_SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS explorer_node_fts_ai",
    "DROP TRIGGER IF EXISTS explorer_node_fts_ad",
    "DROP TRIGGER IF EXISTS explorer_node_fts_au",
    "DROP TABLE IF EXISTS explorer_node_fts",
]
LEGACY_PG_DROP = ["DROP INDEX IF EXISTS explorer_node_text_trgm"]

# Bulk inserts into a table drop these AFTER INSERT triggers, insert, replay them as one
# INSERT … SELECT over the new rows (``?`` = the largest rowid before the insert), and recreate
# them: table -> [(trigger name, its CREATE statement, replay statement)].
SQLITE_DEFERRED_TRIGGERS: dict[str, list[tuple[str, str, str]]] = {
    "knowledge_node": [
        (
            _INSERT_TRIGGER,
            _INSERT_TRIGGER_SQL,
            f"INSERT INTO {FTS_TABLE}(rowid, text, graph_id) SELECT id, text, graph_id FROM knowledge_node "
            "WHERE rowid > ? ORDER BY rowid",
        )
    ],
}
