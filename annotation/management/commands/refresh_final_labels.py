"""Recompute the stored final labels of every campaign (or the named ones). The writes that change
votes keep labels current; run this once on a database that holds answers stored before they did
(pages and exports only read the stored labels)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.labels import final_labels_refresh


class Command(BaseCommand):
    help = "Recompute the stored final labels (majority or adjudicated) of campaigns."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("campaigns", nargs="*", help="campaign names (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        names = options["campaigns"]
        campaigns = Campaign.objects.filter(name__in=names) if names else Campaign.objects.all()
        missing = set(names) - set(campaigns.values_list("name", flat=True))
        if missing:
            raise CommandError(f"no campaign named {', '.join(sorted(missing))}")
        for c in campaigns:
            self.stdout.write(f"{c.name}: {final_labels_refresh(c)} final labels")
