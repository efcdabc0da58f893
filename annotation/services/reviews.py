"""The review stage of an MCQA validation campaign (issue 26, session 20; :mod:`commonsense.review`).

A validation campaign with ``reviews = K`` (K > 0) has a **review campaign** (kind ``review``,
``review_of`` the validation campaign, named ``<name>-review``): every item that settles and would be
kept in the verified set is copied there **as it will be published** - COM2's post-processing of its
label (the gold, three negatives, "None of the answers are correct." as E), the same code path as
:func:`annotation.services.verified.verified_set_create` - and served to K further people in the reader's
framing: "pick the one option you would defend, or say several are defensible, none is, or the item
is not clear English". They never see the gold or anybody's answers, and nobody who answered the
validation campaign reviews it. Reviews live in their own campaign, so they never count toward the
first stage's redundancy or labels.

``verified_set_create`` keeps an item only when all K reviews picked its gold; it publishes exactly the
options that were reviewed. Left-out reasons: ``review_pending`` (fewer than K reviews yet) and
``review_rejected`` (a review named another option, several, none, or "not clear").

Review items are made (:func:`review_items_sync`) when a reviewer asks for work and the review campaign
has none left for them, when the campaign dashboard is shown, and before a verified set is made.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from annotation.models import Campaign, FinalLabel, Item, Response
from annotation.services.verified_rules import needed_verdicts, why_left_out
from commonsense.review import REVIEW_INSTRUCTIONS, review_accepts
from commonsense.validation import NONE_CORRECT, Com2Item, com2_postprocess

REVIEW_REASONS = ("review_pending", "review_rejected")


REVIEWER_REFUSED = (
    "You answered items of the campaign under review: its reviews are read by people who did not. "
    "Thank you for your time."
)


def reviewer_refused(review: Campaign, user: Any) -> bool:
    """Nobody reviews a campaign they annotated (a review is a fresh reader's judgement)."""
    return (
        review.review_of_id is not None and Response.objects.filter(campaign_id=review.review_of_id, user=user).exists()
    )


REVIEW_WAIT = (
    "Nothing to review right now: the items under review are being answered by others, or the campaign under "
    "review is still being annotated and more items come as they settle. Look again in a minute."
)


def review_may_grow(review: Campaign) -> bool:
    """The campaign under review is open and some of its items still want answers: more items may
    come up for review (a reviewer told "done" now would leave)."""
    parent = review.review_of
    return (
        parent is not None
        and parent.is_open
        and Item.objects.filter(campaign=parent, role=Item.Role.REGULAR, answer_count__lt=F("answers_wanted")).exists()
    )


def review_name(campaign: Campaign) -> str:
    return f"{campaign.name}-review"


def review_stage_create(campaign: Campaign) -> Campaign | None:
    """The review campaign of an MCQA validation campaign with ``reviews`` > 0 (None without one); its
    items come later, as the validation's items settle."""
    if campaign.kind != Campaign.Kind.MCQA or campaign.reviews <= 0:
        return None
    name = review_name(campaign)
    if len(name) > 100:
        raise ValidationError(f"the review campaign's name {name!r} is longer than 100 characters")
    if Campaign.objects.filter(name=name).exists():
        raise ValidationError(f"a campaign named {name!r} exists already (the review stage of {campaign.name})")
    review = Campaign(
        name=name,
        title=f"Review: {campaign.title}",
        kind=Campaign.Kind.REVIEW,
        status=campaign.status,
        instructions=REVIEW_INSTRUCTIONS,
        question_set=campaign.question_set,
        redundancy=campaign.reviews,
        review_of=campaign,
        seed=campaign.seed,
        created_by=campaign.created_by,
    )
    review.full_clean()
    review.save()
    return review


def review_stage_add(campaign: Campaign, reviews: int) -> Campaign:
    """Give an existing MCQA validation campaign a review stage of ``reviews`` per item (the items
    already settled are under review at the first reviewer's request)."""
    if campaign.kind != Campaign.Kind.MCQA:
        raise ValidationError(
            f"{campaign.name} is a {campaign.get_kind_display()} campaign; reviews follow MCQA validation"
        )
    if reviews < 1:
        raise ValidationError("reviews per item: at least 1")
    if review_stage(campaign) is not None:
        raise ValidationError(f"{campaign.name} has a review stage already ({review_name(campaign)})")
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(reviews=reviews)
        campaign.reviews = reviews
        stage = review_stage_create(campaign)
    assert stage is not None
    return stage


def review_stage(campaign: Campaign) -> Campaign | None:
    """The review campaign of a validation campaign, if it has one."""
    return Campaign.objects.filter(review_of=campaign).first()


def published_item(campaign: Campaign, item: Item, final: FinalLabel, *, top_up: bool = False) -> Any:
    """COM2's post-processing of a validation item's final label: what the verified set publishes."""
    q = item.question
    needed = needed_verdicts(campaign, item, final)
    return com2_postprocess(
        item.payload.get("options", []),
        final.label.get("plausible", []),
        seed=campaign.seed,
        key=item.key,
        pool=[str(o) for o in ((q.metadata if q else None) or {}).get("distractor_pool", [])] if top_up else [],
        keep=(needed.gold, needed.negatives) if needed is not None else None,
    )


def review_items_sync(review: Campaign) -> int:
    """Copy the validation items that settled since the last call (and would be kept by the verified
    set's default rules) into the review campaign; returns how many were added. Safe to race: a
    concurrent copy of the same item is ignored (unique campaign/role/position)."""
    parent = review.review_of
    if parent is None:
        return 0
    done = set(Item.objects.filter(campaign=review).values_list("position", flat=True))
    finals = {
        f.item_id: f
        for f in FinalLabel.objects.filter(item__campaign=parent, item__role=Item.Role.REGULAR, settled=True).exclude(
            item__position__in=done
        )
    }
    if not finals:
        return 0
    new = []
    for item in Item.objects.filter(pk__in=finals).select_related("question").order_by("position"):
        final = finals[item.pk]
        if why_left_out(parent, item, final, False, True) is not None:
            continue
        post = published_item(parent, item, final)
        if post.needs_manual_negatives:
            continue
        p = item.payload
        new.append(
            Item(
                campaign=review,
                role=Item.Role.REGULAR,
                position=item.position,
                key=item.key,
                question=item.question,
                payload={"context": p.get("context", ""), "stem": p.get("stem", ""), "options": post.options},
                gold={"answer": post.answer_index},  # never served: the API and pages show the payload only
                answers_wanted=review.redundancy,
            )
        )
    with transaction.atomic():
        Item.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def review_outcomes(campaign: Campaign) -> dict[int, tuple[str | None, Item]]:
    """Per validation item position, its review item and the outcome: None (all K reviews picked the
    published gold), ``review_pending`` or ``review_rejected``. Empty when the campaign has no review
    stage."""
    review = review_stage(campaign) if campaign.reviews > 0 else None
    if review is None:
        return {}
    review_items_sync(review)
    items = {i.pk: i for i in Item.objects.filter(campaign=review, role=Item.Role.REGULAR)}
    answers: dict[int, list[dict[str, Any]]] = {pk: [] for pk in items}
    for item_id, answer in Response.objects.filter(item_id__in=items).values_list("item_id", "answer"):
        answers[item_id].append(answer)
    out: dict[int, tuple[str | None, Item]] = {}
    for pk, item in items.items():
        gold = int((item.gold or {}).get("answer", -1))
        got = answers[pk]
        if not all(review_accepts(a, gold) for a in got):
            out[item.position] = ("review_rejected", item)  # one rejection settles it: more reviews cannot undo it
        elif len(got) < campaign.reviews:
            out[item.position] = ("review_pending", item)
        else:
            out[item.position] = (None, item)
    return out


def reviewed_post(review_item: Item) -> Com2Item:
    """The published item exactly as its reviewers read it (options in their order, the gold)."""
    shown = [str(o) for o in review_item.payload.get("options", [])]
    gold = int((review_item.gold or {})["answer"])
    positive = None if shown[gold] == NONE_CORRECT else shown[gold]
    negatives = [o for i, o in enumerate(shown) if i != gold and o != NONE_CORRECT]
    return Com2Item(shown, gold, positive, negatives)


def review_progress(campaign: Campaign) -> dict[str, int] | None:
    """The dashboard's figures of a validation campaign's review stage (None without one)."""
    if campaign.reviews <= 0 or review_stage(campaign) is None:
        return None
    outcomes = review_outcomes(campaign)
    by = [o for o, _ in outcomes.values()]
    reviewed = Response.objects.filter(item__campaign__review_of=campaign).count()
    return {
        "reviews_per_item": campaign.reviews,
        "items": len(by),
        "accepted": by.count(None),
        "pending": by.count("review_pending"),
        "rejected": by.count("review_rejected"),
        "reviews": reviewed,
    }
