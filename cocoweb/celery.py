"""The Celery application. Broker from ``CELERY_BROKER_URL`` (embedded SQLite by default)."""

import os

from celery import Celery

from .kombu_patch import survive_redis_restarts

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cocoweb.settings")

app = Celery("cocoweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Housekeeping workers re-enqueue orphaned runs on a timer and after every broker reconnection
# (loaded by name when a worker builds its consumer, after Django is set up).
app.steps["consumer"].add("runs.tasks:HousekeepingTicker")

survive_redis_restarts()
