"""The human part of a published question set (issue 26 item 6; :mod:`knowledge.services.publication` asks
for it): every answer of the MCQA validation campaign behind the set, under opaque annotator ids,
and per item its votes, agreement, provenance, confidence and settled state.

For a verified set it is the campaign it was made from, with the answers given up to the moment the
set was made (the set is a snapshot: its labels were computed from those); for any other set, the
set's latest MCQA validation campaign with every answer so far. Per-item figures come from one
function, :func:`item_figures`: the campaign's posteriors and settled state where a verified item
carries them (``metadata["verified"]``: ``posteriors``, ``confidence``, ``settled``, ``settlement``,
``label_rule``), else the majority's share per option and no settled state."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from commonsense.questions.publish import AnswerRow, VoteRow
from commonsense.validation import NONE_CORRECT, item_label
from knowledge.models import Question, QuestionSet
from knowledge.services.publication import HumanPart, item_ref

from ..models import Campaign, FinalLabel, Item, Response, VerifiedSet
from .agreement import campaign_agreement


@dataclass(frozen=True, slots=True)
class Figures:
    """Per item: the confidence of the label's verdict on each source option, the item's confidence
    (the least of them), how it was computed, and whether (and how) the item is settled."""

    confidence: list[float | None]
    least: float | None
    method: str
    settled: bool | None
    settlement: str


MAJORITY_SHARE = "majority share: the share of answers that agree with the final label on the option"


def item_figures(verified: dict[str, Any], ticks: list[int], n: int, plausible: list[int]) -> Figures:
    """The item's confidence and settled state. Where the verified item carries the campaign's
    posteriors (``posteriors``: P(plausible) per option, then the bad-context verdict) the
    confidence of each option's verdict is the posterior of that verdict; otherwise the share of the
    ``n`` answers that agree with the label on the option (``ticks``: how many ticked it;
    ``plausible``: the label's plausible options)."""
    settled, settlement = verified.get("settled"), str(verified.get("settlement") or "")
    post = verified.get("posteriors")
    if post is not None:
        conf: list[float | None] = [
            None if p is None else (float(p) if i in plausible else 1.0 - float(p))
            for i, p in enumerate(list(post)[: len(ticks)])
        ]
        method = f"posterior of the label's verdict ({verified.get('label_rule') or 'the campaign rule'})"
    else:
        conf = [None if not n else (t if i in plausible else n - t) / n for i, t in enumerate(ticks)]
        method = MAJORITY_SHARE
    known = [c for c in conf if c is not None]
    least = verified.get("confidence")
    least = float(least) if least is not None else (min(known) if known else None)
    return Figures(conf, least, method, settled, settlement)


def _campaign_of(qset: QuestionSet) -> tuple[Campaign, datetime | None, VerifiedSet | None] | None:
    v = VerifiedSet.objects.filter(question_set=qset).select_related("campaign").first()
    if v is not None:
        return v.campaign, v.created_at, v
    c = (
        Campaign.objects.filter(question_set=qset, kind=Campaign.Kind.MCQA, responses__isnull=False)
        .distinct()
        .order_by("-created_at")
        .first()
    )
    return (c, None, None) if c is not None else None


def question_set_answer_campaign(qset: QuestionSet) -> Campaign | None:
    """The campaign whose people's answers the set's publication carries, or None."""
    found = _campaign_of(qset)
    return found[0] if found is not None else None


def _items_of(qset: QuestionSet, campaign: Campaign, v: VerifiedSet | None) -> dict[int, tuple[Question, Item]]:
    """Published question by campaign item id."""
    questions = list(qset.questions.order_by("position"))
    if v is not None:
        by_item = {int((q.metadata or {}).get("verified", {}).get("item_id", 0)): q for q in questions}
    else:
        by_q = {q.pk: q for q in questions}
        by_item = {
            i: by_q[qid]
            for i, qid in Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).values_list(
                "pk", "question_id"
            )
            if qid in by_q
        }
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, pk__in=list(by_item)).in_bulk()
    return {pk: (q, items[pk]) for pk, q in by_item.items() if pk in items}


def _annotators(campaign: Campaign) -> dict[int, str]:
    order = Response.objects.filter(campaign=campaign).order_by("id").values_list("user_id", flat=True)
    names: dict[int, str] = {}
    for uid in order.iterator(chunk_size=5000):
        if uid not in names:
            names[uid] = f"annotator-{len(names) + 1:03d}"
    return names


def _vote_row(q: Question, item: Item, answers: list[dict[str, Any]], final: FinalLabel | None) -> VoteRow:
    verified = dict((q.metadata or {}).get("verified") or {})
    src = [str(o) for o in item.payload.get("options", [])]
    lab = item_label(Campaign.Kind.MCQA, answers, n_options=len(src))
    ticks = list(lab.votes["option_ticks"])
    plausible = list((verified.get("label") or (final.label if final else lab.label)).get("plausible") or [])
    none_votes = sum(bool(a.get("none_correct")) for a in answers)
    per_text = dict(zip(src, ticks, strict=True))
    fig = item_figures(verified, ticks, lab.n, plausible)
    return VoteRow(
        item=item_ref(q),
        n_answers=lab.n,
        options=[str(o) for o in q.options],
        option_votes=[none_votes if o == NONE_CORRECT else per_text.get(str(o), 0) for o in q.options],
        source_options=src,
        source_option_votes=ticks,
        none_correct_votes=none_votes,
        bad_context_votes=int(lab.votes["bad_context"]),
        agreement=lab.agreement,
        provenance=str(verified.get("provenance") or (final.provenance if final else "majority")),
        confidence=fig.confidence,
        confidence_least=fig.least,
        confidence_method=fig.method,
        settled=fig.settled,
        settlement=fig.settlement,
    )


def _campaign_card(campaign: Campaign, v: VerifiedSet | None) -> dict[str, Any]:
    counts = Counter(campaign.items.values_list("role", flat=True))
    out: dict[str, Any] = {
        "campaign": campaign.name,
        "title": campaign.title,
        "type": campaign.get_kind_display(),
        "source set": campaign.question_set.name if campaign.question_set else None,
        "answers per item": campaign.redundancy,
        "regular items": counts.get(Item.Role.REGULAR, 0),
        "qualification items": counts.get(Item.Role.QUALIFICATION, 0),
        "qualification pass mark": campaign.qualification_pass_mark,
        "attention items": counts.get(Item.Role.ATTENTION, 0),
        "attention check after every N items": campaign.attention_every,
        "adjudication below agreement": campaign.agreement_threshold,
        "settlement rule": campaign.get_settlement_rule_display() if campaign.kind == Campaign.Kind.MCQA else None,
        "agreement required (a dissent leaves the item out)": campaign.require_agreement
        if campaign.kind == Campaign.Kind.MCQA
        else None,
        "bad_context (answers, votes)": "the item is not well formed: the context, question or options make no "
        "sense or are not clear English, two options say the same thing, or the question has no clear answer"
        if campaign.kind == Campaign.Kind.MCQA
        else None,
        "opened": campaign.created_at.date().isoformat(),
        "crowd study": hasattr(campaign, "crowd"),
    }
    if v is not None:
        out["verified set made"] = v.created_at.date().isoformat()
        out["answers published"] = f"those given before {v.created_at.isoformat(timespec='seconds')}"
    return out


def question_set_human_part(qset: QuestionSet) -> HumanPart | None:
    found = _campaign_of(qset)
    if found is None:
        return None
    campaign, cutoff, v = found
    items = _items_of(qset, campaign, v)
    names = _annotators(campaign)
    responses = Response.objects.filter(campaign=campaign, item_id__in=list(items)).order_by("item_id", "id")
    if cutoff is not None:
        responses = responses.filter(created_at__lte=cutoff)
    by_item: dict[int, list[dict[str, Any]]] = {}
    answers: list[AnswerRow] = []
    for item_id, user_id, answer, ms in responses.values_list("item_id", "user_id", "answer", "time_ms"):
        by_item.setdefault(item_id, []).append(answer)
        q, item = items[item_id]
        opts = item.payload.get("options", [])
        answers.append(
            AnswerRow(
                item=item_ref(q),
                annotator=names[user_id],
                ticked=[str(opts[i]) for i in answer.get("plausible", []) if 0 <= i < len(opts)],
                none_correct=bool(answer.get("none_correct")),
                bad_context=bool(answer.get("bad_context")),
                time_ms=ms,
            )
        )
    finals = {f.item_id: f for f in FinalLabel.objects.filter(item_id__in=list(items))}
    # in the set's order
    votes = [_vote_row(q, item, by_item.get(pk, []), finals.get(pk)) for pk, (q, item) in items.items()]
    s = campaign_agreement(campaign)
    agreement = {
        "annotators": s.n_raters,
        "items answered": s.n_items,
        "per-option pairwise agreement (COM2)": s.pairwise,
        "Fleiss kappa (per option)": s.fleiss,
        "Krippendorff alpha (per option)": s.krippendorff,
    }
    published = [r["agreement"] for r in votes if r["agreement"] is not None]
    agreement["mean agreement of the published items"] = sum(published) / len(published) if published else None
    counts: dict[str, Any] = {}
    if v is not None:
        counts.update({f"verified: {k.replace('_', ' ')}": n for k, n in (v.counts or {}).items()})
    for prov, n in sorted(Counter(r["provenance"] for r in votes).items()):
        counts[f"labels: {prov}"] = n
    if any(r["settled"] is not None for r in votes):
        counts["settled items"] = sum(bool(r["settled"]) for r in votes)
        for how, n in sorted(Counter(r["settlement"] for r in votes if r["settlement"]).items()):
            counts[f"settlement: {how}"] = n
    return HumanPart(
        answers=answers, votes=votes, campaign=_campaign_card(campaign, v), agreement=agreement, counts=counts
    )
