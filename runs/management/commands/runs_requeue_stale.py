"""Re-enqueue active runs whose worker stopped beating (for cron, or by hand after a crash);
``--queued`` also re-sends queued runs (after a broker lost its messages)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from runs.tasks import runs_requeue_stale_task


class Command(BaseCommand):
    help = "Re-enqueue runs whose worker died (stale heartbeat); a worker resumes them."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--queued", action="store_true", help="also re-send every queued run")

    def handle(self, *args: Any, **o: Any) -> None:
        ids = runs_requeue_stale_task(resend_queued=o["queued"])
        self.stdout.write(f"re-enqueued {len(ids)} run(s): {', '.join(map(str, ids)) or '-'}")
