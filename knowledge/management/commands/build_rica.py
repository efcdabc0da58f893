from __future__ import annotations

from typing import Any

from knowledge.names import name_arg
from knowledge.rica_build import rica_novel_build

from ._base import ImportCommand


class Command(ImportCommand):
    help = (
        "Rewrite an imported RICA axiom or probe set with novel entities (random 3-12 letter strings, "
        "seeded, one pair per axiom, never an English word) into a new question set."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--set", required=True, dest="source", help="the imported RICA set")
        parser.add_argument("--name", required=True, type=name_arg, help="name of the new set")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--variants", type=int, default=1, help="fresh entity pairs per probe (default 1)")

    def handle(self, *args: Any, **o: Any) -> None:
        qset = rica_novel_build(source=o["source"], name=o["name"], seed=o["seed"], variants=o["variants"])
        self.stdout.write(f"{qset.name}: {qset.questions.count()} probes with novel entities (seed {o['seed']})")
