"""``build_rica``: a RICA set rewritten with novel entities (RICA §1.7) by the core function
:func:`commonsense.questions.rica.novel_probes`: random strings of 3–12 letters, seeded, one pair
per axiom (and variant) shared by all its perturbations, never an English word of the shipped word
list; each probe keeps its axiom group and perturbation, and points at the probe it came from.

``build_rica --from-graph``: axioms generated from an imported graph (RICA §2–3, Tables 2–4) by
:mod:`commonsense.questions.rica_gen`: the crawl strategies the graph's relations support, over
its well-formed edges (the builds' default filter), each axiom's statement set (NEGATION and ASYM;
ANTONYM and PARAPHRASE where Debian's WordNet has the word) with novel entities."""

from __future__ import annotations

from typing import Any

from commonsense.io.questions import QuestionRecord
from commonsense.questions import rica_gen, wordnet_adj
from commonsense.questions.rica import novel_probes
from commonsense.questions.wellformed import build_edges
from knowledge.models import RICA_KINDS, QuestionSet
from knowledge.services.builds import _graph, _records, built_set_store
from knowledge.services.imports import ImportRefused


def _record(q: Any) -> QuestionRecord:
    meta = dict(q.metadata or {})
    meta.setdefault("sentence", meta.get("sentence") or "")
    return QuestionRecord(
        line=q.position + 1,
        external_id=q.external_id or str(q.pk),
        stem=q.stem,
        options=[str(o) for o in q.options],
        answer_index=q.answer_index,
        structure=q.structure,
        group=q.group,
        metadata=meta,
    )


def rica_novel_build(*, source: str, name: str, seed: int, variants: int = 1, user: Any = None) -> QuestionSet:
    """Store ``name``: every probe of the RICA set ``source`` with fresh novel entities."""
    if variants < 1:
        raise ImportRefused("variants must be at least 1")
    src = QuestionSet.objects.filter(name=source).first()
    if src is None:
        raise ImportRefused(f"no question set named {source!r}")
    if src.kind not in RICA_KINDS:
        raise ImportRefused(f"{source!r} is a {src.kind} set; build_rica rewrites RICA axiom or probe sets")
    if QuestionSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a question set named {name!r} already exists")
    records = [_record(q) for q in src.questions.order_by("position")]
    built = novel_probes(records, seed, variants)
    if not built:
        raise ImportRefused(f"{source!r} has no probe with a stored sentence and answer to rewrite")
    for b in built:  # keep the source's structure label so the run metrics treat both alike
        b.kind = "rica-axiom" if src.kind == QuestionSet.Kind.RICA_AXIOMS else b.kind
    return built_set_store(
        built,
        name=name,
        kind=src.kind,
        source=f"{src.name} (novel entities)",
        seed=seed,
        created_by=user,
        params={"source_set": src.name, "seed": seed, "variants": variants, "entities": "novel"},
    )


def rica_graph_build(
    *, graph: str, name: str, seed: int, per_strategy: int = 100, entities: str = "novel", user: Any = None
) -> QuestionSet:
    """Store ``name``: RICA probes generated from the graph ``graph`` (kind ``rica-axioms``,
    ``params.rica_set = "generated"``: RICA's raw set, neither Easy nor Hard)."""
    if per_strategy < 1:
        raise ImportRefused("per_strategy must be at least 1")
    if entities not in ("novel", "AB"):
        raise ImportRefused(f"entities must be 'novel' or 'AB', got {entities!r}")
    g = _graph(graph)
    if QuestionSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a question set named {name!r} already exists")
    relations = set(g.triples.values_list("relation__name", flat=True).distinct())
    strategies = rica_gen.supported(relations)
    if not strategies:
        needs = sorted({r for s in rica_gen.STRATEGIES for r in s.relations})
        raise ImportRefused(f"graph {graph!r} supports no RICA crawl strategy (they need one of {', '.join(needs)})")
    # events (xAttr heads) pass the builds' well-formed filter; CapableOf heads are entities (a role
    # noun), which that filter, written for events, rejects: they pass the label filter alone
    edges, entity_edges = build_edges(), build_edges(include_malformed=True)
    triples = [(r[0], r[1], r[2]) for r in edges(_records(g)) if r[1] != "CapableOf"]
    triples += [(r[0], r[1], r[2]) for r in entity_edges(_records(g)) if r[1] == "CapableOf"]
    axioms = rica_gen.crawl(triples, per_strategy, seed, strategies)
    lexicon = wordnet_adj.load()
    built = rica_gen.probes(axioms, seed, lexicon, entities=entities)
    if not built:
        raise ImportRefused(f"graph {graph!r} gave no axiom: its {', '.join(sorted(relations))} triples fit none")
    counts = {s.name: sum(a.strategy == s.name for a in axioms) for s in strategies}
    return built_set_store(
        built,
        name=name,
        kind=QuestionSet.Kind.RICA_AXIOMS,
        source=f"{g.name} (RICA axioms generated)",
        graph=g,
        seed=seed,
        created_by=user,
        params={
            "rica_set": "generated",
            "graph": g.name,
            "seed": seed,
            "per_strategy": per_strategy,
            "entities": entities,
            "strategies": counts,
            "not_supported": rica_gen.NOT_SUPPORTED,
            "edges": {"events": edges.name, "CapableOf": entity_edges.name},
            "lexicon": "WordNet 3.0 adjectives (Debian wordnet-base)" if lexicon else None,
            "realisation": "templates (no BART: the paper's conversion model was never released)",
        },
    )
