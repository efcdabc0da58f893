"""Thin Celery wrappers of the annotation app: they take ids."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="annotation.annotator_quality", ignore_result=True)
def annotator_quality_task(campaign_id: int) -> int:
    """Refit a campaign's annotator models and judge its items again (idempotent)."""
    from annotation.models import Campaign
    from annotation.services.quality import annotator_quality_refresh

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return annotator_quality_refresh(campaign) if campaign is not None and campaign.adaptive else 0
