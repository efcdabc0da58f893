"""Who may export a campaign's results (answers, labels, agreement): the researcher who created
it, and admins. Other researchers see the dashboard but not the export."""

from __future__ import annotations

from typing import Any

from accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.models import Campaign

REFUSAL = "only the researcher who created this campaign, or an admin, may export its results"


def campaign_export_allowed(campaign: Campaign, user: Any) -> bool:
    if has_role(user, ADMIN):
        return True
    return has_role(user, RESEARCHER) and campaign.created_by_id is not None and campaign.created_by_id == user.pk
