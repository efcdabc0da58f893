"""Compute the explorer's stored aggregates ahead of the first views: after an upgrade (the new
code's digest is a new scope, so every figure is computed again) or a restore."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from explorer.services import run_aggregates_warm
from runs.models import Run


class Command(BaseCommand):
    help = (
        "Compute the explorer's figures of the runs finished within --days (newest first; a statement run's "
        "with its set's survey) under the code now installed, so that their pages' first views read them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=float, default=30, help="runs finished within this many days (default 30)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["days"] <= 0:
            self.stderr.write("--days must be positive")
            raise SystemExit(2)
        since = timezone.now() - timedelta(days=opts["days"])
        t = time.perf_counter()
        runs = list(
            Run.objects.filter(finished_at__gte=since).order_by("-finished_at", "-pk").values_list("pk", flat=True)
        )
        for n, pk in enumerate(runs, 1):
            run_aggregates_warm(pk)
            if n % 10 == 0 or n == len(runs):
                self.stdout.write(f"runs: {n}/{len(runs)} ({time.perf_counter() - t:.1f} s)")
        # a statement run's page computes its set's survey figures too: no second pass over the surveys
        self.stdout.write(f"computed the figures of {len(runs)} run(s) in {time.perf_counter() - t:.1f} s")
