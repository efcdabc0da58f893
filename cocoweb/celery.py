"""The Celery application. Broker from ``CELERY_BROKER_URL`` (embedded SQLite by default)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cocoweb.settings")

app = Celery("cocoweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
