"""A RICA pair campaign becomes a verified probe set by the paper's two rounds (RICA Appendix A.2,
:mod:`commonsense.rica_verify`): two annotators; when they disagree, three more and their majority;
the gold is flipped where the raters preferred the flipped statement. Pairs not settled yet (fewer
than two answers, or a split waiting for its second round) are left out and counted; the counts,
the flips and each round's Fleiss kappa are kept on the set (``VerifiedSet.counts``), each probe's
votes under ``metadata["rica_verification"]``. Give the campaign a redundancy of 5 (or let the
queue ask for more only where the first two split) so that every split can be settled."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Campaign, Item, Response, VerifiedSet
from commonsense.agreement import fleiss_kappa
from commonsense.rica_verify import round_matrices, verdict
from knowledge.models import Question, QuestionSet
from knowledge.services.names import name_check
from knowledge.services.question_rows import question_row, questions_store


def _votes(campaign: Campaign) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    rows = (
        Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
        .order_by("created_at", "pk")
        .values_list("item_id", "answer")
    )
    for item_id, answer in rows:
        if isinstance(answer, dict) and answer.get("valid") in (0, 1):
            out.setdefault(item_id, []).append(int(answer["valid"]))
    return out


def _kappa(matrix: list[list[int]]) -> float | None:
    if len(matrix) < 2:
        return None
    k = fleiss_kappa(matrix, n_categories=2)
    return None if k.kappa is None else float(k.kappa)


def rica_verified_set_create(campaign: Campaign, *, name: str, user: Any = None) -> VerifiedSet:
    name = name_check(name)
    if campaign.kind != Campaign.Kind.RICA or campaign.question_set is None:
        raise ValidationError(f"{campaign.name} is not a RICA pair campaign")
    if QuestionSet.objects.filter(name=name).exists():
        raise ValidationError(f"a question set named {name!r} already exists")
    source: QuestionSet = campaign.question_set
    votes = _votes(campaign)
    items = list(
        Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).select_related("question").order_by("position")
    )
    counts: dict[str, Any] = {"items": len(items), "kept": 0, "round_1": 0, "round_2": 0, "flipped": 0}
    kept: list[tuple[Item, list[int], Any]] = []
    for item in items:
        v = verdict(votes.get(item.pk, []))
        if v.state != "settled" or item.question is None:
            counts[v.state] = counts.get(v.state, 0) + 1
            continue
        kept.append((item, votes[item.pk], v))
    r1, r2 = round_matrices([votes.get(i.pk, []) for i in items])
    counts["kappa_round_1"], counts["kappa_round_2"] = _kappa(r1), _kappa(r2)
    if not kept:
        raise ValidationError(f"no pair of {campaign.name} is settled yet: {counts}")
    with transaction.atomic():
        qset = QuestionSet.objects.create(
            name=name,
            kind=source.kind,
            source=f"campaign:{campaign.name}",
            graph=source.graph,
            seed=campaign.seed,
            params={**(source.params or {}), "verified_from": {"campaign": campaign.name, "source_set": source.name}},
            description=f"Probes of {source.name} verified by the RICA pair campaign {campaign.name} (two rounds).",
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        rows = []
        for pos, (item, vs, v) in enumerate(kept):
            q: Question = item.question  # type: ignore[assignment]
            answer = q.answer_index
            if not v.valid:  # the raters preferred the flipped statement: it becomes the probe's gold
                answer = next(i for i in range(len(q.options)) if i != q.answer_index)
            counts["kept"] += 1
            counts[f"round_{v.round}"] += 1
            counts["flipped"] += not v.valid
            rows.append(
                question_row(
                    qset,
                    pos,
                    q,
                    answer_index=answer,
                    metadata={
                        "rica_verification": {
                            "campaign": campaign.name,
                            "round_1": vs[:2],
                            "round_2": vs[2:5] if v.round == 2 else [],
                            "settled_in": v.round,
                            "flipped": not v.valid,
                            "source_answer_index": q.answer_index,
                        },
                    },
                )
            )
        questions_store(rows)
        qset.question_count = len(rows)
        qset.save(update_fields=["question_count"])
        return VerifiedSet.objects.create(
            campaign=campaign, source_set=source, question_set=qset, counts=counts, created_by=qset.created_by
        )
