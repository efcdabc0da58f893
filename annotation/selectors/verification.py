"""Reads of the verification loop (issue 26) for the campaign dashboard and the participant table:
the annotators' Dawid–Skene and MACE estimates, the settlement of the items, and how the models'
votes agree with the human majority (Cohen's κ per option). Model votes are read here only: no
annotator page or API reads :class:`~annotation.models.ModelVote`."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from annotation.models import AnnotatorQuality, Campaign, FinalLabel, Item, ModelVote, Response
from commonsense.agreement import cohen_kappa
from commonsense.annotators import verdicts


@dataclass(frozen=True, slots=True)
class QualityRow:
    user_id: int
    who: str
    answers: int
    sensitivity: float
    specificity: float
    accuracy: float
    competence: float
    flag: str


def campaign_quality_rows(campaign: Campaign) -> list[QualityRow]:
    """One row per annotator of the latest fit, the least accurate first (likely spammers on top)."""
    answers = dict(
        Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
        .values_list("user_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    rows = []
    for q in AnnotatorQuality.objects.filter(campaign=campaign).select_related("user").order_by("accuracy", "user_id"):
        rows.append(
            QualityRow(
                q.user_id,
                q.user.get_username(),
                answers.get(q.user_id, 0),
                q.ds_sensitivity,
                q.ds_specificity,
                q.accuracy,
                q.mace_competence,
                q.flag,
            )
        )
    return rows


def quality_by_user(campaign: Campaign) -> dict[int, AnnotatorQuality]:
    return {q.user_id: q for q in AnnotatorQuality.objects.filter(campaign=campaign)}


@dataclass(frozen=True, slots=True)
class ModelAgreement:
    model: str
    items: int  # items with the model's vote and a human final label
    per_option: list[float | None]  # Cohen's κ per option position (A, B, ...)
    overall: float | None  # κ over every (item, option) cell
    agreement: float | None  # share of (item, option) cells where the model's verdict is the majority's
    disagrees_with_build: int  # items whose model vote differs from the build's gold


def model_agreement(campaign: Campaign) -> list[ModelAgreement]:
    """Per configured model: its verdicts against the human final labels, option by option."""
    labels = {
        item_id: (label, n)
        for item_id, label, n in FinalLabel.objects.filter(item__campaign=campaign, n_answers__gt=0).values_list(
            "item_id", "label", "item__payload__options"
        )
    }
    out = []
    models = ModelVote.objects.filter(campaign=campaign).values("model").annotate(n=Count("id")).order_by("model")
    for row in models:
        cells: dict[int, tuple[list[int], list[int]]] = {}
        both = 0
        votes = ModelVote.objects.filter(campaign=campaign, model=row["model"]).values_list("item_id", "answer")
        for item_id, answer in votes:
            if item_id not in labels:
                continue
            label, options = labels[item_id]
            k = len(options or [])
            both += 1
            mine = verdicts(answer, k)[:k]
            theirs = verdicts(label, k)[:k]
            for j in range(k):
                m, h = cells.setdefault(j, ([], []))
                m.append(mine[j])
                h.append(theirs[j])
        flat_m = [x for j in sorted(cells) for x in cells[j][0]]
        flat_h = [x for j in sorted(cells) for x in cells[j][1]]
        out.append(
            ModelAgreement(
                row["model"],
                both,
                [cohen_kappa(cells[j][0], cells[j][1]) for j in sorted(cells)],
                cohen_kappa(flat_m, flat_h),
                sum(a == b for a, b in zip(flat_m, flat_h, strict=True)) / len(flat_m) if flat_m else None,
                ModelVote.objects.filter(campaign=campaign, model=row["model"], disagrees=True).count(),
            )
        )
    return out
