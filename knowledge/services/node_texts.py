"""Node text as data (issue 27 item 1): the services that keep ``NodeText`` rows, one per node of a
graph's query graph, with its display text and the text rules' verdict
(:mod:`commonsense.questions.node_text`).

They are computed once: on a graph's first build under the current rules (the edge filter reads
them through :class:`StoredTexts`, the index keeps the display texts) or ahead of it with
``manage.py text_rules --graph G --recompute``; rows computed under other rules are recomputed
the next time, and only the nodes whose display or verdict changed are written.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from commonsense.kg import relations
from commonsense.kg.normalize import clean, is_none, normalize_tail
from commonsense.questions.node_text import TextVerdict, judge, judge_many
from commonsense.questions.text_rules import BY_NAME, TABLE, firing, rules_version
from knowledge.models import Graph, NodeText

Progress = Callable[[int, int], None]
BATCH = 5000
CHUNK = 1000  # texts per task of the forked workers (judge_many)


def graph_node_texts(graph: Graph) -> Iterator[tuple[str, int]]:
    """``(node text, id of the graph node it comes from)`` for every head and tail of the graph's
    triples, as the query graph names them (``GraphIndex.build`` with ``normalize=True``); ``none``
    tails are no nodes. Texts repeat."""
    rows = graph.triples.values_list("head_id", "head__text", "relation__name", "tail_id", "tail__text")
    for hid, h, r, tid, t in rows.iterator(chunk_size=20_000):
        yield clean(h), hid
        if not is_none(t):
            yield normalize_tail(relations.canonical_name(r), t), tid


@dataclass
class Outcome:
    """What :func:`node_texts_ensure` did: node texts of the graph, how many it computed, the texts
    whose display or verdict it changed, and the rules' version they now carry."""

    total: int = 0
    computed: int = 0
    changed: set[str] = field(default_factory=set)
    version: str = ""


def node_texts_ensure(
    graph: Graph, *, recompute: bool = False, progress: Progress | None = None
) -> tuple[dict[str, TextVerdict], Outcome]:
    """Every node text of ``graph`` with its display and verdict, read from the store; the texts
    the store lacks, or holds under other rules (or all of them with ``recompute``), are computed
    and written first. Rows of texts the graph no longer has are deleted."""
    version = rules_version()
    wanted: dict[str, int] = {}
    for text, node in graph_node_texts(graph):
        if text:
            wanted.setdefault(text, node)
    stored = {
        t: (pk, TextVerdict(d, r, w), v)
        for pk, t, d, r, w, v in NodeText.objects.filter(graph=graph).values_list(
            "pk", "text", "display", "rule", "reason", "rules_version"
        )
    }
    todo = [t for t in wanted if recompute or t not in stored or stored[t][2] != version]
    out = {t: stored[t][1] for t in wanted if t in stored}
    outcome = Outcome(total=len(wanted), computed=len(todo), version=version)
    fresh: list[NodeText] = []
    updated: list[NodeText] = []
    restamped: list[int] = []
    # judged in settings.COCOWEB_TEXT_WORKERS forked workers (the same verdicts as one process:
    # judge_many), read back in order
    for n, (text, got) in enumerate(judge_many(todo, settings.COCOWEB_TEXT_WORKERS, CHUNK), 1):
        if text not in stored:
            fresh.append(NodeText(graph=graph, text=text, node_id=wanted[text], rules_version=version, **_fields(got)))
            outcome.changed.add(text)
        elif stored[text][1] != got:
            updated.append(NodeText(pk=stored[text][0], rules_version=version, **_fields(got)))
            outcome.changed.add(text)
        elif stored[text][2] != version:
            restamped.append(stored[text][0])
        out[text] = got
        if progress is not None and (n % 2000 == 0 or n == len(todo)):
            progress(n, len(todo))
    gone = [pk for t, (pk, _, _) in stored.items() if t not in wanted]
    with transaction.atomic():
        NodeText.objects.bulk_create(fresh, batch_size=BATCH)
        NodeText.objects.bulk_update(updated, ["display", "rule", "reason", "rules_version"], batch_size=BATCH)
        for i in range(0, len(restamped), BATCH):
            NodeText.objects.filter(pk__in=restamped[i : i + BATCH]).update(rules_version=version)
        for i in range(0, len(gone), BATCH):
            NodeText.objects.filter(pk__in=gone[i : i + BATCH]).delete()
    return out, outcome


def _fields(v: TextVerdict) -> dict[str, str]:
    return {"display": v.display, "rule": v.rule, "reason": v.reason}


class StoredTexts:
    """A graph's stored node texts as the edge filter reads them (``texts`` of
    :func:`commonsense.questions.wellformed.build_edges`): loaded, and brought up to date, at the
    first read, so a build whose index comes from the cache never touches them."""

    def __init__(self, graph: Graph, progress: Progress | None = None) -> None:
        self.graph = graph
        self.progress = progress
        self._texts: dict[str, TextVerdict] | None = None
        self.outcome: Outcome | None = None

    @property
    def texts(self) -> dict[str, TextVerdict]:
        if self._texts is None:
            self._texts, self.outcome = node_texts_ensure(self.graph, progress=self.progress)
        return self._texts

    def __call__(self, text: str) -> TextVerdict:
        got = self.texts.get(text)
        return got if got is not None else judge(text)  # a text no triple of the store names


@dataclass(frozen=True)
class RuleCount:
    rule: str
    catches: str
    decides: int  # texts this rule is the first to reject (the stored verdict)
    fires: int  # texts it rejects, first or not
    sample: list[str]  # display texts it decides, drawn at random


def node_text_report(graph: Graph, *, sample: int = 5, seed: int = 0) -> tuple[int, int, list[RuleCount]]:
    """(node texts, readable ones, per rule of the table what it rejects) from the stored verdicts;
    "fires" runs every rule on the rejected texts."""
    rows = list(NodeText.objects.filter(graph=graph).values_list("display", "rule"))
    decided: dict[str, list[str]] = {}
    fires: dict[str, int] = {}
    for display, name in rows:
        if not name:
            continue
        decided.setdefault(name, []).append(display)
        for fired, _ in firing(display):
            fires[fired] = fires.get(fired, 0) + 1
    rng = random.Random(seed)
    out = []
    for r in TABLE:
        texts = sorted(decided.get(r.name, []))
        out.append(
            RuleCount(r.name, r.catches, len(texts), fires.get(r.name, 0), rng.sample(texts, min(sample, len(texts))))
        )
    unknown = set(decided) - set(BY_NAME)  # rules since removed: the store is outdated
    for name in sorted(unknown):
        out.append(RuleCount(name, "(no longer a rule: recompute)", len(decided[name]), 0, decided[name][:sample]))
    return len(rows), sum(1 for _, name in rows if not name), out
