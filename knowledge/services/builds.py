"""Services that build question sets from an imported graph (issue 3) and export them.

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
from commonsense.io.abstract import read_abstract_triples
from commonsense.kg.edges import ORIGIN_FIELD, EdgeFilter, EdgeTally
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import minilm_encoder
from commonsense.queries.rules import DEFAULT_RULES_MODE, rules_for
from commonsense.questions import export as writers
from commonsense.questions.coco import APPLICATION_KINDS, CocoParams, application, comprehension, memorization
from commonsense.questions.com2 import BuildParams, BuildReport, OptionCheck, build_com2
from commonsense.questions.conceptualize import MIN_VALID, Conceptualizer
from commonsense.questions.diverse import EmbeddingCache, eq9_neighbour_order
from commonsense.questions.finetune import diversity_filter, write_finetune
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
from knowledge.services.publication import question_set_publish
from knowledge.services.question_rows import built_question, question_row, questions_store
from knowledge.services.set_quality import question_set_quality

Progress = Callable[[int, int], None]
EXPORT_FORMATS = ("jsonl", "csv", "lm-eval", "hf", "finetune-prompt", "finetune-chat")


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


def coco_steps(abstract: bool, kinds: Sequence[str] = APPLICATION_KINDS) -> list[str]:
    return [
        "graph index (raw tails)",
        "graph index (normalised)",
        "memorization",
        *(["comprehension"] if abstract else []),
        *(f"application {k}" for k in kinds),
        "storing",
    ]


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


def _store(qset: QuestionSet, questions: list[BuiltQuestion]) -> None:
    questions_store([question_row(qset, i, q) for i, q in enumerate(questions)], [q.triple_refs for q in questions])
    qset.question_count = len(questions)
    qset.save(update_fields=["question_count"])
    question_set_quality(qset)  # text checks, chains and the shortcut audit, for every built set


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
    with transaction.atomic():
        qset = QuestionSet.objects.create(
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
        _store(qset, questions)
        if on_stored is not None:
            on_stored(qset)
    return qset


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
    with transaction.atomic():
        qset = QuestionSet.objects.create(
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
        _store(qset, questions)  # with its quality report
        if on_stored is not None:
            on_stored(qset)
    return qset


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


def question_set_export_file(name: str, fmt: str, out: str | Path, *, diverse_top: int | None = None) -> Path:
    """Write a stored set as JSONL, CSV, an lm-eval task or a Hugging Face dataset folder (``hf``;
    ``out`` is then a directory, :mod:`knowledge.services.publication`), or fine-tuning pairs
    (``finetune-prompt``: prompt/completion JSONL, ``finetune-chat``: chat messages); ``diverse_top``
    keeps only COM2's top-N queries per answer by unigram gain."""
    if fmt not in EXPORT_FORMATS:
        raise ImportRefused(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    try:
        qset = QuestionSet.objects.get(name=name)
    except QuestionSet.DoesNotExist:
        raise ImportRefused(f"no question set named {name!r}") from None
    questions = [built_question(r) for r in qset.questions.order_by("position").iterator(chunk_size=2000)]
    out = Path(out)
    if diverse_top is not None:
        questions = diversity_filter(questions, diverse_top)
    if fmt.startswith("finetune-"):
        write_finetune(questions, out, "chat" if fmt == "finetune-chat" else "prompt-completion")
        return out
    if fmt == "jsonl":
        writers.write_jsonl(questions, out, qset.name)
        return out
    if fmt == "csv":
        writers.write_csv(questions, out, qset.name)
        return out
    if fmt == "hf":
        return question_set_publish(qset, questions, out)
    return writers.write_lm_eval(questions, out, qset.name)
