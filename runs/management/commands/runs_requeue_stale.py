"""Re-enqueue active runs whose worker stopped beating (for cron, or by hand after a crash)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from runs.tasks import runs_requeue_stale_task


class Command(BaseCommand):
    help = "Re-enqueue runs whose worker died (stale heartbeat); a worker resumes them."

    def handle(self, *args: Any, **o: Any) -> None:
        ids = runs_requeue_stale_task(reschedule=False)
        self.stdout.write(f"re-enqueued {len(ids)} run(s): {', '.join(map(str, ids)) or '-'}")
