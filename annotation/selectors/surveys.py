"""A statement set's human ratings from its latest survey campaign, as the rater × statement
matrices the NWW population analyses take (runs.selectors.nww_population.HumanRatings)."""

from __future__ import annotations

from typing import Any

from annotation.models import Campaign
from annotation.selectors.agreement import Matrices, campaign_matrices
from runs.selectors.nww_population import HumanRatings


def survey_ratings(statement_set: Any) -> HumanRatings | None:
    """None when the set has no survey campaign with answers to both questions."""
    if statement_set is None:
        return None
    campaign = (
        Campaign.objects.filter(kind=Campaign.Kind.SURVEY, statement_set=statement_set).order_by("-created_at").first()
    )
    return None if campaign is None else campaign_survey_ratings(campaign)


def campaign_survey_ratings(campaign: Campaign, m: Matrices | None = None) -> HumanRatings | None:
    """The ratings of this survey campaign (the latest over its set: :func:`survey_ratings`); None
    without answers to both questions. ``m``: its :func:`campaign_matrices` when read already."""
    m = m if m is not None else campaign_matrices(campaign)
    if not m.items or m.predict is None or m.statements is None:
        return None
    keep = [j for j, s in enumerate(m.statements) if s is not None]
    return HumanRatings(
        [s for s in m.statements if s is not None],
        m.primary[:, keep],
        m.predict[:, keep],
        f"survey campaign {campaign.name}",
    )
