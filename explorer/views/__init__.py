"""Explorer pages over the knowledge graphs: index, graph overview, node search, node page.
Question, run-error and cross-run pages live in ``views.questions`` and ``views.errors``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from accounts.roles import RESEARCHER, role_required
from cocoweb.http import Request
from explorer.panels.base import Panel
from explorer.views.panel_pages import render_with_panels
from knowledge.models import Graph, Node
from knowledge.selectors import attach_model_scores, graph_list, node_display_texts, question_set_list

from .. import charts
from ..charts import overview as overview_charts
from ..charts.graph import NARROW_PX, GraphNode
from ..selectors import graph as gs
from ..selectors.sources import runs_available, verified_accuracy


@role_required(RESEARCHER)
def index(request: HttpRequest) -> HttpResponse:
    ctx: dict[str, Any] = {"graphs": graph_list(), "question_sets": question_set_list(), "runs": []}
    if runs_available():
        from runs.selectors.runs import runs_recent

        ctx["runs"] = runs_recent(50)
    ctx["verified"] = verified_accuracy()
    return render(request, "explorer/index.html", ctx)


def _node_href(graph: Graph, node_id: int) -> str:
    return reverse("explorer:node", args=[graph.name, node_id])


@role_required(RESEARCHER)
def graph_overview(request: HttpRequest, name: str) -> HttpResponse:
    graph = get_object_or_404(Graph, name=name)
    data = gs.graph_overview(graph)
    top = [(text, deg, _node_href(graph, nid)) for nid, text, deg in data["top"]]
    panels = [
        Panel(
            "relations",
            "Triples per relation",
            overview_charts.relation_distribution(data["relations"]),
            ["relation", "triples"],
            data["relations"],
            click="",
        ),
        Panel(
            "degrees",
            "Degree distribution (log–log)",
            overview_charts.degree_distribution(data["degrees"]),
            ["degree", "nodes"],
            data["degrees"],
            click="",
        ),
        Panel(
            "top-nodes",
            "Most connected nodes",
            overview_charts.top_nodes(top),
            ["node", "degree"],
            [(t, d) for t, d, _ in top],
            links=[h for _, _, h in top],
            click="navigate",
        ),
    ]
    return render_with_panels(request, "explorer/graph_overview.html", {"graph": graph}, panels, stem=graph.name)


@role_required(RESEARCHER)
def graph_search(request: Request, name: str) -> HttpResponse:
    """Full page, or just the result list for htmx (the search box updates as one types)."""
    graph = get_object_or_404(Graph, name=name)
    q = request.GET.get("q", "").strip()[:200]
    results = gs.node_search_shown(graph, q) if q else []
    ctx = {"graph": graph, "q": q, "results": results}
    if request.htmx and not request.htmx.boosted:
        return render(request, "explorer/_search_results.html", ctx)
    return render(request, "explorer/graph_search.html", ctx)


@role_required(RESEARCHER)
def node_detail(request: HttpRequest, name: str, node_id: int) -> HttpResponse:
    graph = get_object_or_404(Graph, name=name)
    node = get_object_or_404(Node, pk=node_id, graph=graph)
    hops = 2 if request.GET.get("hops") == "2" else 1
    groups = gs.node_edge_groups(node)
    attach_model_scores([t for gl in groups.values() for g in gl for t in g.edges])
    hood = gs.node_neighbourhood(node, groups, hops=hops)
    nodes = [GraphNode(n.id, n.text, n.hop, _node_href(graph, n.id) if n.hop else "", n.parent) for n in hood.nodes]
    edges = hood.edges
    degree_out = sum(g.total for g in groups["out"])
    degree_in = sum(g.total for g in groups["in"])
    texts = {n.id: n.text for n in nodes}
    panels = [
        Panel(
            "neighbourhood",
            f"Neighbourhood ({hops} hop{'s' if hops > 1 else ''}, capped)",
            charts.neighbourhood_figure(nodes, edges),
            ["head", "relation", "tail"],
            [(texts.get(e.head, ""), e.relation, texts.get(e.tail, "")) for e in edges],
            click="navigate",
            note=(
                f'{hood.left_out} edge{"s" if hood.left_out != 1 else ""} to "none" (ATOMIC\'s empty inference, '
                "not an entity) left out. "
                if hood.left_out
                else ""
            )
            + "Edges are labelled with their relation; hover a node or an edge's marker for its full text.",
            narrow=charts.neighbourhood_figure(nodes, edges, width_px=NARROW_PX),
        )
    ]
    ctx = {
        "graph": graph,
        "node": node,
        "groups": groups,
        "hops": hops,
        "degree_out": degree_out,
        "degree_in": degree_in,
        "degree": degree_out + degree_in,
        "shown_nodes": len(nodes) - 1,
        "shown_as": node_display_texts(node),  # issue 27: the text questions show, beside the graph's
    }
    return render_with_panels(request, "explorer/node_detail.html", ctx, panels, stem=f"node-{node.pk}")
