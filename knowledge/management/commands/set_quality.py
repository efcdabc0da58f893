from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from knowledge.models import QuestionSet
from knowledge.services.set_quality import quality_lines, question_set_quality


class Command(BaseCommand):
    help = "Print (and store) the quality report of a question set: build rejections, text checks, chains."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("set", help="question set name")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            qset = QuestionSet.objects.get(name=o["set"])
        except QuestionSet.DoesNotExist:
            raise CommandError(f"no question set named {o['set']!r}") from None
        report = question_set_quality(qset)
        if o["json"]:
            self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
            return
        self.stdout.write(f"{qset.name}:")
        for line in quality_lines(report):
            self.stdout.write(f"  {line}")
