"""Reads over one knowledge graph for the explorer: node search, a node's edges and neighbourhood,
and the graph overview. Every aggregate runs in the database; Python only shapes capped results."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Q, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length, RowNumber

from commonsense.kg.normalize import is_none
from knowledge.models import Graph, Node, Triple
from knowledge.selectors import FTS_TABLE, node_display_search, stats_current

from ..charts.graph import GraphEdge, GraphNode

RANK_POOL = 2000
_WORD = re.compile(r"\w+", re.UNICODE)


def search_terms(q: str) -> list[str]:
    return _WORD.findall(q or "")[:8]


def fts_match_expression(graph_id: int, terms: list[str]) -> str:
    """An FTS5 query scoped to one graph: every term must occur, the last as a prefix. Terms are
    word characters only and quoted, so no user input reaches FTS5 syntax."""
    parts = [f'"{t}"' for t in terms[:-1]] + [f'"{terms[-1]}"*']
    return f'graph_id : "{int(graph_id)}" AND text : ({" AND ".join(parts)})'


class NodeHit(TypedDict):
    id: int
    text: str


class ShownHit(NodeHit, total=False):
    shown: str  # as questions show the node, when the search found it by that text


def node_search(graph: Graph, q: str, *, limit: int = 50) -> list[NodeHit]:
    """Nodes of ``graph`` whose text contains every word of ``q`` (the last as a prefix; on
    PostgreSQL anywhere in a word), best matches first: the shortest texts among the first
    ``RANK_POOL`` matches, found by FTS5 on SQLite and the pg_trgm index on PostgreSQL (a plain
    scan elsewhere). One query."""
    terms = search_terms(q)
    if not terms:
        return []
    if connection.vendor == "sqlite":
        # Every result contains every word, so the shortest texts are the closest matches (what
        # bm25 mostly measures here too). bm25 itself first counts the documents of each term -
        # for "PersonX" or the graph-id token, hundreds of thousands - which cost 4x this query.
        # Only the first RANK_POOL matches are ordered: a word found in half the graph would
        # otherwise sort hundreds of thousands of rows for 50 results.
        sql = (
            f"WITH m AS (SELECT rowid AS id FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s LIMIT %s) "
            "SELECT n.id, n.text FROM m JOIN knowledge_node n ON n.id = m.id ORDER BY length(n.text), n.id LIMIT %s"
        )
        with connection.cursor() as cur:
            cur.execute(sql, [fts_match_expression(graph.pk, terms), RANK_POOL, limit])
            return [{"id": i, "text": t} for i, t in cur.fetchall()]
    if connection.vendor == "postgresql":
        # ILIKE, which the trigram index serves (Django's icontains is UPPER(text) LIKE, which it
        # does not); the pool's LIMIT without an order lets PostgreSQL stop at RANK_POOL matches.
        likes = " AND ".join(["text ILIKE %s"] * len(terms))
        sql = (
            f"SELECT id, text FROM knowledge_node WHERE id IN (SELECT id FROM knowledge_node "
            f"WHERE graph_id = %s AND {likes} LIMIT %s) ORDER BY length(text), id LIMIT %s"
        )
        with connection.cursor() as cur:
            cur.execute(sql, [graph.pk, *(f"%{like_escape(t)}%" for t in terms), RANK_POOL, limit])
            return [{"id": i, "text": t} for i, t in cur.fetchall()]
    cond = Q()
    for t in terms:
        cond &= Q(text__icontains=t)
    pool = Node.objects.filter(cond, graph=graph).values("id")[:RANK_POOL]
    return list(Node.objects.filter(pk__in=pool).order_by(Length("text"), "id").values("id", "text")[:limit])


def node_search_shown(graph: Graph, q: str, *, limit: int = 50) -> list[ShownHit]:
    """:func:`node_search`, then the nodes whose display text (as questions show them, the stored
    node texts) holds every word: "is hungry" finds the graph's "PersonX be hungry"."""
    hits: list[ShownHit] = [{"id": h["id"], "text": h["text"]} for h in node_search(graph, q, limit=limit)]
    seen = {h["id"] for h in hits}
    for d in node_display_search(graph, search_terms(q), limit=limit):
        if len(hits) >= limit:
            break
        if d["id"] not in seen:
            seen.add(d["id"])
            hits.append({"id": d["id"], "text": d["text"], "shown": d["shown"]})
    return hits


def like_escape(term: str) -> str:
    """``term`` as a literal inside a LIKE pattern (backslash is PostgreSQL's default escape)."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# -- one node -------------------------------------------------------------------------------------


@dataclass
class RelationGroup:
    relation: str
    direction: str  # "out" (node is the head) or "in" (node is the tail)
    total: int
    edges: list[Triple]

    @property
    def hidden(self) -> int:
        return self.total - len(self.edges)


class RelationCount(TypedDict):
    """A node's edges of one relation in one direction ("out": the node is the head, "in": the tail)."""

    direction: str
    relation: str
    relation_id: int
    n: int


class GraphOverview(TypedDict):
    relations: list[tuple[str, int]]  # (relation, triples)
    degrees: list[tuple[int, int]]  # (degree, nodes)
    top: list[tuple[int, str, int]]  # (node id, text, degree)


def node_relation_counts(node: Node) -> list[RelationCount]:
    """[{direction, relation, relation_id, n}] for both directions, in one query: two GROUP BYs
    counted inside the (head|tail, relation, …) indexes, relation names joined afterwards (joining
    first would look up the relation of each of a hub's edges)."""
    sql = (
        "SELECT c.d, r.name, c.relation_id, c.n FROM ("
        "SELECT 'out' AS d, relation_id, COUNT(*) AS n FROM knowledge_triple WHERE head_id = %s GROUP BY relation_id "
        "UNION ALL "
        "SELECT 'in' AS d, relation_id, COUNT(*) AS n FROM knowledge_triple WHERE tail_id = %s GROUP BY relation_id"
        ") c JOIN knowledge_relation r ON r.id = c.relation_id"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [node.pk, node.pk])
        return [
            RelationCount(direction=d, relation=name, relation_id=rid, n=int(n)) for d, name, rid, n in cur.fetchall()
        ]


_END = {"out": "head_id", "in": "tail_id"}


def _capped_edges(node: Node, counts: list[RelationCount], per_relation: int) -> list[Triple]:
    """Up to ``per_relation`` edges per (direction, relation) of ``node``, most plausible first,
    with both end nodes, the relation and the provenance joined. One query: a UNION ALL of one
    LIMITed index range per group, read in order from the (head|tail, relation, plausibility DESC
    NULLS LAST, id) indexes, so a hub's tens of thousands of edges are never sorted."""
    parts, params = [], []
    for i, c in enumerate(counts):
        parts.append(
            f"SELECT id FROM (SELECT id FROM knowledge_triple WHERE {_END[c['direction']]} = %s "
            f"AND relation_id = %s ORDER BY plausibility DESC NULLS LAST, id LIMIT %s) AS e{i}"
        )
        params += [node.pk, c["relation_id"], per_relation]
    if not parts:
        return []
    ids = RawSQL(" UNION ALL ".join(parts), params)  # node and relation ids and the cap: parameters only
    return list(Triple.objects.filter(pk__in=ids).select_related("relation", "head", "tail", "source"))


def _edge_order(t: Triple) -> tuple[bool, float, int]:
    return (t.plausibility is None, -(t.plausibility or 0.0), t.pk)


def node_edge_groups(node: Node, *, per_relation: int = 15) -> dict[str, list[RelationGroup]]:
    """The node's edges grouped by relation, outgoing and incoming, each group capped; with the
    true totals so the page can say how many are not shown. Two queries."""
    counts = node_relation_counts(node)
    by_group: dict[tuple[str, str], list[Triple]] = {}
    for t in sorted(_capped_edges(node, counts, per_relation), key=_edge_order):
        for direction in ("out", "in"):
            if (t.head_id if direction == "out" else t.tail_id) == node.pk:
                by_group.setdefault((direction, t.relation.name), []).append(t)
    groups: dict[str, list[RelationGroup]] = {"out": [], "in": []}
    for c in sorted(counts, key=lambda c: (c["direction"], c["relation"])):
        key = (c["direction"], c["relation"])
        groups[c["direction"]].append(
            RelationGroup(c["relation"], c["direction"], c["n"], by_group.get(key, [])[:per_relation])
        )
    return groups


@dataclass(frozen=True)
class Neighbourhood:
    """A node's neighbourhood for the graph figure: ``left_out`` counts the edges to ATOMIC's
    "none" tails (an empty inference, not an entity), which are not drawn: such a node was a hub
    every other node linked to (#29 item 13)."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    left_out: int


def node_neighbourhood(
    node: Node, groups: dict[str, list[RelationGroup]], *, hops: int = 1, max_hop1: int = 24, max_hop2: int = 36
) -> Neighbourhood:
    """Nodes and edges around ``node``: hop 1 from the (already capped) edge groups, hop 2 from two
    capped queries, the same few per hop-1 node (a hub no longer takes every place). Returns ids
    and texts; hrefs are added by the view."""
    nodes: dict[int, GraphNode] = {node.pk: GraphNode(node.pk, node.text, 0)}
    edges: dict[tuple[int, str, int], GraphEdge] = {}
    left_out = 0
    for direction in ("out", "in"):
        for g in groups[direction]:
            for t in g.edges:
                other = t.tail if direction == "out" else t.head
                if other.pk != node.pk and is_none(other.text):
                    left_out += 1
                    continue
                if other.pk not in nodes:
                    if sum(1 for n in nodes.values() if n.hop == 1) >= max_hop1:
                        continue
                    nodes[other.pk] = GraphNode(other.pk, other.text, 1)
                edges[(t.head_id, g.relation, t.tail_id)] = GraphEdge(t.head_id, t.tail_id, g.relation)
    hop1 = [n.id for n in nodes.values() if n.hop == 1]
    if hops >= 2 and hop1:
        each = max(1, max_hop2 // len(hop1))
        added: dict[int, int] = {}
        for h, htext, rel, tl, ttext, parent in _second_hop(node, hop1, each + 2):
            new, new_text = (tl, ttext) if parent == h else (h, htext)
            if is_none(new_text):
                left_out += 1
                continue
            if new not in nodes:
                if added.get(parent, 0) >= each or sum(added.values()) >= max_hop2:
                    continue
                nodes[new] = GraphNode(new, new_text, 2, parent=parent)
                added[parent] = added.get(parent, 0) + 1
            edges.setdefault((h, rel, tl), GraphEdge(h, tl, rel))
    return Neighbourhood(list(nodes.values()), list(edges.values()), left_out)


def _second_hop(node: Node, hop1: list[int], per_node: int) -> list[tuple[int, str, str, int, str, int]]:
    """The first ``per_node`` edges (by id) of each hop-1 node, out then in, without ``node``:
    (head, head text, relation, tail, tail text, the hop-1 end). Two queries (a window function)."""
    rows: list[tuple[int, str, str, int, str, int]] = []
    for end in ("head_id", "tail_id"):
        qs = (
            Triple.objects.filter(**{f"{end}__in": hop1})
            .exclude(head_id=node.pk)
            .exclude(tail_id=node.pk)
            .annotate(rank=Window(RowNumber(), partition_by=[F(end)], order_by=[F("id").asc()]))
            .filter(rank__lte=per_node)
            .order_by(end, "id")
            .values_list("head_id", "head__text", "relation__name", "tail_id", "tail__text")
        )
        rows += [(h, ht, r, t, tt, h if end == "head_id" else t) for h, ht, r, t, tt in qs]
    return rows


# -- overview -------------------------------------------------------------------------------------

_DEGREES = """SELECT node_id, COUNT(*) AS deg FROM (
    SELECT head_id AS node_id FROM knowledge_triple WHERE graph_id = %s
    UNION ALL SELECT tail_id AS node_id FROM knowledge_triple WHERE graph_id = %s) e GROUP BY node_id"""


def graph_relation_distribution(graph: Graph) -> list[tuple[str, int]]:
    rows = (
        Triple.objects.filter(graph=graph)
        .values("relation_id")
        .annotate(n=Count("id"))
        .values_list("relation__name", "n")
        .order_by("-n")
    )
    return list(rows)


def graph_degree_histogram(graph: Graph) -> list[tuple[int, int]]:
    """(degree, number of nodes with that degree), degree = in + out; nodes without edges: 0."""
    with connection.cursor() as cur:
        cur.execute(f"SELECT deg, COUNT(*) FROM ({_DEGREES}) d GROUP BY deg ORDER BY deg", [graph.pk, graph.pk])
        rows = [(int(d), int(n)) for d, n in cur.fetchall()]
    connected = sum(n for _, n in rows)
    if graph.node_count > connected:
        rows.insert(0, (0, graph.node_count - connected))
    return rows


def graph_top_nodes(graph: Graph, *, limit: int = 20) -> list[tuple[int, str, int]]:
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT d.node_id, n.text, d.deg FROM ({_DEGREES}) d JOIN knowledge_node n ON n.id = d.node_id "
            "ORDER BY d.deg DESC, d.node_id LIMIT %s",
            [graph.pk, graph.pk, limit],
        )
        return [(int(i), t, int(d)) for i, t, d in cur.fetchall()]


def graph_overview(graph: Graph) -> GraphOverview:
    """Relation distribution, degree histogram and most connected nodes: the figures the importer
    materialised (``Graph.stats``, no query) while they are current; otherwise whole-graph scans,
    cached under the graph's current size (any import changes the key)."""
    if stats_current(graph):
        s = graph.stats
        return GraphOverview(
            relations=[(r, int(n)) for r, n in s["relations"]],
            degrees=[(int(d), int(n)) for d, n in s["degrees"]],
            top=[(int(i), t, int(d)) for i, t, d in s["top"]],
        )
    key = f"explorer:overview:{graph.pk}:{graph.triple_count}:{graph.node_count}"
    data: GraphOverview | None = cache.get(key)
    if data is None:
        data = GraphOverview(
            relations=graph_relation_distribution(graph),
            degrees=graph_degree_histogram(graph),
            top=graph_top_nodes(graph),
        )
        cache.set(key, data, 24 * 3600)
    return data
