"""Plausibility scores from a configured model, cached in the database per (graph, model, triple)
(issue 11 item 3). :func:`plausibility_check` gives the builders their hook: edges below the
threshold are left out before sampling and model-plausible distractors are refused."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any

from django.conf import settings

from commonsense.kg.normalize import is_none
from commonsense.scoring.factory import build_backend
from commonsense.scoring.plausibility import PlausibilityCheck, PlausibilityScorer
from knowledge.models import Graph, TriplePlausibility

Texts = tuple[str, str, str]
CHUNK = 2000


def triple_key(head: str, relation: str, tail: str) -> str:
    return hashlib.sha256(f"{head}\0{relation}\0{tail}".encode()).hexdigest()


def plausibility_scorer(backend: str, model: str, *, url: str | None = None, **options: Any) -> PlausibilityScorer:
    """A scorer on ``hf`` (folder or .gguf) or ``openai`` (a server that returns logprobs)."""
    from django.conf import settings

    cache = settings.COCOWEB_CACHE_DIR
    return PlausibilityScorer(build_backend(backend, model=model, url=url, cache_dir=f"{cache}/models", **options))


def _cached(graph: Graph, model: str, keys: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    uniq = list(dict.fromkeys(keys))
    for i in range(0, len(uniq), CHUNK):
        qs = TriplePlausibility.objects.filter(graph=graph, model=model, key__in=uniq[i : i + CHUNK])
        out.update(qs.values_list("key", "p_yes"))
    return out


def plausibility_scores(
    graph: Graph, scorer: PlausibilityScorer, triples: Sequence[Texts], refs: Sequence[int | None] | None = None
) -> list[float]:
    """P(yes) of each (head, relation, tail): read from the cache, the missing ones scored by the
    model (each distinct text once) and stored. ``refs`` are the triples' database ids, if any."""
    model = scorer.model_key
    keys = [triple_key(*t) for t in triples]
    have = _cached(graph, model, keys)
    todo: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k not in have and k not in todo:
            todo[k] = i
    if todo:
        idx = list(todo.values())
        scores = scorer.score_triples([triples[i] for i in idx])
        rows = [
            TriplePlausibility(
                graph=graph,
                model=model,
                key=keys[i],
                triple_id=refs[i] if refs is not None else None,
                head=triples[i][0],
                relation=triples[i][1],
                tail=triples[i][2],
                p_yes=p,
            )
            for i, p in zip(idx, scores, strict=True)
        ]
        TriplePlausibility.objects.bulk_create(rows, batch_size=1000, ignore_conflicts=True)
        have.update((keys[i], p) for i, p in zip(idx, scores, strict=True))
    return [have[k] for k in keys]


def _graph_rows(graph: Graph) -> Iterator[tuple[int, str, str, str]]:
    rows = graph.triples.order_by("id").values_list("id", "head__text", "relation__name", "tail__text")
    yield from rows.iterator(chunk_size=CHUNK)


def graph_plausibility(graph: Graph, scorer: PlausibilityScorer) -> int:
    """Score every triple of the graph (ATOMIC ``none`` tails excepted) that the cache lacks for
    this model; returns how many were scored now (0 on a second call)."""
    before = TriplePlausibility.objects.filter(graph=graph, model=scorer.model_key).count()
    batch: list[tuple[int, str, str, str]] = []
    for row in _graph_rows(graph):
        if is_none(row[3]):
            continue
        batch.append(row)
        if len(batch) >= CHUNK:
            plausibility_scores(graph, scorer, [r[1:] for r in batch], [r[0] for r in batch])
            batch = []
    if batch:
        plausibility_scores(graph, scorer, [r[1:] for r in batch], [r[0] for r in batch])
    return TriplePlausibility.objects.filter(graph=graph, model=scorer.model_key).count() - before


def plausibility_check(
    graph: Graph,
    scorer: PlausibilityScorer,
    *,
    threshold: float | None = None,
    filter_edges: bool = True,
    check_distractors: bool = True,
) -> PlausibilityCheck:
    """The builders' hook for ``graph``: the whole graph is scored first (once per model) so that
    the edge filter reads only the cache. ``threshold``: ``COCOWEB_PLAUSIBILITY_THRESHOLD`` unless given."""
    if threshold is None:
        threshold = settings.COCOWEB_PLAUSIBILITY_THRESHOLD
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the plausibility threshold is a probability, got {threshold}")
    if filter_edges:
        graph_plausibility(graph, scorer)
    return PlausibilityCheck(
        score=lambda triples: plausibility_scores(graph, scorer, triples),
        key=scorer.model_key,
        threshold=threshold,
        filter_edges=filter_edges,
        check_distractors=check_distractors,
    )
