"""The shortcut audit of a stored question set (issue 25; :mod:`commonsense.questions.audit`).

The figures that need no model (answer type, gold position, length, answer-set members) are
computed with the quality report (:func:`knowledge.services.set_quality.question_set_quality`), whenever a set
is stored or its report recomputed. The option-only baseline needs a model
(``COCOWEB_OPTION_ONLY_MODEL``, default the packaged SmolLM2-135M): the report asks for it with
:func:`option_only_enqueue`, a worker computes it (:func:`question_set_option_only`, task
``knowledge.question_set_option_only``) and writes it into ``QuestionSet.quality["shortcuts"]``.
It is kept as long as the scored items are the same (``fingerprint``) and the model is."""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from commonsense.questions.audit import (
    AuditItem,
    audit_rows,
    fingerprint,
    flagged,
    option_only,
    score_options,
    shortcut_audit,
)
from commonsense.scoring.types import Backend
from knowledge.models import QuestionSet

log = logging.getLogger(__name__)
OPTION_ONLY_QUEUE = "eval"  # the worker that loads models (scripts/run.sh), not the builds' one
FIELDS = ("options", "answer_index", "metadata", "structure", "answers")


def question_set_audit_items(qset: QuestionSet) -> list[AuditItem]:
    rows = qset.questions.order_by("position").values(*FIELDS)
    return audit_rows(rows.iterator(chunk_size=2000))


def option_only_sample(items: list[AuditItem], max_items: int, seed: int = 0) -> list[AuditItem]:
    """At most ``max_items`` of the items, a seeded sample kept in set order."""
    if max_items <= 0 or len(items) <= max_items:
        return items
    keep = sorted(random.Random(seed).sample(range(len(items)), max_items))
    return [items[i] for i in keep]


def _fresh(stored: Any, items: list[AuditItem], model: str | None = None) -> bool:
    """Stored figures (or the error of their last attempt) for these items (and this model)."""
    return (
        isinstance(stored, Mapping)
        and stored.get("fingerprint") == fingerprint(items)
        and (model is None or stored.get("model") == model)
    )


def question_set_shortcuts(qset: QuestionSet) -> dict[str, Any]:
    """The audit of the stored questions, with the stored option-only figures while they were
    computed on the same items (whichever model: ``set_quality --option-only --model`` may have
    used another than the configured one)."""
    items = question_set_audit_items(qset)
    stored = ((qset.quality or {}).get("shortcuts") or {}).get("option_only")
    sample = option_only_sample(items, settings.COCOWEB_OPTION_ONLY_MAX_ITEMS)
    keep = stored if _fresh(stored, sample) else None
    return shortcut_audit(items, option_only_report=keep)


def option_only_backend(name: str) -> Backend:
    """The configured model on the hf backend: a packaged model or one under COCOWEB_MODELS_DIRS."""
    from commonsense.scoring.factory import build_backend
    from commonsense.scoring.registry import resolve_model

    model = resolve_model(name, [Path(p) for p in settings.COCOWEB_MODELS_DIRS], "hf")
    cache = Path(settings.COCOWEB_CACHE_DIR) / "models"
    return build_backend("hf", model=str(model.path), cache_dir=cache, dtype="float32")


def _write(qset_id: int, report: dict[str, Any]) -> None:
    """Put ``report`` into the stored audit, under a row lock (the report may be recomputed meanwhile)."""
    with transaction.atomic():
        row = QuestionSet.objects.select_for_update().get(pk=qset_id)
        quality = dict(row.quality or {})
        shortcuts = dict(quality.get("shortcuts") or shortcut_audit(question_set_audit_items(row)))
        shortcuts["option_only"] = report
        shortcuts["flagged"] = flagged(shortcuts)
        quality["shortcuts"] = shortcuts
        row.quality = quality
        row.save(update_fields=["quality"])


def question_set_option_only(
    qset: QuestionSet, *, model: str | None = None, backend: Backend | None = None, force: bool = False
) -> dict[str, Any] | None:
    """Score the set's options with ``model`` (default the configured one; None when none is) and
    store the option-only figures. Idempotent: fresh stored figures are returned as they are
    unless ``force``. A model that cannot be loaded is stored as the report's ``error``."""
    name = model if model is not None else settings.COCOWEB_OPTION_ONLY_MODEL
    if not name:
        return None
    items = question_set_audit_items(qset)
    sample = option_only_sample(items, settings.COCOWEB_OPTION_ONLY_MAX_ITEMS)
    stored = ((qset.quality or {}).get("shortcuts") or {}).get("option_only")
    if not force and isinstance(stored, Mapping) and _fresh(stored, sample, name) and not stored.get("error"):
        return dict(stored)
    try:
        lm = backend if backend is not None else option_only_backend(name)
        report = option_only(sample, score_options(lm, sample), model=name)
    except Exception as exc:  # noqa: BLE001 - the page says why the baseline is missing
        log.warning("option-only audit of %s with %s failed: %s", qset.name, name, exc)
        report = {"model": name, "error": f"{type(exc).__name__}: {exc}"}
    report["fingerprint"] = fingerprint(sample)
    report["sampled_from"] = len(items)
    _write(qset.pk, report)
    return report


def option_only_enqueue(qset: QuestionSet) -> bool:
    """Ask a worker for the option-only figures once the current transaction commits (False:
    no model is configured)."""
    if not settings.COCOWEB_OPTION_ONLY_MODEL:
        return False
    from knowledge.tasks import question_set_option_only_task

    pk = qset.pk
    transaction.on_commit(lambda: question_set_option_only_task.apply_async((pk,), queue=OPTION_ONLY_QUEUE))
    return True
