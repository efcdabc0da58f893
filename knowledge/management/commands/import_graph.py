from __future__ import annotations

from typing import Any

from commonsense.io.triples import FORMATS
from knowledge.services.imports import graph_import
from knowledge.services.names import name_arg

from ._base import ImportCommand


class Command(ImportCommand):
    help = "Import a knowledge graph: ATOMIC-2020 TSV (head<TAB>relation<TAB>tail) or the CSKB-Population CSV."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        parser.add_argument("--name", required=True, type=name_arg, help="graph name (created if missing)")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")

    def handle(self, *args: Any, path: str, name: str, fmt: str, **options: Any) -> None:
        result = graph_import(
            path, name=name, fmt=fmt, progress=self.progress, allow_duplicate=options["allow_duplicate"]
        )
        self.stdout.write(result.summary())
