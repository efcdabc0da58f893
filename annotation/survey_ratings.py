"""A statement set's human ratings from its latest survey campaign, as the rater × statement
matrices the NWW population analyses take (runs.nww_population.HumanRatings)."""

from __future__ import annotations

from typing import Any

from runs.nww_population import HumanRatings

from .models import Campaign, Item
from .selectors import campaign_matrices


def survey_ratings(statement_set: Any) -> HumanRatings | None:
    """None when the set has no survey campaign with answers to both questions."""
    if statement_set is None:
        return None
    campaign = (
        Campaign.objects.filter(kind=Campaign.Kind.SURVEY, statement_set=statement_set).order_by("-created_at").first()
    )
    if campaign is None:
        return None
    m = campaign_matrices(campaign)
    if not m.items or m.predict is None:
        return None
    stmt = dict(Item.objects.filter(pk__in=m.items).values_list("pk", "statement_id"))
    keep = [j for j, item in enumerate(m.items) if stmt.get(item) is not None]
    return HumanRatings(
        [int(stmt[m.items[j]]) for j in keep],
        m.primary[:, keep],
        m.predict[:, keep],
        f"survey campaign {campaign.name}",
    )
