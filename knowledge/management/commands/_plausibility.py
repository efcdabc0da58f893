"""``--plausibility-*`` options shared by build_questions and build_coco (issue 11 item 3), and
build_questions' ``--fluent-*`` options (item 5)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from commonsense.scoring.plausibility import PlausibilityCheck
from knowledge.models import Graph
from knowledge.services.imports import ImportRefused


def add_plausibility_arguments(parser: Any) -> None:
    g = parser.add_argument_group("plausibility model (Vera-style P(yes) of the ATOMIC statement)")
    g.add_argument("--plausibility-backend", choices=("hf", "openai"), help="enables the model check")
    g.add_argument("--plausibility-model", help="hf: a transformers folder or .gguf file; openai: the model name")
    g.add_argument("--plausibility-url", help="openai: the server's base URL (vLLM, llama.cpp server …)")
    g.add_argument("--plausibility-threshold", type=float, default=settings.COCOWEB_PLAUSIBILITY_THRESHOLD)
    g.add_argument("--no-plausibility-edges", action="store_true", help="do not filter edges, check distractors only")
    g.add_argument("--no-plausibility-distractors", action="store_true", help="filter edges only")


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


def add_fluent_arguments(parser: Any) -> None:
    g = parser.add_argument_group("fluent contexts (COM2 Table 6: a model rewrites 2i/ip/pi/2in contexts, NA drops)")
    g.add_argument("--fluent-backend", choices=("hf", "openai"), help="enables the rewrite")
    g.add_argument("--fluent-model", help="hf: a transformers folder or .gguf file; openai: the model name")
    g.add_argument("--fluent-url", help="openai: the server's base URL")


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


def add_conceptualize_arguments(parser: Any) -> None:
    g = parser.add_argument_group(
        "generated conceptualisations (CoCo A.2: 5 candidates per head, plausibility-filtered, 3 valid kept)"
    )
    g.add_argument("--conceptualize-backend", choices=("hf", "openai"), help="instead of --abstract")
    g.add_argument("--conceptualize-model", help="hf: a transformers folder or .gguf file; openai: the model name")
    g.add_argument("--conceptualize-url", help="openai: the server's base URL")
    g.add_argument("--conceptualize-heads", type=int, default=50, help="head events to conceptualise (default 50)")


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
