"""``python manage.py annotator_quality CAMPAIGN``: fit the campaign's annotator models (Dawid–Skene
and MACE, crowd-kit) over its answers now, judge every item again, and print each annotator's
estimates, the likely spammers first (issue 26 item 2)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.selectors.campaigns import campaign_progress
from annotation.selectors.verification import campaign_quality_rows
from annotation.services.quality import annotator_quality_refresh


class Command(BaseCommand):
    help = "Fit an MCQA campaign's annotator models now and judge its items again."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("campaign", help="the campaign's name")

    def handle(self, *args: Any, **o: Any) -> None:
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {o['campaign']!r}")
        if not campaign.adaptive:
            raise CommandError(f"{campaign.name} is a {campaign.get_kind_display()} campaign: MCQA validation only")
        n = annotator_quality_refresh(campaign)
        p = campaign_progress(campaign)
        self.stdout.write(
            f"{campaign.name}: {n} annotators; items {p['items']}: {p['settled']} settled, {p['open']} still open, "
            f"{p['exhausted']} exhausted, {p['disputed']} disputed; {p['answers']} answers"
        )
        self.stdout.write("annotator\tanswers\tsensitivity\tspecificity\taccuracy\tmace_competence\tflag")
        for r in campaign_quality_rows(campaign):
            self.stdout.write(
                f"{r.who}\t{r.answers}\t{r.sensitivity:.3f}\t{r.specificity:.3f}\t{r.accuracy:.3f}\t"
                f"{r.competence:.3f}\t{r.flag}"
            )
