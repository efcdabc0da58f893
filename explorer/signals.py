"""A stored aggregate goes with the runs and survey campaigns it was computed from."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete

from .models import StoredAggregate


def _drop(prefix: str) -> Any:
    def receiver(sender: Any, instance: Any, **_: Any) -> None:
        StoredAggregate.objects.filter(refs__contains=f",{prefix}{instance.pk},").delete()

    return receiver


drop_run_aggregates = _drop("run")
drop_campaign_aggregates = _drop("campaign")


def connect() -> None:
    post_delete.connect(drop_run_aggregates, sender="runs.Run", dispatch_uid="explorer-stored-run")
    post_delete.connect(drop_campaign_aggregates, sender="annotation.Campaign", dispatch_uid="explorer-stored-campaign")
