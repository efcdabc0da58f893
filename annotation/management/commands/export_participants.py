"""Write a crowd campaign's participants to CSV (what a payment or bonus upload needs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.crowd.exports import participants_csv
from annotation.models import Campaign


class Command(BaseCommand):
    help = "Export a campaign's crowd participants (id, platform, times, answers, checks, completion code) to CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's name (slug)")
        parser.add_argument("--out", required=True, help="the CSV file to write")

    def handle(self, *args: Any, **o: Any) -> None:
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {o['campaign']!r}")
        out = Path(o["out"])
        if not out.parent.is_dir():
            raise CommandError(f"--out: the folder {out.parent} does not exist")
        body = participants_csv(campaign)
        out.write_text(body, encoding="utf-8", newline="")  # the CSV writer chose the line ends
        self.stdout.write(f"{body.count(chr(10)) - 1} participants written to {out}")
