"""Who may export a campaign's results (answers, labels, agreement, its participants' platform ids,
completion codes and demographics): the researcher who created it, and admins. Other researchers
see the dashboard but not the export. A question set that carries a campaign's people's answers
(its verified set: labels and votes in every question; any set's Hugging Face publication: the
answers themselves) is exported under the same rule (issue 31 item 8)."""

from __future__ import annotations

from typing import Any

from accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.models import Campaign, VerifiedSet
from annotation.selectors.publication import question_set_answer_campaign
from knowledge.models import QuestionSet

REFUSAL = "only the researcher who created this campaign, or an admin, may export its results"


def campaign_export_allowed(campaign: Campaign, user: Any) -> bool:
    if has_role(user, ADMIN):
        return True
    return has_role(user, RESEARCHER) and campaign.created_by_id is not None and campaign.created_by_id == user.pk


def question_set_export_refusal(qset: QuestionSet, user: Any, fmt: str) -> str | None:
    """Why ``user`` may not have ``qset`` in ``fmt`` (knowledge's ``question_set_export_refused``)."""
    v = VerifiedSet.objects.filter(question_set=qset).select_related("campaign").first()
    if v is not None and not campaign_export_allowed(v.campaign, user):
        return f"{qset.name} is the verified set of campaign {v.campaign.name} (its labels and votes): {REFUSAL}"
    if fmt == "hf":
        campaign = question_set_answer_campaign(qset)
        if campaign is not None and not campaign_export_allowed(campaign, user):
            return f"the publication of {qset.name} holds the answers of campaign {campaign.name}: {REFUSAL}"
    return None
