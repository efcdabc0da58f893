"""Close the loop (issue 11 item 7): a finished MCQA validation campaign becomes a **verified
question set**. Only items whose final label accepts them are kept: the context made sense to the
majority (or the adjudicator), and the item is not waiting for adjudication (agreement below the
campaign's threshold with no decision yet). Each kept item is rewritten with COM2's
post-processing (Appendix A.4, :func:`commonsense.validation.com2_postprocess`): one
majority-plausible option as the answer, three negatives, "None of the answers are correct." as
option E — the answer when no option was plausible. Every question keeps its votes, agreement,
label provenance and the source question's provenance under ``metadata["verified"]``.

The final labels are the ones :func:`annotation.services.labels.final_labels_refresh` stores; the rule
that makes them lives there, not here.

Trust (issue 26 item 3): only **settled** items are kept by default (the campaign's confidence rule,
:func:`commonsense.annotators.settle`); ``include_unsettled`` - stored on the set and shown on its
page - also keeps items that ended unsettled at the maximum of answers. An item with fewer answers
than the campaign's minimum is never kept, whatever the choice: :func:`verified_set_preview` says
how many fall short before the set is made (the command prints it, the dashboard shows it). Where
fewer than three negatives remain, A.4's hand-added negatives come from the item's own checked
distractor pool (``metadata["distractor_pool"]`` of the source question: distractors the build
checked and did not show), marked in ``verified["topped_up"]``; an item whose pool cannot fill
five options is left out (``too_few_negatives``) rather than stored with three or four.
Under the settlement rule ``needs`` (:mod:`commonsense.verified_needs`) the item keeps exactly the gold
and the negatives its settlement rested on, not a random draw.

The built answer (issue 26, session 19): by default an item is kept only when **every** answer it got
ticked the answer the build drew from the graph (``require_built_answer``). An item whose annotators
did not all accept it - the gold then rewritten to a distractor no chain supports, or to "None of the
answers are correct." - is left out (``built_answer_rejected``): over three measured loops (216 blind
readings, perf/RESULTS.md "The chain's levers") such items were 23 of 52 sound against 134 of 164 for
the others.

The review stage (issue 26, session 20; :mod:`annotation.services.reviews`): a campaign with
``reviews = K`` keeps an item only when K blind reviews, in a reader's framing, all named its gold as
the one defensible answer (else ``review_rejected``, or ``review_pending`` while reviews are missing),
and publishes exactly the options its reviewers read. The rules per item live in
:mod:`annotation.services.verified_rules`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Campaign, FinalLabel, Item, Response, VerifiedSet
from annotation.selectors.campaigns import campaign_progress
from annotation.services.labels import final_labels_refresh
from annotation.services.reviews import review_outcomes, reviewed_post
from annotation.services.verified_rules import needed_verdicts, why_left_out
from commonsense.validation import NONE_CORRECT, com2_postprocess
from knowledge.models import Question, QuestionSet
from knowledge.services.names import name_check
from knowledge.services.question_rows import question_row, questions_store
from knowledge.services.set_quality import question_set_quality


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


def _review_why(campaign: Campaign, item: Item, reviewed: dict[int, tuple[str | None, Item]]) -> str | None:
    """The review stage's verdict on an item the first stage keeps (module doc of :mod:`.reviews`)."""
    if campaign.reviews <= 0:
        return None
    return reviewed[item.position][0] if item.position in reviewed else "review_pending"


def _reviews_of(reviewed: dict[int, tuple[str | None, Item]], key: int) -> dict[str, Any] | None:
    """A kept item's reviews, as stored with it: how many, and the review item they answered."""
    if key not in reviewed:
        return None
    review_item = reviewed[key][1]
    return {"n": review_item.answer_count, "review_item_id": review_item.pk, "accepted": True}


def _sorted_items(campaign: Campaign) -> list[Item]:
    return list(
        Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).select_related("question").order_by("position")
    )


def verified_set_preview(
    campaign: Campaign, *, include_unsettled: bool = False, require_built_answer: bool = True
) -> dict[str, int]:
    """What :func:`verified_set_create` would keep and leave out (by reason) from the stored final
    labels, before the set is made: ``below_min`` is how many items fall short of the minimum."""
    finals = {f.item_id: f for f in FinalLabel.objects.filter(item__campaign=campaign)}
    counts: dict[str, int] = {"items": 0, "would_keep": 0}
    reviewed = review_outcomes(campaign)
    for item in _sorted_items(campaign):
        counts["items"] += 1
        why = why_left_out(campaign, item, finals.get(item.pk), include_unsettled, require_built_answer)
        why = why or _review_why(campaign, item, reviewed)
        key = why or "would_keep"
        counts[key] = counts.get(key, 0) + 1
    return counts


def preview_text(campaign: Campaign, counts: dict[str, int]) -> str:
    """The preview as one sentence (the command prints it, the dashboard shows it)."""
    out = [f"{counts.get('would_keep', 0)} of {counts['items']} items would be kept"]
    if counts.get("below_min"):
        out.append(
            f"{counts['below_min']} fall short of the minimum of {campaign.redundancy} answers and are never kept"
        )
    if counts.get("unsettled"):
        out.append(f"{counts['unsettled']} are not settled (left out unless you include unsettled items)")
    if counts.get("disputed"):
        out.append(
            f"{counts['disputed']} are disputed: an answer dissents from what the item would publish "
            "(left out unless you include unsettled items)"
        )
    if counts.get("not_well_formed"):
        out.append(f"{counts['not_well_formed']} not well formed by the majority")
    if counts.get("built_answer_rejected"):
        out.append(
            f"{counts['built_answer_rejected']} left out because not every answer accepted the built answer "
            "(kept only when you allow another gold)"
        )
    if counts.get("review_rejected"):
        out.append(
            f"{counts['review_rejected']} rejected by a blind review (a reviewer did not name the gold as the one "
            "defensible answer)"
        )
    if counts.get("review_pending"):
        out.append(f"{counts['review_pending']} still waiting for their {campaign.reviews} blind reviews")
    for k in ("unanswered", "awaiting_adjudication", "no_source_question"):
        if counts.get(k):
            out.append(f"{k.replace('_', ' ')} {counts[k]}")
    return "; ".join(out)


def verified_set_create(
    campaign: Campaign,
    *,
    name: str,
    user: Any = None,
    include_unsettled: bool = False,
    top_up: bool = False,
    require_built_answer: bool = True,
) -> VerifiedSet:
    """Store the verified set ``name`` of ``campaign``; ValidationError says why it cannot be made.
    ``top_up``: fill an item short of negatives from its distractor pool (A.4's top-up, negatives no
    annotator saw: 1 of 4 such items was sound for a blind reader in the session-17 loop); by default
    such an item is left out (``too_few_negatives``). ``require_built_answer`` (default): an item is kept
    only when every answer ticked its built answer (module doc; else ``built_answer_rejected``)."""
    name = name_check(name)  # before anything is stored: the set's pages link to it by name
    _refuse_unfinished(campaign)
    if QuestionSet.objects.filter(name=name).exists():
        raise ValidationError(f"a question set named {name!r} already exists")
    final_labels_refresh(campaign)
    finals = {f.item_id: f for f in FinalLabel.objects.filter(item__campaign=campaign)}
    items = _sorted_items(campaign)
    source: QuestionSet = campaign.question_set  # type: ignore[assignment]
    counts: dict[str, int] = {
        "items": len(items),
        "kept": 0,
        "none_correct": 0,
        "needs_manual_negatives": 0,
        "topped_up": 0,
    }
    kept: list[tuple[Item, FinalLabel]] = []
    reviewed = review_outcomes(campaign)
    for item in items:
        why = why_left_out(campaign, item, finals.get(item.pk), include_unsettled, require_built_answer)
        why = why or _review_why(campaign, item, reviewed)
        if why is not None:
            counts[why] = counts.get(why, 0) + 1
        else:
            kept.append((item, finals[item.pk]))
    if not kept:
        raise ValidationError(
            f"no item of {campaign.name} was accepted: {preview_text(campaign, counts | {'would_keep': 0})}"
        )
    with transaction.atomic():
        qset = QuestionSet.objects.create(
            name=name,
            kind=source.kind,
            source=f"campaign:{campaign.name}",
            graph=source.graph,
            seed=campaign.seed,
            params={
                "verified_from": {
                    "campaign": campaign.name,
                    "source_set": source.name,
                    "include_unsettled": include_unsettled,
                    "top_up": top_up,
                    "require_built_answer": require_built_answer,
                    "min_answers": campaign.redundancy,
                    "max_answers": campaign.answers_max,
                    "label_rule": campaign.label_rule,
                    "settle_threshold": campaign.settle_threshold,
                    "settlement_rule": campaign.settlement_rule,
                    "require_agreement": campaign.require_agreement,
                    "reviews": campaign.reviews,
                },
                "source_params": source.params,
            },
            description=f"Items of {source.name} accepted by the validation campaign {campaign.name}, COM2 post-processing.",
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        rows, triples = [], []
        pos = 0
        for item, final in kept:
            q: Question = item.question  # type: ignore[assignment]
            needed = needed_verdicts(campaign, item, final)
            post = (
                reviewed_post(reviewed[item.position][1])  # exactly the item its reviewers read
                if item.position in reviewed
                else com2_postprocess(
                    item.payload.get("options", []),
                    final.label.get("plausible", []),
                    seed=campaign.seed,
                    key=item.key,
                    pool=[str(o) for o in (q.metadata or {}).get("distractor_pool", [])] if top_up else [],
                    keep=(needed.gold, needed.negatives) if needed is not None else None,
                )
            )
            if post.needs_manual_negatives:  # A.4 would add them by hand: never store 3-4 options
                counts["too_few_negatives"] = counts.get("too_few_negatives", 0) + 1
                continue
            counts["kept"] += 1
            counts["none_correct"] += post.positive is None
            counts["topped_up"] += bool(post.topped_up)
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
                "settled": final.settled,
                "settlement": final.settlement,
                "confidence": final.confidence,
                "posteriors": final.posteriors,
                "label_rule": campaign.label_rule,
                "settlement_rule": campaign.settlement_rule,
                "require_agreement": campaign.require_agreement,
                "needs": needed.as_dict() if needed is not None else None,
                "min_answers": campaign.redundancy,
                "reviews": _reviews_of(reviewed, item.position),
                "topped_up": post.topped_up,
                "com2": asdict(post),
            }
            rows.append(
                question_row(
                    qset,
                    pos,
                    q,
                    options=post.options,
                    answer_index=post.answer_index,
                    answers=[post.positive if post.positive is not None else NONE_CORRECT],
                    metadata={"verified": verified},
                )
            )
            pos += 1
            triples.append(list(q.triples.values_list("id", flat=True)))
        if not rows:
            raise ValidationError(f"no item of {campaign.name} could keep five options: {counts}")
        stored = questions_store(rows, triples)
        qset.question_count = len(rows)
        qset.save(update_fields=["question_count"])
        # the set's quality report as any set's (text, chains and - issue 25 - the shortcut audit), then
        # what the validation says of it
        report = question_set_quality(qset)
        qset.quality = {
            **report,
            "verified": verified_figures(
                campaign,
                stored,
                counts,
                include_unsettled,
                report,
                top_up=top_up,
                require_built_answer=require_built_answer,
            ),
        }
        qset.save(update_fields=["quality"])
        return VerifiedSet.objects.create(
            campaign=campaign,
            source_set=source,
            question_set=qset,
            counts=counts,
            include_unsettled=include_unsettled,
            created_by=qset.created_by,
        )


def verified_figures(
    campaign: Campaign,
    questions: list[Question],
    counts: dict[str, int],
    include_unsettled: bool,
    report: dict[str, Any] | None = None,
    *,
    top_up: bool = False,
    require_built_answer: bool = False,
) -> dict[str, Any]:
    """What the set page shows of a verified set (stored in ``QuestionSet.quality["verified"]``):
    its counts, whether unsettled items were let in, the answers spent, the share of items whose
    answer is "None of the answers are correct." and of the annotators' answers that said so, and
    the shortcut audit of the kept questions."""
    n = len(questions)
    answers = [a for q in questions for a in [q.metadata["verified"]] if a]
    item_ids = [a["item_id"] for a in answers]
    none_answers = total_answers = 0
    for ans in Response.objects.filter(item_id__in=item_ids).values_list("answer", flat=True).iterator(2000):
        total_answers += 1
        none_answers += bool(ans.get("none_correct"))
    out: dict[str, Any] = {
        "campaign": campaign.name,
        "counts": counts,
        "include_unsettled": include_unsettled,
        "top_up": top_up,
        "require_built_answer": require_built_answer,
        "require_agreement": campaign.require_agreement,
        "reviews": campaign.reviews,
        "reviews_per_item": round(sum((a.get("reviews") or {}).get("n", 0) for a in answers) / n, 3) if n else None,
        "settled": sum(bool(a.get("settled")) for a in answers),
        "answers_per_item": round(sum(a["n_answers"] for a in answers) / n, 3) if n else None,
        "none_correct_items_share": round(counts["none_correct"] / n, 4) if n else None,
        "none_correct_answers_share": round(none_answers / total_answers, 4) if total_answers else None,
        "shortcut_audit": _shortcut_audit(report or {}),
    }
    return out


def _shortcut_audit(report: dict[str, Any]) -> Any:
    """The shortcut audit of the kept questions: issue 25's ``quality["shortcuts"]``, which
    :func:`knowledge.services.set_quality.question_set_quality` stores for every set once the
    hard-negatives work lands; None (the page says it was not run) until then."""
    # SHORTCUT-AUDIT (hardneg): COORD.md "Interfaces" - question_set_quality stores quality["shortcuts"]
    return report.get("shortcuts")
