"""The order the queue serves a campaign's free items in (issue 29 item 6): after the items that
want more answers and those served first, by answers taken, then ties in the source's order or in
the person's own order. Both queue paths read it: the ORM's (:mod:`.operations`) and PostgreSQL's
single statement (:mod:`.pg`)."""

from __future__ import annotations

from annotation.models import Campaign


def serve_order(campaign: Campaign) -> tuple[str, str]:
    """``(by answers taken, ties)``: ``"most"`` taken first (items complete early, so agreement and
    adjudication start before the campaign ends), ``"least"`` (answers spread evenly: crowd studies)
    or ``""`` (not at all); ties by ``"position"`` (the source's order) or ``"rater"`` (the person's
    own order, :func:`rater_salt` hashed with the item's uid: the same in every session of theirs).
    A survey in raters' order (``Campaign.item_order``, the default) is not served most-answered
    first: every rater would follow the first one's order."""
    even = campaign.assign_order == "even"
    if campaign.kind != Campaign.Kind.SURVEY:
        return ("least", "rater") if even else ("most", "position")
    tie = "rater" if campaign.item_order == "rater" else "position"
    return ("least" if even else "" if tie == "rater" else "most"), tie


def rater_salt(campaign: Campaign, user_id: int) -> str:
    """The prefix hashed with an item's uid for one person's own order: the campaign's seed and the person."""
    return f"{campaign.seed}:{user_id}:"
