from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from knowledge.services.names import name_arg
from knowledge.services.rica_build import rica_graph_build, rica_novel_build

from ._base import ImportCommand


class Command(ImportCommand):
    help = (
        "Rewrite an imported RICA axiom or probe set with novel entities (random 3-12 letter strings, "
        "seeded, one pair per axiom, never an English word) into a new question set; or, with "
        "--from-graph, generate RICA axioms and their perturbed statement sets from an imported graph."
    )

    def add_arguments(self, parser: Any) -> None:
        src = parser.add_mutually_exclusive_group(required=True)
        src.add_argument("--set", dest="source", help="the imported RICA set to rewrite with novel entities")
        src.add_argument("--from-graph", dest="graph", help="generate axioms from this imported graph (RICA §2-3)")
        parser.add_argument("--name", required=True, type=name_arg, help="name of the new set")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--variants", type=int, default=1, help="fresh entity pairs per probe (default 1)")
        parser.add_argument("--per-strategy", type=int, default=100, help="axioms per crawl strategy (--from-graph)")
        parser.add_argument(
            "--entities", choices=("novel", "AB"), default="novel", help="novel entities or A and B (--from-graph)"
        )

    def handle(self, *args: Any, **o: Any) -> None:
        if o["graph"]:
            if o["variants"] != 1:
                raise CommandError("--variants applies to --set; --from-graph makes one entity pair per axiom")
            qset = rica_graph_build(
                graph=o["graph"], name=o["name"], seed=o["seed"], per_strategy=o["per_strategy"], entities=o["entities"]
            )
            counts = ", ".join(f"{k} {v}" for k, v in qset.params["strategies"].items())
            self.stdout.write(f"{qset.name}: {qset.questions.count()} probes from {counts} axioms (seed {o['seed']})")
            return
        qset = rica_novel_build(source=o["source"], name=o["name"], seed=o["seed"], variants=o["variants"])
        self.stdout.write(f"{qset.name}: {qset.questions.count()} probes with novel entities (seed {o['seed']})")
