from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from knowledge.models import QuestionSet
from knowledge.services.set_quality import quality_lines, question_set_quality
from knowledge.services.shortcuts import question_set_option_only


class Command(BaseCommand):
    help = (
        "Print (and store) the quality report of a question set: build rejections, text checks, chains and "
        "the shortcut audit (answer type, option only, gold position)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("set", help="question set name")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument(
            "--option-only",
            action="store_true",
            help="compute the option-only baseline now, here, instead of on a worker (slow for large sets)",
        )
        parser.add_argument(
            "--model",
            default=None,
            help="the option-only model (a packaged model's name or one under COCOWEB_MODELS_DIRS; "
            "default COCOWEB_OPTION_ONLY_MODEL)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            qset = QuestionSet.objects.get(name=o["set"])
        except QuestionSet.DoesNotExist:
            raise CommandError(f"no question set named {o['set']!r}") from None
        if o["option_only"]:
            model = o["model"] or settings.COCOWEB_OPTION_ONLY_MODEL
            if not model:
                raise CommandError("no option-only model: pass --model or set COCOWEB_OPTION_ONLY_MODEL")
            got = question_set_option_only(qset, model=model)
            if got and got.get("error"):
                raise CommandError(f"the option-only baseline could not be computed with {model}: {got['error']}")
            qset.refresh_from_db()
        report = question_set_quality(qset)
        if o["json"]:
            self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
            return
        self.stdout.write(f"{qset.name}:")
        for line in quality_lines(report):
            self.stdout.write(f"  {line}")
