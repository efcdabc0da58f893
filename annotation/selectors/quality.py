"""The campaign's annotator model as the queue uses it on every answer (issue 26 items 1-2):
:func:`campaign_annotator_model` (the pooled annotator and prior stored on the campaign, the
per-person estimates of :class:`~annotation.models.AnnotatorQuality`, read once per process and
fit) and one item's judgement (:func:`item_judge`: final label, posteriors and settlement through
:func:`commonsense.annotators.judge`). The fit itself is :mod:`annotation.services.quality`."""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from typing import Any

from annotation.models import AnnotatorQuality, Campaign
from commonsense.annotators import COLD_START, AnnotatorModel, Judged, Worker, judge

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
        settlement=campaign.settlement_rule,
        agreement=campaign.require_agreement,
    )
