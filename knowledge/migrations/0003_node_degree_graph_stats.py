"""Materialised degree statistics (knowledge.db.graph_stats) and edge-order indexes.

- ``Node.out_degree`` / ``Node.in_degree`` (nullable, no default: SQLite adds them with ALTER TABLE
  instead of rebuilding ``knowledge_node``, which would drop explorer's search triggers) and
  ``Graph.stats``; existing graphs are counted here.
- Triple indexes (head, relation) and (tail, relation) become (…, plausibility DESC NULLS LAST, id):
  same prefixes, and "the most plausible edges of one relation" is read straight from the index.
  SQL per vendor: SQLite cannot write NULLS LAST in an index (its DESC order puts nulls last).
"""

from django.db import migrations, models

EDGE_INDEXES = (("knowledge_triple_head_edge_order", "head_id"), ("knowledge_triple_tail_edge_order", "tail_id"))
NULLS_LAST = {"sqlite": "", "postgresql": " NULLS LAST"}


def create_edge_indexes(apps, schema_editor):
    nulls = NULLS_LAST.get(schema_editor.connection.vendor, "")
    for name, col in EDGE_INDEXES:
        schema_editor.execute(
            f"CREATE INDEX {name} ON knowledge_triple ({col}, relation_id, plausibility DESC{nulls}, id)"
        )


def drop_edge_indexes(apps, schema_editor):
    for name, _ in EDGE_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


def _fetch(cur, sql, params):
    cur.execute(sql, params)
    return cur.fetchall()


def count_existing_graphs(apps, schema_editor):
    """The same figures knowledge.db.graph_stats stores after an import, for graphs already stored."""
    Graph = apps.get_model("knowledge", "Graph")
    with schema_editor.connection.cursor() as cur:
        for graph in Graph.objects.all():
            gid = graph.pk
            cur.execute("UPDATE knowledge_node SET out_degree = 0, in_degree = 0 WHERE graph_id = %s", [gid])
            for col, end in (("out_degree", "head_id"), ("in_degree", "tail_id")):
                cur.execute(
                    f"UPDATE knowledge_node SET {col} = c.n FROM (SELECT {end} AS node_id, COUNT(*) AS n "
                    f"FROM knowledge_triple WHERE graph_id = %s GROUP BY {end}) c "
                    "WHERE knowledge_node.id = c.node_id",
                    [gid],
                )
            graph.node_count = _fetch(cur, "SELECT COUNT(*) FROM knowledge_node WHERE graph_id = %s", [gid])[0][0]
            graph.triple_count = _fetch(cur, "SELECT COUNT(*) FROM knowledge_triple WHERE graph_id = %s", [gid])[0][0]
            relations = _fetch(
                cur,
                "SELECT r.name, COUNT(*) FROM knowledge_triple t JOIN knowledge_relation r "
                "ON r.id = t.relation_id WHERE t.graph_id = %s GROUP BY r.name",
                [gid],
            )
            degree = "out_degree + in_degree"
            graph.stats = {
                "triples": graph.triple_count,
                "nodes": graph.node_count,
                "relations": sorted(([name, int(n)] for name, n in relations), key=lambda r: (-r[1], r[0])),
                "degrees": [
                    [int(d), int(n)]
                    for d, n in _fetch(
                        cur,
                        f"SELECT {degree} AS d, COUNT(*) FROM knowledge_node WHERE graph_id = %s GROUP BY d ORDER BY d",
                        [gid],
                    )
                ],
                "top": [
                    [int(i), t, int(d)]
                    for i, t, d in _fetch(
                        cur,
                        f"SELECT id, text, {degree} AS d FROM knowledge_node WHERE graph_id = %s AND {degree} > 0 "
                        "ORDER BY d DESC, id LIMIT 20",
                        [gid],
                    )
                ],
            }
            graph.save(update_fields=["node_count", "triple_count", "stats"])


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0002_build_job"),
    ]

    operations = [
        migrations.RunPython(create_edge_indexes, drop_edge_indexes),
        migrations.RemoveIndex(model_name="triple", name="knowledge_t_head_id_53c082_idx"),
        migrations.RemoveIndex(model_name="triple", name="knowledge_t_tail_id_1425b1_idx"),
        migrations.AddField(model_name="graph", name="stats", field=models.JSONField(blank=True, default=dict)),
        migrations.AddField(
            model_name="node", name="in_degree", field=models.PositiveIntegerField(blank=True, null=True)
        ),
        migrations.AddField(
            model_name="node", name="out_degree", field=models.PositiveIntegerField(blank=True, null=True)
        ),
        migrations.RunPython(count_existing_graphs, migrations.RunPython.noop),
    ]
