"""Give an MCQA validation campaign a review stage (issue 26; annotation/services/reviews.py): every
item that settles is served, as it will be published, to K further people who did not annotate the
campaign, in a reader's framing; verified sets keep an item only when every review names its gold.

    python manage.py review_stage val-cskb-2i --reviews 2

New campaigns get one from ``campaign_create --reviews K`` (default 2) or the campaign form.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign
from annotation.services.reviews import review_items_sync, review_stage_add


class Command(BaseCommand):
    help = "Add a blind review stage (K reviews per settled item) to an MCQA validation campaign."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the MCQA validation campaign")
        parser.add_argument("--reviews", type=int, default=2, help="reviews per settled item (default 2)")

    def handle(self, *args: Any, **o: Any) -> None:
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {o['campaign']!r}")
        try:
            stage = review_stage_add(campaign, o["reviews"])
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        added = review_items_sync(stage)
        self.stdout.write(
            f"review stage {stage.name} ({stage.status}): {stage.redundancy} reviews per item; "
            f"{added} settled items under review now"
        )
