"""Services that build question sets from an imported graph (issue 3): the COM2 build
(:func:`question_set_build`) and what every build shares (the steps, the graph index, the edges,
storing the set). CoCo's build is :mod:`knowledge.services.coco_builds`, RICA's
:mod:`knowledge.services.rica_build`, a stored set's files :mod:`knowledge.services.set_exports`.

Thin wrappers over :mod:`commonsense.questions`: the graph's triples are read once into a cached
:class:`~commonsense.kg.index.GraphIndex` (``COCOWEB_CACHE_DIR/graphs/<name>/``), questions are
built in pure Python and stored in one transaction with their triples linked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.db.models.fields.json import KT

from accounts.people import User
from commonsense.kg.edges import ORIGIN_FIELD, EdgeFilter, EdgeTally
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import minilm_encoder
from commonsense.queries.rules import DEFAULT_RULES_MODE, rules_for
from commonsense.questions.com2 import BuildParams, BuildReport, OptionCheck, build_com2
from commonsense.questions.diverse import EmbeddingCache
from commonsense.questions.fluent_contexts import FluentContexts
from commonsense.questions.funnel import FLUENT
from commonsense.questions.graph_steps import model_neighbour_order, node_merger
from commonsense.questions.neardup import DEFAULT_THRESHOLD, NearDuplicates
from commonsense.questions.record import BuiltQuestion
from commonsense.questions.synonyms import DEFAULT_SYNONYM_THRESHOLD
from commonsense.questions.wellformed import build_edges, rules_version
from commonsense.scoring.plausibility import PlausibilityCheck
from knowledge.models import Graph, QuestionSet
from knowledge.services.imports import ImportRefused
from knowledge.services.node_texts import StoredTexts
from knowledge.services.question_rows import question_row, questions_store
from knowledge.services.set_quality import question_set_quality

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Step:
    """One step of a build, announced when it begins (``total`` None: the step has no count)."""

    number: int
    of: int
    name: str
    total: int | None


StepHook = Callable[[Step], None]
StoredHook = Callable[[QuestionSet], None]


class _Steps:
    def __init__(self, hook: StepHook | None, names: Sequence[str]) -> None:
        self.hook, self.names, self.n = hook, list(names), 0

    def next(self, total: int | None = None) -> None:
        self.n += 1
        if self.hook is not None:
            self.hook(Step(self.n, len(self.names), self.names[self.n - 1], total))


def com2_steps(diverse: bool) -> list[str]:
    return ["graph index", "sampling a 3x pool, vote-k selection" if diverse else "sampling questions", "storing"]


def _cache_dir(graph: Graph) -> Path:
    return Path(settings.COCOWEB_CACHE_DIR) / "graphs" / f"{graph.pk}-{graph.name}"


def _records(graph: Graph) -> Iterator[tuple[str, str, str, float | None, int, str | None]]:
    """(head, relation, tail, plausibility, triple id, origin): the origin is the triple's stored
    ``class`` (CSKB-Population's, :data:`commonsense.kg.edges.POPULATED`), None where it has none."""
    rows = (
        graph.triples.order_by("id")
        .annotate(origin=KT(f"extra__{ORIGIN_FIELD}"))
        .values_list("head__text", "relation__name", "tail__text", "plausibility", "id", "origin")
    )
    yield from rows.iterator(chunk_size=20_000)


def graph_index(
    graph: Graph,
    options: IndexOptions,
    edges: EdgeFilter | ModelEdges | None = None,
    texts: StoredTexts | None = None,
) -> GraphIndex:
    """The graph's index, built once per (graph content, options, edge filter) and reused from
    disk. ``edges`` decides which triples are edges (default: :func:`build_edges`: only well-formed
    triples not labelled implausible, no ``none`` tails, judged by the graph's stored node texts).
    A normalised index keeps every node's stored display text (``GraphIndex.displays``)."""
    if texts is None:
        texts = StoredTexts(graph)
    edges = edges or build_edges(texts=texts)
    agg = graph.triples.aggregate(last=Max("id"))
    # v3: the index carries the edge filter's tally (the build funnel) and the nodes' stored display
    # texts, which the rules' version decides (also where the edge filter does not name it)
    fingerprint = f"graph:{graph.pk}:{graph.triple_count}:{agg['last']}:edges={edges.name}:v3:texts={rules_version()}"
    tally: EdgeTally = Counter()

    def annotate(index: GraphIndex) -> None:
        index.edge_tally = sorted((r, s, w, n) for (r, s, w), n in tally.items())
        if options.normalize:  # the nodes are node texts: questions show their stored display
            index.displays = [texts(name).display for name in index.names]

    merger = None
    if options.merge is not None:  # COM2 §3.1: MiniLM embeddings of the node texts, cached per graph
        merger = node_merger(EmbeddingCache(_cache_dir(graph), minilm_encoder(), "merge").get, options.merge)
    return GraphIndex.cached(
        _cache_dir(graph),
        fingerprint,
        lambda: edges(_records(graph), tally),
        options,
        annotate=annotate,
        merger=merger,
    )


class ModelEdges:
    """An edge filter followed by a plausibility model (issue 11 item 3a): of the triples the base
    filter keeps, only those the model finds plausible. Its ``name`` (base filter, model,
    threshold) keys the index cache."""

    def __init__(self, base: EdgeFilter, check: PlausibilityCheck) -> None:
        self.base, self.check = base, check
        self.drop_origins = base.drop_origins
        self.name = f"{base.name}+model:{check.key}:{check.threshold!r}"

    def __call__(self, records: Any, tally: EdgeTally | None = None) -> list[Any]:
        sub: EdgeTally = Counter()
        rows = list(self.base(records, sub))
        keep = self.check.keep_edges([(r[0], r[1], r[2]) for r in rows])
        if tally is not None:
            tally.update({k: n for k, n in sub.items() if k[1] != "kept"})
            for row, k in zip(rows, keep, strict=True):
                tally[(row[1], *(("kept", "") if k else ("plausibility model", "implausible to the model")))] += 1
        return [row for row, k in zip(rows, keep, strict=True) if k]


def edges_for(
    include_implausible: bool,
    plausibility: PlausibilityCheck | None,
    include_malformed: bool = False,
    include_populated: bool = False,
    texts: StoredTexts | None = None,
) -> EdgeFilter | ModelEdges:
    """The build's edge filter: labels (unless ``include_implausible``), well-formed text (unless
    ``include_malformed``, :mod:`commonsense.questions.wellformed`, reading the graph's stored node
    ``texts``), the knowledge base's own triples (unless ``include_populated``: CSKB-Population's
    candidates mined from ASER), then the model if one filters edges."""
    base = build_edges(include_implausible, include_malformed, include_populated, texts)
    return ModelEdges(base, plausibility) if plausibility is not None and plausibility.filter_edges else base


def _rules(mode: str) -> None:
    try:
        rules_for(mode)
    except ValueError as exc:
        raise ImportRefused(str(exc)) from None


def _graph(name: str) -> Graph:
    try:
        return Graph.objects.get(name=name)
    except Graph.DoesNotExist:
        raise ImportRefused(f"no graph named {name!r}") from None


def built_set_store(
    questions: Sequence[BuiltQuestion], *, on_stored: StoredHook | None = None, **fields: Any
) -> QuestionSet:
    """Store a built set in one transaction: its row (``fields``: the ``QuestionSet`` columns), its
    questions with their triples, its quality report (text checks, chains and the shortcut audit, for
    every built set), then ``on_stored`` (the build job's hook) — every builder stores through here."""
    with transaction.atomic():
        qset = QuestionSet.objects.create(**fields)
        questions_store([question_row(qset, i, q) for i, q in enumerate(questions)], [q.triple_refs for q in questions])
        qset.question_count = len(questions)
        qset.save(update_fields=["question_count"])
        question_set_quality(qset)
        if on_stored is not None:
            on_stored(qset)
    return qset


def question_set_build(
    *,
    graph: str,
    kind: str,
    count: int,
    seed: int,
    name: str,
    relations: list[str] | None = None,
    max_degree: int = 10,
    diverse: bool = False,
    min_plausibility: float | None = None,
    include_implausible: bool = False,
    include_malformed: bool = False,
    include_populated: bool = False,
    near_duplicate: float | None = DEFAULT_THRESHOLD,
    person_names: bool = True,
    rules: str = DEFAULT_RULES_MODE,
    merge_nodes: float | None = None,
    adversarial_negatives: str = "branch",
    random_negatives: str = "",
    same_type_veto: bool = False,
    near_synonym: float | None = DEFAULT_SYNONYM_THRESHOLD,
    user: User | None = None,
    progress: Progress | None = None,
    step: StepHook | None = None,
    on_stored: StoredHook | None = None,
    edges: EdgeFilter | ModelEdges | None = None,
    option_checks: Sequence[OptionCheck] = (),
    plausibility: PlausibilityCheck | None = None,
    fluent: FluentContexts | None = None,
) -> QuestionSet:
    """``build_questions``: COM2 logical-query MCQA of one kind from a stored graph. ``step`` is
    told when each step begins; ``on_stored`` runs inside the transaction that stores the set.

    Defaults (issue 11): hops over COM2's twelve relations unless ``relations`` says otherwise;
    triples labelled implausible are not edges unless ``include_implausible``; no distractor within
    MiniLM cosine ``near_duplicate`` of an answer or another option. ``edges`` replaces the edge
    filter and ``option_checks`` add distractor vetoes. ``plausibility``
    (:func:`knowledge.services.triple_plausibility.plausibility_check`) filters edges and distractors with a model;
    ``fluent`` rewrites contexts with COM2's Table 6 prompt and drops the items the model marks NA.
    ``rules`` chooses the composition rules (:data:`commonsense.queries.rules.RULES_MODES`).
    ``merge_nodes`` merges nodes whose MiniLM cosine is above it (COM2 §3.1: 0.95); with a
    ``plausibility`` model the top-T neighbours are the model's most plausible in-edges (COM2).
    ``adversarial_negatives`` where two distractors come from (:mod:`commonsense.questions.negatives`);
    ``random_negatives`` where the two random ones come from (empty: the rules mode's own, COM2's
    whole graph for ``paper``); ``same_type_veto`` turns the veto of sessions 11-15 back on (no state where a state answers);
    ``near_synonym`` refuses negatives that mean what an answer means (:mod:`commonsense.questions.synonyms`).
    The build report, text checks and shortcut audit are stored in ``QuestionSet.quality``."""
    if QuestionSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a question set named {name!r} already exists")
    _rules(rules)
    g = _graph(graph)
    steps = _Steps(step, com2_steps(diverse))
    steps.next()
    texts = StoredTexts(g)
    edges = edges or edges_for(include_implausible, plausibility, include_malformed, include_populated, texts)
    opts = IndexOptions(normalize=True, min_plausibility=min_plausibility, max_degree=max_degree, merge=merge_nodes)
    index = graph_index(g, opts, edges, texts)
    params = BuildParams(
        kind=kind,
        count=count,
        seed=seed,
        relations=relations,
        max_degree=max_degree,
        person_names=person_names,
        diverse=diverse,
        near_duplicate=near_duplicate,
        rules=rules,
        adversarial_negatives=adversarial_negatives,
        random_negatives=random_negatives,
        near_synonym=near_synonym,
        adversarial_other_kind=same_type_veto,
        state_distractors=not same_type_veto,
    )
    if plausibility is not None:  # COM2: the top-T neighbours are the model's most plausible in-edges
        hops = [*params.hop_relations, *(["HinderedBy"] if kind == "2in" else [])]
        index = model_neighbour_order(index, plausibility.score, max_degree, relations=hops)
    cache = EmbeddingCache(_cache_dir(g), minilm_encoder()) if diverse else None
    near = (
        NearDuplicates(minilm_encoder(), near_duplicate, EmbeddingCache(_cache_dir(g), minilm_encoder(), "neardup"))
        if near_duplicate is not None
        else None
    )
    steps.next(None if diverse else count)
    report = BuildReport()
    questions = build_com2(
        index,
        params,
        diverse_cache=cache,
        progress=progress,
        near_duplicates=near,
        extra_checks=option_checks,
        report=report,
        check=plausibility,
    )
    if fluent is not None:
        before = len(questions)
        questions = fluent.rewrite(questions)
        report.sampling.after.append((*FLUENT, before - len(questions)))
        report.built = len(questions)
    if not questions:
        why = ", ".join(f"{k}: {v}" for k, v in report.dropped.most_common(3)) or "no query found"
        raise ImportRefused(
            f"no {kind} question could be built from graph {g.name!r} ({report.attempts} attempts; {why}); "
            f"the graph may hold no such query under the {rules} composition rules and the well-formed filter "
            "(--rules paper or any, --relations, --include-malformed, --include-populated and "
            "--include-implausible widen it)"
        )
    steps.next()
    return built_set_store(
        questions,
        on_stored=on_stored,
        name=name,
        kind=QuestionSet.Kind.COM2,
        source=g.name,
        graph=g,
        seed=seed,
        created_by=user,
        params={
            **params.as_dict(),
            "min_plausibility": min_plausibility,
            "include_implausible": include_implausible,
            "include_malformed": include_malformed,
            "include_populated": include_populated,
            "edges": edges.name,
            "normalize": True,
            "merge_nodes": merge_nodes,
            "top_t_by": "plausibility model" if plausibility is not None else "stored plausibility",
            **({"plausibility_model": plausibility.as_params()} if plausibility is not None else {}),
            **({"fluent_contexts": fluent.as_params()} if fluent is not None else {}),
        },
        quality={"build": report.as_dict()},
    )
