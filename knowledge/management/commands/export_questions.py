from __future__ import annotations

from typing import Any

from knowledge.services.set_exports import EXPORT_FORMATS, question_set_export_file

from ._base import ImportCommand


class Command(ImportCommand):
    help = (
        "Export a question set as JSONL, CSV, an lm-eval task (YAML + JSONL; --out is a directory), or "
        "fine-tuning pairs (finetune-prompt, finetune-chat)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("set")
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", dest="fmt")
        parser.add_argument("--out", required=True)
        parser.add_argument(
            "--diverse-top",
            type=int,
            default=None,
            metavar="N",
            help="COM2's diversity filter: keep the top N queries per answer by unigram gain (COM2: 20)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        path = question_set_export_file(o["set"], o["fmt"], o["out"], diverse_top=o["diverse_top"])
        self.stdout.write(f"wrote {path}")
