"""Model votes beside the humans (issue 26 item 5): a configured model answers each regular item of
an MCQA validation campaign as an annotator would - a plausibility verdict per option, P(yes) of
"{context} {question} {option}" at or above a threshold (the plausibility judge's prompt,
:class:`commonsense.scoring.plausibility.PlausibilityScorer`) - and the answer is stored as a
:class:`~annotation.models.ModelVote`. A model vote is never a :class:`~annotation.models.Response`:
it counts toward no item's answers, redundancy or label, and no annotator page or API shows it
(the dashboard compares it with the human majority: :mod:`annotation.selectors.verification`). Where the
model's verdicts differ from the build's gold (the option the builder made the answer), the vote
``disagrees``; a campaign with ``serve_disagreements_first`` gives those items priority in the queue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from django.db import transaction

from annotation.models import Campaign, Item, ModelVote

DEFAULT_THRESHOLD = 0.5


class PYes(Protocol):
    @property
    def model_key(self) -> str: ...

    def p_yes(self, statements: Sequence[str]) -> list[float]: ...


def option_statement(context: str, stem: str, option: str) -> str:
    """What the model judges for one option: the item's context and question, then the option."""
    return " ".join(x.strip() for x in (context, stem, option) if x and x.strip())


def model_votes_record(
    campaign: Campaign, scorer: PYes, *, threshold: float = DEFAULT_THRESHOLD, name: str | None = None
) -> int:
    """Score every regular item the model has not voted on yet; returns the votes stored."""
    if campaign.kind != Campaign.Kind.MCQA:
        raise ValueError(f"{campaign.name}: model votes are plausibility verdicts on MCQA validation items")
    model = (name or scorer.model_key)[:200]
    done = set(ModelVote.objects.filter(campaign=campaign, model=model).values_list("item_id", flat=True))
    items = [
        i
        for i in Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).select_related("question")
        if i.pk not in done
    ]
    texts = [
        option_statement(str(i.payload.get("context") or ""), str(i.payload.get("stem") or ""), str(o))
        for i in items
        for o in i.payload.get("options", [])
    ]
    scores = iter(scorer.p_yes(texts)) if texts else iter(())
    votes = []
    for item in items:
        p = [float(next(scores)) for _ in item.payload.get("options", [])]
        plausible = [j for j, s in enumerate(p) if s >= threshold]
        answer = {"plausible": plausible, "none_correct": not plausible, "bad_context": False}
        gold = item.question.answer_index if item.question is not None else None
        disagrees = gold is not None and plausible != [gold]
        votes.append(ModelVote(campaign=campaign, item=item, model=model, answer=answer, scores=p, disagrees=disagrees))
    with transaction.atomic():
        ModelVote.objects.bulk_create(votes, ignore_conflicts=True, batch_size=2000)
        if campaign.serve_disagreements_first:
            priority_refresh(campaign)
    return len(votes)


def priority_refresh(campaign: Campaign) -> int:
    """Items a model's vote disagrees with the build on get priority 1 (served first after the
    unsettled ones) when the campaign asks for it, 0 otherwise; returns the items with priority."""
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
    if not campaign.serve_disagreements_first:
        items.exclude(priority=0).update(priority=0)
        return 0
    flagged = ModelVote.objects.filter(campaign=campaign, disagrees=True).values("item_id")
    items.filter(pk__in=flagged).exclude(priority=1).update(priority=1)
    items.exclude(pk__in=flagged).exclude(priority=0).update(priority=0)
    return items.filter(priority=1).count()
