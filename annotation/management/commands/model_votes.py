"""``python manage.py model_votes CAMPAIGN --backend hf --model PATH``: a configured model answers
every item of an MCQA validation campaign as an annotator would (a plausibility verdict per option),
stored as model votes beside the humans' answers (issue 26 item 5); never counted as answers."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.model_votes import DEFAULT_THRESHOLD, model_votes_record
from knowledge.services.triple_plausibility import plausibility_scorer


class Command(BaseCommand):
    help = "Store a model's plausibility verdicts on every option of an MCQA validation campaign's items."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("campaign", help="the campaign's name")
        parser.add_argument("--backend", required=True, choices=["hf", "openai"])
        parser.add_argument("--model", required=True, help="a transformers folder or .gguf file, or the server's model")
        parser.add_argument("--url", help="the OpenAI-compatible server (openai backend)")
        parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, help="P(yes) that ticks an option")
        parser.add_argument("--text", action="store_true", help="a plain-text prompt instead of the chat template")

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            campaign = Campaign.objects.get(name=o["campaign"])
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign named {o['campaign']!r}") from None
        try:
            scorer = plausibility_scorer(o["backend"], o["model"], url=o["url"])
            scorer.chat = not o["text"]
            n = model_votes_record(campaign, scorer, threshold=o["threshold"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{campaign.name}: {n} model votes stored by {scorer.model_key}")
