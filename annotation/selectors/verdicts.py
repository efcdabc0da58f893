"""What people said about built sets and runs: a question set's human quality (issue 11 item 8) and
the judgements of a generation campaign (COM2 Table 4)."""

from __future__ import annotations

from typing import TypedDict

from annotation.models import Campaign, FinalLabel, Item
from annotation.selectors.agreement import campaign_agreement
from commonsense.validation import JudgementShares, judgement_shares
from knowledge.models import QuestionSet


class HumanQuality(TypedDict):
    """What the latest MCQA validation campaign of a question set says about its items."""

    campaign: str
    items: int
    accepted: int
    share_accepted: float
    gold_confirmed: int
    agreement: float | None


def question_set_human_quality(qset: QuestionSet) -> HumanQuality | None:
    """Issue 11 item 8: what the latest MCQA validation campaign of ``qset`` says about it. An item
    is accepted when the majority found the context sensible and at least one option plausible
    (COM2 keeps such items); its gold is confirmed when the gold option is among the plausible."""
    campaign = (
        Campaign.objects.filter(question_set=qset, kind=Campaign.Kind.MCQA, items__final_label__isnull=False)
        .distinct()
        .order_by("-created_at")
        .first()
    )
    if campaign is None:
        return None
    rows = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR).values_list(
        "label", "item__question__answer_index"
    )
    items = accepted = confirmed = 0
    for label, gold in rows.iterator(chunk_size=2000):
        items += 1
        plausible = list(label.get("plausible") or [])
        ok = bool(plausible) and not label.get("bad_context")
        accepted += ok
        confirmed += ok and gold in plausible
    agreement = campaign_agreement(campaign).pairwise
    return HumanQuality(
        campaign=campaign.name,
        items=items,
        accepted=accepted,
        share_accepted=round(accepted / items, 4) if items else 0.0,
        gold_confirmed=confirmed,
        agreement=None if agreement is None else round(float(agreement), 4),
    )


def generation_judgements(campaign: Campaign) -> list[JudgementShares]:
    """COM2 Table 4 of a generation campaign: the final labels (majority, or a reviewer's
    decision) of its judged generations per query kind and overall, with n. Items nobody judged
    yet are left out; tied ones are counted as undecided."""
    rows = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR, n_answers__gt=0)
    return judgement_shares(
        [(str(s or ""), lab.get("judgement")) for s, lab in rows.values_list("item__payload__structure", "label")]
    )


def run_generation_campaigns(run_ids: list[int]) -> list[Campaign]:
    """The generation campaigns judging these runs, newest first."""
    return list(
        Campaign.objects.filter(kind=Campaign.Kind.GENERATION, run_id__in=run_ids).order_by("-created_at", "-pk")
    )
