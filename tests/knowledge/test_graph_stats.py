"""Materialised degree statistics (knowledge.db.graph_stats): after a first import, an incremental
import, a repeated import and a recount, the stored figures equal a fresh count of the triples."""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.db import connection

from knowledge.db import graph_stats
from knowledge.models import Graph, Node, Relation, Triple
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

FIRST = [
    ("PersonX eats", "xWant", "to sleep"),
    ("PersonX eats", "xEffect", "gets full"),
    ("PersonX eats", "xWant", "to drink"),
    ("PersonX cooks", "xWant", "to sleep"),
    ("to sleep", "xIntent", "to sleep"),
]  # a self-loop counts once as out and once as in
SECOND = [
    ("PersonX cooks", "xNeed", "to buy food"),
    ("to sleep", "xWant", "PersonX eats"),
    ("PersonX naps", "xWant", "to sleep"),
]


def _write(tmp_path: Path, name: str, rows: list[tuple[str, str, str]]) -> Path:
    p = tmp_path / name
    p.write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in rows), encoding="utf-8")
    return p


def fresh_count(graph: Graph) -> dict[str, Any]:
    """The figures counted from the triples, in Python, independently of graph_stats' SQL."""
    triples = list(Triple.objects.filter(graph=graph).values_list("head_id", "tail_id", "relation__name"))
    out_deg = Counter(h for h, _, _ in triples)
    in_deg = Counter(t for _, t, _ in triples)
    nodes = dict(Node.objects.filter(graph=graph).values_list("id", "text"))
    degree = {n: out_deg[n] + in_deg[n] for n in nodes}
    relations = Counter(r for _, _, r in triples)
    top = sorted(((n, nodes[n], d) for n, d in degree.items() if d), key=lambda x: (-x[2], x[0]))[
        : graph_stats.TOP_NODES
    ]
    return {
        "triples": len(triples),
        "nodes": len(nodes),
        "relations": sorted(([r, n] for r, n in relations.items()), key=lambda x: (-x[1], x[0])),
        "degrees": sorted([d, n] for d, n in Counter(degree.values()).items()),
        "top": [list(t) for t in top],
        "node_degrees": {n: (out_deg[n], in_deg[n]) for n in nodes},
    }


def stored(graph: Graph) -> dict[str, Any]:
    graph.refresh_from_db()
    return {
        **graph.stats,
        "node_degrees": {
            i: (o, d) for i, o, d in Node.objects.filter(graph=graph).values_list("id", "out_degree", "in_degree")
        },
    }


def test_first_import_materialises_the_fresh_count(tmp_path: Path) -> None:
    res = graph_import(_write(tmp_path, "a.tsv", FIRST), name="g", fmt="atomic-tsv")
    g = res.graph
    assert graph_stats.stats_current(g)
    assert stored(g) == fresh_count(g)
    by_text = {n.text: n for n in Node.objects.filter(graph=g)}
    assert (by_text["to sleep"].out_degree, by_text["to sleep"].in_degree) == (1, 3)
    assert g.stats["top"][0] == [by_text["to sleep"].pk, "to sleep", 4]


def test_incremental_import_adds_to_the_stored_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph_import(_write(tmp_path, "a.tsv", FIRST), name="g", fmt="atomic-tsv")

    def no_recount(graph: Graph) -> None:
        raise AssertionError("the stats were current: the import must not recount the whole graph")

    monkeypatch.setattr(graph_stats, "graph_stats_recount", no_recount)
    g = graph_import(_write(tmp_path, "b.tsv", SECOND), name="g", fmt="atomic-tsv").graph
    assert g.triple_count == 8
    assert g.node_count == 7
    assert stored(g) == fresh_count(g)
    # the same file again adds nothing and leaves the figures as they are
    before = stored(g)
    again = graph_import(tmp_path / "b.tsv", name="g", fmt="atomic-tsv")
    assert again.already_imported
    assert stored(g) == before


def test_stale_figures_are_recounted_by_the_next_import(tmp_path: Path) -> None:
    g = graph_import(_write(tmp_path, "a.tsv", FIRST), name="g", fmt="atomic-tsv").graph
    # a triple written outside the importer, with the counters refreshed: the stamp no longer matches
    a, b = Node.objects.filter(graph=g)[:2]
    Triple.objects.create(graph=g, head=a, tail=b, relation=Relation.objects.get(name="xWant"))
    g.triple_count += 1
    g.save()
    g.refresh_from_db()
    assert not graph_stats.stats_current(g)
    g = graph_import(_write(tmp_path, "b.tsv", SECOND), name="g", fmt="atomic-tsv").graph
    assert stored(g) == fresh_count(g)


def test_recount_of_a_graph_written_outside_the_importer() -> None:
    g = Graph.objects.create(name="hand")
    nodes = [Node.objects.create(graph=g, text=f"n{i}") for i in range(4)]  # n3 has no edge
    rel, _ = Relation.objects.get_or_create(name="xWant")
    for h, t in ((0, 1), (0, 2), (1, 2), (2, 2)):
        Triple.objects.create(graph=g, head=nodes[h], tail=nodes[t], relation=rel)
    g.node_count, g.triple_count = 4, 4
    g.save()
    assert not graph_stats.stats_current(g)  # degrees not counted yet
    assert Node.objects.get(pk=nodes[0].pk).out_degree is None
    graph_stats.graph_stats_recount(g)
    assert graph_stats.stats_current(g)
    assert stored(g) == fresh_count(g)
    assert g.stats["degrees"] == [[0, 1], [2, 2], [4, 1]]


def test_migration_counts_existing_graphs_like_the_importer(tmp_path: Path) -> None:
    g = graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv").graph
    expected = stored(g)
    assert expected == fresh_count(g)
    Node.objects.filter(graph=g).update(out_degree=None, in_degree=None)
    Graph.objects.filter(pk=g.pk).update(stats={})
    migration = importlib.import_module("knowledge.migrations.0003_node_degree_graph_stats")
    migration.count_existing_graphs(django_apps, SimpleNamespace(connection=connection))
    assert stored(g) == expected


def test_graph_detail_relations_come_from_the_stats(tmp_path: Path, django_assert_num_queries: Any) -> None:
    from knowledge.selectors import graph_relation_counts

    g = graph_import(_write(tmp_path, "a.tsv", FIRST), name="g", fmt="atomic-tsv").graph
    with django_assert_num_queries(0):
        rows = graph_relation_counts(g)
    assert rows == [
        {"relation__name": "xWant", "n": 3},
        {"relation__name": "xEffect", "n": 1},
        {"relation__name": "xIntent", "n": 1},
    ]


def test_graph_stats_command_repairs_a_graph() -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    g = Graph.objects.create(name="hand")
    a, b = Node.objects.create(graph=g, text="a"), Node.objects.create(graph=g, text="b")
    rel, _ = Relation.objects.get_or_create(name="xWant")
    Triple.objects.create(graph=g, head=a, tail=b, relation=rel)
    out = StringIO()
    call_command("graph_stats", "hand", stdout=out)
    assert "1 triples, 2 nodes" in out.getvalue()
    g.refresh_from_db()
    assert graph_stats.stats_current(g)
    assert stored(g) == fresh_count(g)
    with pytest.raises(CommandError, match="no graph named 'nope'"):
        call_command("graph_stats", "nope")
