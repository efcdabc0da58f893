"""Annotator quality and adaptive redundancy in the annotation app (issue 26 items 1-2).

Reads (no writes): the campaign's annotator model as the queue uses it on every answer
(:func:`campaign_annotator_model`: the pooled annotator and prior stored on the campaign, the
per-person estimates of :class:`~annotation.models.AnnotatorQuality`, read once per process and
fit) and one item's judgement (:func:`item_judge`: final label, posteriors and settlement through
:func:`commonsense.annotators.judge`).

Writes: :func:`annotator_quality_refresh` fits Dawid–Skene and MACE over the campaign's answers
(crowd-kit, :func:`commonsense.annotators.fit`), replaces the campaign's quality rows and judges
every item again (an item the new fit no longer finds settled wants more answers again, one the
new fit settles closes). It runs from ``manage.py annotator_quality``, the dashboard's button and,
every ``COCOWEB_QUALITY_REFIT_EVERY`` answers a process stores for a campaign, as a task on the
housekeeping queue (:func:`refit_maybe`).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from commonsense.annotators import COLD_START, AnnotatorModel, Judged, Worker, fit, judge, verdicts

from .models import AnnotatorQuality, Campaign, Item, Response

_cache: dict[int, tuple[str, AnnotatorModel]] = {}
_lock = threading.Lock()


def _worker(d: dict[str, Any]) -> Worker:
    return Worker(
        sensitivity=d["sensitivity"],
        specificity=d["specificity"],
        competence=d["competence"],
        guess_yes=d["guess_yes"],
        guess_no=d["guess_no"],
        guessing=d.get("guessing"),
        verdicts=d.get("verdicts", 0),
    )


def campaign_annotator_model(campaign: Campaign) -> AnnotatorModel:
    """The campaign's latest fit (:data:`~commonsense.annotators.COLD_START` before the first).
    Kept per process under the fit's stamp: the per-person rows are read once per fit."""
    stored = campaign.annotator_model or {}
    stamp = str(stored.get("fitted_at") or "")
    if not stamp:
        return COLD_START
    hit = _cache.get(campaign.pk)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    workers: dict[Hashable, Worker] = {
        q.user_id: Worker(
            sensitivity=q.ds_sensitivity,
            specificity=q.ds_specificity,
            competence=q.mace_competence,
            guessing=q.mace_guessing,
            guess_yes=q.mace_guess_yes,
            guess_no=q.mace_guess_no,
            verdicts=q.verdicts,
        )
        for q in AnnotatorQuality.objects.filter(campaign=campaign)
    }
    model = AnnotatorModel(prior=float(stored["prior"]), default=_worker(stored["default"]), workers=workers)
    with _lock:
        _cache[campaign.pk] = (stamp, model)
    return model


def item_judge(campaign: Campaign, n_options: int, answers: Sequence[tuple[Hashable, dict[str, Any]]]) -> Judged:
    """One MCQA item's final label, posteriors and settlement under the campaign's rule."""
    return judge(
        answers,
        n_options=n_options,
        model=campaign_annotator_model(campaign),
        rule=campaign.label_rule,
        min_answers=campaign.redundancy,
        max_answers=campaign.answers_max,
        threshold=campaign.settle_threshold,
    )


def annotator_quality_refresh(campaign: Campaign) -> int:
    """Fit the annotator models over the campaign's regular answers, store them and judge every
    item again; returns the number of annotators estimated. MCQA campaigns only."""
    from .services import final_labels_refresh

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


_since: dict[int, int] = {}


def refit_maybe(campaign: Campaign) -> bool:
    """Count an answer this process stored; every ``COCOWEB_QUALITY_REFIT_EVERY`` of a campaign's
    answers, send a refit to the housekeeping queue once the answer commits. No query."""
    every = settings.COCOWEB_QUALITY_REFIT_EVERY
    if not campaign.adaptive or every <= 0:
        return False
    with _lock:
        n = _since.get(campaign.pk, 0) + 1
        _since[campaign.pk] = 0 if n >= every else n
    if n < every:
        return False
    from .tasks import annotator_quality_task

    transaction.on_commit(partial(annotator_quality_task.apply_async, (campaign.pk,), queue="housekeeping"))
    return True
