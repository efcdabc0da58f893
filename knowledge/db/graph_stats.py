"""Degree statistics of a knowledge graph, materialised when triples are imported.

Counting degrees over a million-triple graph takes seconds (a GROUP BY over every edge end), so the
importer keeps them instead:

* ``Node.out_degree`` / ``Node.in_degree``: the node's triples as head / as tail. An import adds
  the counts of its own triples (found by their ``source``) to the nodes they touch.
* ``Graph.stats``: triples per relation, the degree histogram (degree = in + out, isolated nodes
  at 0) and the most connected nodes, stamped with the graph's triple and node counts. The
  readers use them only while the stamp equals ``Graph.triple_count`` / ``Graph.node_count``;
  anything else (a graph written outside the importer) is counted afresh.

An import updates incrementally when the stored figures were current before it, and recounts the
whole graph otherwise. :func:`graph_stats_recount` repairs a graph (``manage.py graph_stats NAME``).
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from knowledge.models import Graph

TOP_NODES = 20

_DEGREE = "COALESCE(out_degree, 0) + COALESCE(in_degree, 0)"


def stats_current(graph: Graph) -> bool:
    """True when ``graph.stats`` describes the graph as its counters say it is now."""
    s = graph.stats or {}
    return (
        s.get("triples") == graph.triple_count
        and s.get("nodes") == graph.node_count
        and all(k in s for k in ("relations", "degrees", "top"))
    )


def node_degrees_add_source(source_id: int) -> None:
    """Add the triples of one import source to their nodes' degrees (two UPDATE … FROM)."""
    with connection.cursor() as cur:
        for col, end in (("out_degree", "head_id"), ("in_degree", "tail_id")):
            cur.execute(
                f"UPDATE knowledge_node SET {col} = COALESCE(knowledge_node.{col}, 0) + c.n "
                f"FROM (SELECT {end} AS node_id, COUNT(*) AS n FROM knowledge_triple WHERE source_id = %s "
                f"GROUP BY {end}) c WHERE knowledge_node.id = c.node_id",
                [source_id],
            )


def node_degrees_recount(graph_id: int) -> None:
    """Count every node's degrees of one graph from its triples."""
    with connection.cursor() as cur:
        cur.execute("UPDATE knowledge_node SET out_degree = 0, in_degree = 0 WHERE graph_id = %s", [graph_id])
        for col, end in (("out_degree", "head_id"), ("in_degree", "tail_id")):
            cur.execute(
                f"UPDATE knowledge_node SET {col} = c.n "
                f"FROM (SELECT {end} AS node_id, COUNT(*) AS n FROM knowledge_triple WHERE graph_id = %s "
                f"GROUP BY {end}) c WHERE knowledge_node.id = c.node_id",
                [graph_id],
            )


def relation_counts(where: str, param: int) -> dict[str, int]:
    """relation name -> triples, over ``knowledge_triple`` rows matching ``where`` (one column = %s)."""
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT r.name, c.n FROM (SELECT relation_id, COUNT(*) AS n FROM knowledge_triple "
            f"WHERE {where} = %s GROUP BY relation_id) c JOIN knowledge_relation r ON r.id = c.relation_id",
            [param],
        )
        return {name: int(n) for name, n in cur.fetchall()}


def degree_histogram_from_nodes(graph_id: int) -> list[list[int]]:
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT {_DEGREE} AS d, COUNT(*) FROM knowledge_node WHERE graph_id = %s GROUP BY d ORDER BY d", [graph_id]
        )
        return [[int(d), int(n)] for d, n in cur.fetchall()]


def top_nodes_from_nodes(graph_id: int, limit: int = TOP_NODES) -> list[list[Any]]:
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT id, text, {_DEGREE} AS d FROM knowledge_node WHERE graph_id = %s AND {_DEGREE} > 0 "
            "ORDER BY d DESC, id LIMIT %s",
            [graph_id, limit],
        )
        return [[int(i), t, int(d)] for i, t, d in cur.fetchall()]


def _store(graph: Graph, relations: dict[str, int]) -> None:
    graph.stats = {
        "triples": graph.triple_count,
        "nodes": graph.node_count,
        "relations": sorted(([name, n] for name, n in relations.items() if n), key=lambda r: (-r[1], r[0])),
        "degrees": degree_histogram_from_nodes(graph.pk),
        "top": top_nodes_from_nodes(graph.pk),
    }
    graph.save(update_fields=["stats"])


def graph_stats_after_import(
    graph: Graph,
    source_id: int,
    *,
    before: dict[str, Any] | None,
    counted: dict[str, int] | None = None,
) -> None:
    """Inside the import transaction, after the source's triples and the graph's counters are
    stored. ``before``: the stats as they were, if they were current before the import.
    ``counted``: relation name -> triples of this import, when the importer has already added the
    import's degrees to its nodes (it counts them in memory while writing); else both are counted
    here from the source's triples."""
    if before is None:
        graph_stats_recount(graph)
        return
    if counted is None:
        node_degrees_add_source(source_id)
        counted = relation_counts("source_id", source_id)
    relations = {name: int(n) for name, n in before["relations"]}
    for name, n in counted.items():
        relations[name] = relations.get(name, 0) + n
    _store(graph, relations)


def graph_stats_recount(graph: Graph) -> None:
    """Recount degrees and relation counts of the whole graph from its triples."""
    node_degrees_recount(graph.pk)
    _store(graph, relation_counts("graph_id", graph.pk))
