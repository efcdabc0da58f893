from __future__ import annotations

from typing import Any

from commonsense.io.questions import FORMATS
from knowledge.services.imports import questions_import
from knowledge.services.names import name_arg

from ._base import ImportCommand


class Command(ImportCommand):
    help = "Import a question set: CommonsenseQA JSONL, RICA probes TSV, or RICA axiom sets JSONL."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path")
        parser.add_argument("--name", required=True, type=name_arg)
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")

    def handle(self, *args: Any, path: str, name: str, fmt: str, **options: Any) -> None:
        result = questions_import(
            path, name=name, fmt=fmt, progress=self.progress, allow_duplicate=options["allow_duplicate"]
        )
        self.stdout.write(result.summary("questions"))
