"""CoCo's build (Li et al.): memorization, comprehension and application sets from an imported
graph, linked by group id and role (``build_coco``, the browser's CoCo form). The steps, the graph
index and storing the set are the ones every build shares (:mod:`knowledge.services.builds`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accounts.people import User
from commonsense.io.abstract import read_abstract_triples
from commonsense.kg.index import IndexOptions
from commonsense.kg.normalize import minilm_encoder
from commonsense.queries.rules import DEFAULT_RULES_MODE, rules_for
from commonsense.questions.coco import APPLICATION_KINDS, CocoParams, application, comprehension, memorization
from commonsense.questions.com2 import BuildReport
from commonsense.questions.conceptualize import MIN_VALID, Conceptualizer
from commonsense.questions.diverse import EmbeddingCache, eq9_neighbour_order
from commonsense.scoring.plausibility import PlausibilityCheck
from knowledge.models import QuestionSet
from knowledge.services.builds import (
    Progress,
    StepHook,
    StoredHook,
    _cache_dir,
    _graph,
    _rules,
    _Steps,
    built_set_store,
    edges_for,
    graph_index,
)
from knowledge.services.imports import ImportRefused
from knowledge.services.node_texts import StoredTexts


def coco_steps(abstract: bool, kinds: Sequence[str] = APPLICATION_KINDS) -> list[str]:
    return [
        "graph index (raw tails)",
        "graph index (normalised)",
        "memorization",
        *(["comprehension"] if abstract else []),
        *(f"application {k}" for k in kinds),
        "storing",
    ]


def coco_build(
    *,
    graph: str,
    seed: int,
    name: str,
    abstract: str | Path | None = None,
    per_relation: int = 2000,
    per_kind: int = 3000,
    max_degree: int = 10,
    min_plausibility: float | None = None,
    include_implausible: bool = False,
    include_malformed: bool = False,
    include_populated: bool = False,
    diverse: bool = False,
    rules: str = DEFAULT_RULES_MODE,
    user: User | None = None,
    progress: Progress | None = None,
    step: StepHook | None = None,
    on_stored: StoredHook | None = None,
    plausibility: PlausibilityCheck | None = None,
    conceptualizer: Conceptualizer | None = None,
) -> QuestionSet:
    """``build_coco``: memorization, comprehension (with ``abstract`` conceptualisations, or ones
    ``conceptualizer`` generates and ``plausibility`` filters, heads with fewer than 3 valid left
    out) and application sets, linked by group id and role. The application kinds are built one by one
    (the same questions as one :func:`application` call: each kind samples independently) so
    that ``step`` can report each of them."""
    if QuestionSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a question set named {name!r} already exists")
    _rules(rules)
    g = _graph(graph)
    if conceptualizer is not None and (abstract or plausibility is None):
        raise ImportRefused("generated conceptualisations need a plausibility model and no --abstract file")
    params = CocoParams(seed=seed, per_relation=per_relation, per_kind=per_kind, max_degree=max_degree, rules=rules)
    steps = _Steps(step, coco_steps(bool(abstract or conceptualizer)))
    steps.next()
    texts = StoredTexts(g)
    edges = edges_for(include_implausible, plausibility, include_malformed, include_populated, texts)
    raw = graph_index(g, IndexOptions(normalize=False, min_plausibility=min_plausibility), edges, texts)
    steps.next()
    norm = graph_index(
        g, IndexOptions(normalize=True, min_plausibility=min_plausibility, max_degree=max_degree), edges, texts
    )
    cache = EmbeddingCache(_cache_dir(g), minilm_encoder()) if diverse else None
    if cache is not None:  # CoCo A2.3: top-T neighbours by Eq. 9 in the application graph
        norm = eq9_neighbour_order(norm, cache, max_degree, relations=params.relations)
    steps.next()
    questions = memorization(raw, per_relation, seed, relations=params.relations, diverse_cache=cache)
    if abstract:
        steps.next()
        # CoCo A2.2: the given conceptualisations pass the plausibility check (when the build has one) and a
        # head needs at least 3 valid ones (Eq. 5's m); heads in Eq. 9's order with --diverse
        check_abs = plausibility

        def abstract_valid(triples: list[tuple[str, str, str]]) -> list[bool]:
            assert check_abs is not None
            return [p >= check_abs.threshold for p in check_abs.score(triples)]

        questions += comprehension(
            raw,
            list(read_abstract_triples(abstract)),
            seed,
            relations=params.relations,
            valid=abstract_valid if check_abs is not None else None,
            min_valid=MIN_VALID,
            diverse_cache=cache,
        )
    shortfall: dict[str, list[int]] = {}  # kind -> [built, requested], for the kinds the graph could not fill
    generated: dict[str, Any] = {}
    if conceptualizer is not None and plausibility is not None:
        steps.next()
        records = conceptualizer.generate(conceptualizer.sample_heads(raw, seed, params.relations), seed)
        check = plausibility
        original = {r.abstract_head: r.head for r in records}
        scored: list[dict[str, Any]] = []

        def valid(triples: list[tuple[str, str, str]]) -> list[bool]:
            ps = check.score(triples)
            scored.extend(
                {"head": original.get(h, ""), "abstract_head": h, "relation": r, "tail": t, "p_yes": p}
                for (h, r, t), p in zip(triples, ps, strict=True)
            )
            return [p >= check.threshold for p in ps]

        com = comprehension(raw, records, seed, relations=params.relations, valid=valid, min_valid=MIN_VALID)
        questions += com
        generated = {
            **conceptualizer.as_params(),
            "candidates": len(records),
            "heads_with_candidates": len({r.head for r in records}),
            "heads_kept": len({q.group for q in com}),
            "min_valid": MIN_VALID,
            "scored": scored,
        }
    funnels: dict[str, BuildReport] = {}
    for kind in APPLICATION_KINDS:
        steps.next(per_kind)
        funnels[kind] = BuildReport()
        got = application(
            norm,
            per_kind,
            seed,
            kinds=(kind,),
            relations=params.relations,
            max_degree=max_degree,
            progress=progress,
            rules=rules_for(rules),
            report=funnels[kind],
        )
        built = sum(q.kind == kind for q in got)
        if built < per_kind:
            shortfall[kind] = [built, per_kind]
        questions += got
    steps.next()
    return built_set_store(
        questions,  # with its quality report
        on_stored=on_stored,
        name=name,
        kind=QuestionSet.Kind.COCO,
        source=g.name,
        graph=g,
        seed=seed,
        created_by=user,
        params={
            "per_relation": per_relation,
            "per_kind": per_kind,
            "max_degree": max_degree,
            "diverse": diverse,
            "person_names": False,  # CoCo's text keeps PersonX / PersonY (the quality report's leak count)
            "min_plausibility": min_plausibility,
            "include_implausible": include_implausible,
            "include_malformed": include_malformed,
            "include_populated": include_populated,
            "edges": edges.name,
            "relations": list(params.relations),
            # the reasoning questions' distractors (coco.DEFAULT_NEGATIVES: COM2's split, issue 25)
            "application_negatives": {"adversarial_negatives": "branch", "random_negatives": "relation"},
            "rules": rules,
            "composition_rules": getattr(rules_for(rules), "name", None),
            "abstract": Path(abstract).name if abstract else None,
            "shortfall": shortfall,
            **({"conceptualizations": generated} if generated else {}),
            **({"plausibility_model": plausibility.as_params()} if plausibility is not None else {}),
        },
        quality={"build": application_report(funnels)},
    )


def application_report(reports: dict[str, BuildReport]) -> dict[str, Any]:
    """A CoCo build's report: its application kinds' counts summed, and each kind's funnel."""
    out: dict[str, Any] = {"requested": 0, "built": 0, "attempts": 0, "dropped": Counter(), "distractors_rejected": {}}
    for r in reports.values():
        out["requested"] += r.requested
        out["built"] += r.built
        out["attempts"] += r.attempts
        out["dropped"].update(r.dropped)
    out["shortfall"] = max(out["requested"] - out["built"], 0)
    out["dropped"] = dict(sorted(out["dropped"].items()))
    out["funnels"] = {kind: r.funnel() for kind, r in reports.items()}
    return out
