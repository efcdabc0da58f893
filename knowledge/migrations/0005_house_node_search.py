"""The full-text index on nodes moves to knowledge (knowledge/db/node_search.py): remove what the
explorer migration 0001_node_search installed (now a no-op) and install the knowledge-owned index.
The SQLite index is rebuilt from the node table; on PostgreSQL the trigram index is renamed."""

from typing import Any

from django.db import migrations

from knowledge.db import node_search as ns

FORWARD = {
    "sqlite": [*ns.LEGACY_SQLITE_DROP, *ns.SQLITE_FORWARD],
    "postgresql": [
        f"ALTER INDEX IF EXISTS explorer_node_text_trgm RENAME TO {ns.TRGM_INDEX}",
        *ns.PG_FORWARD,
    ],
}
BACKWARD = {"sqlite": ns.SQLITE_BACKWARD, "postgresql": ns.PG_BACKWARD}


def _run(statements_by_vendor: dict[str, list[str]]) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0004_node_degree_index")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
