"""The model objects of build_questions' and build_coco's ``--plausibility-*`` (issue 11 item 3),
``--fluent-*`` (item 5) and ``--conceptualize-*`` options (declared in
``knowledge/services/build_options.py``)."""

from __future__ import annotations

from typing import Any

from commonsense.scoring.plausibility import PlausibilityCheck
from knowledge.models import Graph
from knowledge.services.imports import ImportRefused


def check_from_options(graph: str, o: dict[str, Any]) -> PlausibilityCheck | None:
    if not o.get("plausibility_backend"):
        return None
    from knowledge.services.triple_plausibility import plausibility_check, plausibility_scorer

    try:
        g = Graph.objects.get(name=graph)
    except Graph.DoesNotExist:
        raise ImportRefused(f"no graph named {graph!r}") from None
    try:
        scorer = plausibility_scorer(o["plausibility_backend"], o["plausibility_model"], url=o["plausibility_url"])
        return plausibility_check(
            g,
            scorer,
            threshold=o["plausibility_threshold"],
            filter_edges=not o["no_plausibility_edges"],
            check_distractors=not o["no_plausibility_distractors"],
        )
    except ValueError as exc:
        raise ImportRefused(f"plausibility model: {exc}") from None


def fluent_from_options(o: dict[str, Any]) -> Any:
    if not o.get("fluent_backend"):
        return None
    from django.conf import settings

    from commonsense.questions.fluent_contexts import FluentContexts
    from commonsense.scoring.factory import build_backend

    cache = settings.COCOWEB_CACHE_DIR
    try:
        lm = build_backend(
            o["fluent_backend"], model=o["fluent_model"], url=o["fluent_url"], cache_dir=f"{cache}/models"
        )
        return FluentContexts(lm)
    except ValueError as exc:
        raise ImportRefused(f"fluent contexts: {exc}") from None


def conceptualizer_from_options(o: dict[str, Any]) -> Any:
    if not o.get("conceptualize_backend"):
        return None
    from django.conf import settings

    from commonsense.questions.conceptualize import Conceptualizer
    from commonsense.scoring.factory import build_backend

    if o["conceptualize_heads"] < 1:
        raise ImportRefused("--conceptualize-heads must be at least 1")
    cache = settings.COCOWEB_CACHE_DIR
    try:
        lm = build_backend(
            o["conceptualize_backend"],
            model=o["conceptualize_model"],
            url=o["conceptualize_url"],
            cache_dir=f"{cache}/models",
        )
        return Conceptualizer(lm, heads=o["conceptualize_heads"])
    except ValueError as exc:
        raise ImportRefused(f"conceptualisations: {exc}") from None
