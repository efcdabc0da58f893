"""Reads of campaigns for their pages: which campaigns a person sees, their items, answers and
progress, the adjudication queue and the labels decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Q, QuerySet, Sum

from accounts.people import User, Visitor
from accounts.roles import RESEARCHER, has_role
from annotation.models import Assignment, Campaign, FinalLabel, Item, Membership, Participant, Response


def campaign_list_for(user: Visitor) -> QuerySet[Campaign]:
    """The campaigns this person may open (the rule :func:`campaign_visible_to` applies to one)."""
    qs = Campaign.objects.select_related("statement_set", "question_set")
    return qs if has_role(user, RESEARCHER) else qs.filter(status=Campaign.Status.OPEN)


def campaign_visible_to(campaign: Campaign, user: Visitor) -> bool:
    """Whether :func:`campaign_list_for` would list this campaign for this person."""
    return has_role(user, RESEARCHER) or campaign.status == Campaign.Status.OPEN


def campaign_for_work(slug: str, user: Visitor) -> Campaign | None:
    """The campaign named ``slug`` if this person may open it, without its sets (the work pages
    never show them: no joins)."""
    return campaign_list_for(user).select_related(None).filter(name=slug).first()


def campaigns_closed() -> QuerySet[Campaign]:
    """Closed campaigns, with only what their closing notice shows."""
    return Campaign.objects.only("name", "title").filter(status=Campaign.Status.CLOSED)


def campaign_items(campaign: Campaign) -> QuerySet[Item]:
    return Item.objects.filter(campaign=campaign)


def campaign_with_sets() -> QuerySet[Campaign]:
    """Campaigns with their statement or question set (the researcher pages name them)."""
    return Campaign.objects.select_related("statement_set", "question_set")


def regular_items(campaign: Campaign) -> QuerySet[Item]:
    return Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)


def regular_answer_counts(campaign: Campaign) -> list[int]:
    """How many answers each regular item has (the dashboard's histogram)."""
    return list(regular_items(campaign).values_list("answer_count", flat=True))


def answered_items(campaign: Campaign, limit: int) -> QuerySet[Item]:
    """The first ``limit`` regular items (by position) with at least one answer."""
    return regular_items(campaign).filter(answer_count__gt=0).order_by("position")[:limit]


def rater_names(campaign: Campaign, user_ids: list[int], *, personal: bool) -> dict[int, str]:
    """user id -> how the researcher pages name a rater: a lab account by its username; a crowd
    participant by platform and id for who may export the campaign (``personal``, issue 31 item 8),
    else by their participant number, never by the internal account (issue 29 item 4)."""
    names = dict(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", "username"))
    crowd = Participant.objects.filter(campaign=campaign, user_id__in=user_ids)
    for user_id, pk, platform, external_id in crowd.values_list("user_id", "pk", "platform", "external_id"):
        names[user_id] = f"{Participant.Platform(platform).label} {external_id}" if personal else f"participant {pk}"
    return names


def adjudicated_labels(campaign: Campaign, limit: int) -> QuerySet[FinalLabel]:
    """The latest ``limit`` labels a researcher decided, with the decision and its author."""
    return (
        FinalLabel.objects.filter(item__campaign=campaign, provenance=FinalLabel.Provenance.ADJUDICATED)
        .select_related("item", "adjudication__decided_by")
        .order_by("-adjudication__decided_at")[:limit]
    )


def final_label_of(item: Item) -> FinalLabel | None:
    return FinalLabel.objects.filter(item=item).first()


@dataclass(frozen=True, slots=True)
class CampaignRow:
    """A campaign on an annotator's list, with their membership in it (None: not joined yet)."""

    campaign: Campaign
    membership: Membership | None


def campaign_rows_for(user: User) -> list[CampaignRow]:
    """The campaigns this person may open, each with their membership. Two queries."""
    mine = {m.campaign_id: m for m in Membership.objects.filter(user=user)}
    return [CampaignRow(c, mine.get(c.pk)) for c in campaign_list_for(user)]


class CampaignProgress(TypedDict):
    """A campaign's regular items and answers, and its annotators (``members_<state>``: per
    membership state, present when someone is in it)."""

    items: int
    complete: int  # items that want no more answers (settled, exhausted, disputed, or at a fixed redundancy)
    answers: int
    target: int  # the answers the items want now (grows while items are unsettled)
    reserved: int
    annotators: int
    settled: int  # MCQA: the label meets the confidence rule (or a person decided)
    exhausted: int  # MCQA: at the maximum of answers, not settled
    disputed: int  # MCQA, agreement required: an answer dissents from what the verified item publishes; closed
    open: int  # MCQA: answered, still wanting answers
    unanswered: NotRequired[int]
    members_qualifying: NotRequired[int]
    members_active: NotRequired[int]
    members_failed: NotRequired[int]
    members_blocked: NotRequired[int]


def campaign_progress(campaign: Campaign) -> CampaignProgress:
    agg = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).aggregate(
        items=Count("id"),
        complete=Count("id", filter=Q(answer_count__gte=F("answers_wanted"))),
        target=Sum("answers_wanted"),
    )
    labels = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR)
    by_settlement = dict(labels.values_list("settlement").annotate(n=Count("id")).order_by())
    answers = Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR).count()
    members = Membership.objects.filter(campaign=campaign).values("state").annotate(n=Count("id"))
    by_state = {m["state"]: m["n"] for m in members}
    live = Assignment.objects.filter(campaign=campaign, state=Assignment.State.RESERVED).count()
    out = CampaignProgress(
        items=agg["items"],
        complete=agg["complete"],
        answers=answers,
        target=agg["target"] or 0,
        reserved=live,
        annotators=sum(by_state.values()),
        settled=sum(by_settlement.get(k, 0) for k in ("unanimous", "confident", "adjudicated")),
        exhausted=by_settlement.get("exhausted", 0),
        disputed=by_settlement.get("disputed", 0),
        open=sum(by_settlement.get(k, 0) for k in ("open", "below_min")),
    )
    out["unanswered"] = out["items"] - out["settled"] - out["exhausted"] - out["disputed"] - out["open"]
    out.update({f"members_{k}": v for k, v in by_state.items()})  # type: ignore[typeddict-item]
    return out


def answers_on_settled(campaign: Campaign) -> int:
    """Answers spent on the items the confidence rule settled (or a person decided)."""
    agg = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR, settled=True).aggregate(
        n=Sum("n_answers")
    )
    return int(agg["n"] or 0)


def adjudication_queue(campaign: Campaign) -> QuerySet[FinalLabel]:
    """Items under the agreement threshold without a decision, lowest agreement first."""
    return (
        FinalLabel.objects.filter(item__campaign=campaign, below_threshold=True, adjudication__isnull=True)
        .select_related("item")
        .order_by("agreement", "item__position")
    )


def recent_responses(campaign: Campaign, limit: int = 50) -> QuerySet[Response]:
    return (
        Response.objects.filter(campaign=campaign).select_related("item", "user").order_by("-created_at", "-id")[:limit]
    )


def item_responses(item: Item) -> QuerySet[Response]:
    return Response.objects.filter(item=item).select_related("user").order_by("created_at", "id")
