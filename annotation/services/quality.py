"""Fitting a campaign's annotator models (issue 26 item 2): :func:`annotator_quality_refresh` fits
Dawid–Skene and MACE over the campaign's answers (crowd-kit, :func:`commonsense.annotators.fit`),
replaces the campaign's :class:`~annotation.models.AnnotatorQuality` rows and judges every item
again (an item the new fit no longer finds settled wants more answers again, one the new fit
settles closes). It runs from ``manage.py annotator_quality``, the dashboard's button and, every
``COCOWEB_QUALITY_REFIT_EVERY`` answers a process stores for a campaign, as a task on the
housekeeping queue (:func:`annotation.services.labels.final_label_compute` counts them)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import AnnotatorQuality, Campaign, Item, Response
from annotation.services.labels import final_labels_refresh
from commonsense.annotators import COLD_START, Worker, fit, verdicts


def annotator_quality_refresh(campaign: Campaign) -> int:
    """Fit the annotator models over the campaign's regular answers, store them and judge every
    item again; returns the number of annotators estimated. MCQA campaigns only."""
    if not campaign.adaptive:
        raise ValueError(f"{campaign.name}: annotator models are fitted over MCQA validation answers")
    n_opts = {
        pk: len(opts or [])
        for pk, opts in Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).values_list(
            "pk", "payload__options"
        )
    }
    rows = [
        (user, item, verdicts(answer, n_opts[item]))
        for user, item, answer in Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
        .order_by("id")
        .values_list("user_id", "item_id", "answer")
    ]
    model = fit(rows, seed=campaign.seed)
    now = timezone.now()
    stored = {
        "prior": model.prior,
        "default": _as_dict(model.default),
        "answers": len(rows),
        "fitted_at": now.isoformat(),
        "cold_start": model is COLD_START,
    }
    with transaction.atomic():
        AnnotatorQuality.objects.filter(campaign=campaign).delete()
        AnnotatorQuality.objects.bulk_create(
            [
                AnnotatorQuality(
                    campaign=campaign,
                    user_id=int(user),  # type: ignore[call-overload]
                    ds_sensitivity=w.sensitivity,
                    ds_specificity=w.specificity,
                    accuracy=w.accuracy(model.prior),
                    mace_competence=w.competence,
                    mace_guessing=1 - w.competence if w.guessing is None else w.guessing,
                    mace_guess_yes=w.guess_yes,
                    mace_guess_no=w.guess_no,
                    verdicts=w.verdicts,
                    flag=w.flag,
                )
                for user, w in model.workers.items()
            ]
        )
        Campaign.objects.filter(pk=campaign.pk).update(annotator_model=stored)
        campaign.annotator_model = stored
        final_labels_refresh(campaign)
    return len(model.workers)


def _as_dict(w: Worker) -> dict[str, Any]:
    return {
        "sensitivity": w.sensitivity,
        "specificity": w.specificity,
        "competence": w.competence,
        "guessing": w.guessing,
        "guess_yes": w.guess_yes,
        "guess_no": w.guess_no,
        "verdicts": w.verdicts,
    }
