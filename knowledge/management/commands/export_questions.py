from __future__ import annotations

from typing import Any

from knowledge.builders import EXPORT_FORMATS, question_set_export

from ._base import ImportCommand


class Command(ImportCommand):
    help = "Export a question set as JSONL, CSV, or an lm-eval task (YAML + JSONL; --out is a directory)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("set")
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", dest="fmt")
        parser.add_argument("--out", required=True)

    def handle(self, *args: Any, **o: Any) -> None:
        path = question_set_export(o["set"], o["fmt"], o["out"])
        self.stdout.write(f"wrote {path}")
