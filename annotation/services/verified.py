"""Close the loop (issue 11 item 7): a finished MCQA validation campaign becomes a **verified
question set**. Only items whose final label accepts them are kept: the context made sense to the
majority (or the adjudicator), and the item is not waiting for adjudication (agreement below the
campaign's threshold with no decision yet). Each kept item is rewritten with COM2's
post-processing (Appendix A.4, :func:`commonsense.validation.com2_postprocess`): one
majority-plausible option as the answer, three negatives, "None of the answers are correct." as
option E — the answer when no option was plausible. Every question keeps its votes, agreement,
label provenance and the source question's provenance under ``metadata["verified"]``.

The final labels are the ones :func:`annotation.services.campaigns.final_labels_refresh` stores; the rule
that makes them lives there, not here."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Campaign, FinalLabel, Item, VerifiedSet
from annotation.selectors.campaigns import campaign_progress
from annotation.services.campaigns import final_labels_refresh
from commonsense.validation import NONE_CORRECT, com2_postprocess
from knowledge.models import Question, QuestionSet
from knowledge.names import name_check


def _refuse_unfinished(campaign: Campaign) -> None:
    if campaign.kind != Campaign.Kind.MCQA:
        raise ValidationError(
            f"{campaign.name} is a {campaign.get_kind_display()} campaign; verified sets come from MCQA validation"
        )
    if campaign.question_set is None:
        raise ValidationError(f"{campaign.name} has no question set")
    p = campaign_progress(campaign)
    if campaign.status != Campaign.Status.CLOSED and p["complete"] < p["items"]:
        raise ValidationError(
            f"{campaign.name} is not finished: {p['complete']} of {p['items']} items have all "
            f"{campaign.redundancy} answers; close the campaign to use the answers it has"
        )


def _why_left_out(item: Item, final: FinalLabel | None) -> str | None:
    if final is None:
        return "unanswered"
    if final.label.get("bad_context"):
        return "bad_context"
    if final.below_threshold and final.adjudication_id is None:
        return "awaiting_adjudication"
    if item.question_id is None:
        return "no_source_question"
    return None


def verified_set_create(campaign: Campaign, *, name: str, user: Any = None) -> VerifiedSet:
    """Store the verified set ``name`` of ``campaign``; ValidationError says why it cannot be made."""
    name = name_check(name)  # before anything is stored: the set's pages link to it by name
    _refuse_unfinished(campaign)
    if QuestionSet.objects.filter(name=name).exists():
        raise ValidationError(f"a question set named {name!r} already exists")
    final_labels_refresh(campaign)
    finals = {f.item_id: f for f in FinalLabel.objects.filter(item__campaign=campaign)}
    items = list(
        Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).select_related("question").order_by("position")
    )
    source: QuestionSet = campaign.question_set  # type: ignore[assignment]
    counts: dict[str, int] = {"items": len(items), "kept": 0, "none_correct": 0, "needs_manual_negatives": 0}
    kept: list[tuple[Item, FinalLabel]] = []
    for item in items:
        why = _why_left_out(item, finals.get(item.pk))
        if why is not None:
            counts[why] = counts.get(why, 0) + 1
        else:
            kept.append((item, finals[item.pk]))
    if not kept:
        raise ValidationError(f"no item of {campaign.name} was accepted: {counts}")
    with transaction.atomic():
        qset = QuestionSet.objects.create(
            name=name,
            kind=source.kind,
            source=f"campaign:{campaign.name}",
            graph=source.graph,
            seed=campaign.seed,
            params={
                "verified_from": {"campaign": campaign.name, "source_set": source.name},
                "source_params": source.params,
            },
            description=f"Items of {source.name} accepted by the validation campaign {campaign.name}, COM2 post-processing.",
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        rows, triples = [], []
        for pos, (item, final) in enumerate(kept):
            q: Question = item.question  # type: ignore[assignment]
            post = com2_postprocess(
                item.payload.get("options", []), final.label.get("plausible", []), seed=campaign.seed, key=item.key
            )
            counts["kept"] += 1
            counts["none_correct"] += post.positive is None
            counts["needs_manual_negatives"] += post.needs_manual_negatives > 0
            verified = {
                "campaign": campaign.name,
                "item_id": item.pk,
                "source_set": source.name,
                "source_question_id": q.pk,
                "source_options": list(item.payload.get("options", [])),
                "source_answer_index": q.answer_index,
                "label": final.label,
                "provenance": final.provenance,
                "votes": final.votes,
                "agreement": final.agreement,
                "n_answers": final.n_answers,
                "com2": asdict(post),
            }
            rows.append(
                Question(
                    question_set=qset,
                    position=pos,
                    external_id=q.external_id,
                    context=q.context,
                    stem=q.stem,
                    options=post.options,
                    answer_index=post.answer_index,
                    answers=[post.positive if post.positive is not None else NONE_CORRECT],
                    structure=q.structure,
                    group=q.group,
                    role=q.role,
                    metadata={**(q.metadata or {}), "verified": verified},
                )
            )
            triples.append(list(q.triples.values_list("id", flat=True)))
        stored = Question.objects.bulk_create(rows, batch_size=2000)
        through = Question.triples.through
        through.objects.bulk_create(
            [through(question_id=r.pk, triple_id=t) for r, ts in zip(stored, triples, strict=True) for t in ts],
            batch_size=5000,
        )
        qset.question_count = len(rows)
        qset.save(update_fields=["question_count"])
        return VerifiedSet.objects.create(
            campaign=campaign, source_set=source, question_set=qset, counts=counts, created_by=qset.created_by
        )
