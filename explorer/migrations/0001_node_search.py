"""Full-text search over graph nodes, kept in sync by the database itself.

- SQLite: an FTS5 table ``explorer_node_fts`` over ``knowledge_node`` (external content, so the
  text is stored once) with two indexed columns, ``text`` and ``graph_id`` (the graph id as a
  token, so a search is scoped to one graph inside the index), maintained by triggers. Triggers
  fire for the importer's raw ``executemany`` inserts and for cascaded deletes alike, so no code
  path can forget to update the index.
- PostgreSQL: a pg_trgm GIN index on ``knowledge_node.text`` (``ILIKE '%word%'`` uses it); the
  index is maintained by PostgreSQL.
Other vendors get nothing (search falls back to a plain ``icontains`` scan).
"""

from django.db import migrations

FTS = "explorer_node_fts"

SQLITE_FORWARD = [
    f"CREATE VIRTUAL TABLE {FTS} USING fts5(text, graph_id, content='knowledge_node', content_rowid='id', "
    "tokenize = 'unicode61 remove_diacritics 2')",
    f"""CREATE TRIGGER {FTS}_ai AFTER INSERT ON knowledge_node BEGIN
        INSERT INTO {FTS}(rowid, text, graph_id) VALUES (new.id, new.text, new.graph_id);
    END""",
    f"""CREATE TRIGGER {FTS}_ad AFTER DELETE ON knowledge_node BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, graph_id) VALUES ('delete', old.id, old.text, old.graph_id);
    END""",
    f"""CREATE TRIGGER {FTS}_au AFTER UPDATE OF text, graph_id ON knowledge_node BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, graph_id) VALUES ('delete', old.id, old.text, old.graph_id);
        INSERT INTO {FTS}(rowid, text, graph_id) VALUES (new.id, new.text, new.graph_id);
    END""",
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",  # index the nodes that already exist
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {FTS}_ai",
    f"DROP TRIGGER IF EXISTS {FTS}_ad",
    f"DROP TRIGGER IF EXISTS {FTS}_au",
    f"DROP TABLE IF EXISTS {FTS}",
]
PG_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS explorer_node_text_trgm ON knowledge_node USING gin (text gin_trgm_ops)",
]
PG_BACKWARD = ["DROP INDEX IF EXISTS explorer_node_text_trgm"]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": PG_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": PG_BACKWARD}),
        ),
    ]
