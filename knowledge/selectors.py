"""Reads for the knowledge layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Length

from cocoweb.leases import stale_cutoff, stale_q
from commonsense.kg.normalize import clean, normalize_tail
from commonsense.kg.relations import canonical_name
from knowledge.db.graph_stats import stats_current
from knowledge.db.node_search import FTS_TABLE  # noqa: F401  (explorer's node search reads this index)

from .models import RICA_KINDS, BuildJob, Graph, Node, NodeText, QuestionSet, StatementSet, Triple, TriplePlausibility


def graph_list() -> QuerySet[Graph]:
    return Graph.objects.all()


def question_set_list() -> QuerySet[QuestionSet]:
    return QuestionSet.objects.select_related("graph").all()


def statement_set_list() -> QuerySet[StatementSet]:
    return StatementSet.objects.all()


class RelationCount(TypedDict):
    relation__name: str
    n: int


class StructureCount(TypedDict):
    structure: str
    n: int


def graph_relation_counts(graph: Graph) -> list[RelationCount]:
    if stats_current(graph):  # materialised by the importer
        return [{"relation__name": name, "n": n} for name, n in graph.stats["relations"]]
    return list(Triple.objects.filter(graph=graph).values("relation__name").annotate(n=Count("id")).order_by("-n"))


def question_structure_counts(qset: QuestionSet) -> list[StructureCount]:
    return list(qset.questions.values("structure").annotate(n=Count("id")).order_by("-n"))


def graph_names() -> list[str]:
    """The imported graphs' names, in name order (the RICA generation form's sources)."""
    return list(Graph.objects.order_by("name").values_list("name", flat=True))


def rica_set_names() -> list[str]:
    """The names of the imported RICA axiom and probe sets, in name order (the novel-entity build's sources)."""
    return list(QuestionSet.objects.filter(kind__in=RICA_KINDS).order_by("name").values_list("name", flat=True))


def build_jobs_listed() -> QuerySet[BuildJob]:
    """Build jobs with what their list and page show (graph, question set, who started it)."""
    return BuildJob.objects.select_related("graph", "question_set", "created_by")


def build_job_recent(limit: int = 5) -> list[BuildJob]:
    return list(BuildJob.objects.select_related("graph", "question_set")[:limit])


def build_jobs_stalled() -> QuerySet[BuildJob]:
    """Unfinished jobs no worker is working on: running with a heartbeat older than the stale
    limit (the worker died), or queued for longer than it since their message was sent (the
    message was lost). For a queued job ``heartbeat_at`` is when its message was last sent (set on
    re-queueing; empty for a job never re-sent, whose ``created_at`` counts)."""
    cutoff = stale_cutoff(BuildJob)
    orphaned = Q(state=BuildJob.State.QUEUED) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff)
    )
    return BuildJob.objects.filter(stale_q(BuildJob, cutoff) | orphaned)


def triple_model_scores(triple_ids: Sequence[int]) -> dict[int, list[tuple[str, float]]]:
    """For the explorer: every cached model score of these triples, ``{triple id: [(model, p)]}``."""
    out: dict[int, list[tuple[str, float]]] = {}
    qs = TriplePlausibility.objects.filter(triple_id__in=list(triple_ids)).order_by("model")
    for tid, model, p in qs.values_list("triple_id", "model", "p_yes"):
        out.setdefault(int(tid), []).append((model, p))
    return out


def attach_model_scores(triples: Sequence[Any]) -> None:
    """Set ``t.model_scores`` = ``[(model, P(yes))]`` on each triple row, from the cache (one query);
    the explorer's node and question pages show them beside the stored plausibility label."""
    scores = triple_model_scores([t.pk for t in triples])
    for t in triples:
        t.model_scores = scores.get(t.pk, [])


def node_display_texts(node: Node) -> list[NodeText]:
    """How questions show ``node``: the stored node texts (:mod:`knowledge.services.node_texts`) of its own
    text as a head and, where it is a tail, of the text its relations give it (COM2 Table 5: "to go"
    under xWant is "PersonX go"), each with the text rules' verdict. Empty until the graph's node
    texts are computed (its first build, or ``manage.py text_rules``)."""
    rels = node.in_triples.values_list("relation__name", flat=True).distinct()
    texts = {clean(node.text)} | {normalize_tail(canonical_name(r), node.text) for r in rels}
    return list(NodeText.objects.filter(graph_id=node.graph_id, text__in=texts).order_by("text"))


class DisplayHit(TypedDict):
    id: int  # the graph node
    text: str  # its text in the graph
    shown: str  # as questions show it


def node_display_search(graph: Graph, terms: list[str], *, limit: int = 50) -> list[DisplayHit]:
    """Graph nodes whose display text (as questions show it) holds every term, shortest first; a
    trigram index serves it on PostgreSQL."""
    if not terms:
        return []
    cond = Q()
    for t in terms:
        cond &= Q(display__icontains=t)
    rows = (
        NodeText.objects.filter(cond, graph=graph, node__isnull=False)
        .order_by(Length("display"), "id")
        .values_list("node_id", "node__text", "display")[:limit]
    )
    return [{"id": i, "text": t, "shown": d} for i, t, d in rows]
