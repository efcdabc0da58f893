"""``manage.py text_rules --graph G``: what each English rule rejects among the graph's node texts."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from django.core.management.base import CommandError

from knowledge.models import Graph
from knowledge.services.node_texts import node_text_report, node_texts_ensure

from ._base import ImportCommand


class Command(ImportCommand):
    help = (
        "Report, per rule of the English rules' table, how many of a graph's node texts it rejects, with a "
        "sample; computes the texts the store lacks or holds under other rules first (--recompute: all)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--recompute", action="store_true", help="compute every node text again")
        parser.add_argument("--sample", type=int, default=5, help="texts shown per rule (default 5)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the samples")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **o: Any) -> None:
        graph = Graph.objects.filter(name=o["graph"]).first()
        if graph is None:
            raise CommandError(f"no graph named {o['graph']!r}")
        _, outcome = node_texts_ensure(
            graph, recompute=o["recompute"], progress=lambda d, t: self.progress("node texts", d, t)
        )
        total, readable, rules = node_text_report(graph, sample=o["sample"], seed=o["seed"])
        if o["json"]:
            doc = {
                "graph": graph.name,
                "rules_version": outcome.version,
                "node_texts": total,
                "readable": readable,
                "computed": outcome.computed,
                "changed": len(outcome.changed),
                "rules": [asdict(r) for r in rules],
            }
            self.stdout.write(json.dumps(doc, indent=2))
            return
        self.stdout.write(
            f"{graph.name}: {total:,} node texts, {readable:,} read as English, {total - readable:,} rejected "
            f"(rules {outcome.version}; {outcome.computed:,} computed now, {len(outcome.changed):,} changed)"
        )
        self.stdout.write(f"{'rule':32} {'decides':>8} {'fires':>8}")
        for r in rules:
            self.stdout.write(f"{r.rule:32} {r.decides:>8,} {r.fires:>8,}  {r.catches}")
            for text in r.sample:
                self.stdout.write(f"{'':34}- {text}")
