"""Recount a graph's materialised degree statistics from its triples (a repair: imports keep them
current on their own).

    python manage.py graph_stats NAME [NAME ...]
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from knowledge.db.graph_stats import graph_stats_recount
from knowledge.models import Graph, Node, Triple


class Command(BaseCommand):
    help = "Recount node degrees, the degree histogram, top nodes and relation counts of graphs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("names", nargs="+", help="graph names")

    def handle(self, *args: Any, **options: Any) -> None:
        for name in options["names"]:
            with transaction.atomic():
                graph = Graph.objects.select_for_update().filter(name=name).first()
                if graph is None:
                    raise CommandError(f"no graph named {name!r}")
                graph.node_count = Node.objects.filter(graph=graph).count()
                graph.triple_count = Triple.objects.filter(graph=graph).count()
                graph.save(update_fields=["node_count", "triple_count"])
                graph_stats_recount(graph)
            self.stdout.write(f"{name}: {graph.triple_count:,} triples, {graph.node_count:,} nodes recounted")
