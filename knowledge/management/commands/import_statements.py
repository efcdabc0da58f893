from __future__ import annotations

from typing import Any

from knowledge.services.imports import statements_import
from knowledge.services.names import name_arg

from ._base import ImportCommand


class Command(ImportCommand):
    help = "Import the commonsense statements CSV (statement, six features, category, elicitation, human_q1, model answers)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        parser.add_argument("--name", required=True, type=name_arg)

    def handle(self, *args: Any, path: str, name: str, **options: Any) -> None:
        result = statements_import(path, name=name, progress=self.progress, allow_duplicate=options["allow_duplicate"])
        self.stdout.write(result.summary("statements"))
